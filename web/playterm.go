package web

import (
	"image/color"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// playTerm is a browser's terminal as the server keeps it: each cell's character, colours
// and the attributes the page paints, from what the game writes. It follows the
// sequences the game sends (app's terminal), as x/vt's emulator takes them: printable
// text and its wrap at the right edge, cursor moves (CUP, HVP, CUU, CUD, CUF, CUB, CHA,
// VPA, CR, LF, BS, TAB, IND, NEL, RI, DECSC and DECRC), the bell (BEL, noted for the
// next frame), erases in the background colour
// in effect (ECH, EL, ED, RIS), SGR (read by ultraviolet's ReadStyle, as x/vt reads it),
// the alternate screen, and line feeds that scroll. Other modes and strings (OSC, DCS)
// are read and dropped; so are sequences the game never sends (insert and delete, scroll
// regions), and it answers no query: the game asks the terminal nothing. The tests hold it
// to x/vt's cells for the game's own frames and for random frames of these sequences.
//
// It is not x/vt's emulator because of what that costs a thousand browsers: 4 MiB each
// (its parser keeps a 4 MiB buffer for strings), and frames made by reading every cell's
// style through interfaces (docs/PERFORMANCE.md, "Browser sessions"). A cell here is 12
// bytes and holds no pointer, the normal screen is kept only while it is not blank, and
// each write marks the rows it changed, so that only they are encoded for the page.
//
// It is used under its playScreen's lock.
type playTerm struct {
	w, h int
	scr  [2]termScreen // the normal screen and the alternate one
	cur  int           // the screen shown: 0 normal, 1 alternate
	// phantom says a character went into the last column: the next one wraps first.
	phantom bool
	last    int // the cell the last character went into, -1 when none may be joined
	// dirty are the rows changed since the last clean.
	dirty []bool
	tail  []byte // an unfinished sequence or character at the end of the last write
	// glyphs are the characters beyond ASCII the terminal has seen, from code 128 on, and
	// glyphOf their codes.
	glyphs  []string
	glyphOf map[string]uint16
	// bell says the game rang the bell (a BEL on its own, not one that ends a string)
	// since the last frame: the page is told, as a terminal rings.
	bell bool
}

// termScreen is one of a terminal's screens: its cells (nil while the screen is blank
// and not shown), its cursor, and the cursor DECSC saved.
type termScreen struct {
	cells      []termCell
	cur, saved termCursor
}

// termCursor is a screen's cursor: where it is, and the pen its text is written with.
type termCursor struct {
	x, y int
	pen  uv.Style // as SGR leaves it
	look termLook // pen, as the cells keep it
}

// termLook is how a cell looks: colours, each 0 for the page's own or colourSet|0xrrggbb,
// and the page's attributes (playBold...).
type termLook struct {
	fg, bg uint32
	attrs  uint8
}

// colourSet marks a colour that is set.
const colourSet = 1 << 24

// termCell is one cell: its look and its glyph, printable ASCII its own code, blank ' ',
// glyphWideRest the second column of a wide character, and from glyphFirst the
// terminal's glyphs; glyphWide is set on a wide character's first column.
type termCell struct {
	look termLook
	g    uint16
}

const (
	glyphWideRest uint16 = 0
	glyphBlank    uint16 = ' '
	glyphFirst    uint16 = 128
	glyphWide     uint16 = 1 << 15
	// maxGlyphs is how many characters beyond ASCII a terminal tells apart; the rest
	// show as '?'.
	maxGlyphs = 4096
	// maxTermTail is the longest unfinished sequence kept for the next write; a longer
	// one (a string that never ends) is dropped.
	maxTermTail = 4096
	// maxSGRParams is how many parameters of an SGR sequence are read.
	maxSGRParams = 32
)

// newPlayTerm is a blank w×h terminal with the cursor at the top left.
func newPlayTerm(w, h int) *playTerm {
	t := &playTerm{w: w, h: h, last: -1, dirty: make([]bool, h), glyphOf: map[string]uint16{}}
	t.scr[0].cells = blankCells(w*h, termLook{})
	return t
}

// blankCells are n blank cells of look l (its background: erases keep only that).
func blankCells(n int, l termLook) []termCell {
	cells := make([]termCell, n)
	fillBlank(cells, l)
	return cells
}

func fillBlank(cells []termCell, l termLook) {
	b := termCell{look: termLook{bg: l.bg}, g: glyphBlank}
	for i := range cells {
		cells[i] = b
	}
}

// screen is the screen shown.
func (t *playTerm) screen() *termScreen { return &t.scr[t.cur] }

// cells are the cells shown.
func (t *playTerm) cells() []termCell { return t.scr[t.cur].cells }

// Write reads what the game writes. It never fails.
func (t *playTerm) Write(b []byte) (int, error) {
	n := len(b)
	t.last = -1 // what this write brings joins nothing before it
	if len(t.tail) > 0 {
		b = append(t.tail, b...)
		t.tail = nil
	}
	b = t.holdCutCharacter(b)
	for len(b) > 0 {
		// ASCII goes straight in, unless a mark that joins it follows.
		if c := b[0]; c >= ' ' && c < 0x7f && (len(b) == 1 || b[1] < 0x80) {
			t.put(uint16(c), 1)
			b = b[1:]
			continue
		}
		// No parser is given: x/ansi's (v0.11.9) indexes past its parameters on a
		// sequence with more than 32 of them. csi reads its own.
		seq, width, m, state := ansi.DecodeSequence(b, ansi.NormalState, nil)
		if state != ansi.NormalState && m == len(b) {
			t.keep(b) // a sequence cut by the write
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
			t.put(t.glyphFor(seq), width)
		case seq[0] >= 0xc0 && utf8.Valid(seq) && t.last >= 0:
			t.join(seq) // a mark with no width, after its character
		case seq[0] >= 0xc0 && utf8.Valid(seq):
			// A mark with no width and no character before it in this write: x/vt has
			// shown that character whole at the last write's end, and puts the mark in
			// a cell of no width at the cursor, which the page is not sent.
			t.put(glyphWideRest, 0)
		case len(seq) == 1:
			t.control(seq[0])
		case seq[0] == ansi.CSI || len(seq) > 1 && seq[0] == ansi.ESC && seq[1] == '[':
			t.csi(seq)
		case len(seq) == 2 && seq[0] == ansi.ESC:
			t.esc(seq[1])
		}
	}
	return n, nil
}

// join joins the mark seq, which has no width, to the character last written.
func (t *playTerm) join(seq []byte) {
	cells := t.cells()
	cells[t.last].g = t.glyphFor(append([]byte(t.text(cells[t.last].g)), seq...))
	t.dirty[t.last/t.w] = true
}

// holdCutCharacter keeps a character cut by the write, at the end of b, for the next
// write, and returns b without it.
func (t *playTerm) holdCutCharacter(b []byte) []byte {
	for i := len(b) - 1; i >= max(0, len(b)-utf8.UTFMax+1); i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0xc0 && !utf8.FullRune(b[i:]) {
				t.tail = append([]byte(nil), b[i:]...)
				return b[:i]
			}
			break
		}
	}
	return b
}

