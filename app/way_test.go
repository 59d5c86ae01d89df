package app

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// way exit from a known room of level 2, followed as it is said ("West 1 through the
// door, south 4, east 7"), leads out of the level (its stairs up), and map numbers the
// rooms way room takes. A way the map does not know is said to be unknown.
func TestTheWayOutFollowedLeadsOut(t *testing.T) {
	l := world.Generate(2, 1977, false)
	all := allSquares(l)
	var found []int
	for y := range l.H {
		for x := range l.W {
			for _, d := range []world.Dir{world.East, world.South} {
				if p := (world.Pos{X: x, Y: y}); l.Edge(p, d).IsSecret() {
					found = append(found, l.EdgeIndex(p, d))
				}
			}
		}
	}
	r := l.Rooms[len(l.Rooms)-1]
	from := world.Pos{X: r.X + r.W/2, Y: r.Y + r.H/2}
	v := world.View{Self: world.Self{Name: "Sir Kay", Depth: 2, Pos: from}, Level: l, Visible: all, Known: all, FoundDoors: found}
	said := wayText(v, []string{"exit"})
	rest, ok := strings.CutPrefix(said, "The way to the stairs up: ")
	if !ok {
		t.Fatalf("way exit said %q", said)
	}
	step := regexp.MustCompile(`^(north|south|east|west) (\d+)( through the (door|locked door|secret door)[^,]*)?$`)
	p := from
	for _, part := range strings.Split(strings.TrimSuffix(rest, "."), ", ") {
		mt := step.FindStringSubmatch(strings.ToLower(part))
		if mt == nil {
			t.Fatalf("a step of the way is %q, in %q", part, said)
		}
		d := plainDirs[mt[1]]
		n, _ := strconv.Atoi(mt[2])
		for i := range n {
			e := l.Edge(p, d)
			door := i == n-1 && mt[3] != ""
			if e == world.EdgeWall || door != (e != world.EdgeOpen) {
				t.Fatalf("following %q, %v of %v is a %v", said, d, p, e)
			}
			p = p.Step(d)
		}
	}
	if l.Feature(p) != world.FeatStairsUp {
		t.Fatalf("following %q ends at %v, not the stairs up", said, p)
	}

	if s := strings.Join(mapText(v), " "); !strings.Contains(s, "room 1, ") || !strings.Contains(s, "way exit") {
		t.Fatalf("map does not number the rooms or name way:\n%s", s)
	}
	if s := wayText(v, []string{"room", "1"}); !strings.HasPrefix(s, "The way to room 1: ") && s != "You are at room 1." {
		t.Fatalf("way room 1 said %q", s)
	}
	v.Known = make([]byte, len(all)) // nothing known
	if s := wayText(v, []string{"down"}); !strings.HasPrefix(s, "You know no way to the stairs down yet.") {
		t.Fatalf("a way off the map said %q", s)
	}
}

// where says the square and the nearest landmarks on the knight's map.
func TestWhereSaysTheSquareAndTheLandmarks(t *testing.T) {
	l := battleLevel(t)
	v := world.View{Self: world.Self{Name: "Sir Kay", Depth: 2, Pos: world.Pos{X: 2, Y: 0}}, Level: l, Visible: allSquares(l), Known: allSquares(l)}
	got := whereText(v)
	want := "You are on level 2, column 3, row 1. Nearest on your map: the exit, 2 squares west; a locked door, on the east side of the square 4 squares east"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("where said %q, want it to begin %q", got, want)
	}
}

// map names the rooms' doors, by wall, and the doors of the corridors.
func TestMapNamesTheDoors(t *testing.T) {
	l := battleLevel(t)
	v := world.View{Self: world.Self{Name: "Sir Kay", Depth: 2, Pos: world.Pos{X: 2, Y: 0}}, Level: l, Visible: allSquares(l), Known: allSquares(l)}
	s := strings.Join(mapText(v), " ")
	if !strings.Contains(s, "room 1, 5 by 3, its middle 1 south and 7 east, with a locked door in its west wall") {
		t.Fatalf("map does not name the room's locked door:\n%s", s)
	}
}

// While the player watches another knight, its own knight's messages are told at once,
// marked as its own, and not again when it stops watching.
func TestOwnMessagesAreToldWhileWatching(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight, v.Said = nil, 2
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.haveView = false
	m.pl.active = true
	m.ownView(v)
	m.screen = screenWatch
	v.Log = withLines(v.Log, "Bors whispers: come back!")
	v.Said = 3
	v.Turn++
	n := len(m.pl.transcript)
	m.ownView(v)
	said := strings.Join(m.pl.transcript[n:], "\n")
	if said != "Your own game: Bors whispers: come back!" {
		t.Fatalf("while watching, the own knight's whisper was told as %q", said)
	}
	m.screen = screenPlay
	v.Turn++
	n = len(m.pl.transcript)
	m.ownView(v)
	if said := strings.Join(m.pl.transcript[n:], "\n"); strings.Contains(said, "come back") {
		t.Fatalf("after the watch the whisper was told again: %q", said)
	}
}
