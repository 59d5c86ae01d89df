package main

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// textScreen is the text a terminal shows, kept from the output a walker reads: each
// cell's character and nothing of its colours. A walker reads its screen to steer, and
// a thousand walkers read every byte the server sends them, on the server's own box.
// The x/vt emulator the tool used before keeps each cell's style, links and changed
// lines, and cost 80 ns a byte: over half of the tool's CPU at a thousand walkers, taken
// from the server it measures (docs/PERFORMANCE.md). This screen keeps only text, splits
// the output with x/ansi's decoder and takes its widths, and reads printable ASCII
// without it.
//
// It follows what the game writes (app's terminal): printable text and its wrap at the
// right edge, cursor moves (CUP, CUU, CUD, CUF, CUB, CHA, VPA, CR, LF, BS, TAB, IND, RI,
// save and restore), erases (ECH, EL, ED, and RIS), the alternate screen, and line
// feeds that scroll. Colours, modes and strings (OSC, DCS) are read and dropped; so are
// sequences the game never sends (insert and delete, scroll regions). It answers no
// query: the game asks the terminal nothing. The tests hold it to x/vt's text for the
// game's own frames and for random frames of the same sequences.
type textScreen struct {
	w, h int
	// cells are w×h glyphs, row by row: printable ASCII is its own code, blank ' ',
	// wideRest the second column of a wide character, and others index glyphs. Cells
	// hold no pointers, so writing one costs a store and the collector never reads them.
	cells []glyph
	other []glyph // the screen not shown: the normal screen while the alternate one shows
	alt   bool
	rows  [][]byte // each row's text as screen gives it, when not stale, in a buffer of its own kept
	stale []bool

	x, y    int
	last    int  // the cell the last character went into, -1 when none may be joined
	phantom bool // a character went into the last column: the next one wraps first
	// saved are the cursors saved (ESC 7) on the normal screen and on the alternate
	// one, and normal is where the cursor was on the normal screen while the other shows.
	saved  [2][2]int
	normal [2]int

	tail []byte // an unfinished sequence or character at the end of the last write
	// glyphs are the characters beyond ASCII the screen has seen, from code 128 on, and
	// glyphOf their codes.
	glyphs  []string
	glyphOf map[string]glyph
}

// maxTail is the longest unfinished sequence kept for the next write; a longer one (a
// string that never ends) is dropped.
const maxTail = 4096

// glyph is what a cell shows: see textScreen.cells.
type glyph uint16

const (
	wideRest   glyph = 0
	blank      glyph = ' '
	firstGlyph glyph = 128
	// maxGlyphs is how many characters beyond ASCII a screen tells apart; the rest show
	// as '?'.
	maxGlyphs = 4096
)

// asciiText are the one-character strings of ASCII.
var asciiText = func() (t [128]string) {
	for c := range t {
		t[c] = string(rune(c))
	}
	return t
}()

// newTextScreen is a blank w×h screen with the cursor at the top left.
func newTextScreen(w, h int) *textScreen {
	s := &textScreen{
		w: w, h: h,
		cells:   make([]glyph, w*h),
		other:   make([]glyph, w*h),
		rows:    make([][]byte, h),
		stale:   make([]bool, h),
		glyphOf: map[string]glyph{},
		last:    -1,
	}
	s.clear(0, w*h)
	for i := range s.other {
		s.other[i] = blank
	}
	return s
}

// Write reads output from the server. It never fails.
func (s *textScreen) Write(b []byte) (int, error) {
	n := len(b)
	if len(s.tail) > 0 {
		b = append(s.tail, b...)
		s.tail = nil
	}
	b = s.holdCutCharacter(b)
	for len(b) > 0 {
		// ASCII goes straight in, unless a mark that joins it follows.
		if c := b[0]; c >= ' ' && c < 0x7f && (len(b) == 1 || b[1] < 0x80) {
			s.put(glyph(c), 1)
			b = b[1:]
			continue
		}
		// No parser is given: x/ansi's (v0.11.9) indexes past its parameters on a
		// sequence with more than 32 of them. csi reads its own.
		seq, width, m, state := ansi.DecodeSequence(b, ansi.NormalState, nil)
		if state != ansi.NormalState && m == len(b) {
			s.keep(b) // a sequence cut by the read
			return n, nil
		}
		if m == 0 || len(seq) == 0 {
			b = b[1:]
			continue
		}
		b = b[m:]
		switch {
		case width > 0 && !utf8.Valid(seq): // dropped, as x/vt drops it
		case width > 0:
			s.put(s.glyphFor(seq), width)
		case seq[0] >= 0xc0 && utf8.Valid(seq) && s.last >= 0:
			s.join(seq) // a mark with no width, its character before the read ended
		case len(seq) == 1:
			s.control(seq[0])
		case seq[0] == ansi.CSI || len(seq) > 1 && seq[0] == ansi.ESC && seq[1] == '[':
			s.csi(seq)
		case len(seq) == 2 && seq[0] == ansi.ESC:
			s.esc(seq[1])
		}
	}
	return n, nil
}