// keep holds an unfinished sequence for the next write, before the cut character
// already held, if any.
func (t *playTerm) keep(b []byte) {
	if len(b)+len(t.tail) > maxTermTail {
		t.tail = nil
		return
	}
	t.tail = append(append([]byte(nil), b...), t.tail...)
}

// glyphFor is the code of a character beyond ASCII.
func (t *playTerm) glyphFor(seq []byte) uint16 {
	if g, ok := t.glyphOf[string(seq)]; ok {
		return g
	}
	if len(t.glyphs) >= maxGlyphs {
		return '?'
	}
	g := glyphFirst + uint16(len(t.glyphs))
	s := string(seq)
	t.glyphs = append(t.glyphs, s)
	t.glyphOf[s] = g
	return g
}

// text is what a glyph shows: "" for the second column of a wide character.
func (t *playTerm) text(g uint16) string {
	g &^= glyphWide
	switch {
	case g == glyphWideRest:
		return ""
	case g < glyphFirst:
		return asciiText[g]
	}
	return t.glyphs[g-glyphFirst]
}

// asciiText are the one-character strings of ASCII.
var asciiText = func() (s [128]string) {
	for c := range s {
		s[c] = string(rune(c))
	}
	return s
}()

// put writes a character of width columns at the cursor and moves past it.
func (t *playTerm) put(g uint16, width int) {
	c := &t.screen().cur
	if t.phantom {
		c.x = 0
		t.index()
	}
	x, y := c.x, c.y
	switch {
	case x+width > t.w:
		// A wide character in the last column does not fit: a blank in its look goes
		// there, as in x/vt, and the cursor waits there to wrap.
		t.set(x, y, termCell{look: c.look, g: glyphBlank})
	case width == 2:
		t.set(x, y, termCell{look: c.look, g: g | glyphWide})
		t.last = y*t.w + x
		// Over whatever was there, as x/vt: a wide character's first half it cuts
		// stays as it was.
		t.cells()[y*t.w+x+1] = termCell{g: glyphWideRest}
	case width == 0:
		t.set(x, y, termCell{look: c.look, g: glyphWideRest})
	default:
		t.set(x, y, termCell{look: c.look, g: g})
		t.last = y*t.w + x
	}
	t.phantom = x >= t.w-1
	if !t.phantom {
		c.x = min(x+width, t.w-1)
	}
}

