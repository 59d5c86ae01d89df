package app

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// cell is one terminal column of the screen: a character and its class, in 4 bytes (a
// session keeps four screens of them). A wide character (most CJK, many emoji) fills two:
// its own cell and, to its right, a cell with rune 0 that the terminal fills.
type cell uint32

// mkCell is the cell of rune r in class cls.
func mkCell(r rune, cls class) cell { return cell(uint32(r)&runeBits | uint32(cls)<<24) }

// runeBits hold a cell's rune: every rune is below 1<<21.
const runeBits = 1<<24 - 1

func (c cell) r() rune    { return rune(c & runeBits) }
func (c cell) cls() class { return class(c >> 24) }

// wideRest is the rune of the right half of a wide character.
const wideRest rune = 0

// canvas is a rectangle of cells that turns into styled lines.
type canvas struct {
	w, h  int
	cells []cell
	wide  bool // a wide character has been set since the canvas was blank (cells written directly do not count)
	// cut counts the characters, not blanks, written off the canvas since it was blank:
	// on a screen's canvas every text is wrapped to fit, so tests require none.
	cut int
}

func newCanvas(w, h int) *canvas {
	return blankCanvas(w, h, make([]cell, w*h))
}

// blankCanvas makes a w×h canvas of blanks on cells, which must hold w*h of them.
func blankCanvas(w, h int, cells []cell) *canvas {
	c := new(canvas)
	c.blankOn(w, h, cells)
	return c
}

// blankOn makes c a w×h canvas of blanks on cells, which must hold w*h of them.
func (c *canvas) blankOn(w, h int, cells []cell) {
	for i := range cells {
		cells[i] = mkCell(' ', clsText)
	}
	*c = canvas{w: w, h: h, cells: cells}
}

// set puts one character at x, y and says how many columns it took. A character the
// terminal shows zero columns wide (a combining mark, a variation selector) is left out,
// and a wide one that does not fit before the edge becomes a blank, so every cell of the
// canvas is one column of the terminal. Writing over half of a wide character blanks the
// other half, as a terminal does.
func (c *canvas) set(x, y int, r rune, cls class) int {
	w := cellWidth(r)
	if w == 0 || uint(x) >= uint(c.w) || uint(y) >= uint(c.h) {
		if w > 0 && r != ' ' {
			c.cut++
		}
		return w
	}
	row := c.cells[y*c.w : (y+1)*c.w]
	if w == 1 && row[x].r() != wideRest && (x+1 == len(row) || row[x+1].r() != wideRest) {
		row[x] = mkCell(r, cls) // nothing wide to split: the common case, on every frame's path
		return 1
	}
	c.split(row, x)
	if w == 2 {
		c.wide = true
		if x+1 >= c.w {
			row[x] = mkCell(' ', cls)
			return w
		}
		c.split(row, x+1)
		row[x+1] = mkCell(wideRest, cls)
	}
	row[x] = mkCell(r, cls)
	return w
}

// cellWidth is how many columns r takes on the canvas, as on the player's terminal: 0, 1
// or 2.
func cellWidth(r rune) int {
	if r < 0x300 { // every rune below the combining marks is one column
		return 1
	}
	return displaywidth.Rune(r)
}

// textWidth is how many columns s takes on the canvas.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += cellWidth(r)
	}
	return n
}

// blank makes c a w×h canvas of blanks, reusing its cells when they are enough, and
// returns it.
func (c *canvas) blank(w, h int) *canvas {
	if cap(c.cells) < w*h {
		c.cells = make([]cell, w*h)
	}
	c.blankOn(w, h, c.cells[:w*h])
	return c
}

// sized makes c a w×h canvas, reusing its cells when they are enough, with whatever they
// held, and returns it.
func (c *canvas) sized(w, h int) *canvas {
	if cap(c.cells) < w*h {
		c.cells = make([]cell, w*h)
	}
	c.w, c.h, c.cells, c.wide = w, h, c.cells[:w*h], true // true: the cells may hold wide characters
	return c
}

// copyFrom makes c a copy of src, reusing c's cells when they are enough.
func (c *canvas) copyFrom(src *canvas) {
	if cap(c.cells) < len(src.cells) {
		c.cells = make([]cell, len(src.cells))
	}
	c.w, c.h, c.wide = src.w, src.h, src.wide
	c.cells = c.cells[:len(src.cells)]
	copy(c.cells, src.cells)
}

// split blanks the other half of a wide character that cell x of row is part of.
func (c *canvas) split(row []cell, x int) {
	switch {
	case row[x].r() == wideRest && x > 0:
		row[x-1] = mkCell(' ', row[x-1].cls())
	case x+1 < len(row) && row[x+1].r() == wideRest:
		row[x+1] = mkCell(' ', row[x+1].cls())
	}
}

