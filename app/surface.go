package app

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The surface (seed 002, DESIGN §4): the grid of spaces outside the dungeon, drawn on the
// play screen in place of the dungeon view, with what the knight's space is and the keys
// beside or under it. Every space is a cell of a few columns and rows: rock is hatched,
// a market is $ and the initials of its name, the entrance EX, common ground a faint dot;
// the knight is (), other knights the first two letters of their names in reverse video.

// onSurface reports whether this session's knight stands on the surface grid.
func (m *Model) onSurface() bool {
	v := m.view
	return m.haveView && v.Outside() && v.Surface != nil && v.Surface.Map != nil
}

// surfaceCellSizes are the sizes a space may be drawn at (rows, columns), the largest
// first (layoutSurface says which is used).
var surfaceCellSizes = [][2]int{{4, 9}, {3, 7}, {2, 5}, {2, 4}, {1, 4}, {1, 3}, {1, 2}}

// Room the words about the surface need: a column of infoMinW beside the map, or
// infoUnder rows under it.
const (
	infoMinW  = 30
	infoMaxW  = 44
	infoUnder = 3
)

// surfaceLayout is where the surface goes in an area: the size of one space, the frame's
// top-left corner, and where the words go (beside: a column to the right; under: lines
// below the frame; neither when there is no room).
type surfaceLayout struct {
	ch, cw         int // rows and columns of one space
	gx, gy         int // the frame's top-left corner
	gw, gh         int // the frame's size
	beside, under  bool
	ix, iy, iw, ih int // the words' box
}

// layoutSurface fits a W×H grid into an area w columns by h rows.
func layoutSurface(W, H, w, h int) surfaceLayout {
	fit := func(ch, cw int, words bool) (surfaceLayout, bool) {
		l := surfaceLayout{ch: ch, cw: cw, gw: W*cw + 2, gh: H*ch + 2}
		switch {
		case l.gw > w || l.gh > h:
			return l, false
		case !words:
			l.gx, l.gy = (w-l.gw)/2, (h-l.gh)/2
			return l, true
		case l.gw+2+infoMinW <= w:
			l.beside = true
			l.iw = min(infoMaxW, w-l.gw-2)
			l.gx = (w - (l.gw + 2 + l.iw)) / 2
			l.gy = (h - l.gh) / 2
			l.ix, l.iy, l.ih = l.gx+l.gw+2, l.gy, h-l.gy
			return l, true
		case l.gh+1+infoUnder <= h && w >= infoMinW:
			l.under = true
			l.gx, l.gy = (w-l.gw)/2, (h-l.gh-1-infoUnder)/2
			l.iw = min(w, max(l.gw, 2*infoMinW))
			l.ix, l.iy, l.ih = (w-l.iw)/2, l.gy+l.gh+1, h-(l.gy+l.gh+1)
			return l, true
		}
		return l, false
	}
	// Spaces two rows high or more come first, with the words if they fit and without
	// them if not (beside a battle panel, say); then one-row spaces the same way.
	for _, tall := range []bool{true, false} {
		for _, words := range []bool{true, false} {
			for _, sz := range surfaceCellSizes {
				if (sz[0] >= 2) != tall {
					continue
				}
				if l, ok := fit(sz[0], sz[1], words); ok {
					return l
				}
			}
		}
	}
	// A grid too big for any size: the smallest cells, from the top-left corner (the
	// caller keeps the knight in view).
	return surfaceLayout{ch: 1, cw: 2, gw: W*2 + 2, gh: H + 2}
}

// drawSurface draws the surface into the play screen's map area (rows top to top+h-1),
// leaving the right of it to the battle panel while there is one (drawPlay draws it).
func (m *Model) drawSurface(c *canvas, v world.View, top, h int) {
	w := c.w
	panel := v.Fight != nil || len(v.LastFight) > 0
	if panel {
		w -= fightPanelWidth(c.w)
	}
	// The dungeon's map canvas, on a frame's cells only while it is drawn (spareCells).
	sub, cells := &m.dun.mapCanvas, getCells(w*h)
	sub.blankOn(w, h, *cells)
	defer func() { putCells(cells); sub.cells = nil }()
	s := v.Surface.Map
	l := layoutSurface(s.W, s.H, w, h)
	if l.gw > w || l.gh > h { // keep the knight in view on a grid bigger than the screen
		l.gx = -offset(l.gw, w, 1+v.Self.Pos.X*l.cw)
		l.gy = -offset(l.gh, h, 1+v.Self.Pos.Y*l.ch)
	}
	drawSurfaceGrid(sub, v, l)
	if l.beside || l.under {
		m.drawSurfaceWords(sub, v, l)
	}
	c.blit(sub, 0, top)
}