// holdCutCharacter keeps a character cut by the read, at the end of b, for the next
// write, and returns b without it: the grapheme before it would otherwise take its
// first bytes.
func (s *textScreen) holdCutCharacter(b []byte) []byte {
	for i := len(b) - 1; i >= max(0, len(b)-utf8.UTFMax+1); i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0xc0 && !utf8.FullRune(b[i:]) {
				s.tail = append([]byte(nil), b[i:]...)
				return b[:i]
			}
			break
		}
	}
	return b
}

// join joins the mark seq, which has no width, to the character last written.
func (s *textScreen) join(seq []byte) {
	s.cells[s.last] = s.glyphFor(append([]byte(s.text(s.cells[s.last])), seq...))
	s.stale[s.last/s.w] = true
}

// keep holds an unfinished sequence for the next write, before the cut character
// already held, if any.
func (s *textScreen) keep(b []byte) {
	if len(b)+len(s.tail) > maxTail {
		s.tail = nil
		return
	}
	s.tail = append(append([]byte(nil), b...), s.tail...)
}

// glyphFor is the code of a character beyond ASCII.
func (s *textScreen) glyphFor(seq []byte) glyph {
	if g, ok := s.glyphOf[string(seq)]; ok {
		return g
	}
	if len(s.glyphs) >= maxGlyphs {
		return '?'
	}
	g := firstGlyph + glyph(len(s.glyphs))
	t := string(seq)
	s.glyphs = append(s.glyphs, t)
	s.glyphOf[t] = g
	return g
}

// text is what a glyph shows: "" for the second column of a wide character.
func (s *textScreen) text(g glyph) string {
	if g < firstGlyph {
		return asciiText[g]
	}
	return s.glyphs[g-firstGlyph]
}

// put writes a character of width columns at the cursor and moves past it.
func (s *textScreen) put(ch glyph, width int) {
	if s.phantom {
		s.x = 0
		s.index()
	}
	x, y := s.x, s.y
	// A wide character in the last column does not fit and is not written, as in x/vt;
	// the cursor still waits there to wrap.
	if x+width <= s.w {
		s.setCell(x, y, ch)
		s.last = y*s.w + x
		if width == 2 {
			s.cells[y*s.w+x+1] = wideRest // over a wide character's first half, as x/vt: no more
		}
	}
	s.phantom = x >= s.w-1
	if !s.phantom {
		s.x = min(x+width, s.w-1)
	}
}

// setCell sets one cell, blanking the other half of a wide character it cuts.
func (s *textScreen) setCell(x, y int, ch glyph) {
	i := y*s.w + x
	if s.cells[i] == wideRest && x > 0 && s.cells[i-1] != wideRest {
		s.cells[i-1] = blank
	}
	if x+1 < s.w && s.cells[i] != wideRest && s.cells[i+1] == wideRest {
		s.cells[i+1] = blank
	}
	s.cells[i] = ch
	s.stale[y] = true
}

// clear blanks cells from to to-1.
func (s *textScreen) clear(from, to int) {
	if from >= to {
		return
	}
	// A wide character whose first half goes loses its second (x/vt).
	if to < len(s.cells) && to%s.w > 0 && s.cells[to] == wideRest {
		s.cells[to] = blank
	}
	cells := s.cells[from:to] // one bounds check, not one a cell
	for i := range cells {
		cells[i] = blank
	}
	for y := from / s.w; y <= (to-1)/s.w; y++ {
		s.stale[y] = true
	}
}

// moveTo puts the cursor at x, y, within the screen.
func (s *textScreen) moveTo(x, y int) {
	s.x, s.y, s.phantom, s.last = max(0, min(x, s.w-1)), max(0, min(y, s.h-1)), false, -1
}

