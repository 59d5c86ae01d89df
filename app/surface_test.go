package app

import (
	"io"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The surface is drawn as a grid at the smallest and at a large terminal: the knight's
// circle, the entrance, the markets' signs, the other knight's initials, rock, what the
// knight's space is and the keys, all inside the frame.
func TestSurfaceIsDrawnAsAGrid(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}, {100, 30}, {400, 200}} {
		w, h := size[0], size[1]
		m, _ := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), w, h)
		s := m.Text()
		lines := strings.Split(s, "\n")
		if len(lines) != h {
			t.Fatalf("%dx%d: %d lines", w, h, len(lines))
		}
		for i, l := range lines {
			if n := len([]rune(l)); n != w {
				t.Fatalf("%dx%d: line %d is %d columns", w, h, i, n)
			}
		}
		for _, want := range []string{"()", "EX", "$GL", "$SF", "Ga", "░", "THE SURFACE", "The Market of the Golden Lamb:", "b to trade, s to sell.", "Gold 120",
			"Sir Kay │ Level 2 │ Hits 14/15", "Outside", "You climb out into the daylight."} {
			if !strings.Contains(s, want) {
				t.Fatalf("%dx%d: the surface lacks %q:\n%s", w, h, want, s)
			}
		}
		if strings.Contains(s, "daylight outside the dungeon") {
			t.Fatalf("%dx%d: the old outside text is still drawn:\n%s", w, h, s)
		}
		// The knight's mark is in reverse video for the other knight, as in the dungeon.
		if !drawnAs(m.render(false), m.theme, clsOther, "Ga") {
			t.Fatalf("%dx%d: Gawain is not drawn as another knight", w, h)
		}
		// Centred: as much room left of the frame as right of the words, roughly.
		top := -1
		for _, l := range lines {
			if i := strings.Index(l, "┌"); i >= 0 {
				top = len([]rune(l[:i]))
				break
			}
		}
		if w > 100 && (top < 5 || top > w/2) {
			t.Fatalf("%dx%d: the frame starts at column %d:\n%s", w, h, top, s)
		}
	}
}

// Every size from the smallest up fits the grid and the words without overlap.
func TestSurfaceLayoutFits(t *testing.T) {
	for w := 20; w <= 220; w += 3 {
		for h := 10; h <= 80; h += 2 {
			l := layoutSurface(8, 8, w, h)
			if l.gx < 0 || l.gy < 0 || l.gx+l.gw > w || l.gy+l.gh > h {
				if w >= 18 && h >= 10 {
					t.Fatalf("%dx%d: frame %+v outside the area", w, h, l)
				}
			}
			if l.beside && (l.ix < l.gx+l.gw || l.ix+l.iw > w) {
				t.Fatalf("%dx%d: words beside overlap: %+v", w, h, l)
			}
			if l.under && (l.iy < l.gy+l.gh || l.iy+infoUnder-1 > h) {
				t.Fatalf("%dx%d: words under overlap: %+v", w, h, l)
			}
		}
	}
	if l := layoutSurface(8, 8, 80, 18); l.ch != 2 || !l.beside {
		t.Fatalf("80×24 draws spaces %d rows high, words beside %v; want 2 rows with the words beside", l.ch, l.beside)
	}
}

