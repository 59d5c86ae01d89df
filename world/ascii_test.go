package world

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fixture is a small hand-drawn level: the exit top left, a 2x2 room behind a secret door
// from the north, a locked door to the east and a marked secret door to the south, a plain
// door in the corridor to the stairs down, and two corridor squares side by side ((3,3) and
// (4,3)) that were not carved as connected, so a wall stands between them.
const fixture = `
	+-+-+-+-+-+-+
	|E    |#|#|#|
	+-+-+S+-+-+-+
	|#|. .L D |#|
	+-+ + +-+ +-+
	|#|. .|#| |#|
	+-+-+$+-+ +-+
	|#|#|   |>|#|
	+-+-+-+-+-+-+
`

func TestParseASCIIFixture(t *testing.T) {
	l, err := ParseASCII(1, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if l.W != 6 || l.H != 4 || l.Depth != 1 {
		t.Fatalf("parsed %dx%d depth %d, want 6x4 depth 1", l.W, l.H, l.Depth)
	}
	if l.Up != (Pos{0, 0}) || l.Feature(l.Up) != FeatExit {
		t.Errorf("up %v with %q, want (0,0) exit", l.Up, l.Feature(l.Up))
	}
	if !l.HasDown || l.Down != (Pos{4, 3}) || l.Feature(l.Down) != FeatStairsDown {
		t.Errorf("down %v (has %v) with %q, want (4,3) stairs down", l.Down, l.HasDown, l.Feature(l.Down))
	}
	if want := []RoomRect{{X: 1, Y: 1, W: 2, H: 2}}; !slices.Equal(l.Rooms, want) {
		t.Errorf("rooms %v, want %v", l.Rooms, want)
	}
	for _, c := range []struct {
		p    Pos
		t    Terrain
		room int
	}{
		{Pos{0, 0}, Corridor, -1}, {Pos{2, 0}, Corridor, -1}, {Pos{3, 0}, Rock, -1},
		{Pos{1, 1}, Room, 0}, {Pos{2, 2}, Room, 0}, {Pos{3, 2}, Rock, -1}, {Pos{4, 3}, Corridor, -1},
	} {
		if l.Terrain(c.p) != c.t || l.RoomAt(c.p) != c.room {
			t.Errorf("%v is %v room %d, want %v room %d", c.p, terrainName(l.Terrain(c.p)), l.RoomAt(c.p), terrainName(c.t), c.room)
		}
	}
	for _, c := range []struct {
		p    Pos
		d    Dir
		want Edge
	}{
		{Pos{0, 0}, East, EdgeOpen},
		{Pos{2, 0}, East, EdgeWall},
		// "These normally appear to be walls, but about one sixth of the time they appear as
		// walls with a box in the middle": 'S' is the plain kind, '$' the boxed one.
		{Pos{2, 0}, South, EdgeSecret},
		{Pos{2, 1}, North, EdgeSecret},
		{Pos{2, 2}, South, EdgeSecretMarked},
		// "all these [locked] doors lead into rooms".
		{Pos{2, 1}, East, EdgeLocked},
		{Pos{3, 1}, West, EdgeLocked},
		{Pos{3, 1}, East, EdgeDoor},
		{Pos{1, 1}, East, EdgeOpen},
		{Pos{1, 1}, South, EdgeOpen},
		{Pos{1, 2}, West, EdgeWall},
		{Pos{4, 1}, South, EdgeOpen},
		{Pos{2, 3}, East, EdgeOpen},
		{Pos{3, 3}, East, EdgeWall}, // adjacent corridors, not connected
		{Pos{0, 0}, North, EdgeWall},
		{Pos{5, 3}, East, EdgeWall},
	} {
		if got := l.Edge(c.p, c.d); got != c.want {
			t.Errorf("edge %v of %v is %v, want %v", c.d, c.p, got, c.want)
		}
	}
	// The fixture obeys the rules generated levels obey.
	if err := checkWellFormed(l, false); err != nil {
		t.Errorf("fixture: %v", err)
	}
	want := strings.ReplaceAll(strings.TrimSpace(fixture), "\t", "") + "\n"
	if got := l.ASCII(); got != want {
		t.Errorf("round trip:\n%s\nwant:\n%s", got, want)
	}
}

func TestASCIIShape(t *testing.T) {
	l := Generate(1, 1, false)
	lines := strings.Split(strings.TrimSuffix(l.ASCII(), "\n"), "\n")
	if len(lines) != 2*l.H+1 {
		t.Fatalf("%d lines, want %d", len(lines), 2*l.H+1)
	}
	for i, ln := range lines {
		if len(ln) != 2*l.W+1 {
			t.Fatalf("line %d is %d characters, want %d", i, len(ln), 2*l.W+1)
		}
	}
	up := lines[2*l.Up.Y+1][2*l.Up.X+1]
	down := lines[2*l.Down.Y+1][2*l.Down.X+1]
	if up != 'E' || down != '>' {
		t.Fatalf("up drawn %q, down drawn %q", up, down)
	}
	if d := Generate(2, 1, true); strings.Count(d.ASCII(), "<") != 1 || strings.Contains(d.ASCII(), ">") {
		t.Fatalf("depth 2 bottom level should show '<' once and no '>':\n%s", d.ASCII())
	}
}

// TestASCIIRoundTripGenerated parses test levels' pictures back and expects the very same
// level, seed aside (a picture does not carry it). A quarter of the test dungeons is plenty
// and keeps the package quick under -race.
func TestASCIIRoundTripGenerated(t *testing.T) {
	for seed, levels := range testDungeons()[:testSeeds/4] {
		for i, l := range levels {
			pic := l.ASCII()
			p, err := ParseASCII(l.Depth, pic)
			if err == nil {
				err = sameLevel(p, l)
			}
			if err == nil && p.ASCII() != pic {
				err = fmt.Errorf("picture differs after a round trip:\n%s", p.ASCII())
			}
			if err != nil {
				t.Fatalf("dungeon seed %d depth %d: %v\n%s", seed, i+1, err, pic)
			}
		}
	}
	// One full comparison of the encodings, which also covers fields sameLevel might miss.
	l := testDungeons()[0][0]
	p, err := ParseASCII(l.Depth, l.ASCII())
	if err != nil {
		t.Fatal(err)
	}
	p.Seed = l.Seed
	for q := range squares(l) { // traps are hidden: the picture does not show them
		p.SetTrap(q, l.Trap(q))
	}
	a, _ := l.MarshalBinary()
	b, _ := p.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Fatal("level encodes differently after a round trip")
	}
}