// drawSurfaceGrid draws the frame and every space.
func drawSurfaceGrid(c *canvas, v world.View, l surfaceLayout) {
	s := v.Surface.Map
	x0, y0, x1, y1 := l.gx, l.gy, l.gx+l.gw-1, l.gy+l.gh-1
	for x := x0 + 1; x < x1; x++ {
		c.set(x, y0, '─', clsWall)
		c.set(x, y1, '─', clsWall)
	}
	for y := y0 + 1; y < y1; y++ {
		c.set(x0, y, '│', clsWall)
		c.set(x1, y, '│', clsWall)
	}
	c.set(x0, y0, '┌', clsWall)
	c.set(x1, y0, '┐', clsWall)
	c.set(x0, y1, '└', clsWall)
	c.set(x1, y1, '┘', clsWall)
	if l.gw >= 16 {
		c.text(x0+2, y0, " THE SURFACE ", clsTitle)
	}
	people := surfacePeople(v)
	for y := range s.H {
		for x := range s.W {
			p := world.Pos{X: x, Y: y}
			drawSpace(c, l, x0+1+x*l.cw, y0+1+y*l.ch, s, p, people[p])
		}
	}
}

// surfacePeople are the marks of the knights on each space: the knight first (its
// circle), then the others by the first two letters of their names.
func surfacePeople(v world.View) map[world.Pos][]mark {
	people := map[world.Pos][]mark{}
	people[v.Self.Pos] = append(people[v.Self.Pos], mark{"()", clsSelf})
	for _, o := range v.Surface.Others {
		people[o.Pos] = append(people[o.Pos], mark{initials(o.Name), clsOther})
	}
	return people
}

// drawSpace draws one space of the grid with its top-left cell at (cx, cy).
func drawSpace(c *canvas, l surfaceLayout, cx, cy int, s *world.Surface, p world.Pos, people []mark) {
	kind := s.At(p)
	if kind == world.SurfaceInaccessible {
		for y := range l.ch {
			for x := range l.cw {
				c.set(cx+x, cy+y, '░', clsWall)
			}
		}
		return
	}
	var sign mark
	switch kind {
	case world.SurfaceMarket:
		sign = mark{"$" + marketInitials(s.Markets[p.Y*s.W+p.X]), clsFeature}
	case world.SurfaceEntrance:
		sign = mark{"EX", clsFeature}
	default:
		if len(people) == 0 {
			sign = mark{"·", clsDim}
		}
	}
	// Who stands here: as many marks as fit, the last one saying how many more. On a
	// one-row space the sign gives way to the knights: to its first letter, or wholly.
	room := max(1, l.cw/2)
	if l.ch == 1 && len(people) > 0 {
		if runeLen(sign.text)+2 > l.cw {
			sign.text = string([]rune(sign.text)[:1])
		}
		if runeLen(sign.text)+2 > l.cw {
			sign.text = ""
		}
		room = max(1, (l.cw-runeLen(sign.text))/2)
	}
	if len(people) > room && room == 1 {
		people = people[:1]
	} else if len(people) > room {
		more := len(people) - room + 1
		people = append(people[:room-1:room-1], mark{fmt.Sprintf("+%d", min(more, 9)), clsDim})
	}
	row := func(y int, marks []mark) {
		n := 0
		for _, mk := range marks {
			n += runeLen(mk.text)
		}
		x := cx + max(0, (l.cw-n)/2)
		for _, mk := range marks {
			for _, r := range mk.text {
				if x < cx+l.cw {
					c.set(x, y, r, mk.cls)
				}
				x++
			}
		}
	}
	if l.ch == 1 {
		row(cy, append([]mark{sign}, people...))
		return
	}
	top := cy + (l.ch-2)/2
	row(top, []mark{sign})
	row(top+1, people)
}