// In a battle on the surface the battle panel takes the right of the screen, as in the
// dungeon, and the grid fits to its left.
func TestSurfaceBattleLeavesRoomForThePanel(t *testing.T) {
	v := surfaceView(world.Pos{X: 1, Y: 3})
	v.Fight = &world.FightView{Surface: true, YourMove: true, Round: 1,
		Monsters: []world.FightMonster{{Name: "Wolf", Class: "Animal", Glyph: "Wo", Level: 2, Hits: 8, MaxHits: 8}},
		Knights:  []world.FightKnight{{Name: "Sir Kay", Level: 2, Hits: 14, MaxHits: 15}},
		Log:      []string{"A wolf springs at you out of the long grass!"}}
	m, rec := viewModel(t, v, 80, 24)
	s := m.Text()
	panelX := 80 - fightPanelWidth(80)
	found := false
	for _, l := range strings.Split(s, "\n") {
		r := []rune(l)
		if i := strings.Index(l, "()"); i >= 0 {
			found = true
			if x := len([]rune(l[:i])); x >= panelX {
				t.Fatalf("the knight is drawn under the panel, column %d:\n%s", x, s)
			}
		}
		for x := panelX; x < len(r); x++ {
			if r[x] == '·' || r[x] == '$' {
				t.Fatalf("the grid runs under the battle panel:\n%s", s)
			}
		}
	}
	if !found || !strings.Contains(s, "EX") {
		t.Fatalf("the surface is not drawn beside the battle:\n%s", s)
	}
	// Keys still walk (the world refuses while the battle lasts).
	keys(m, "l")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Move{Dir: world.East}}) {
		t.Fatalf("l in a surface battle sent %#v", got)
	}
}

// Arrows and hjkl walk on the surface (depth 0), shifted ones too, without doors; d is
// the dungeon's door key and does nothing outside; > goes down.
func TestMovingOnTheSurface(t *testing.T) {
	m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 3}), 80, 24)
	keys(m, "up", "down", "left", "right", "k", "j", "h", "l", "shift+right", "L")
	want := []world.Command{
		world.Move{Dir: world.North}, world.Move{Dir: world.South}, world.Move{Dir: world.West}, world.Move{Dir: world.East},
		world.Move{Dir: world.North}, world.Move{Dir: world.South}, world.Move{Dir: world.West}, world.Move{Dir: world.East},
		world.Move{Dir: world.East}, world.Move{Dir: world.East},
	}
	if got := rec.take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("moves sent %#v, want %#v", got, want)
	}
	keys(m, "d", "l")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Move{Dir: world.East}}) || m.dun.doorMode {
		t.Fatalf("d then l sent %#v (door mode %v)", got, m.dun.doorMode)
	}
	if s := m.Text(); !strings.Contains(s, "The dungeon entrance:") || !strings.Contains(s, "> goes down") {
		t.Fatalf("the entrance is not explained:\n%s", s)
	}
	keys(m, ">")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Enter{}}) {
		t.Fatalf("> sent %#v", got)
	}
	// b off a market does nothing.
	keys(m, "b")
	if m.screen != screenPlay {
		t.Fatalf("b off a market opened screen %d", m.screen)
	}
	m.view = surfaceView(world.Pos{X: 1, Y: 1})
	if s := m.Text(); !strings.Contains(s, "Common ground:") || !strings.Contains(s, "battles may come.") {
		t.Fatalf("common ground is not explained:\n%s", s)
	}
}

// Outside without a surface (a world that has none) keeps the old daylight screen, and
// the keys do not walk.
func TestOutsideWithoutASurface(t *testing.T) {
	v := surfaceView(world.Pos{X: 2, Y: 3})
	v.Surface = nil
	m, rec := viewModel(t, v, 80, 24)
	if s := m.Text(); !strings.Contains(s, "daylight outside the dungeon") {
		t.Fatalf("outside without a surface:\n%s", s)
	}
	keys(m, "l", "b")
	if got := rec.take(); len(got) != 0 || m.screen != screenPlay {
		t.Fatalf("keys outside without a surface sent %#v, screen %d", got, m.screen)
	}
}