// sameLevel reports how got differs from want, seed aside. It compares the fields directly
// because MarshalBinary is slow under -race.
func sameLevel(got, want *Level) error {
	switch {
	case got.Depth != want.Depth || got.W != want.W || got.H != want.H:
		return fmt.Errorf("depth %d size %dx%d, want depth %d size %dx%d", got.Depth, got.W, got.H, want.Depth, want.W, want.H)
	case got.Up != want.Up || got.Down != want.Down || got.HasDown != want.HasDown:
		return fmt.Errorf("up %v down %v (%v), want up %v down %v (%v)", got.Up, got.Down, got.HasDown, want.Up, want.Down, want.HasDown)
	case !slices.Equal(got.Rooms, want.Rooms):
		return fmt.Errorf("rooms %v, want %v", got.Rooms, want.Rooms)
	case !slices.Equal(got.terrain, want.terrain) || !slices.Equal(got.room, want.room) || !slices.Equal(got.feature, want.feature):
		return fmt.Errorf("squares differ")
	case !slices.Equal(got.east, want.east) || !slices.Equal(got.south, want.south):
		return fmt.Errorf("edges differ")
	}
	return nil
}

// TestParseASCIIFeatureInRoom: a feature hides the terrain under it in the picture; one that
// opens onto a room square must be part of the room, since corridors never open into rooms.
func TestParseASCIIFeatureInRoom(t *testing.T) {
	const room = `
+-+-+-+-+
|<L. C|#|
+-+-+ +-+
|#|#|. P|
+-+-+-+-+
`
	l, err := ParseASCII(2, room)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Pos{{1, 0}, {2, 0}, {2, 1}, {3, 1}} {
		if l.Terrain(p) != Room || l.RoomAt(p) != 0 {
			t.Errorf("%v is %v room %d, want room 0", p, terrainName(l.Terrain(p)), l.RoomAt(p))
		}
	}
	if l.Feature(Pos{2, 0}) != FeatChute || l.Feature(Pos{3, 1}) != FeatPit {
		t.Errorf("features %q %q, want chute and pit", l.Feature(Pos{2, 0}), l.Feature(Pos{3, 1}))
	}
	if l.Terrain(Pos{0, 0}) != Corridor || l.Up != (Pos{0, 0}) || l.HasDown {
		t.Errorf("up %v on %v, HasDown %v", l.Up, terrainName(l.Terrain(Pos{0, 0})), l.HasDown)
	}
	if want := []RoomRect{{X: 1, Y: 0, W: 3, H: 2}}; !slices.Equal(l.Rooms, want) {
		t.Errorf("rooms %v, want %v", l.Rooms, want)
	}
	if got, want := l.ASCII(), strings.TrimLeft(room, "\n"); got != want {
		t.Errorf("round trip:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseASCIIRoomNumbering(t *testing.T) {
	// Rooms are numbered in row-major order of their first square; the second room starts
	// on row 0 further right, the third on row 1 further left.
	const pic = `
+-+-+-+-+-+-+
|. .|#|#|. .|
+ + +-+-+-+-+
|. .|#|.|#|#|
+-+-+-+-+-+-+
`
	l, err := ParseASCII(3, pic)
	if err != nil {
		t.Fatal(err)
	}
	want := []RoomRect{{0, 0, 2, 2}, {4, 0, 2, 1}, {3, 1, 1, 1}}
	if !slices.Equal(l.Rooms, want) {
		t.Fatalf("rooms %v, want %v", l.Rooms, want)
	}
	if l.RoomAt(Pos{5, 0}) != 1 || l.RoomAt(Pos{3, 1}) != 2 || l.RoomAt(Pos{1, 1}) != 0 {
		t.Fatalf("room indexes %d %d %d", l.RoomAt(Pos{5, 0}), l.RoomAt(Pos{3, 1}), l.RoomAt(Pos{1, 1}))
	}
}

func TestParseASCIIErrors(t *testing.T) {
	for _, c := range []struct{ name, pic string }{
		{"empty", "\n  \n"},
		{"even lines", "+-+\n|#|\n+-+\n|#|\n"},
		{"even width", "+-+-\n|#|#\n+-+-\n"},
		{"too small", "+\n"},
		{"ragged", "+-+-+\n|#|#|\n+-+-+-+\n"},
		{"unknown square", "+-+\n|x|\n+-+\n"},
		{"unknown edge", "+-+-+\n|#x#|\n+-+-+\n"},
		{"vertical wall on horizontal edge", "+|+\n|#|\n+-+\n"},
		{"bad corner", "+-+\n|#|\n+-*\n"},
		{"open boundary", "+-+\n #|\n+-+\n"},
		{"door in boundary", "+D+\n| |\n+-+\n"},
		{"two ups", "+-+-+\n|E <|\n+-+-+\n"},
		{"two downs", "+-+-+\n|> >|\n+-+-+\n"},
	} {
		if l, err := ParseASCII(1, c.pic); err == nil {
			t.Errorf("%s: parsed without error:\n%s", c.name, l.ASCII())
		}
	}
}

func TestParseASCIIIndentation(t *testing.T) {
	// Blank lines around the picture, a shared indentation and CRLF line ends are ignored.
	pic := "\r\n\n    +-+-+\r\n    |E >|\r\n    +-+-+\r\n  \n"
	l, err := ParseASCII(1, pic)
	if err != nil {
		t.Fatal(err)
	}
	if l.W != 2 || l.H != 1 || l.Up != (Pos{0, 0}) || l.Down != (Pos{1, 0}) || l.Edge(Pos{0, 0}, East) != EdgeOpen {
		t.Fatalf("parsed %dx%d up %v down %v:\n%s", l.W, l.H, l.Up, l.Down, l.ASCII())
	}
}

// The smallest level is one square, and an error names the line and column it found
// wrong, counted from 1.
func TestParseASCIISmallestAndWhere(t *testing.T) {
	l, err := ParseASCII(1, "+-+\n|E|\n+-+\n")
	if err != nil || l.W != 1 || l.H != 1 || l.Up != (Pos{0, 0}) {
		t.Fatalf("one square: %v, %+v", err, l)
	}
	for _, c := range []struct{ pic, want string }{
		{"+-+-+\n|#|#|\n+-+-+-+\n", "line 3 is 7 characters, line 1 is 5"},
		{"+-+\n|x|\n+-+\n", `unexpected 'x' at line 2 column 2`},
		{"+-+-+\n|#x#|\n+-+-+\n", `unexpected 'x' at line 2 column 3`},
		{"+D+\n| |\n+-+\n", "boundary at line 1 column 2"},
	} {
		if _, err := ParseASCII(1, c.pic); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.pic, err, c.want)
		}
	}
}

// A level read back from its bytes is the same level (a replay keeps levels so).
func TestLevelUnmarshalBinaryRoundTrip(t *testing.T) {
	for depth := 1; depth <= 3; depth++ {
		l := GenerateDungeon(7, 3)[depth-1]
		b, err := l.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Level
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if got := back.ASCII(); got != l.ASCII() {
			t.Fatalf("level %d read back differs:\n%s\nwant\n%s", depth, got, l.ASCII())
		}
		if b2, _ := back.MarshalBinary(); !bytes.Equal(b, b2) {
			t.Fatalf("level %d: bytes differ after a round trip", depth)
		}
	}
	if err := new(Level).UnmarshalBinary([]byte("nonsense")); err == nil {
		t.Fatal("nonsense read as a level")
	}
}