func runeLen(s string) int { return len([]rune(s)) }

// marketWords are the words of a market's name that its initials skip.
var marketWords = map[string]bool{"the": true, "of": true, "a": true, "an": true, "and": true,
	"market": true, "bazaar": true, "fair": true, "shop": true, "ye": true}

// marketInitials are the capitals of the first two telling words of a market's name:
// "GL" for the Golden Lamb.
func marketInitials(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		if marketWords[strings.ToLower(w)] {
			continue
		}
		r := []rune(w)[0]
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		b.WriteRune(unicode.ToUpper(r))
		if b.Len() >= 2 {
			break
		}
	}
	return b.String()
}

// marketTitle is how a market is named in a sentence: "the Market of the Golden Lamb"
// for "the Golden Lamb"; a name that says what it is ("Ye Olde Bazaar") stands as it is.
func marketTitle(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return "a market"
	}
	for _, w := range strings.Fields(strings.ToLower(name)) {
		switch strings.Trim(w, ",.'") {
		case "market", "bazaar", "fair", "shop", "emporium", "store", "exchange":
			return name
		}
	}
	return "the Market of " + name
}

// spaceName says what the space at p is, as a sentence names it: "common ground", "rock",
// "the Market of the Golden Lamb", "the dungeon entrance", "the edge of the land".
func spaceName(s *world.Surface, p world.Pos) string {
	if !s.In(p) {
		return "the edge of the land"
	}
	switch s.At(p) {
	case world.SurfaceMarket:
		return marketTitle(s.Markets[p.Y*s.W+p.X])
	case world.SurfaceEntrance:
		return "the dungeon entrance"
	case world.SurfaceCommon:
		return "common ground"
	}
	return "rock"
}

// hereLines say what the knight's space is and what it may do there: the first line
// for the map's side or foot, the second its key.
func hereLines(v world.View) (what, how string) {
	s, p := v.Surface.Map, v.Self.Pos
	switch s.At(p) {
	case world.SurfaceMarket:
		return english.Capital(spaceName(s, p)) + ":", "b to trade, s to sell."
	case world.SurfaceEntrance:
		return "The dungeon entrance:", "> goes down."
	}
	return "Common ground:", "battles may come."
}

// surfaceKeyLine is the surface's keys, for the words beside or under the map.
const surfaceKeyLine = "arrows/hjkl walk  b buy  s sell  > down  i items  R retire"

// drawSurfaceWords writes, beside or under the map, what the knight's space is, who is
// there with it, its gold, the keys and (when there is room) the markets' names.
func (m *Model) drawSurfaceWords(c *canvas, v world.View, l surfaceLayout) {
	what, how := hereLines(v)
	x, y, w := l.ix, l.iy, l.iw
	put := func(s string, cls class) {
		for _, line := range wrapHang(s, w, 4) {
			if y < l.iy+l.ih {
				c.text(x, y, line, cls)
			}
			y++
		}
	}
	var here []string
	for _, o := range v.Surface.Others {
		if o.Pos == v.Self.Pos {
			here = append(here, o.Name)
		}
	}
	if l.under {
		line := what + " " + how
		if len(here) > 0 {
			line += " Here: " + strings.Join(here, ", ") + "."
		}
		gold := fmt.Sprintf("Gold %d", v.Self.Gold)
		if len(wrap(line, w))+1+len(wrap(surfaceKeyLine, w)) > l.ih {
			// No room for the keys under this map: they are in the help (?).
			put(line, clsTitle)
			put(gold, clsText)
			return
		}
		put(line, clsTitle)
		put(gold, clsText)
		put(surfaceKeyLine, clsDim)
		return
	}
	put(what, clsTitle)
	put(how, clsTitle)
	if len(here) > 0 {
		put("Here with you: "+strings.Join(here, ", ")+".", clsText)
	}
	y++
	put(fmt.Sprintf("Gold %d", v.Self.Gold), clsText)
	y++
	for _, k := range []string{
		"arrows, hjkl  walk",
		"b s    buy, sell at a market ($)",
		">      go down (at EX)",
		"i      your things",
		"R      retire   ? help",
	} {
		put(k, clsDim)
	}
	// The markets' names, as many as fit whole.
	s := v.Surface.Map
	var legend []string
	for i, kind := range s.Cells {
		if kind == world.SurfaceMarket {
			name := s.Markets[i]
			legend = append(legend, fmt.Sprintf("$%-3s%s", marketInitials(name), english.Capital(marketTitle(name))))
		}
	}
	// The party list goes at the bottom of this column: the legend leaves it room.
	bottom := l.iy + l.ih - partyBoxRows(v)
	if len(legend) > 0 && bottom-y >= 4 { // a blank, the heading, a market and "and N more"
		y++
		put("Markets:", clsText)
		for i, s := range legend {
			n := len(wrapHang(s, w, 4))
			last := i == len(legend)-1
			if !last && y+n+1 > bottom || last && y+n > bottom {
				put(fmt.Sprintf("and %d more", len(legend)-i), clsDim)
				break
			}
			put(s, clsDim)
		}
	}
}