// Screen-reader mode speaks the surface: where the knight is and what lies around, the
// map in words and as a grid; direction words and arrows walk; down goes in at the
// entrance; retire still works outside.
func TestPlainSurface(t *testing.T) {
	m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 3}), 80, 24)
	m.pl.active, m.opts.Plain = true, true
	typeLine := func(line string) { enterLine(m, line) }
	typeLine("look")
	s := m.Text()
	for _, want := range []string{
		"You are on the surface, at the dungeon entrance: type down to go down.",
		"North is common ground; south is common ground; east is common ground; west is common ground.",
		"you are in row 4, column 3",
		"The nearest market is the Market of",
		"Gawain is 2 squares east.",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("look lacks %q:\n%s", want, s)
		}
	}
	for _, w := range []string{"north", "s", "east", "w"} {
		typeLine(w)
	}
	keys(m, "up", "right")
	want := []world.Command{world.Move{Dir: world.North}, world.Move{Dir: world.South}, world.Move{Dir: world.East},
		world.Move{Dir: world.West}, world.Move{Dir: world.North}, world.Move{Dir: world.East}}
	if got := rec.take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("walking words sent %#v, want %#v", got, want)
	}
	typeLine("down")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Enter{}}) {
		t.Fatalf("down sent %#v", got)
	}
	typeLine("map")
	typeLine("map grid")
	s = m.Text()
	for _, want := range []string{
		"The surface, 8 by 8 spaces",
		"Row 1: rock, common, the Market of the Golden Lamb, 2 common, rock, the Market of the Silver Fox, common.",
		"Row 4: 2 common, the dungeon entrance (you), common, common (Gawain), the Market of the Blue Boar, 2 common.",
		" 1  # . $ . . # $ .",
		" 4  . . @ . K $ . .",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("the map lacks %q:\n%s", want, s)
		}
	}
	if r, ok := boxDrawing(s); ok {
		t.Fatalf("screen-reader mode drew %q:\n%s", r, s)
	}
	typeLine("market")
	if s := m.Text(); !strings.Contains(s, "There is no market here") {
		t.Fatalf("market off a market:\n%s", s)
	}
	typeLine("retire")
	typeLine("yes")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Retire{}}) {
		t.Fatalf("retire, yes sent %#v", got)
	}
}

// A step on the surface is told: the new space and its sides; others coming and going
// are told too.
func TestPlainSurfaceNarratesSteps(t *testing.T) {
	m, _ := viewModel(t, surfaceView(world.Pos{X: 2, Y: 3}), 80, 24)
	m.pl.active = true
	next := surfaceView(world.Pos{X: 2, Y: 2})
	m.narrate(m.view, next, false)
	m.view = next
	s := m.Text()
	if !strings.Contains(s, "You are on the surface, on common ground, where battles may come.") ||
		!strings.Contains(s, "North is rock; south is the dungeon entrance;") {
		t.Fatalf("a step:\n%s", s)
	}
	later := surfaceView(world.Pos{X: 2, Y: 2})
	later.Surface.Others = []world.Other{{Name: "Gawain", Pos: world.Pos{X: 2, Y: 2}}, {Name: "Tristan", Pos: world.Pos{X: 7, Y: 7}}}
	m.narrate(next, later, false)
	s = m.Text()
	for _, want := range []string{"Gawain comes to your space.", "Tristan is now on the surface, 5 south and 5 east."} {
		if !strings.Contains(s, want) {
			t.Fatalf("comings lack %q:\n%s", want, s)
		}
	}
	m.narrate(later, next, false)
	if s := m.Text(); !strings.Contains(s, "Tristan has left the surface.") || !strings.Contains(s, "Gawain leaves your space: now 1 south and 2 east.") {
		t.Fatalf("goings:\n%s", s)
	}
}

// checkSurfaceFrame fails unless the frame is h lines of w columns (checkFrame) and
// shows every one of wants.
func checkSurfaceFrame(t *testing.T, name, frame string, w, h int, wants ...string) {
	t.Helper()
	checkFrame(t, frame, w, h)
	for _, want := range wants {
		if !strings.Contains(frame, want) {
			t.Fatalf("%s: %q is not on the screen:\n%s", name, want, frame)
		}
	}
}

