package app

import (
	"fmt"
	"image/color"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Blanks join the run of cells they stand in when they look the same there (DESIGN §12,
// "The screen"): the frame a terminal shows is the one it would show with every cell
// styled on its own. Checked cell by cell as Bubble Tea reads both strings: the same
// text, the same style for every printed character, and for every blank the same
// background, underline and reverse video.
func TestBlanksJoinRunsWithoutChangingTheScreen(t *testing.T) {
	const w, h = 40, 6
	c := newCanvas(w, h)
	classes := []class{clsText, clsWall, clsDoor, clsSelf, clsOther, clsFeature, clsDim, clsTitle, clsMonster}
	for y := range h {
		for x := range w {
			r := ' '
			if (x*7+y*3)%5 < 2 {
				r = rune('a' + (x+y)%26)
			}
			c.set(x, y, r, classes[(x/3+y*5+x*y)%len(classes)])
		}
	}
	for _, look := range themeLooks {
		name, th := look.String(), themeFor(look.name, look.profile)
		var ref strings.Builder // every cell styled on its own
		for y := range h {
			if y > 0 {
				ref.WriteByte('\n')
			}
			for x := range w {
				cl := c.cells[y*w+x]
				ref.WriteString(th.open[cl.cls()] + string(cl.r()) + th.close[cl.cls()])
			}
		}
		got, want := screenOf(c.render(&th, false), w, h), screenOf(ref.String(), w, h)
		for y := range h {
			for x := range w {
				g, r := got.CellAt(x, y), want.CellAt(x, y)
				if g.Content != r.Content {
					t.Fatalf("%s: cell %d,%d is %q, want %q", name, x, y, g.Content, r.Content)
				}
				same := g.Style.Equal(&r.Style)
				if r.Content == " " {
					same = colorsEqual(g.Style.Bg, r.Style.Bg) && g.Style.Underline == r.Style.Underline &&
						g.Style.Attrs&uv.AttrReverse == r.Style.Attrs&uv.AttrReverse
				}
				if !same {
					t.Fatalf("%s: cell %d,%d (%q) looks different: %+v, want %+v", name, x, y, r.Content, g.Style, r.Style)
				}
			}
		}
		runs := strings.Count(c.render(&th, false), "\x1b[")
		if all := strings.Count(ref.String(), "\x1b["); runs >= all {
			t.Errorf("%s: %d escape sequences, no fewer than styling every cell (%d)", name, runs, all)
		}
	}
}

func screenOf(s string, w, h int) uv.ScreenBuffer {
	scr := uv.NewScreenBuffer(w, h)
	uv.NewStyledString(s).Draw(scr, uv.Rect(0, 0, w, h))
	return scr
}

func colorsEqual(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	return ar == br && ag == bg && ab == bb && aa == ba
}

// wrap keeps every word whole on one line, measuring in terminal columns: a wide
// character takes two, so a line of them breaks sooner. Spaces inside a line stay (a
// table's columns line up); only a word longer than a line is broken; continuation lines
// hang under their label.
func TestWrapKeepsWordsWhole(t *testing.T) {
	for _, tc := range []struct {
		s    string
		w    int
		hang int
		want []string
	}{
		{"Light (24 moves), Find Traps (6 moves)", 19, 0, []string{"Light (24 moves),", "Find Traps (6", "moves)"}},
		{"", 10, 0, []string{""}},
		{"fits", 4, 0, []string{"fits"}},
		{"  a    b", 8, 0, []string{"  a    b"}},
		{"modified by your intelligence.", 12, 0, []string{"modified by", "your", "intelligence", "."}},
		{"c  Cure   Heals wounds: 2-7 hits", 20, 9, []string{"c  Cure   Heals", "         wounds: 2-7", "         hits"}},
		{"騎士の 剣は 鋭い", 8, 0, []string{"騎士の", "剣は", "鋭い"}},
		{"騎士騎士騎士", 5, 0, []string{"騎士", "騎士", "騎士"}},
		{"x 騎", 2, 0, []string{"x", "騎"}},
		{"騎", 1, 0, []string{"騎"}},
	} {
		got := wrapHang(tc.s, tc.w, tc.hang)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapHang(%q, %d, %d) = %q, want %q", tc.s, tc.w, tc.hang, got, tc.want)
		}
		for _, l := range got {
			if textWidth(l) > tc.w && !(tc.w == 1 && l == "騎") {
				t.Errorf("wrapHang(%q, %d, %d): %q is %d columns", tc.s, tc.w, tc.hang, l, textWidth(l))
			}
		}
		// Wrapping up to a number of lines stops past it, and agrees with wrapHang up to it.
		for limit := range len(got) + 1 {
			part, ok := wrapUpTo(tc.s, tc.w, tc.hang, limit)
			if ok != (len(got) <= limit) || !slices.Equal(part, got[:min(limit, len(got))]) {
				t.Errorf("wrapUpTo(%q, %d, %d, %d) = %q, %v; wrapHang gives %q", tc.s, tc.w, tc.hang, limit, part, ok, got)
			}
			if tc.hang == 0 && fitsIn(tc.s, tc.w, limit) != ok {
				t.Errorf("fitsIn(%q, %d, %d) = %v, wrapUpTo says %v", tc.s, tc.w, limit, !ok, ok)
			}
		}
	}
	if got := pack([]string{"f fight", "r run", "quiver of 12 arrows of mythical slaying"}, 16); strings.Join(got, "|") != "f fight  r run|quiver of 12|arrows of|mythical slaying" {
		t.Errorf("pack wraps an item wider than a line as %q", got)
	}
}

// findCells is where s is first written on c, row and column, or -1, -1.
func findCells(c *canvas, s string) (int, int) {
	for y, l := range c.lines(nil, true) {
		if x := strings.Index(l, s); x >= 0 {
			return y, len([]rune(l[:x]))
		}
	}
	return -1, -1
}

// Seed 000, Light: "detect monsters and treasures (which appear as shadows)". The world
// puts what the light shows beyond sight in View.Shadows; the dungeon screen draws each
// as a faint glyph on its square, dark or not: a monster's own glyph, a hoard as $$.
// Without shadows in the view, nothing is drawn there.
func TestLightShadowsAreDrawnFaint(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight, v.Others = nil, nil
	l := v.Level
	me := world.Pos{X: 5, Y: 0}
	v.Self.Pos = me
	corridor := make([]byte, (l.W*l.H+7)/8)
	for x := range 7 {
		corridor[x/8] |= 1 << (x % 8) // squares 0..6 of the top row
	}
	v.Visible, v.Known = corridor, corridor
	v.Shadows = []world.Shadow{{Pos: world.Pos{X: 8, Y: 1}, Glyph: "Tr"}, {Pos: world.Pos{X: 10, Y: 2}, Treasure: true}}
	m, _ := viewModel(t, v, 80, 24)
	c := newCanvas(m.frameSize())
	m.draw(c)
	for _, s := range []string{"Tr", "$$"} {
		y, x := findCells(c, s)
		if y < 0 {
			t.Fatalf("the shadow %q is not drawn:\n%s", s, m.Text())
		}
		for i := range 2 {
			if cls := c.cells[y*c.w+x+i].cls(); cls != clsDim {
				t.Fatalf("the shadow %q is drawn in class %d, want faint (%d)", s, cls, clsDim)
			}
		}
	}
	// The troll's shadow is on its square: one row below the knight, three squares east.
	ky, kx := findCells(c, "()")
	if ty, tx := findCells(c, "Tr"); ty != ky+rowsPerSquare || tx != kx+3*colsPerSquare {
		t.Fatalf("the knight at row %d col %d, the shadow at row %d col %d", ky, kx, ty, tx)
	}
	v.Shadows = nil
	m, _ = viewModel(t, v, 80, 24)
	if s := m.Text(); strings.Contains(s, "Tr") || strings.Contains(s, "$$") {
		t.Fatalf("shadows drawn without light:\n%s", s)
	}
}

// Seed 000: "if you have cast a 'light' spell, secret doors will always appear", and
// otherwise "they appear to be walls, but about one sixth of the time they appear as
// walls with a box in the middle". The dungeon screen draws an unfound secret door as a
// wall (│) or a boxed wall (□), and with light (View.Self.Light) as a door (╎).
func TestLightShowsSecretDoors(t *testing.T) {
	l, err := world.ParseASCII(1, `
+-+-+-+
|ES $ |
+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	for _, light := range []bool{false, true} {
		v := world.View{Self: world.Self{Name: "Sir Kay", Level: 1, Hits: 9, MaxHits: 9, Depth: 1, Light: light},
			Level: l, Visible: allSquares(l), Known: allSquares(l)}
		m, _ := viewModel(t, v, 80, 24)
		row := ""
		for _, line := range strings.Split(m.Text(), "\n") {
			if strings.Contains(line, "()") {
				row = line
			}
		}
		want := "()│  □  │"
		if light {
			want = "()╎  ╎  │"
		}
		if !strings.Contains(row, want) {
			t.Fatalf("light %v: the knight's row is %q, want it to show %q", light, row, want)
		}
	}
}

// The level picture a frame keeps for the next (mapMemo) changes nothing drawn: over
// seeded frames of random sight, memory, sizes and marks (wide names, combining marks,
// shadows among them), a painter reusing it draws every cell as one drawing afresh;
// frames that draw the level the same reuse it, and a change to any of what the level is
// drawn from (sight, memory, light, dimming, found doors, the knight's square, the size)
// draws it again.
func TestMapMemoDrawsAsAfresh(t *testing.T) {
	e := world.New(world.Config{Seed: 7, Depth: 3})
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"Gawain", "李王", "世界", "a", "龍x", "e\u0301z"}
	var memo mapMemo
	var fresh, kept levelPainter
	var kept0 canvas
	var w, h int
	var center world.Pos
	reuses, want := 0, 2000
	for frame := range 4000 {
		if frame%4 == 0 { // a new level, sight and size; the three frames after keep them
			l := e.Level(1 + r.IntN(3))
			shown, bright := make([]byte, (l.W*l.H+7)/8), make([]byte, (l.W*l.H+7)/8)
			for i := range shown {
				shown[i] = byte(r.Uint32())
				bright[i] = byte(r.Uint32()) & shown[i]
			}
			fresh = levelPainter{l: l, shown: shown, bright: bright, dim: r.IntN(4) != 0, light: r.IntN(5) == 0}
			w, h = 10+r.IntN(90), 3+r.IntN(30)
			center = world.Pos{X: r.IntN(l.W), Y: r.IntN(l.H)}
		}
		if frame%4 == 2 && !changeOne(r, &fresh, &w, &h, &center) {
			want++ // the knight moved, but the level picture did not scroll
		}
		l := fresh.l
		at := func() world.Pos { return world.Pos{X: r.IntN(l.W), Y: r.IntN(l.H)} }
		fresh.marks, fresh.shadows = nil, nil
		for range r.IntN(12) {
			cls := []class{clsOther, clsMonster, clsFeature, clsSelf}[r.IntN(4)]
			fresh.marks = append(fresh.marks, squareMark{at(), mark{initials(names[r.IntN(len(names))]), cls}})
		}
		for range r.IntN(3) {
			fresh.shadows = append(fresh.shadows, squareMark{at(), mark{[]string{"$$", "Rg", "世"}[r.IntN(3)], clsDim}})
		}
		kept = fresh
		kept.memo = &memo
		afresh, got := newCanvas(w, h), kept0.sized(w, h) // got holds the frame before: paint draws every cell
		fresh.paint(afresh, center)
		before := memo.reused
		kept.paint(got, center)
		reuses += memo.reused - before
		if !slices.Equal(afresh.cells, got.cells) {
			t.Fatalf("frame %d: drawn afresh\n%s\nreusing the level\n%s", frame,
				strings.Join(afresh.lines(nil, true), "\n"), strings.Join(got.lines(nil, true), "\n"))
		}
	}
	if reuses != want {
		t.Errorf("%d of the %d frames that draw the level as the frame before reused it", reuses, want)
	}
}

// changeOne changes one thing the level picture is drawn from, and reports whether the
// picture changes (a knight's step scrolls it only on a level wider or taller than the
// canvas, away from its ends).
func changeOne(r *rand.Rand, lp *levelPainter, w, h *int, center *world.Pos) bool {
	flip := func(set []byte) []byte {
		set = slices.Clone(set)
		set[r.IntN(len(set))] ^= 1 << r.IntN(8)
		return set
	}
	switch n := r.IntN(10); n {
	case 0:
		lp.shown = flip(lp.shown)
	case 1:
		lp.bright = flip(lp.bright)
	case 2:
		lp.dim = !lp.dim
	case 3:
		lp.light = !lp.light
	case 4:
		lp.found = append(slices.Clone(lp.found), r.IntN(100))
	case 5:
		*w++
	case 6:
		*h++
	case 7:
		lp.l = lp.l.Clone() // a door opened: the view has a new snapshot of the level
	case 8, 9: // the knight walks across the level, one way or the other
		origin := func(p world.Pos) [2]int {
			return [2]int{offset(lp.l.W*colsPerSquare+1, *w, p.X*colsPerSquare+1), offset(lp.l.H*rowsPerSquare+1, *h, p.Y*rowsPerSquare+1)}
		}
		was := origin(*center)
		if n == 8 {
			center.X = lp.l.W - 1 - center.X
		} else {
			center.Y = lp.l.H - 1 - center.Y
		}
		return origin(*center) != was
	}
	return true
}

// Another knight stands as the first two letters of its name, short names padded.
func TestInitials(t *testing.T) {
	for name, want := range map[string]string{
		"Gawain": "Ga", "Li": "Li", "X": "X ", "": "  ", "李王子": "李王", "e\u0301z": "e\u0301", "\xffab": "\ufffda", "a\xff": "a\ufffd",
	} {
		if got := initials(name); got != want {
			t.Errorf("initials(%q) = %q, want %q", name, got, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { benchTextSink = initials("Percival") }); allocs != 0 {
		t.Errorf("initials of a name allocates %v times", allocs)
	}
}

// Text written where no wide character stands (straight into the row) is the text written
// a character at a time: ASCII, control characters, wide and combining ones, from any
// column, cut at the edge.
func TestTextIsWrittenAsCharacterByCharacter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"Hits 12/14", " │ ", "騎士", "e\u0301", "\t", "Gawain", "$$", "x"}
	for range 2000 {
		var s strings.Builder
		for range r.IntN(6) {
			s.WriteString(pieces[r.IntN(len(pieces))])
		}
		w, h := 1+r.IntN(30), 1+r.IntN(3)
		x, y := r.IntN(w+4)-2, r.IntN(h+2)-1
		fast, slow := newCanvas(w, h), newCanvas(w, h)
		slow.wide = true // as if a wide character stood somewhere: a character at a time
		fast.text(x, y, s.String(), clsTitle)
		slow.text(x, y, s.String(), clsTitle)
		if !slices.Equal(fast.cells, slow.cells) {
			t.Fatalf("%q at %d,%d on %dx%d: %q, want %q", s.String(), x, y, w, h, fast.lines(nil, true), slow.lines(nil, true))
		}
	}
}

// themeLooks are both themes in every colour profile.
var themeLooks = func() (out []themeLook) {
	for _, name := range []string{themePlato, themeContrast} {
		for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.Ascii} {
			out = append(out, themeLook{name, p})
		}
	}
	return out
}()

type themeLook struct {
	name    string
	profile colorprofile.Profile
}

func (l themeLook) String() string { return fmt.Sprintf("%q in %v", l.name, l.profile) }

// Going from one class's look to another's by the theme's change writes the same cells
// as a reset and the other's opening, for every pair of classes, theme and profile; and
// between the dungeon's faint and plain text (most of a frame's changes) it is short.
func TestStyleChangesLookAsAReset(t *testing.T) {
	for _, look := range themeLooks {
		th := themeFor(look.name, look.profile)
		for a := range class(numClasses) {
			for b := range class(numClasses) {
				got := screenOf(th.open[a]+"x"+th.change[a][b]+"y", 2, 1).CellAt(1, 0)
				want := screenOf(th.open[b]+"y", 1, 1).CellAt(0, 0)
				if !got.Style.Equal(&want.Style) {
					t.Fatalf("%v: from %d to %d by %q: %+v, want %+v (%q)", look, a, b, th.change[a][b], got.Style, want.Style, th.open[b])
				}
			}
		}
		if look.profile != colorprofile.Ascii && look.name == themePlato {
			for _, c := range [][2]class{{clsDim, clsText}, {clsText, clsDim}} {
				if n := len(th.change[c[0]][c[1]]); n > 5 {
					t.Errorf("%v: from %d to %d takes %q, %d bytes", look, c[0], c[1], th.change[c[0]][c[1]], n)
				}
			}
		}
	}
}

// drawnAs reports whether text shows in class cls's look on the screen s draws.
func drawnAs(s string, th *theme, cls class, text string) bool {
	lines := strings.Split(s, "\n")
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	scr := screenOf(s, w, len(lines))
	want := screenOf(th.open[cls]+"x", 1, 1).CellAt(0, 0).Style
	for y := range len(lines) {
		var row strings.Builder
		for x := range w {
			if c := scr.CellAt(x, y); c != nil {
				row.WriteString(c.Content)
			}
		}
		if x := strings.Index(row.String(), text); x >= 0 {
			c := scr.CellAt(ansi.StringWidth(row.String()[:x]), y)
			if c != nil && c.Style.Equal(&want) {
				return true
			}
		}
	}
	return false
}

// The map screen keeps its level picture as the dungeon screen does: drawn again for a
// view that changes nothing it shows (others' steps are not on it), it copies the
// picture, and shows what drawing afresh shows.
func TestMapScreenKeepsItsPicture(t *testing.T) {
	m, _ := viewModel(t, twoOnTwo(t), 80, 24)
	m.screen = screenMap
	first := m.Text()
	if !strings.Contains(first, "Map of level") || !strings.Contains(first, "()") {
		t.Fatalf("map screen:\n%s", first)
	}
	if again := m.Text(); again != first || m.mapScr.memo.reused != 1 {
		t.Fatalf("drawn again, reused %d times:\n%s\nwant\n%s", m.mapScr.memo.reused, again, first)
	}
	m.mapScr.memo = mapMemo{}
	if fresh := m.Text(); fresh != first {
		t.Fatalf("drawn afresh:\n%s\nfrom the kept picture:\n%s", fresh, first)
	}
	m.screen = screenPlay // left: what the map screen kept goes
	_ = m.Text()
	if m.mapScr != nil {
		t.Fatal("the map screen's canvas and picture are kept after leaving it")
	}
	// The next to open a map may be given what this one kept, but draws its own level.
	other, _ := viewModel(t, twoOnTwo(t), 80, 24)
	other.mapScr = &mapScreen{}
	other.screen = screenMap
	_ = other.Text()
	other.mapScr.release()
	m.screen = screenMap
	m.mapScr = other.mapScr
	if again := m.Text(); again != first || m.mapScr.memo.reused != 0 {
		t.Fatalf("drawn with another's released picture (reused %d):\n%s\nwant\n%s", m.mapScr.memo.reused, again, first)
	}
}