// set puts a cell at x, y as x/vt's buffer does (ultraviolet's Line.Set): a wide
// character it writes over, either half, becomes two blanks in that character's look.
func (t *playTerm) set(x, y int, cell termCell) {
	row := t.cells()[y*t.w : (y+1)*t.w]
	t.cutWide(row, x)
	row[x] = cell
	t.dirty[y] = true
}

// cutWide blanks, in its look, the wide character that cell x of row is part of, if any.
func (t *playTerm) cutWide(row []termCell, x int) {
	switch prev := row[x]; {
	case prev.g&glyphWide != 0:
		blank := termCell{look: prev.look, g: glyphBlank}
		row[x] = blank
		if x+1 < len(row) {
			row[x+1] = blank
		}
	case prev.g == glyphWideRest && x > 0 && row[x-1].g&glyphWide != 0:
		blank := termCell{look: row[x-1].look, g: glyphBlank}
		row[x-1], row[x] = blank, blank
	}
}

// clear blanks cells from to to-1, in the background colour in effect, a row at a time
// as x/vt does: a wide character cut at either end becomes blanks in its own look.
func (t *playTerm) clear(from, to int) {
	cells := t.cells()
	look := t.screen().cur.look
	for from < to {
		y := from / t.w
		end := min(to, (y+1)*t.w)
		row := cells[y*t.w : (y+1)*t.w]
		x0, x1 := from-y*t.w, end-y*t.w
		t.cutWide(row, x0)
		if x1 > x0+1 {
			t.cutWide(row, x1-1)
		}
		fillBlank(row[x0:x1], look)
		t.dirty[y] = true
		from = end
	}
}

// moveTo puts the cursor at x, y, within the screen.
func (t *playTerm) moveTo(x, y int) {
	c := &t.screen().cur
	c.x, c.y = max(0, min(x, t.w-1)), max(0, min(y, t.h-1))
	t.phantom, t.last = false, -1
}

// index moves the cursor down a line, scrolling the screen up at the bottom.
func (t *playTerm) index() {
	t.last = -1
	c := &t.screen().cur
	if c.y < t.h-1 {
		c.y++
		return
	}
	cells := t.cells()
	copy(cells, cells[t.w:])
	t.clear(len(cells)-t.w, len(cells))
	t.touchAll()
}

