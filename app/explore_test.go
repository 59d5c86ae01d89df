package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Exploring by ear (issue 44): east 6 and north 4 walked past side passages without a
// word, east 9 walked onto a known chute, and after a fall way and where said only that
// nothing was known. Each is pinned here on a corridor with a side passage south at
// column 3 and a chute at its east end.

// forkLevel is the corridor: the exit at its west end, a side passage going south from
// its third square, a chute at its east end.
func forkLevel(t *testing.T) *world.Level {
	t.Helper()
	l, err := world.ParseASCII(1, `
+-+-+-+-+-+-+-+
|E           C|
+-+-+ +-+-+-+-+
|#|#| |#|#|#|#|
+-+-+ +-+-+-+-+
|#|#| |#|#|#|#|
+-+-+-+-+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// forkWalk is Sir Kay at x on forkLevel's corridor, knowing and seeing the corridor and
// the side passage's first square (not its second), with the commands it sends recorded.
type forkWalk struct {
	corridorWatch
	rec *recorder
}

func newForkWalk(t *testing.T, x int) *forkWalk {
	l := forkLevel(t)
	seen := make([]byte, (l.W*l.H+7)/8)
	for _, q := range []world.Pos{{X: 0}, {X: 1}, {X: 2}, {X: 3}, {X: 4}, {X: 5}, {X: 6}, {X: 2, Y: 1}} {
		i := q.Y*l.W + q.X
		seen[i/8] |= 1 << (i % 8)
	}
	v := world.View{Turn: 1, Self: world.Self{Name: "Sir Kay", Level: 1, Hits: 10, MaxHits: 10, Depth: 1, Pos: world.Pos{X: x}},
		Level: l, Visible: seen, Known: seen}
	m, _ := viewModel(t, world.View{}, 200, 24)
	m.haveView = false
	m.pl.active = true
	w := &forkWalk{corridorWatch: corridorWatch{t: t, m: m, v: v}, rec: &recorder{}}
	m.bt.to = w.rec
	w.show(nil)
	w.lines() // the first look
	m.view = w.v
	return w
}

// step carries out the one step the session asked for, and shows the view after it.
func (w *forkWalk) step() {
	w.t.Helper()
	cmds := w.rec.take()
	if len(cmds) != 1 {
		w.t.Fatalf("the session sent %v, want one step", cmds)
	}
	mv, ok := cmds[0].(world.Move)
	if !ok {
		w.t.Fatalf("the session sent %v, want a step", cmds[0])
	}
	w.v.Self.Pos = w.v.Self.Pos.Step(mv.Dir)
	w.v.Self.Feature = w.v.Level.Feature(w.v.Self.Pos)
	w.show(nil)
	w.m.view = w.v
}

// A walk stops where a side passage opens and names it; a walk stops before a known
// chute and says how to step onto it; a walk asked to start onto one does not start.
func TestAWalkStopsAtASidePassageAndBeforeAChute(t *testing.T) {
	w := newForkWalk(t, 0)
	enterLine(w.m, "east 6")
	w.lines()
	w.step() // x 1: nothing new, untold
	if said := w.lines(); len(said) != 0 {
		t.Fatalf("a step with nothing new said %q", said)
	}
	w.step() // x 2: the side passage
	said := strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "You stop after 2 squares east.\nA passage opens south.") {
		t.Fatalf("the walk did not stop at the side passage:\n%s", said)
	}
	if cmds := w.rec.take(); len(cmds) != 0 {
		t.Fatalf("the walk went on past the side passage: %v", cmds)
	}

	enterLine(w.m, "east 6")
	w.step() // x 3
	w.step() // x 4
	w.step() // x 5, the chute beside
	said = strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "You stop after 3 squares east.\nA chute is 1 square east: a walk stops before it. Type east alone to step onto it.") {
		t.Fatalf("the walk did not stop before the chute:\n%s", said)
	}
	if n := strings.Count(said, "A chute is 1 square east"); n != 1 {
		t.Fatalf("the chute was said %d times:\n%s", n, said)
	}
	if cmds := w.rec.take(); len(cmds) != 0 {
		t.Fatalf("the walk went on onto the chute: %v", cmds)
	}
	enterLine(w.m, "east 9")
	if cmds := w.rec.take(); len(cmds) != 0 {
		t.Fatalf("east 9 beside a known chute sent %v", cmds)
	}
	if said := strings.Join(w.lines(), "\n"); !strings.Contains(said, "A chute is 1 square east") {
		t.Fatalf("east 9 beside a known chute said:\n%s", said)
	}
	enterLine(w.m, "east")
	if cmds := w.rec.take(); len(cmds) != 1 || cmds[0] != (world.Move{Dir: world.East}) {
		t.Fatalf("east alone beside the chute sent %v, want the step", cmds)
	}
}

// explore walks along the map to the nearest unexplored opening and stops there, saying
// so; explore again goes through it. map lists the openings by direction and distance.
func TestExploreWalksToTheNearestUnexploredOpening(t *testing.T) {
	w := newForkWalk(t, 0)
	if s := strings.Join(mapText(w.v), " "); !strings.Contains(s, "Unexplored openings, nearest first: a passage south, 1 south and 2 east, 3 steps away.") {
		t.Fatalf("map does not list the opening:\n%s", s)
	}
	enterLine(w.m, "explore")
	w.step() // x 1
	w.step() // x 2
	w.step() // 2, 1: the opening south
	said := strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "You stop after exploring 3 squares: a passage south leads where you have not been; explore goes through it.") {
		t.Fatalf("explore did not stop at the opening:\n%s", said)
	}
	if cmds := w.rec.take(); len(cmds) != 0 {
		t.Fatalf("explore went on past the opening: %v", cmds)
	}
	enterLine(w.m, "explore")
	if cmds := w.rec.take(); len(cmds) != 1 || cmds[0] != (world.Move{Dir: world.South}) {
		t.Fatalf("explore at the opening sent %v, want a step south through it", cmds)
	}
}

// After a fall, where says what the map holds and way offers the nearest unexplored
// way, not only that no way is known.
func TestAfterAFallWayOffersTheNearestUnexploredWay(t *testing.T) {
	w := newForkWalk(t, 3)
	l := w.v.Level
	only := make([]byte, len(w.v.Known))
	for _, q := range []world.Pos{{X: 3}, {X: 4}, {X: 2}, {X: 2, Y: 1}} {
		i := q.Y*l.W + q.X
		only[i/8] |= 1 << (i % 8)
	}
	w.v.Known, w.v.Visible = only, only
	if s := wayText(w.v, []string{"up"}); s != "You know no way to the stairs up yet. The nearest unexplored way is a passage west: West 1. Explore walks there." &&
		s != "You know no way to the exit yet. The nearest unexplored way is a passage west: West 1. Explore walks there." {
		t.Fatalf("way up after a fall said %q", s)
	}
	if s := whereText(w.v); !strings.Contains(s, "you have seen 4 squares of this level. The nearest unexplored way is a passage") {
		t.Fatalf("where after a fall said %q", s)
	}
}

// explore stops where the knight's light first shows a hoard (a guard's treasure, the
// only thing in the dungeon that lies waiting to be taken) and says so and where it
// lies; a hoard the light showed already is no stop. look says what the light shows,
// a monster's shadow by its kind.
func TestExploreStopsWhereTheLightShowsTreasure(t *testing.T) {
	w := newForkWalk(t, 0)
	w.v.Self.Light = true
	enterLine(w.m, "explore")
	w.step() // x 1
	w.v.Shadows = []world.Shadow{{Pos: world.Pos{X: 4, Y: 2}, Treasure: true}}
	w.step() // x 2: the light reaches the hoard
	said := strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "You stop after exploring 2 squares: your light shows treasure.") ||
		!strings.Contains(said, "Your light shows treasure 2 south and 2 east, beyond your sight.") {
		t.Fatalf("explore did not stop where the light showed treasure:\n%s", said)
	}
	if cmds := w.rec.take(); len(cmds) != 0 {
		t.Fatalf("explore went on past the treasure: %v", cmds)
	}
	enterLine(w.m, "explore")
	w.step() // 2, 1: the opening south, the hoard still in the light
	if said := strings.Join(w.lines(), "\n"); strings.Contains(said, "treasure") || !strings.Contains(said, "a passage south leads where you have not been") {
		t.Fatalf("explore stopped again for the treasure shown already:\n%s", said)
	}
	w.v.Shadows = append(w.v.Shadows, world.Shadow{Pos: world.Pos{X: 5, Y: 2}, Glyph: "An"})
	w.m.view = w.v
	enterLine(w.m, "look")
	if said := strings.Join(w.lines(), "\n"); !strings.Contains(said, "Your light shows treasure") || !strings.Contains(said, "Your light shows the shadow of a Giant Ant") {
		t.Fatalf("look does not say what the light shows:\n%s", said)
	}
}

// explore names what it stops for with the article it takes: "you see a chute" (a level
// has many), "you see the exit"; it said "you see the chute" of one of several.
func TestExploreNamesAFeatureItSeesWithItsArticle(t *testing.T) {
	w := newForkWalk(t, 0)
	for _, tc := range []struct {
		unknown world.Pos
		want    string
	}{{world.Pos{X: 6}, "a chute"}, {world.Pos{}, "the exit"}} {
		known := slices.Clone(w.v.Known)
		known[tc.unknown.X/8] &^= 1 << (tc.unknown.X % 8)
		if got := newFeature(w.v, known); got != tc.want {
			t.Errorf("a %v not on the map is named %q, want %q", w.v.Level.Feature(tc.unknown), got, tc.want)
		}
	}
}