// The surface in words, for screen-reader mode.

// surfaceWhere says where on the surface the knight stands: what its space is, what lies
// to each side; with full set, where on the grid it is, the way to the entrance and to
// the nearest market, and what may be done outside.
func surfaceWhere(v world.View, full bool) []string {
	s, p := v.Surface.Map, v.Self.Pos
	var out []string
	switch s.At(p) {
	case world.SurfaceMarket:
		out = append(out, fmt.Sprintf("You are on the surface, at a market: %s. Type market for its wares.", spaceName(s, p)))
	case world.SurfaceEntrance:
		out = append(out, "You are on the surface, at the dungeon entrance: type down to go down.")
	default:
		out = append(out, "You are on the surface, on common ground, where battles may come.")
	}
	var sides []string
	for _, d := range dirWords {
		sides = append(sides, fmt.Sprintf("%s is %s", d, spaceName(s, p.Step(d))))
	}
	out = append(out, english.Capital(strings.Join(sides, "; "))+".")
	if !full {
		return out
	}
	out = append(out, fmt.Sprintf("The surface is %d by %d spaces; you are in row %d, column %d, counting from the north-west corner.", s.W, s.H, p.Y+1, p.X+1))
	if s.At(p) != world.SurfaceEntrance {
		out = append(out, "The dungeon entrance is "+rel(p, s.Entrance)+".")
	}
	if q, ok := nearestMarket(s, p); ok && q != p {
		out = append(out, fmt.Sprintf("The nearest market is %s, %s.", spaceName(s, q), rel(p, q)))
	}
	return append(out, "Type map for the whole surface, down at the entrance to go back into the dungeon, retire to retire into the hall of fame, or quit to rest here.")
}

// nearestMarket is the market nearest p, counting steps along the grid's lines (rock
// may lie between).
func nearestMarket(s *world.Surface, p world.Pos) (world.Pos, bool) {
	best, found := world.Pos{}, false
	for y := range s.H {
		for x := range s.W {
			q := world.Pos{X: x, Y: y}
			if s.At(q) == world.SurfaceMarket && (!found || steps(p, q) < steps(p, best)) {
				best, found = q, true
			}
		}
	}
	return best, found
}

func steps(p, q world.Pos) int { return abs(p.X-q.X) + abs(p.Y-q.Y) }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// surfaceThings say who is on the surface: those on the knight's space, and with full
// set everyone else, placed from the knight.
func surfaceThings(v world.View, full bool) []string {
	p := v.Self.Pos
	var here, out []string
	for _, o := range v.Surface.Others {
		switch {
		case o.Pos == p:
			here = append(here, o.Name)
		case full:
			out = append(out, o.Name+" is "+rel(p, o.Pos)+".")
		}
	}
	if len(here) > 0 {
		out = append([]string{"Here with you: " + english.List(here) + "."}, out...)
	}
	return out
}