// reverseIndex moves the cursor up a line, scrolling the screen down at the top.
func (t *playTerm) reverseIndex() {
	t.last = -1
	c := &t.screen().cur
	if c.y > 0 {
		c.y--
		return
	}
	cells := t.cells()
	copy(cells[t.w:], cells)
	t.clear(0, t.w)
	t.touchAll()
}

// touchAll marks every row changed.
func (t *playTerm) touchAll() {
	for y := range t.dirty {
		t.dirty[y] = true
	}
}

func (t *playTerm) control(c byte) {
	cur := &t.screen().cur
	switch c {
	case '\r':
		t.moveTo(0, cur.y)
	case '\n', '\v', '\f':
		t.phantom = false
		t.index()
	case '\b':
		t.moveTo(cur.x-1, cur.y)
	case '\t': // to the next tab stop; a cursor waiting to wrap waits on (x/vt)
		cur.x = min((cur.x/8+1)*8, t.w-1)
	case '\a':
		t.bell = true
	}
}

func (t *playTerm) esc(c byte) {
	s := t.screen()
	switch c {
	case '7':
		s.saved = s.cur
	case '8':
		s.cur = s.saved
		t.moveTo(s.cur.x, s.cur.y)
	case 'D':
		t.phantom = false
		t.index()
	case 'E':
		t.phantom = false
		t.index()
		t.moveTo(0, s.cur.y)
	case 'M':
		t.phantom = false
		t.reverseIndex()
	case 'c': // a full reset
		*t = *newPlayTerm(t.w, t.h)
		t.touchAll()
	}
}

// csiParams is how many of a control sequence's parameters csi keeps.
const csiParams = maxSGRParams

// csiArgs are a control sequence's parameters, as ansi.Params: decimal numbers split by
// ';', or by ':' before a sub-parameter. Only the first csiParams are kept.
type csiArgs struct {
	p [csiParams]ansi.Param
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
		a.end(cur, has, seq[0] == ':')
		cur, has = 0, false
	}
	if has || a.n > 0 {
		a.end(cur, has, false)
	}
	return seq
}

// end ends a parameter: cur, or left out when it has no digit; more says a
// sub-parameter follows.
func (a *csiArgs) end(cur int, has, more bool) {
	if a.n < csiParams {
		if !has {
			cur = parser.MissingParam
		}
		a.p[a.n] = ansi.Param(ansi.Parameter(cur, more))
	}
	a.n++
}

// params are the parameters kept.
func (a *csiArgs) params() ansi.Params { return a.p[:min(a.n, csiParams)] }

// get is parameter i, or def when it is left out or not kept.
func (a *csiArgs) get(i, def int) int {
	if i >= min(a.n, csiParams) {
		return def
	}
	return a.p[i].Param(def)
}

// csi applies a control sequence (CSI): seq is the whole of it.
func (t *playTerm) csi(seq []byte) {
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
	case prefix == 0 && seq[0] == 'm':
		t.sgr(&args)
	case prefix == 0:
		t.command(seq[0], &args)
	case prefix == '?' && (seq[0] == 'h' || seq[0] == 'l'):
		t.setModes(seq[0] == 'h', &args)
	}
}

// sgr sets the pen (SGR), as x/vt does.
func (t *playTerm) sgr(args *csiArgs) {
	c := &t.screen().cur
	uv.ReadStyle(args.params(), &c.pen)
	c.look = termLook{fg: packColour(c.pen.Fg), bg: packColour(c.pen.Bg), attrs: uint8(playAttrs(c.pen))}
}

// packColour is c as a cell keeps it: 0 for none, else colourSet|0xrrggbb.
func packColour(c color.Color) uint32 {
	if c == nil {
		return 0
	}
	r, g, b, _ := c.RGBA()
	return colourSet | (r>>8)<<16 | (g>>8)<<8 | b>>8
}