// index moves the cursor down a line, scrolling the screen up at the bottom.
func (s *textScreen) index() {
	s.last = -1
	if s.y < s.h-1 {
		s.y++
		return
	}
	copy(s.cells, s.cells[s.w:])
	s.clear(len(s.cells)-s.w, len(s.cells))
	for y := range s.stale {
		s.stale[y] = true
	}
}

// reverseIndex moves the cursor up a line, scrolling the screen down at the top.
func (s *textScreen) reverseIndex() {
	s.last = -1
	if s.y > 0 {
		s.y--
		return
	}
	copy(s.cells[s.w:], s.cells)
	s.clear(0, s.w)
	for y := range s.stale {
		s.stale[y] = true
	}
}

func (s *textScreen) control(c byte) {
	switch c {
	case '\r':
		s.moveTo(0, s.y)
	case '\n', '\v', '\f':
		s.phantom = false
		s.index()
	case '\b':
		s.moveTo(s.x-1, s.y)
	case '\t': // to the next tab stop; a cursor waiting to wrap waits on (x/vt)
		s.x = min((s.x/8+1)*8, s.w-1)
	}
}

func (s *textScreen) esc(c byte) {
	switch c {
	case '7':
		s.saved[s.screenIndex()] = [2]int{s.x, s.y}
	case '8':
		at := s.saved[s.screenIndex()]
		s.moveTo(at[0], at[1])
	case 'D':
		s.phantom = false
		s.index()
	case 'M':
		s.phantom = false
		s.reverseIndex()
	case 'c': // a full reset
		s.alt = false
		s.clear(0, len(s.cells))
		s.moveTo(0, 0)
	}
}

// csiParams is how many of a control sequence's parameters csi reads.
const csiParams = 4

// csiArgs are a control sequence's parameters: decimal numbers split by ';' (or ':'),
// -1 where one is left out. Only the first csiParams are kept.
type csiArgs struct {
	p [csiParams]int
	n int // how many the sequence has, kept or not
}

// parse reads the parameters at the start of seq and returns the rest of it.
func (a *csiArgs) parse(seq []byte) []byte {
	cur, has := 0, false
	for ; len(seq) > 0 && (seq[0] >= '0' && seq[0] <= '9' || seq[0] == ';' || seq[0] == ':'); seq = seq[1:] {
		if c := seq[0]; c >= '0' && c <= '9' {
			cur, has = min(cur*10+int(c-'0'), 1<<16), true
			continue
		}
		a.end(cur, has)
		cur, has = 0, false
	}
	a.end(cur, has)
	return seq
}

// end ends a parameter: cur, or left out when it has no digit.
func (a *csiArgs) end(cur int, has bool) {
	if a.n < csiParams {
		a.p[a.n] = cur
		if !has {
			a.p[a.n] = -1
		}
	}
	a.n++
}

// get is parameter i, or def when it is left out or not kept.
func (a *csiArgs) get(i, def int) int {
	if i >= min(a.n, csiParams) || a.p[i] < 0 {
		return def
	}
	return a.p[i]
}

// csi applies a control sequence (CSI): seq is the whole of it.
func (s *textScreen) csi(seq []byte) {
	if seq[0] == ansi.ESC {
		seq = seq[2:]
	} else {
		seq = seq[1:]
	}
	var prefix byte
	if len(seq) > 0 && seq[0] >= '<' && seq[0] <= '?' {
		prefix, seq = seq[0], seq[1:]
	}
	var args csiArgs
	seq = args.parse(seq)
	switch {
	case len(seq) != 1: // intermediates, or no final byte: nothing the game sends
	case prefix == 0:
		s.command(seq[0], &args)
	case prefix == '?' && (seq[0] == 'h' || seq[0] == 'l'):
		s.setModes(seq[0] == 'h', &args)
	}
}

// setModes sets (DECSET, on) or resets (DECRST) the private modes args names; of them
// the screen keeps only the alternate screen's.
func (s *textScreen) setModes(on bool, args *csiArgs) {
	for i := range min(args.n, csiParams) {
		switch m := args.get(i, 0); m {
		case 1049, 1047:
			s.altScreen(on, m == 1049)
		}
	}
}