// text writes s from column x of row y, cut at the canvas edge.
func (c *canvas) text(x, y int, s string, cls class) {
	if !c.wide && uint(y) < uint(c.h) && x >= 0 {
		// No wide character on the canvas to split: the ASCII of s goes straight into
		// the row (a frame writes a screenful of text this way).
		row := c.cells[y*c.w : (y+1)*c.w]
		for len(s) > 0 && s[0] < utf8.RuneSelf && s[0] >= ' ' {
			if x >= len(row) {
				if strings.TrimLeft(s, " ") != "" {
					c.cut++
				}
				return
			}
			row[x] = mkCell(rune(s[0]), cls)
			x++
			s = s[1:]
		}
	}
	for _, r := range s {
		x += c.set(x, y, r, cls)
	}
}

// render writes the canvas as lines of text; with a theme, each run of cells of one look
// is wrapped in that look's escape sequences (plain leaves them out).
func (c *canvas) render(t *theme, plain bool) string {
	b := make([]byte, 0, c.w*c.h*2+c.h)
	for y := range c.h {
		if y > 0 {
			b = append(b, '\n')
		}
		row := c.cells[y*c.w : (y+1)*c.w]
		if plain {
			b = appendRunes(b, row)
			continue
		}
		var pen class
		b, pen = t.appendCells(b, row, penNone)
		if pen != penNone {
			b = append(b, t.close[pen]...)
		}
	}
	return string(b)
}

// penNone is the pen of a terminal with no style set (after a reset).
const penNone = numClasses

// appendCells appends cells in their styles. pen is the class whose escape sequence is in
// effect (penNone for none); the pen in effect after is returned. A run of cells that
// look alike (the same class, or classes with the same sequences, and blanks where only
// the background shows) gets one sequence, and none if the pen already draws it. It is on
// every frame's path.
func (t *theme) appendCells(b []byte, row []cell, pen class) ([]byte, class) {
	for i := 0; i < len(row); {
		cls := row[i].cls()
		j := i + 1
		// A blank looks the same in every class that neither underlines nor reverses
		// (they share the background), so blanks join the run they stand in: fewer
		// escape sequences for the terminal to read.
		for ; j < len(row) && (t.alike[cls][row[j].cls()] || row[j].r() == ' ' && t.plainBlank[cls] && t.plainBlank[row[j].cls()]); j++ {
		}
		switch {
		case pen == penNone:
			b = append(b, t.open[cls]...)
			pen = cls
		case !t.alike[pen][cls]:
			b = append(b, t.change[pen][cls]...)
			pen = cls
		}
		b = appendRunes(b, row[i:j])
		i = j
	}
	return b, pen
}