// setModes sets (DECSET, on) or resets (DECRST) the private modes args names; of them
// the terminal keeps only the alternate screen's (47, 1047, 1049) and DECSC's (1048).
func (t *playTerm) setModes(on bool, args *csiArgs) {
	for i := range min(args.n, csiParams) {
		switch m := args.get(i, 0); m {
		case 1049:
			if on {
				t.screen().saved = t.screen().cur
			}
			t.altScreen(on)
		case 47, 1047:
			t.altScreen(on)
		case 1048:
			if s := t.screen(); on {
				s.saved = s.cur
			} else {
				s.cur = s.saved
				t.moveTo(s.cur.x, s.cur.y)
			}
		}
	}
}

// altScreen switches to the alternate screen (on) or back, as x/vt does: the alternate
// screen starts blank, with the normal screen's cursor and pen, at the top left; the
// normal screen keeps its own cursor. A blank screen not shown keeps no cells.
func (t *playTerm) altScreen(on bool) {
	to := 0
	if on {
		to = 1
	}
	if to == t.cur {
		return
	}
	from := t.cur
	if isBlank(t.scr[from].cells) {
		t.scr[from].cells = nil
	}
	t.cur = to
	if on {
		t.scr[1].cur = t.scr[0].cur
		cells := t.scr[1].cells
		if cells == nil {
			cells = make([]termCell, t.w*t.h)
		}
		t.scr[1].cells = cells
		fillBlank(cells, termLook{}) // blank, whatever the pen's colour (x/vt)
		t.moveTo(0, 0)
	} else if t.scr[0].cells == nil {
		t.scr[0].cells = blankCells(t.w*t.h, termLook{})
	}
	t.phantom, t.last = false, -1
	t.touchAll()
}

// isBlank reports whether cells are all blank with no colour.
func isBlank(cells []termCell) bool {
	for _, c := range cells {
		if c != (termCell{g: glyphBlank}) {
			return false
		}
	}
	return true
}

// command applies a control sequence without a prefix, final its final byte: a cursor
// move or an erase.
func (t *playTerm) command(final byte, args *csiArgs) {
	c := t.screen().cur
	n := max(args.get(0, 1), 1)
	switch final {
	case 'H', 'f':
		t.moveTo(max(args.get(1, 1), 1)-1, n-1)
	case 'A':
		t.moveTo(c.x, c.y-n)
	case 'B', 'e':
		t.moveTo(c.x, c.y+n)
	case 'C', 'a':
		t.moveTo(c.x+n, c.y)
	case 'D':
		t.moveTo(c.x-n, c.y)
	case 'G', '`':
		t.moveTo(n-1, c.y)
	case 'd':
		t.moveTo(c.x, n-1)
	case 'X':
		i := c.y*t.w + c.x
		t.clear(i, min(i+n, (c.y+1)*t.w))
		t.phantom = false
	case 'K':
		t.eraseLine(args.get(0, 0))
	case 'J':
		t.eraseDisplay(args.get(0, 0))
	}
}

// eraseLine erases in the cursor's line (EL): from the cursor to the end (0), from the
// start to the cursor (1), or all of it (2).
func (t *playTerm) eraseLine(how int) {
	c := t.screen().cur
	row := c.y * t.w
	switch how {
	case 0:
		t.clear(row+c.x, row+t.w)
	case 1:
		t.clear(row, row+c.x+1)
	case 2:
		t.clear(row, row+t.w)
	}
}

// eraseDisplay erases in the screen (ED): from the cursor to the end (0), from the start
// to the cursor's line's end (1: as x/vt does), or all of it (2, 3). Only the first two
// erase in the pen's background colour, as in x/vt.
func (t *playTerm) eraseDisplay(how int) {
	c := t.screen().cur
	at := c.y*t.w + c.x
	switch how {
	case 0:
		t.clear(at, t.w*t.h)
	case 1:
		t.clear(0, (c.y+1)*t.w)
	case 2, 3: // blank, whatever the pen's colour (x/vt)
		t.clear(0, t.w*t.h)
		fillBlank(t.cells(), termLook{})
	}
}