// command applies a control sequence without a prefix, final its final byte: a cursor
// move or an erase.
func (s *textScreen) command(final byte, args *csiArgs) {
	n := max(args.get(0, 1), 1)
	switch final {
	case 'H', 'f':
		s.moveTo(max(args.get(1, 1), 1)-1, n-1)
	case 'A':
		s.moveTo(s.x, s.y-n)
	case 'B', 'e':
		s.moveTo(s.x, s.y+n)
	case 'C', 'a':
		s.moveTo(s.x+n, s.y)
	case 'D':
		s.moveTo(s.x-n, s.y)
	case 'G', '`':
		s.moveTo(n-1, s.y)
	case 'd':
		s.moveTo(s.x, n-1)
	case 'X':
		i := s.y*s.w + s.x
		s.clear(i, min(i+n, (s.y+1)*s.w))
	case 'K':
		s.eraseLine(args.get(0, 0))
	case 'J':
		s.eraseDisplay(args.get(0, 0))
	}
}

// eraseLine erases in the cursor's line (EL): from the cursor to the end (0), from the
// start to the cursor (1), or all of it (2).
func (s *textScreen) eraseLine(how int) {
	row := s.y * s.w
	switch how {
	case 0:
		s.clear(row+s.x, row+s.w)
	case 1:
		s.clear(row, row+s.x+1)
	case 2:
		s.clear(row, row+s.w)
	}
}

// eraseDisplay erases in the screen (ED): from the cursor to the end (0), from the start
// to the cursor (1), or all of it (2, 3).
func (s *textScreen) eraseDisplay(how int) {
	at := s.y*s.w + s.x
	switch how {
	case 0:
		s.clear(at, len(s.cells))
	case 1:
		s.clear(0, at+1)
	case 2, 3:
		s.clear(0, len(s.cells))
	}
}

// altScreen switches to the alternate screen (on) or back, as x/vt does: the alternate
// screen starts blank with the cursor at the top left, the normal screen keeps its own
// cursor, and with save (1049) the cursor going is also saved as ESC 7 saves it.
func (s *textScreen) altScreen(on, save bool) {
	if on == s.alt {
		return
	}
	s.alt = on
	s.cells, s.other = s.other, s.cells
	if on {
		s.normal = [2]int{s.x, s.y}
		if save {
			s.saved[0] = s.normal
		}
		s.clear(0, len(s.cells))
		s.moveTo(0, 0)
	} else {
		s.moveTo(s.normal[0], s.normal[1])
	}
	for y := range s.stale {
		s.stale[y] = true
	}
}

// screenIndex is 0 on the normal screen and 1 on the alternate one.
func (s *textScreen) screenIndex() int {
	if s.alt {
		return 1
	}
	return 0
}

// cell is the character at x, y: "" for the second column of a wide character.
func (s *textScreen) cell(x, y int) string {
	if x < 0 || y < 0 || x >= s.w || y >= s.h {
		return ""
	}
	return s.text(s.cells[y*s.w+x])
}

// screen is the screen's text, a line a row with trailing blanks left out. Rows are
// made again only when they changed, each in its own buffer: a walker reads its screen
// at every key, and a string made for every row changed was a tenth of the tool's CPU.
func (s *textScreen) screen() string {
	size := s.h
	for y := range s.h {
		if s.stale[y] {
			s.rows[y] = bytes.TrimRight(s.appendRow(s.rows[y][:0], y), " ")
			s.stale[y] = false
		}
		size += len(s.rows[y])
	}
	var sb strings.Builder
	sb.Grow(size)
	for y, r := range s.rows {
		if y > 0 {
			sb.WriteByte('\n')
		}
		sb.Write(r)
	}
	return sb.String()
}

// lines is the text of rows from to to-1, one line each, blanks and all.
func (s *textScreen) lines(from, to int) string {
	var sb strings.Builder
	for y := max(from, 0); y < min(to, s.h); y++ {
		sb.WriteString(s.row(y))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// row is row y's text, blanks and all.
func (s *textScreen) row(y int) string { return string(s.appendRow(make([]byte, 0, s.w), y)) }

// appendRow appends row y's text, blanks and all, to b.
func (s *textScreen) appendRow(b []byte, y int) []byte {
	for _, g := range s.cells[y*s.w : (y+1)*s.w] {
		switch {
		case g == wideRest:
		case g < firstGlyph:
			b = append(b, byte(g))
		default:
			b = append(b, s.glyphs[g-firstGlyph]...)
		}
	}
	return b
}