// appendRunes appends the characters of cells (the right half of a wide one is the
// terminal's to fill).
func appendRunes(b []byte, row []cell) []byte {
	for _, c := range row {
		switch r := c.r(); {
		case r == wideRest:
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// lines is render split into lines, for tests.
func (c *canvas) lines(t *theme, plain bool) []string {
	return strings.Split(c.render(t, plain), "\n")
}

// Squares are drawn two columns wide with their edges in the columns and rows between
// them (DESIGN §11): square x starts at column 3x+1, square y sits on row 2y+1.
const (
	colsPerSquare = 3
	rowsPerSquare = 2
)

// levelPainter draws part of a level into a canvas: the level as the knight knows it,
// then what stands on its squares (marks and shadows) over it.
type levelPainter struct {
	l     *world.Level
	shown []byte // squares drawn (a bitset over the level's squares, see world.Bit)
	// bright, when dim is set, marks the squares seen now; the rest of shown (remembered)
	// is drawn faint.
	bright []byte
	dim    bool
	// follow keeps the focus in the middle where the level is narrower (or lower) than
	// the canvas, as long as no square shown goes off it: the dungeon view follows the
	// knight, where the map shows a small level whole and still.
	follow bool
	found  []int // secret doors this player has found (by EdgeIndex)
	light  bool  // seed 000: with light "secret doors will always appear"
	// marks are what stands on squares (the player, others, monsters, traps), drawn in
	// order: a later mark on a square hides an earlier one.
	marks []squareMark
	// shadows are what the knight's light shows beyond its sight (world.View.Shadows), two
	// columns each, drawn faint over any mark.
	shadows []squareMark
	// memo, when set, keeps the level as last drawn (without marks), for the next frame
	// that draws it the same.
	memo *mapMemo
}

type mark struct {
	text string // two columns
	cls  class
}

// squareMark is a mark on a square of the level.
type squareMark struct {
	p world.Pos
	mark
}

// mapMemo is the level picture a session last drew under the marks, and what it was drawn
// from. Most frames of a walking crowd are others' steps: the knight's own square, sight
// and memory are the same, and only the marks move. Drawing the level was a fifth of the
// server's work at a thousand players; a frame that can reuse it copies the cells.
type mapMemo struct {
	l             *world.Level
	w, h, ox, oy  int
	shown, bright []byte
	dim, light    bool
	found         []int
	level         canvas // the level without marks
	reused        int    // frames that reused the picture (tests count them)
}

// matches reports whether the memo holds the level lp draws into a w×h canvas from
// (ox, oy).
func (mm *mapMemo) matches(lp *levelPainter, w, h, ox, oy int) bool {
	return mm.l == lp.l && mm.w == w && mm.h == h && mm.ox == ox && mm.oy == oy &&
		mm.dim == lp.dim && mm.light == lp.light && bytes.Equal(mm.shown, lp.shown) &&
		bytes.Equal(mm.bright, lp.bright) && slices.Equal(mm.found, lp.found)
}

// keep records the level lp drew into c from (ox, oy).
func (mm *mapMemo) keep(lp *levelPainter, c *canvas, ox, oy int) {
	mm.l, mm.w, mm.h, mm.ox, mm.oy = lp.l, c.w, c.h, ox, oy
	mm.dim, mm.light = lp.dim, lp.light
	mm.shown = append(mm.shown[:0], lp.shown...)
	mm.bright = append(mm.bright[:0], lp.bright...)
	mm.found = append(mm.found[:0], lp.found...)
	mm.level.copyFrom(c)
}

// edgeLook is how a player sees an edge: secret doors are walls until found, and one in
// six shows as a wall with a box in it (seed 000).
func (lp *levelPainter) edgeLook(p world.Pos, d world.Dir) world.Edge {
	e := lp.l.Edge(p, d)
	if e.IsSecret() && (lp.light || slices.Contains(lp.found, lp.l.EdgeIndex(p, d))) {
		return world.EdgeDoor
	}
	if e == world.EdgeSecret {
		return world.EdgeWall
	}
	return e
}

// edgeAt is the edge drawn at canvas position (cx, cy) of the whole level picture, and
// whether it is drawn at all (only edges of shown squares are).
func (lp *levelPainter) edgeAt(cx, cy int) (world.Edge, bool) {
	l := lp.l
	if cx < 0 || cy < 0 {
		return 0, false
	}
	if cy%rowsPerSquare == 0 && cx%colsPerSquare != 0 { // horizontal edge above square (x, y)
		x, y := cx/colsPerSquare, cy/rowsPerSquare
		above, below := world.Pos{X: x, Y: y - 1}, world.Pos{X: x, Y: y}
		if !(lp.showable(above) || lp.showable(below)) {
			return 0, false
		}
		if y == l.H {
			return lp.edgeLook(above, world.South), true
		}
		return lp.edgeLook(below, world.North), true
	}
	if cy%rowsPerSquare == 1 && cx%colsPerSquare == 0 { // vertical edge left of square (x, y)
		x, y := cx/colsPerSquare, cy/rowsPerSquare
		left, right := world.Pos{X: x - 1, Y: y}, world.Pos{X: x, Y: y}
		if !(lp.showable(left) || lp.showable(right)) {
			return 0, false
		}
		if x == l.W {
			return lp.edgeLook(left, world.East), true
		}
		return lp.edgeLook(right, world.West), true
	}
	return 0, false
}

func (lp *levelPainter) showable(p world.Pos) bool {
	return lp.l.In(p) && world.Bit(lp.shown, p.Y*lp.l.W+p.X)
}

func solid(e world.Edge, drawn bool) bool { return drawn && e != world.EdgeOpen }

// cornerGlyphs is indexed by which of the four lines meet at a corner: up 1, right 2,
// down 4, left 8.
var cornerGlyphs = [16]rune{' ', '╵', '╶', '└', '╷', '│', '┌', '├', '╴', '┘', '─', '┴', '┐', '┤', '┬', '┼'}

func edgeGlyph(e world.Edge, horizontal, second bool) (rune, class) {
	switch e {
	case world.EdgeWall:
		if horizontal {
			return '─', clsWall
		}
		return '│', clsWall
	case world.EdgeDoor:
		if horizontal {
			return '╌', clsDoor
		}
		return '╎', clsDoor
	case world.EdgeLocked:
		if horizontal {
			return '═', clsDoor
		}
		return '║', clsDoor
	case world.EdgeSecretMarked:
		if horizontal && !second {
			return '─', clsWall
		}
		return '□', clsWall
	}
	return ' ', clsText
}

func featureMark(f world.Feature) (string, bool) {
	switch f {
	case world.FeatExit:
		return "EX", true
	case world.FeatStairsUp:
		return "<<", true
	case world.FeatStairsDown:
		return ">>", true
	case world.FeatChute:
		return "\\/", true
	case world.FeatPit:
		return "[]", true
	}
	return "", false
}

// paint draws the level into every cell of c, so that square center sits in the middle
// of c (or the whole level is centred when it fits, unless follow is set).
func (lp *levelPainter) paint(c *canvas, center world.Pos) {
	fullW, fullH := lp.l.W*colsPerSquare+1, lp.l.H*rowsPerSquare+1
	ox := offset(fullW, c.w, center.X*colsPerSquare+1)
	oy := offset(fullH, c.h, center.Y*rowsPerSquare+1)
	if lp.follow && (fullW <= c.w || fullH <= c.h) {
		x0, y0, x1, y1 := lp.shownBounds(center)
		if fullW <= c.w {
			ox = followOffset(c.w, center.X*colsPerSquare+1, x0*colsPerSquare, x1*colsPerSquare+1)
		}
		if fullH <= c.h {
			oy = followOffset(c.h, center.Y*rowsPerSquare+1, y0*rowsPerSquare, y1*rowsPerSquare+1)
		}
	}
	switch mm := lp.memo; {
	case mm == nil:
		c.blank(c.w, c.h)
		lp.paintLevel(c, ox, oy)
	case mm.matches(lp, c.w, c.h, ox, oy):
		c.copyFrom(&mm.level) // every cell: c need not have been blank
		mm.reused++
	default:
		c.blank(c.w, c.h)
		lp.paintLevel(c, ox, oy)
		mm.keep(lp, c, ox, oy)
	}
	for _, m := range lp.marks {
		if lp.showable(m.p) {
			lp.paintMark(c, ox, oy, m)
		}
	}
	for _, m := range lp.shadows {
		lp.paintMark(c, ox, oy, m)
	}
}

// paintLevel draws the level as the knight knows it, without marks, from canvas
// position (ox, oy) of the whole level picture.
func (lp *levelPainter) paintLevel(c *canvas, ox, oy int) {
	fullW, fullH := lp.l.W*colsPerSquare+1, lp.l.H*rowsPerSquare+1
	for y := range c.h {
		cy := y + oy
		if cy < 0 || cy >= fullH {
			continue
		}
		for x := range c.w {
			cx := x + ox
			if cx < 0 || cx >= fullW {
				continue
			}
			r, cls := lp.glyphAt(cx, cy)
			c.set(x, y, r, lp.look(cx, cy, r, cls))
		}
	}
}

// look is the class a glyph at canvas position (cx, cy) is drawn in: with dim set, what
// the knight does not see now is faint (but itself, and plain blanks, which look the
// same dimmed and are most cells, keep their class without asking).
func (lp *levelPainter) look(cx, cy int, r rune, cls class) class {
	if lp.dim && cls != clsSelf && (r != ' ' || cls != clsText) && !lp.nearBright(cx, cy) {
		return clsDim
	}
	return cls
}

// paintMark draws m over the two columns of its square, as if the square had been drawn
// with it: a mark replaces what the square showed, and a wide character in its second
// column gives way to the edge after it.
func (lp *levelPainter) paintMark(c *canvas, ox, oy int, m squareMark) {
	cx, cy := m.p.X*colsPerSquare+1, m.p.Y*rowsPerSquare+1
	x, y := cx-ox, cy-oy
	if x+1 < 0 || x >= c.w || y < 0 || y >= c.h {
		return
	}
	for half := range 2 {
		r := runeAt(m.text, half)
		c.set(x+half, y, ' ', clsText) // what a zero-width rune leaves
		c.set(x+half, y, r, lp.look(cx+half, cy, r, m.cls))
	}
	if cellWidth(runeAt(m.text, 1)) == 2 && cx+2 < lp.l.W*colsPerSquare+1 {
		r, cls := lp.glyphAt(cx+2, cy)
		c.set(x+2, y, r, lp.look(cx+2, cy, r, cls))
	}
}

// shownBounds are the squares shown and square p, as a box: from (x0, y0) to (x1, y1),
// both included.
func (lp *levelPainter) shownBounds(p world.Pos) (x0, y0, x1, y1 int) {
	x0, y0, x1, y1 = p.X, p.Y, p.X, p.Y
	w := lp.l.W
	for i := range w * lp.l.H {
		if world.Bit(lp.shown, i) {
			x, y := i%w, i/w
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
	}
	return x0, y0, x1, y1
}

// followOffset is the first canvas column (or row) a window of size win shows of a level
// picture that fits in it, keeping focus in the middle as far as the drawn part of the
// picture, from lo to hi (both included), stays in the window.
func followOffset(win, focus, lo, hi int) int {
	return max(hi-win+1, min(focus-win/2, lo))
}

// offset is the first canvas column (or row) of the level picture that a window of
// size win shows, keeping focus in the middle but not scrolling past the ends.
func offset(full, win, focus int) int {
	if full <= win {
		return -(win - full) / 2
	}
	return max(0, min(focus-win/2, full-win))
}

// nearBright reports whether canvas position (cx, cy) is part of, or borders, a square
// seen now: a square's own cells, its edges and its corners.
func (lp *levelPainter) nearBright(cx, cy int) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			x, y := cx+dx, cy+dy
			if x < 0 || y < 0 || x%colsPerSquare == 0 || y%rowsPerSquare == 0 {
				continue
			}
			if p := (world.Pos{X: x / colsPerSquare, Y: y / rowsPerSquare}); lp.l.In(p) && world.Bit(lp.bright, p.Y*lp.l.W+p.X) {
				return true
			}
		}
	}
	return false
}

// glyphAt is what the level shows at canvas position (cx, cy) of the whole level
// picture, before marks: a corner, an edge, a feature or a blank.
func (lp *levelPainter) glyphAt(cx, cy int) (rune, class) {
	switch {
	case cy%rowsPerSquare == 0 && cx%colsPerSquare == 0:
		bits := 0
		if e, ok := lp.edgeAt(cx, cy-1); solid(e, ok) {
			bits |= 1
		}
		if e, ok := lp.edgeAt(cx+1, cy); solid(e, ok) {
			bits |= 2
		}
		if e, ok := lp.edgeAt(cx, cy+1); solid(e, ok) {
			bits |= 4
		}
		if e, ok := lp.edgeAt(cx-1, cy); solid(e, ok) {
			bits |= 8
		}
		return cornerGlyphs[bits], clsWall
	case cy%rowsPerSquare == 0 || cx%colsPerSquare == 0:
		e, ok := lp.edgeAt(cx, cy)
		if !ok {
			return ' ', clsText
		}
		return edgeGlyph(e, cy%rowsPerSquare == 0, cx%colsPerSquare == 2)
	}
	p := world.Pos{X: cx / colsPerSquare, Y: cy / rowsPerSquare}
	half := cx%colsPerSquare - 1
	if !lp.showable(p) {
		return ' ', clsText
	}
	if s, ok := featureMark(lp.l.Feature(p)); ok {
		return runeAt(s, half), clsFeature
	}
	return ' ', clsText
}

func runeAt(s string, i int) rune {
	for _, r := range s {
		if i == 0 {
			return r
		}
		i--
	}
	return ' '
}

// initials are the two columns that stand for another player: the first two letters of
// the name (a crowd's names are on every frame: a name of two letters or more is not
// copied).
func initials(name string) string {
	end, n := 0, 0
	for n < 2 && end < len(name) {
		_, size := utf8.DecodeRuneInString(name[end:])
		end += size
		n++
	}
	if n == 2 && utf8.ValidString(name[:end]) {
		return name[:end]
	}
	var b strings.Builder
	for _, r := range name { // invalid bytes become U+FFFD
		if n = utf8.RuneCountInString(b.String()); n == 2 {
			break
		}
		b.WriteRune(r)
	}
	s := b.String()
	for utf8.RuneCountInString(s) < 2 {
		s += " "
	}
	return s
}

// blit copies src into c with its top-left corner at (x, y).
func (c *canvas) blit(src *canvas, x, y int) {
	if !c.wide && x >= 0 && y >= 0 && x+src.w <= c.w && y+src.h <= c.h {
		// No wide character here to split: the rows are copied as they are (src holds
		// each of its wide characters whole).
		for sy := range src.h {
			copy(c.cells[(y+sy)*c.w+x:], src.cells[sy*src.w:(sy+1)*src.w])
		}
		c.wide = src.wide
		return
	}
	for sy := range src.h {
		for sx := range src.w {
			if cl := src.cells[sy*src.w+sx]; cl.r() != wideRest { // a wide character brings its second half
				c.set(x+sx, y+sy, cl.r(), cl.cls())
			}
		}
	}
}
