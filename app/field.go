package app

import (
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// lineInput is a one-line text field: the chat line (and the letters written on it), the
// admin console's line, the name prompt, the mute list's name and screen-reader mode's
// command line. The screens draw its line themselves, the end that fits with "_" after
// it, as a line editor shows where the typing is.
//
// A key costs the same however long the line is. The line is two stacks, the runes
// before the cursor and those after it (nearest the cursor on top), so typing, erasing
// and moving one rune touch only the tops; each stack keeps where its runes that take a
// column are, so the end that fits in w columns is found by looking at w runes at most,
// a run of combining marks skipped in one step. Drawing a whole long line again for
// every key, its tail cut one rune at a time, had one client typing at the key rate take
// a core.
type lineInput struct {
	prompt string // drawn before the line
	limit  int    // most runes the line holds (0: no limit)
	before runeStack
	after  runeStack // reversed: after.r[0] is the line's last rune
	// work counts the runes the field has measured, moved or copied since it was made:
	// the tests hold a key's work to be the same on a short line and a long one.
	work int
	tmp  []rune // the tail being gathered, kept from frame to frame
}

// runeStack is one side of a field's cursor.
type runeStack struct {
	r    []rune
	cols []int32 // indices into r of the runes that take a column or two, in order
}

// push puts r on top. wide is cellWidth(r) > 0.
func (s *runeStack) push(r rune, wide bool) {
	if wide {
		s.cols = append(s.cols, int32(len(s.r)))
	}
	s.r = append(s.r, r)
}

// pop takes the top rune off; the stack is not empty.
func (s *runeStack) pop() (r rune, wide bool) {
	n := len(s.r) - 1
	r = s.r[n]
	s.r = s.r[:n]
	if k := len(s.cols) - 1; k >= 0 && s.cols[k] == int32(n) {
		s.cols = s.cols[:k]
		wide = true
	}
	return r, wide
}

// cut keeps the first n runes.
func (s *runeStack) cut(n int) {
	s.r = s.r[:n]
	k := len(s.cols)
	for k > 0 && s.cols[k-1] >= int32(n) {
		k--
	}
	s.cols = s.cols[:k]
}

// top is the top rune; ok is false on an empty stack.
func (s *runeStack) top() (r rune, ok bool) {
	if len(s.r) == 0 {
		return 0, false
	}
	return s.r[len(s.r)-1], true
}

// measure is cellWidth, counted as the field's work.
func (l *lineInput) measure(r rune) int {
	l.work++
	return cellWidth(r)
}

// size is how many runes the line holds.
func (l *lineInput) size() int { return len(l.before.r) + len(l.after.r) }

// empty reports whether the line holds nothing.
func (l *lineInput) empty() bool { return l.size() == 0 }

// value is the line as typed (for Enter: it copies every rune).
func (l *lineInput) value() string {
	b := make([]byte, 0, l.size())
	for _, r := range l.before.r {
		b = utf8.AppendRune(b, r)
	}
	for i := len(l.after.r) - 1; i >= 0; i-- {
		b = utf8.AppendRune(b, l.after.r[i])
	}
	l.work += l.size()
	return string(b)
}

// reset empties the line, keeping its memory for the next.
func (l *lineInput) reset() {
	l.before.cut(0)
	l.after.cut(0)
}

// open starts a line afresh, empty and at the end of its history h.
func (l *lineInput) open(h *lineHistory) {
	h.reset()
	l.reset()
}

// close empties the line and lets its memory go, once the line is closed: most sessions
// type a long line seldom, if ever.
func (l *lineInput) close() {
	l.before, l.after, l.tmp = runeStack{}, runeStack{}, nil
}

// set makes s the line, the cursor at its end (a line recalled, a reply begun).
func (l *lineInput) set(s string) {
	l.reset()
	l.insert(s)
}

// insert types s at the cursor, as far as the limit allows: a line break or a tab
// becomes a space; other control characters and invalid UTF-8 are left out.
func (l *lineInput) insert(s string) {
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n' || r == '\t':
			r = ' '
		case r == utf8.RuneError || unicode.IsControl(r):
			continue
		}
		if !l.push(r) {
			return
		}
	}
}

// push types r at the cursor, unless the line is full.
func (l *lineInput) push(r rune) bool {
	if l.limit > 0 && l.size() >= l.limit {
		return false
	}
	l.before.push(r, l.measure(r) > 0)
	return true
}

// left moves the cursor one rune left; false at the start.
func (l *lineInput) left() bool {
	if len(l.before.r) == 0 {
		return false
	}
	l.work++
	l.after.push(l.before.pop())
	return true
}

// right moves the cursor one rune right; false at the end.
func (l *lineInput) right() bool {
	if len(l.after.r) == 0 {
		return false
	}
	l.work++
	l.before.push(l.after.pop())
	return true
}

// backspace erases the rune before the cursor.
func (l *lineInput) backspace() {
	if len(l.before.r) > 0 {
		l.before.pop()
	}
}

