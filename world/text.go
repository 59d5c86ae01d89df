package world

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds what the world does to text people type before anyone else's terminal
// shows it: the sanitiser every piece of player- or admin-supplied text goes through
// (chat, broadcasts, kick reasons, console output), and the folding that keeps knights'
// names apart.

// Caps on typed text, after cleaning.
const (
	// MaxBroadcastRunes caps the length of an admin's broadcast.
	MaxBroadcastRunes = 200
	// MaxChatRunes caps one line of chat.
	MaxChatRunes = 200
	// maxMarks is how many combining marks may follow one another: enough for any script
	// (Vietnamese stacks two, Thai two), too few to pile "Zalgo" text over the lines
	// above and below.
	maxMarks = 3
)

// CleanText makes text that one person typed safe to show on another's terminal: it
// removes escape sequences (CSI, OSC, DCS, SOS, PM, APC and the short ESC forms, in their
// 7-bit and 8-bit spellings), C0 and C1 control characters, bidirectional overrides and
// isolates, zero-width and other invisible format characters, private-use and unassigned
// code points, runs of more than three combining marks, and invalid UTF-8. Tabs and line
// breaks become spaces, runs of spaces become one, and the result is trimmed and cut to
// at most limit runes (no cap when limit ≤ 0).
func CleanText(text string, limit int) string { return cleanText(text, limit, true) }

// CleanLine removes from one line of output what CleanText removes, but keeps its spaces
// as they are (a tab or line break becomes one space), so columns still line up.
func CleanLine(line string) string { return strings.TrimRight(cleanText(line, 0, false), " ") }

func cleanText(text string, limit int, collapse bool) string {
	c := cleaner{limit: limit, collapse: collapse}
	for i := 0; i < len(text) && (limit <= 0 || c.n < limit); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if next, ok := skipUnsafe(text, i, r, size); ok {
			i = next
			continue
		}
		if !c.take(r) {
			break // no room for a space and a rune
		}
		i += size
	}
	if !collapse {
		return c.b.String()
	}
	return strings.TrimSpace(c.b.String())
}

// skipUnsafe skips what no reader's terminal should see, starting with the rune r
// (size bytes) at text[i]: invalid UTF-8, escape sequences and strings, controls, format
// characters (bidi, zero-width), private use, surrogates and unassigned code points,
// none of which draws anything a reader should trust. It returns the index after it, or
// false for a rune to keep (line breaks and tabs among them: they become spaces).
func skipUnsafe(text string, i int, r rune, size int) (int, bool) {
	switch {
	case r == utf8.RuneError && size <= 1:
		return i + 1, true // invalid UTF-8
	case r == 0x1b: // ESC
		return skipEscape(text, i+size), true
	case r == 0x9b: // 8-bit CSI
		return skipCSI(text, i+size), true
	case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // 8-bit DCS, SOS, OSC, PM, APC
		return skipString(text, i+size), true
	case lineBreak(r):
		return i, false
	case !unicode.IsGraphic(r) || invisible(r):
		return i + size, true
	}
	return i, false
}

// lineBreak reports the runes that break a line or jump along it: they become a space.
func lineBreak(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

// cleaner writes the runes cleanText keeps: spaces collapsed (when collapse is set),
// combining marks no more than maxMarks in a row, at most limit runes (none when limit
// ≤ 0).
type cleaner struct {
	b        strings.Builder
	n        int  // runes written
	marks    int  // combining marks in a row just written
	space    bool // a space is pending (collapse only)
	limit    int
	collapse bool
}

// take writes r, a line break as a space; a combining mark past maxMarks in a row is
// dropped. It returns false, writing nothing, when a pending space and r would not both
// fit within the limit.
func (c *cleaner) take(r rune) bool {
	if lineBreak(r) {
		c.marks = 0
		c.emit(' ')
		return true
	}
	mark := unicode.In(r, unicode.Mn, unicode.Me)
	if mark && c.marks >= maxMarks {
		return true
	}
	if c.limit > 0 && c.space && c.n+1 >= c.limit {
		return false
	}
	if mark {
		c.marks++
	} else {
		c.marks = 0
	}
	c.emit(r)
	return true
}

// emit writes r after the space pending, if any; a space, when collapsing, is only made
// pending (and only after something was written), so runs of spaces become one.
func (c *cleaner) emit(r rune) {
	if c.collapse && unicode.IsSpace(r) {
		c.space = c.n > 0
		return
	}
	if c.space {
		c.b.WriteByte(' ')
		c.n++
		c.space = false
	}
	c.b.WriteRune(r)
	c.n++
}

// invisible reports runes that draw nothing (or draw blank) and are not format
// characters by category, but can still be used to hide or spoof text.
func invisible(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, // Hangul fillers
		0x180e,         // Mongolian vowel separator
		0x2800,         // braille blank
		0xfffc, 0xfffd: // object replacement, replacement character
		return true
	}
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef // variation selectors
}

// skipEscape skips the escape sequence whose ESC ended just before i and returns the
// index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: a string up to ST or BEL
		return skipString(s, i+1)
	}
	// nF sequences: intermediate bytes 0x20–0x2F, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips a control sequence's parameter and intermediate bytes and its final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		i++
		if c >= 0x40 && c <= 0x7e {
			return i
		}
		if c < 0x20 || c > 0x3f {
			return i - 1 // not a well-formed sequence: the byte is read again as text
		}
	}
	return i
}

// skipString skips a control string up to and including its terminator: ST (ESC \ or
// 0x9c) or BEL; an unterminated string runs to the end of the text.
func skipString(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x07 || r == 0x9c:
			return i + size
		case r == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // the string ends; the ESC starts the next sequence
		}
		i += size
	}
	return i
}

// NameKey is the form of a knight's name that uniqueness is decided on. Names are ASCII
// (CleanName), so impersonation comes down to case and to characters that look alike in
// a terminal font: letters are folded to lower case; 0 and o, 1 and l and i, 5 and s, 8
// and b, rn and m, vv and w, cl and d are folded together; spaces, apostrophes and
// hyphens do not count. Two names with the same key are the same name.
func NameKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch r {
		case ' ', '\'', '-':
			continue
		case '0':
			r = 'o'
		case '1', 'i':
			r = 'l'
		case '5':
			r = 's'
		case '8':
			r = 'b'
		}
		b.WriteRune(r)
	}
	return lookAlikes.Replace(b.String())
}

// lookAlikes folds the pairs of letters NameKey counts as one.
var lookAlikes = strings.NewReplacer("rn", "m", "vv", "w", "cl", "d")
