package app

import (
	"strings"
	"unicode/utf8"
)

// Text in lines: wrapping a text to a width (the one family every screen wraps with),
// packing items into lines, and scrolling a list of lines.

// centred writes lines centred on the screen from row y, each wrapped to the width, and
// returns the row after them.
func centred(c *canvas, y int, lines []string, cls class) int {
	for _, s := range lines {
		for _, l := range wrap(s, c.w-4) {
			c.text((c.w-textWidth(l))/2, y, l, cls)
			y++
		}
	}
	return y
}

// wrap breaks s into lines of at most w columns at spaces, so that every word stays whole
// on one line: the one helper every screen wraps its texts with. Widths are the
// terminal's (a wide character takes two columns); only a word longer than a whole line
// is broken. Spaces within a line are kept (tables line up), those at a break are
// dropped.
func wrap(s string, w int) []string { return wrapHang(s, w, 0) }

// wrapHang is wrap with every line after the first indented by hang columns, for a text
// that hangs from a label ("c  Cure   walk   Heals wounds..."). On a narrow screen, where
// that would leave the text fewer than hangRoom columns (a word a line), it hangs only
// shortHang columns in. A text that is only spaces is one line.
func wrapHang(s string, w, hang int) []string {
	lines, _ := wrapUpTo(s, w, hang, -1)
	return lines
}

// wrapUpTo is wrapHang that stops once the text takes more than limit lines (no limit
// when it is negative), and reports whether it took at most limit.
func wrapUpTo(s string, w, hang, limit int) ([]string, bool) {
	var out []string
	ok := wrapEach(s, w, hang, limit, func(indent, text string) { out = append(out, indent+text) })
	return out, ok
}

// wrapInto is wrap(s, w) appended to lines.
func wrapInto(lines []string, s string, w int) []string {
	wrapEach(s, w, 0, -1, func(_, text string) { lines = append(lines, text) })
	return lines
}

// fitsIn reports whether s wraps to w in at most limit lines, as wrapUpTo would, without
// making the lines.
func fitsIn(s string, w, limit int) bool {
	return wrapEach(s, w, 0, limit, func(string, string) {})
}

// hangRoom is the fewest columns a hanging text keeps beside its label; with fewer it
// hangs shortHang columns in instead.
const (
	hangRoom  = 10
	shortHang = 4
)

// wrapEach wraps s as wrapUpTo does, handing each line to line as its indent and its text.
func wrapEach(s string, w, hang, limit int, line func(indent, text string)) bool {
	w = max(w, 1)
	if w-hang < hangRoom {
		hang = min(hang, shortHang)
	}
	hang = max(0, min(hang, w-1))
	lines := 0
	indent := ""
	for {
		if limit >= 0 && lines == limit {
			return false
		}
		room := w - len(indent)
		brk, width, lastSpace, word := -1, 0, -1, false
		for i, r := range s {
			cw := cellWidth(r)
			if width+cw > room {
				brk = i
				break
			}
			if r == ' ' && word {
				lastSpace = i
			}
			word = word || r != ' '
			width += cw
		}
		switch {
		case brk < 0: // the rest fits
			line(indent, s)
			return true
		case s[brk] == ' ': // the first rune that does not fit is a space: break there
		case lastSpace > 0:
			brk = lastSpace
		case brk == 0: // not even one character fits (a wide one in one column): take it
			_, n := utf8.DecodeRuneInString(s)
			brk = n
		}
		line(indent, strings.TrimRight(s[:brk], " "))
		lines++
		s = strings.TrimLeft(s[brk:], " ")
		if s == "" {
			return true
		}
		indent = strings.Repeat(" ", hang)
	}
}

// fit is the first of forms, a text said longer and shorter, that fits in w columns, or
// the shortest: a one-line heading or footer says less on a phone rather than be cut.
func fit(w int, forms ...string) string {
	for _, f := range forms {
		if textWidth(f) <= w {
			return f
		}
	}
	return forms[len(forms)-1]
}

// paragraph writes s wrapped to w columns from (x, y) and returns how many lines it took.
func (c *canvas) paragraph(x, y, w int, s string, cls class) int {
	lines := wrap(s, w)
	for i, l := range lines {
		c.text(x, y+i, l, cls)
	}
	return len(lines)
}

// pager is a list of lines shown a page at a time: which line shows first, the keys that
// scroll it, and the part of the lines it shows. A screen that scrolls keeps one (the
// help, the inventory, the message log, the letters, the hall of fame, a battle's
// statistics, a market's lists) and hands it its lines and its page's size, which it
// works out at the screen's size, when it draws and when a key comes.
type pager struct {
	top int // the first line shown
	// tail makes a pager that shows the newest lines (the last page) until it is
	// scrolled up, and again once it is scrolled to the end; follow says it does now.
	tail, follow bool
	keys         scrollKeys // the keys that scroll it; nil: listKeys
	// shown is the page it was last drawn with, the page of a key that comes before its
	// screen lays the lines out (unmeasured).
	shown int
}

// A scroll is what a key does to a pager.
type scroll uint8

const (
	lineUp scroll = iota + 1
	lineDown
	pageUp
	pageDown
	toStart
	toEnd
)

// scrollKeys are the keys a pager takes, by what each does.
type scrollKeys map[string]scroll

// pageKeysHint is how a long list says it pages: space a page down and - a page up,
// keys a phone's keyboard has (it has no PgUp), in every list.
const pageKeysHint = "space/-"