// surfaceComings say who came onto the surface or left it, and who came to or left the
// knight's space, between two views of a knight standing still.
func surfaceComings(prev, v world.View) []string {
	if v.Surface == nil || prev.Surface == nil || !prev.Outside() {
		return nil
	}
	p := v.Self.Pos
	was := map[string]world.Pos{}
	for _, o := range prev.Surface.Others {
		was[o.Name] = o.Pos
	}
	var out []string
	for _, o := range v.Surface.Others {
		q, ok := was[o.Name]
		delete(was, o.Name)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s is now on the surface, %s.", o.Name, place(p, o.Pos)))
		case o.Pos == p && q != p:
			out = append(out, o.Name+" comes to your space.")
		case o.Pos != p && q == p:
			out = append(out, fmt.Sprintf("%s leaves your space: now %s.", o.Name, rel(p, o.Pos)))
		}
	}
	for _, o := range prev.Surface.Others { // in the order the view had them
		if _, gone := was[o.Name]; gone {
			out = append(out, o.Name+" has left the surface.")
		}
	}
	return out
}

// surfaceMapText describes the surface row by row, from the north: runs of rock and
// common ground counted, markets and the entrance named, and who stands where.
func surfaceMapText(v world.View) []string {
	if v.Surface == nil || v.Surface.Map == nil {
		return []string{"You are outside the dungeon; there is no map to read."}
	}
	s, p := v.Surface.Map, v.Self.Pos
	who := map[world.Pos][]string{}
	for _, o := range v.Surface.Others {
		who[o.Pos] = append(who[o.Pos], o.Name)
	}
	out := []string{fmt.Sprintf("The surface, %d by %d spaces, row by row from the north, each row from west to east; you are in row %d, column %d.", s.W, s.H, p.Y+1, p.X+1)}
	for y := range s.H {
		var words []string
		run, runWord := 0, ""
		flush := func() {
			switch {
			case run == 1:
				words = append(words, runWord)
			case run > 1:
				words = append(words, fmt.Sprintf("%d %s", run, runWord))
			}
			run = 0
		}
		for x := range s.W {
			q := world.Pos{X: x, Y: y}
			w := "common"
			switch s.At(q) {
			case world.SurfaceInaccessible:
				w = "rock"
			case world.SurfaceMarket, world.SurfaceEntrance:
				w = spaceName(s, q)
			}
			var people []string
			if q == p {
				people = append(people, "you")
			}
			people = append(people, who[q]...)
			plain := s.At(q) == world.SurfaceInaccessible || s.At(q) == world.SurfaceCommon
			if plain && len(people) == 0 && w == runWord {
				run++
				continue
			}
			flush()
			if len(people) > 0 {
				w += " (" + english.List(people) + ")"
			}
			if plain && len(people) == 0 {
				run, runWord = 1, w
				continue
			}
			words = append(words, w)
			runWord = ""
		}
		flush()
		out = append(out, fmt.Sprintf("Row %d: %s.", y+1, strings.Join(words, ", ")))
	}
	return append(out, "Type map grid for a compact picture.")
}

// surfaceMapGrid draws the surface in plain characters, one a space, spaced apart: # rock,
// . common ground, $ a market, E the entrance, @ the knight, K another knight.
func surfaceMapGrid(v world.View) []string {
	if v.Surface == nil || v.Surface.Map == nil {
		return surfaceMapText(v)
	}
	s, p := v.Surface.Map, v.Self.Pos
	others := map[world.Pos]bool{}
	for _, o := range v.Surface.Others {
		others[o.Pos] = true
	}
	out := []string{"The surface, north at the top, one character a space: # rock, . common ground, $ a market, E the entrance, @ you, K another knight."}
	for y := range s.H {
		var b strings.Builder
		fmt.Fprintf(&b, "%2d ", y+1)
		for x := range s.W {
			q := world.Pos{X: x, Y: y}
			ch := '.'
			switch {
			case q == p:
				ch = '@'
			case others[q]:
				ch = 'K'
			case s.At(q) == world.SurfaceInaccessible:
				ch = '#'
			case s.At(q) == world.SurfaceMarket:
				ch = '$'
			case s.At(q) == world.SurfaceEntrance:
				ch = 'E'
			}
			b.WriteByte(' ')
			b.WriteRune(ch)
		}
		out = append(out, b.String())
	}
	return out
}