// key edits the line with an editing key, as bubbles' textinput does (its keys, and
// theirs only: ctrl+v, which read the server's clipboard, is not one); any other key
// types its text. Enter, Esc, up and down are the screens' to take first.
func (l *lineInput) key(k tea.KeyPressMsg) {
	switch k.String() {
	case "right", "ctrl+f":
		l.right()
	case "left", "ctrl+b":
		l.left()
	case "alt+right", "ctrl+right", "alt+f":
		l.skip(l.right, &l.after, true)
		l.skip(l.right, &l.after, false)
	case "alt+left", "ctrl+left", "alt+b":
		l.skip(l.left, &l.before, true)
		l.skip(l.left, &l.before, false)
	case "alt+backspace", "ctrl+w", "ctrl+backspace":
		l.deleteWordBackward()
	case "alt+delete", "alt+d", "ctrl+delete":
		l.deleteWordForward()
	case "ctrl+k":
		l.after.cut(0)
	case "ctrl+u":
		l.before.cut(0)
	case "backspace", "ctrl+h":
		l.backspace()
	case "delete", "ctrl+d":
		if len(l.after.r) > 0 {
			l.after.pop()
		}
	case "home", "ctrl+a":
		for l.left() {
		}
	case "end", "ctrl+e":
		for l.right() {
		}
	case "tab", "down", "ctrl+n", "up", "ctrl+p", "ctrl+v":
		// textinput's suggestions and clipboard: nothing here
	default:
		l.insert(k.Text)
	}
}

// skip moves the cursor by step over the runes of s (before, or after, the cursor) that
// are spaces (space true), or that are not.
func (l *lineInput) skip(step func() bool, s *runeStack, space bool) {
	for {
		r, ok := s.top()
		if !ok || unicode.IsSpace(r) != space || !step() {
			return
		}
	}
}

// deleteWordBackward erases the word before the cursor and the spaces after it, keeping
// the space before it (ctrl+w), as textinput does.
func (l *lineInput) deleteWordBackward() {
	b := l.before.r
	if len(b) == 0 {
		return
	}
	j := len(b) - 1
	for j > 0 && unicode.IsSpace(b[j]) {
		j--
	}
	for j > 0 && !unicode.IsSpace(b[j]) {
		j--
	}
	if j > 0 { // stopped on the space before the word: it stays
		j++
	}
	l.work += len(b) - j
	l.before.cut(j)
}

// deleteWordForward erases the rune after the cursor, the spaces after it and the word
// after them (alt+d), as textinput does.
func (l *lineInput) deleteWordForward() {
	a := l.after.r // reversed: the rune after the cursor is on top
	if len(a) == 0 {
		return
	}
	j := len(a) - 1
	for j > 0 && unicode.IsSpace(a[j-1]) {
		j--
	}
	for j > 0 && !unicode.IsSpace(a[j-1]) {
		j--
	}
	l.work += len(a) - j
	l.after.cut(j)
}

// tail is the end of the prompt, the line and then end that fits in w columns of the
// canvas: where the typing is, as every line editor shows it. It is drawn as the whole
// of that end would be (its runes of no width, which the canvas leaves out, are left
// out here), from at most w+1 runes looked at however long the line.
func (l *lineInput) tail(w int, end string) string {
	t := l.tmp[:0]
	cols := 0
	fits := func(r rune) bool {
		c := l.measure(r)
		if cols+c > w {
			return false
		}
		cols += c
		if c > 0 {
			t = append(t, r)
		}
		return true
	}
	done := false
	for i := len(end); i > 0 && !done; {
		r, size := utf8.DecodeLastRuneInString(end[:i])
		i -= size
		done = !fits(r)
	}
	for _, i := range l.after.cols { // from the line's last rune back to the cursor
		if done {
			break
		}
		done = !fits(l.after.r[i])
	}
	for k := len(l.before.cols) - 1; k >= 0 && !done; k-- {
		done = !fits(l.before.r[l.before.cols[k]])
	}
	for i := len(l.prompt); i > 0 && !done; {
		r, size := utf8.DecodeLastRuneInString(l.prompt[:i])
		i -= size
		done = !fits(r)
	}
	l.tmp = t
	n := 0
	for _, r := range t {
		n += utf8.RuneLen(r)
	}
	var b strings.Builder
	b.Grow(n)
	for i := len(t) - 1; i >= 0; i-- {
		b.WriteRune(t[i])
	}
	return b.String()
}

// lastRunes is the prompt and the line as screen-reader mode shows them on a terminal w
// columns wide: when they are w runes or more, their last w-1 (where the cursor is), from
// at most w runes looked at however long the line.
func (l *lineInput) lastRunes(w int) string {
	p := utf8.RuneCountInString(l.prompt)
	n := p + l.size()
	skip := 0 // runes of the prompt and the line left out
	if w > 0 && n >= w {
		skip = n - (w - 1)
	}
	l.work += n - skip
	var b strings.Builder
	b.Grow(n - skip) // exact for ASCII
	for _, r := range l.prompt {
		if skip > 0 {
			skip--
			continue
		}
		b.WriteRune(r)
	}
	from := min(skip, len(l.before.r))
	skip -= from
	for _, r := range l.before.r[from:] {
		b.WriteRune(r)
	}
	for i := len(l.after.r) - 1 - skip; i >= 0; i-- {
		b.WriteRune(l.after.r[i])
	}
	return b.String()
}