var (
	// listKeys scroll a list on a screen whose letters are its own (the inventory's
	// letters use things): the arrows, PgUp and PgDn, space and -, Home and End.
	listKeys = scrollKeys{"up": lineUp, "down": lineDown, "pgup": pageUp, "pgdown": pageDown, "space": pageDown, " ": pageDown,
		"-": pageUp, "home": toStart, "end": toEnd}
	// letterKeys are listKeys and letters, for a screen with no letters of its own (the
	// help, the message log): k and j a line, b a page up, g and G to the start and the end.
	letterKeys = scrollKeys{"up": lineUp, "down": lineDown, "pgup": pageUp, "pgdown": pageDown, "space": pageDown, " ": pageDown,
		"-": pageUp, "home": toStart, "end": toEnd, "k": lineUp, "j": lineDown, "b": pageUp, "g": toStart, "G": toEnd}
	// lineKeys are listKeys without Home and End and with k and j, for a battle's
	// statistics, whose letters act.
	lineKeys = scrollKeys{"up": lineUp, "k": lineUp, "down": lineDown, "j": lineDown, "pgup": pageUp, "pgdown": pageDown,
		"space": pageDown, " ": pageDown, "-": pageUp}
)

// unmeasured is the length of lines a pager is told when a key comes before the screen
// has laid them out (a battle's statistics): it keeps top from going below the start
// only, and first keeps it within the lines when the screen draws.
const unmeasured = 1 << 30

// home shows the first line again (a screen opened afresh); a tailing pager shows the
// newest.
func (p *pager) home() { p.top, p.follow = 0, p.tail }

// scrollBy moves the pager by a key, over n lines shown page at a time, and reports
// whether the key was one of its keys.
func (p *pager) scrollBy(key string, n, page int) bool {
	keys := p.keys
	if keys == nil {
		keys = listKeys
	}
	move, ok := keys[key]
	if !ok {
		return false
	}
	page = max(1, page)
	last := max(0, n-page)
	if p.follow {
		p.top = last
	}
	switch move {
	case lineUp:
		p.top--
	case lineDown:
		p.top++
	case pageUp:
		p.top -= page
	case pageDown:
		p.top += page
	case toStart:
		p.top = 0
	case toEnd:
		p.top = n
	}
	p.top = max(0, min(p.top, n-page))
	p.follow = p.tail && p.top >= last
	return true
}

// first is the first of n lines shown page at a time, which the pager keeps from now on.
func (p *pager) first(n, page int) int {
	p.shown = page
	if p.follow {
		return max(0, n-page)
	}
	p.top = max(0, min(p.top, n-page))
	return p.top
}

// span is the lines shown, counted from 1, for the screen's "lines 3-20 of 41".
func (p *pager) span(n, page int) (from, to int) {
	top := p.first(n, page)
	return top + 1, min(top+page, n)
}

// draw writes the lines shown from row y at column x, page rows at most.
func (p *pager) draw(c *canvas, x, y int, lines []string, page int, cls class) {
	top := p.first(len(lines), page)
	for i := 0; i < page && top+i < len(lines); i++ {
		c.text(x, y+i, lines[top+i], cls)
	}
}

// drawLines is draw for lines of their own looks.
func (p *pager) drawLines(c *canvas, x, y int, lines []panelLine, page int) {
	top := p.first(len(lines), page)
	for i := 0; i < page && top+i < len(lines); i++ {
		c.text(x, y+i, lines[top+i].text, lines[top+i].cls)
	}
}

// rightAlign puts right at the end of a w-column line that starts with left. When both do
// not fit on one line, left is wrapped and right ends the line after it (or its last
// line, if it fits there): nothing is cut.
func rightAlign(left, right string, w int) []string {
	end := func(l string) string { return l + strings.Repeat(" ", max(0, w-textWidth(l)-textWidth(right))) + right }
	if textWidth(left)+1+textWidth(right) <= w {
		return []string{end(left)}
	}
	lines := wrap(left, w)
	if last := lines[len(lines)-1]; textWidth(last)+1+textWidth(right) <= w {
		return append(lines[:len(lines)-1], end(last))
	}
	return append(lines, end(""))
}

// pack lays out items in lines of at most w columns, two spaces apart, never splitting
// one (an item wider than a line is wrapped on lines of its own).
func pack(items []string, w int) []string { return packSep(items, w, "  ") }

// packSep is pack with sep (not empty) between the items on a line.
func packSep(items []string, w int, sep string) []string {
	var out []string
	// The line being packed is head (an item, or the last line of one wrapped) and after
	// it items[from:to], each after sep, width columns in all: it is made into one string
	// once it is done, not a string more for each item (the status line's seven fields,
	// the battle's keys on every frame of a battle).
	head, width, from, to := "", 0, 0, 0
	sepW := textWidth(sep)
	done := func() {
		if from == to {
			out = append(out, head)
			return
		}
		n := len(head) + (to-from)*len(sep)
		for _, it := range items[from:to] {
			n += len(it)
		}
		var b strings.Builder
		b.Grow(n)
		b.WriteString(head)
		for _, it := range items[from:to] {
			b.WriteString(sep)
			b.WriteString(it)
		}
		out = append(out, b.String())
	}
	for i, it := range items {
		itW := textWidth(it)
		if head != "" || from < to {
			if width+sepW+itW <= w { // items[from:i] are on the line: it joins them
				to, width = i+1, width+sepW+itW
				continue
			}
			done()
		}
		// An item that starts a line is wrapped, its lines but the last lines of their own.
		last, some := "", false
		wrapEach(it, w, 0, -1, func(_, text string) {
			if some {
				out = append(out, last)
			}
			last, some = text, true
		})
		head, width, from, to = last, textWidth(last), i+1, i+1
	}
	if head != "" || from < to {
		done()
	}
	return out
}

// wrapAll wraps each line to w columns.
func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, wrap(l, w)...)
	}
	return out
}
