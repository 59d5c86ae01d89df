package app

import (
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// cell is one terminal column of the screen. A wide character (most CJK, many emoji)
// fills two: its own cell and, to its right, a cell with rune 0 that the terminal fills.
type cell struct {
	r   rune
	cls class
}

// wideRest is the rune of the right half of a wide character.
const wideRest rune = 0

// canvas is a rectangle of cells that turns into styled lines.
type canvas struct {
	w, h  int
	cells []cell
}

func newCanvas(w, h int) *canvas {
	return blankCanvas(w, h, make([]cell, w*h))
}

// blankCanvas makes a w×h canvas of blanks on cells, which must hold w*h of them.
func blankCanvas(w, h int, cells []cell) *canvas {
	for i := range cells {
		cells[i] = cell{' ', clsText}
	}
	return &canvas{w: w, h: h, cells: cells}
}

// set puts one character at x, y and says how many columns it took. A character the
// terminal shows zero columns wide (a combining mark, a variation selector) is left out,
// and a wide one that does not fit before the edge becomes a blank, so every cell of the
// canvas is one column of the terminal. Writing over half of a wide character blanks the
// other half, as a terminal does.
func (c *canvas) set(x, y int, r rune, cls class) int {
	w := cellWidth(r)
	if w == 0 || uint(x) >= uint(c.w) || uint(y) >= uint(c.h) {
		return w
	}
	row := c.cells[y*c.w : (y+1)*c.w]
	if w == 1 && row[x].r != wideRest && (x+1 == len(row) || row[x+1].r != wideRest) {
		row[x] = cell{r, cls} // nothing wide to split: the common case, on every frame's path
		return 1
	}
	c.split(row, x)
	if w == 2 {
		if x+1 >= c.w {
			row[x] = cell{' ', cls}
			return w
		}
		c.split(row, x+1)
		row[x+1] = cell{wideRest, cls}
	}
	row[x] = cell{r, cls}
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

// split blanks the other half of a wide character that cell x of row is part of.
func (c *canvas) split(row []cell, x int) {
	switch {
	case row[x].r == wideRest && x > 0:
		row[x-1].r = ' '
	case x+1 < len(row) && row[x+1].r == wideRest:
		row[x+1].r = ' '
	}
}

// text writes s from column x of row y, cut at the canvas edge.
func (c *canvas) text(x, y int, s string, cls class) {
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
		cls := row[i].cls
		j := i + 1
		// A blank looks the same in every class that neither underlines nor reverses
		// (they share the background), so blanks join the run they stand in: fewer
		// escape sequences for the terminal to read.
		for ; j < len(row) && (t.alike[cls][row[j].cls] || row[j].r == ' ' && t.plainBlank[cls] && t.plainBlank[row[j].cls]); j++ {
		}
		if pen == penNone || !t.alike[pen][cls] {
			if pen != penNone {
				b = append(b, t.close[pen]...)
			}
			b = append(b, t.open[cls]...)
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
		switch r := c.r; {
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

// levelPainter draws part of a level into a canvas.
type levelPainter struct {
	l     *world.Level
	shown []byte // squares drawn (a bitset over the level's squares, see world.Bit)
	// bright, when dim is set, marks the squares seen now; the rest of shown (remembered)
	// is drawn faint.
	bright []byte
	dim    bool
	found  map[int]bool       // secret doors this player has found (by EdgeIndex)
	light  bool               // seed 000: with light "secret doors will always appear"
	marks  map[world.Pos]mark // what stands on a square (the player, others)
	// shadows are what the knight's light shows beyond its sight (world.View.Shadows), two
	// columns each, drawn faint on squares it does not see.
	shadows map[world.Pos]string
}

type mark struct {
	text string // two columns
	cls  class
}

// edgeLook is how a player sees an edge: secret doors are walls until found, and one in
// six shows as a wall with a box in it (seed 000).
func (lp *levelPainter) edgeLook(p world.Pos, d world.Dir) world.Edge {
	e := lp.l.Edge(p, d)
	if e.IsSecret() && (lp.light || lp.found[lp.l.EdgeIndex(p, d)]) {
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

// paint draws the level into c so that square center sits in the middle of c (or the
// whole level is centred when it fits).
func (lp *levelPainter) paint(c *canvas, center world.Pos) {
	fullW, fullH := lp.l.W*colsPerSquare+1, lp.l.H*rowsPerSquare+1
	ox := offset(fullW, c.w, center.X*colsPerSquare+1)
	oy := offset(fullH, c.h, center.Y*rowsPerSquare+1)
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
			// A plain blank looks the same dimmed (only the background shows), and most
			// cells are blank: they keep their class without asking.
			if lp.dim && cls != clsSelf && (r != ' ' || cls != clsText) && !lp.nearBright(cx, cy) {
				cls = clsDim
			}
			c.set(x, y, r, cls)
		}
	}
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
	if s, ok := lp.shadows[p]; ok {
		// Seed 000: with light, monsters and treasures "appear as shadows".
		return runeAt(s, half), clsDim
	}
	if !lp.showable(p) {
		return ' ', clsText
	}
	if m, ok := lp.marks[p]; ok {
		return runeAt(m.text, half), m.cls
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
// the name.
func initials(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == 0 || utf8.RuneCountInString(b.String()) < 2 {
			b.WriteRune(r)
		}
	}
	s := b.String()
	for utf8.RuneCountInString(s) < 2 {
		s += " "
	}
	return s
}