// TestSurfaceFrames draws the surface, the market (buying and selling), a large
// terminal's surface and a surface battle, and checks each frame: the whole terminal,
// no line wider, and what that screen must show (the grid with the knight, Gawain, the
// entrance and the markets; every ware with its price and count; the knight's things
// with what the market pays; the battle panel beside the grid). go test -run Frames -v
// prints them.
func TestSurfaceFrames(t *testing.T) {
	m, _ := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 80, 24)
	t.Logf("surface, 80×24:\n%s", m.Text())
	checkSurfaceFrame(t, "surface, 80×24", m.Text(), 80, 24, "THE SURFACE", "()", "Ga", "EX", "$GL", "$SF",
		"The Market of the Golden Lamb", "Gold 120", "In sight: Gawain.", "Sir Kay │ Level 2 │ Hits 14/15")
	keys(m, "b")
	t.Logf("market, 80×24:\n%s", m.Text())
	checkSurfaceFrame(t, "market, 80×24", m.Text(), 80, 24, "THE MARKET OF THE GOLDEN LAMB", "Your gold: 120",
		"FOR SALE: a letter buys", "a  sword +1                   200    3", "b  shield                      90    1",
		"c  armour +2                  900    2", "d  ring of light              150 none",
		"c  potion of healing                30", "d  gem worth 400                   400")
	keys(m, "tab")
	t.Logf("market selling, 80×24:\n%s", m.Text())
	checkSurfaceFrame(t, "market selling, 80×24", m.Text(), 80, 24, "YOUR THINGS: a letter sells", "FOR SALE (Tab to buy)",
		"b  boots of speed (worn)")
	m2, _ := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 160, 50)
	t.Logf("surface, 160×50:\n%s", m2.Text())
	checkSurfaceFrame(t, "surface, 160×50", m2.Text(), 160, 50, "THE SURFACE", "()",
		"$GL The Market of the Golden Lamb", "$C  The Market of the Crown")
	if strings.Contains(m2.Text(), " more") {
		t.Fatalf("a 160×50 screen does not list all nine markets:\n%s", m2.Text())
	}
	v := surfaceView(world.Pos{X: 1, Y: 3})
	v.Fight = &world.FightView{Surface: true, YourMove: true, Round: 1,
		Monsters: []world.FightMonster{{Name: "Wolf", Class: "Animal", Glyph: "Wo", Level: 2, Hits: 8, MaxHits: 8}},
		Knights:  []world.FightKnight{{Name: "Sir Kay", Level: 2, Hits: 14, MaxHits: 15}},
		Log:      []string{"A wolf springs at you out of the long grass!"}}
	m3, _ := viewModel(t, v, 80, 24)
	t.Logf("surface battle, 80×24:\n%s", m3.Text())
	checkSurfaceFrame(t, "surface battle, 80×24", m3.Text(), 80, 24, "THE SURFACE", "()", "BATTLE", "Wolf", "8/8", "14/15", "A wolf springs")
}

// A frame on the surface draws its grid on a frame's cells from the pool, as the dungeon's
// map does, not on a canvas of its own made each frame (80×17 cells, 5.4 KB). What it
// says beside the grid (the market's words) is made anew, and is smaller.
func TestASurfaceFrameMakesNoCanvas(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	views := []world.View{surfaceView(world.Pos{X: 3, Y: 3}), surfaceView(world.Pos{X: 3, Y: 4})}
	m, _ := viewModel(t, views[0], 80, 24)
	m.term.out, m.term.bce = io.Discard, true
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	i := 0
	frame := func() {
		m.Update(viewMsg(views[i%2]))
		m.View()
		i++
	}
	for range 4 {
		frame()
	}
	if _, bytes, big := frameCost(20, frame); big > 0 {
		t.Errorf("a frame on the surface makes %.1f blocks of %d bytes or more (%.0f bytes in all)", big, bigBlock, bytes)
	} else {
		t.Logf("a frame on the surface makes %.0f bytes", bytes)
	}
}
