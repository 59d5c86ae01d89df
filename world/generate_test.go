package world

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// testSeeds is how many dungeons (of DefaultDepth levels each) the invariant and
// statistics tests look at.
const testSeeds = 200

// testDungeons generates the test dungeons once for all tests, spread over the CPUs so the
// package stays quick under -race. Index s is the dungeon with seed s.
var testDungeons = sync.OnceValue(func() [][]*Level {
	out := make([][]*Level, testSeeds)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for s := w; s < testSeeds; s += workers {
				out[s] = GenerateDungeon(uint64(s), DefaultDepth)
			}
		})
	}
	wg.Wait()
	return out
})

// forEachLevel runs check on every test level and reports failures with the seed, depth and
// picture of the level, stopping after a few so one bug does not bury the output.
func forEachLevel(t *testing.T, check func(l *Level, bottom bool) error) {
	t.Helper()
	failures := 0
	for seed, levels := range testDungeons() {
		for i, l := range levels {
			if err := check(l, i == len(levels)-1); err != nil {
				t.Errorf("dungeon seed %d depth %d: %v\n%s", seed, i+1, err, l.ASCII())
				if failures++; failures >= 3 {
					t.FailNow()
				}
			}
		}
	}
}

// passable is how the reachability invariant sees an edge: every kind of door can be got
// through (locked ones broken down, secret ones found), walls cannot.
func passable(e Edge) bool { return e == EdgeOpen || e.IsDoor() }

// terrainName names a terrain for failure messages.
func terrainName(t Terrain) string {
	switch t {
	case Rock:
		return "rock"
	case Corridor:
		return "corridor"
	case Room:
		return "room"
	}
	return fmt.Sprintf("terrain(%d)", t)
}

// checkReachable: every square that is not rock can be reached from the up square moving
// up, down, left or right through open edges and doors of every kind. Secret doors count:
// "Except for that, they are just like regular doors."
func checkReachable(l *Level, _ bool) error {
	seen := make([]bool, l.W*l.H)
	seen[l.idx(l.Up)] = true
	stack := []Pos{l.Up}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range Dirs {
			q := p.Step(d)
			if passable(l.Edge(p, d)) && !seen[l.idx(q)] {
				seen[l.idx(q)] = true
				stack = append(stack, q)
			}
		}
	}
	for p := range squares(l) {
		if l.Terrain(p) != Rock && !seen[l.idx(p)] {
			return fmt.Errorf("square %v (%v) is not reachable from up %v", p, terrainName(l.Terrain(p)), l.Up)
		}
	}
	return nil
}

// Seed: "There are locked doors in the dungeon, and all these doors lead into rooms where
// the treasure and monsters are hidden." Rooms are only entered through doors.
func checkRoomsBehindDoors(l *Level, _ bool) error {
	for p := range squares(l) {
		if l.Terrain(p) != Room {
			continue
		}
		for _, d := range Dirs {
			q := p.Step(d)
			if l.In(q) && l.RoomAt(q) != l.RoomAt(p) && l.Edge(p, d) == EdgeOpen {
				return fmt.Errorf("room square %v is open to the %v onto %v (%v)", p, d, q, terrainName(l.Terrain(q)))
			}
		}
	}
	return nil
}

// Seed: "There are locked doors in the dungeon, and all these doors lead into rooms".
func checkLockedDoorsLeadIntoRooms(l *Level, _ bool) error {
	for p := range squares(l) {
		for _, d := range [2]Dir{East, South} {
			if l.Edge(p, d) == EdgeLocked && l.Terrain(p) != Room && l.Terrain(p.Step(d)) != Room {
				return fmt.Errorf("locked door %v of %v joins no room", d, p)
			}
		}
	}
	return nil
}

func checkRoomInteriorsOpen(l *Level, _ bool) error {
	for i, r := range l.Rooms {
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				p := Pos{x, y}
				if x+1 < r.X+r.W && l.Edge(p, East) != EdgeOpen {
					return fmt.Errorf("room %d: edge east of %v is %v", i, p, l.Edge(p, East))
				}
				if y+1 < r.Y+r.H && l.Edge(p, South) != EdgeOpen {
					return fmt.Errorf("room %d: edge south of %v is %v", i, p, l.Edge(p, South))
				}
			}
		}
	}
	return nil
}

func checkRoomShapes(l *Level, _ bool) error {
	if len(l.Rooms) < 3 || len(l.Rooms) > maxRooms {
		return fmt.Errorf("%d rooms, want 3..%d", len(l.Rooms), maxRooms)
	}
	for i, r := range l.Rooms {
		if r.W < roomMinW || r.W > roomMaxW || r.H < roomMinH || r.H > roomMaxH {
			return fmt.Errorf("room %d is %dx%d", i, r.W, r.H)
		}
		for j, o := range l.Rooms[:i] {
			if roomsTouch(r, o) {
				return fmt.Errorf("rooms %d %+v and %d %+v touch", j, o, i, r)
			}
		}
		doors := 0
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				p := Pos{x, y}
				for _, d := range Dirs {
					if q := p.Step(d); !r.Contains(q) && l.Edge(p, d).IsDoor() {
						doors++
						if l.Terrain(q) != Corridor {
							return fmt.Errorf("room %d: door %v of %v leads to %v", i, d, p, terrainName(l.Terrain(q)))
						}
					}
				}
			}
		}
		if doors < 1 || doors > maxRoomDoors {
			return fmt.Errorf("room %d has %d doors, want 1..%d", i, doors, maxRoomDoors)
		}
	}
	// The room grid and the room list must agree square by square: every square of a room's
	// rectangle carries its index, and no other square is a room square.
	area, roomSquares := 0, 0
	for i, r := range l.Rooms {
		area += r.W * r.H
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				if p := (Pos{x, y}); l.RoomAt(p) != i || l.Terrain(p) != Room {
					return fmt.Errorf("square %v of room %d %+v is %v with room index %d", p, i, r, terrainName(l.Terrain(p)), l.RoomAt(p))
				}
			}
		}
	}
	for p := range squares(l) {
		if (l.RoomAt(p) >= 0) != (l.Terrain(p) == Room) {
			return fmt.Errorf("square %v is %v with room index %d", p, terrainName(l.Terrain(p)), l.RoomAt(p))
		}
		if l.Terrain(p) == Room {
			roomSquares++
		}
	}
	if roomSquares != area {
		return fmt.Errorf("%d room squares, but the rooms cover %d", roomSquares, area)
	}
	return nil
}

func checkStairs(l *Level, bottom bool) error {
	up := FeatStairsUp
	if l.Depth == 1 {
		up = FeatExit
	}
	if l.Terrain(l.Up) != Corridor || l.Feature(l.Up) != up {
		return fmt.Errorf("up %v is %v with %q, want corridor with %q", l.Up, terrainName(l.Terrain(l.Up)), l.Feature(l.Up), up)
	}
	features := 1
	if l.HasDown == bottom {
		return fmt.Errorf("HasDown is %v on a level with bottom=%v", l.HasDown, bottom)
	}
	if l.HasDown {
		features++
		if l.Terrain(l.Down) != Corridor || l.Feature(l.Down) != FeatStairsDown {
			return fmt.Errorf("down %v is %v with %q", l.Down, terrainName(l.Terrain(l.Down)), l.Feature(l.Down))
		}
		if l.Down == l.Up {
			return fmt.Errorf("up and down are both %v", l.Up)
		}
		if d := stepsApart(l.Up, l.Down); d < (l.W+l.H)/3 {
			return fmt.Errorf("up %v and down %v are only %d apart", l.Up, l.Down, d)
		}
	}
	n := 0
	for p := range squares(l) {
		if f := l.Feature(p); f != FeatNone && f != FeatChute && f != FeatPit {
			n++
		}
	}
	if n != features {
		return fmt.Errorf("%d features on the level, want %d", n, features)
	}
	return nil
}

func checkRockWalled(l *Level, _ bool) error {
	for p := range squares(l) {
		if l.Terrain(p) != Rock {
			continue
		}
		for _, d := range Dirs {
			if e := l.Edge(p, d); e != EdgeWall {
				return fmt.Errorf("rock square %v has %v to the %v", p, e, d)
			}
		}
	}
	return nil
}

// checkWellFormed checks the things every level must satisfy, fixtures included.
func checkWellFormed(l *Level, bottom bool) error {
	return errors.Join(checkReachable(l, bottom), checkRoomsBehindDoors(l, bottom),
		checkLockedDoorsLeadIntoRooms(l, bottom), checkRoomInteriorsOpen(l, bottom), checkRockWalled(l, bottom))
}

func TestGeneratedLevelInvariants(t *testing.T) {
	checks := []struct {
		name  string
		check func(*Level, bool) error
	}{
		{"size", func(l *Level, _ bool) error {
			if l.W != LevelW || l.H != LevelH {
				return fmt.Errorf("level is %dx%d", l.W, l.H)
			}
			return nil
		}},
		{"reachable", checkReachable},
		{"rooms behind doors", checkRoomsBehindDoors},
		{"locked doors lead into rooms", checkLockedDoorsLeadIntoRooms},
		{"room interiors open", checkRoomInteriorsOpen},
		{"room shapes and doors", checkRoomShapes},
		{"stairs", checkStairs},
		{"rock walled", checkRockWalled},
		{"hazards", checkHazards},
	}
	testDungeons() // generate before the subtests start, not in each of them
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			forEachLevel(t, c.check)
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel() // it mostly generates levels of its own, so it overlaps well with the rest
	dungeons := testDungeons()
	for seed := range 10 {
		again := GenerateDungeon(uint64(seed), DefaultDepth)
		for i, l := range dungeons[seed] {
			depth := i + 1
			if l.Depth != depth || l.Seed != LevelSeed(uint64(seed), depth) {
				t.Fatalf("seed %d level %d has depth %d seed %d", seed, i, l.Depth, l.Seed)
			}
			// One level regenerated on its own must come out the same as in the dungeon.
			alone := Generate(depth, LevelSeed(uint64(seed), depth), depth == DefaultDepth)
			want, err := l.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			for _, other := range []*Level{again[i], alone} {
				got, err := other.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) || other.ASCII() != l.ASCII() {
					t.Fatalf("seed %d depth %d generated twice differs:\n%s\n%s", seed, depth, l.ASCII(), other.ASCII())
				}
			}
		}
	}
}

func TestGenerateSeedsDiffer(t *testing.T) {
	levels := map[string]string{}
	seeds := map[uint64]string{}
	for seed, ds := range testDungeons() {
		for i, l := range ds {
			where := fmt.Sprintf("seed %d depth %d", seed, i+1)
			if prev, dup := seeds[l.Seed]; dup {
				t.Fatalf("%s and %s have the same level seed %d", prev, where, l.Seed)
			}
			seeds[l.Seed] = where
			// The raw squares and edges identify a level as well as its picture does, and
			// are much cheaper to get.
			key := string(l.terrain) + string(l.feature) + string(l.east) + string(l.south)
			if prev, dup := levels[key]; dup {
				t.Fatalf("%s and %s are the same level:\n%s", prev, where, l.ASCII())
			}
			levels[key] = where
		}
	}
	// Same depth, neighbouring seeds.
	if Generate(3, 1, false).ASCII() == Generate(3, 2, false).ASCII() {
		t.Fatal("seeds 1 and 2 give the same level")
	}
}

func TestGenerateDungeonShallow(t *testing.T) {
	if got := GenerateDungeon(7, 0); len(got) != 0 {
		t.Fatalf("depth 0 gave %d levels", len(got))
	}
	// A one-level dungeon: its only level has the exit and is the bottom.
	ls := GenerateDungeon(7, 1)
	if len(ls) != 1 {
		t.Fatalf("depth 1 gave %d levels", len(ls))
	}
	if err := errors.Join(checkStairs(ls[0], true), checkWellFormed(ls[0], true)); err != nil {
		t.Fatalf("%v\n%s", err, ls[0].ASCII())
	}
}

// levelCounts tallies what the statistical tests look at on one level.
type levelCounts struct {
	secret, marked     int // secret doors, and those shown as a wall with a box
	roomDoors, locked  int // doors between a room and the outside, and the locked ones
	passages, corrDoor int // passable edges between two corridor squares, and the doors among them
	rock, corridor     int // squares
}

func countLevel(l *Level) levelCounts {
	var c levelCounts
	for p := range squares(l) {
		switch l.Terrain(p) {
		case Rock:
			c.rock++
		case Corridor:
			c.corridor++
		}
		for _, d := range [2]Dir{East, South} {
			e, q := l.Edge(p, d), p.Step(d)
			switch e {
			case EdgeSecret:
				c.secret++
			case EdgeSecretMarked:
				c.secret++
				c.marked++
			}
			switch {
			case l.RoomAt(p) != l.RoomAt(q) && (l.Terrain(p) == Room || l.Terrain(q) == Room):
				if e.IsDoor() {
					c.roomDoors++
				}
				if e == EdgeLocked {
					c.locked++
				}
			case l.Terrain(p) == Corridor && l.Terrain(q) == Corridor && passable(e):
				c.passages++
				if e.IsDoor() {
					c.corrDoor++
				}
			}
		}
	}
	return c
}

// testCounts counts every test level once, in parallel, for the statistical tests.
var testCounts = sync.OnceValue(func() [][]levelCounts {
	dungeons := testDungeons()
	out := make([][]levelCounts, len(dungeons))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for s := w; s < len(dungeons); s += workers {
				for _, l := range dungeons[s] {
					out[s] = append(out[s], countLevel(l))
				}
			}
		})
	}
	wg.Wait()
	return out
})

// Seed: "There are also secret doors in the dungeon. These normally appear to be walls, but
// about one sixth of the time they appear as walls with a box in the middle."
// (issue 31: the share is held within four standard errors of 1/6, not a range.)
func TestSecretDoorsMarkedOneSixth(t *testing.T) {
	secret, marked := 0, 0
	for _, cs := range testCounts() {
		for _, c := range cs {
			secret += c.secret
			marked += c.marked
		}
	}
	if secret < 2000 {
		t.Fatalf("only %d secret doors in %d dungeons", secret, testSeeds)
	}
	f := float64(marked) / float64(secret)
	t.Logf("%d of %d secret doors marked (%.3f)", marked, secret, f)
	// Within four standard errors of 1/6: at about 12700 doors that is ±0.013, so one in
	// five (0.200) and one in seven (0.143) fail.
	within(t, "secret doors marked", f, 1.0/6, secret)
}

// Seed: "There are locked doors in the dungeon, and all these doors lead into rooms where
// the treasure and monsters are hidden." Every level has some; most room doors are locked.
func TestDoorStatistics(t *testing.T) {
	var sum levelCounts
	for seed, cs := range testCounts() {
		for i, c := range cs {
			if c.locked == 0 {
				t.Errorf("dungeon seed %d depth %d has no locked door\n%s", seed, i+1, testDungeons()[seed][i].ASCII())
			}
			sum.roomDoors += c.roomDoors
			sum.locked += c.locked
			sum.passages += c.passages
			sum.corrDoor += c.corrDoor
		}
	}
	if f := float64(sum.locked) / float64(sum.roomDoors); f < 0.62 || f > 0.78 {
		t.Errorf("%d of %d room doors locked (%.3f), want about %.2f", sum.locked, sum.roomDoors, f, pRoomLocked)
	}
	if f := float64(sum.corrDoor) / float64(sum.passages); f < 0.03 || f > 0.07 {
		t.Errorf("%d of %d corridor passages are doors (%.3f), want about %.2f", sum.corrDoor, sum.passages, f, pCorrDoor+pCorrSecret)
	}
}

// TestLevelShape checks the generator's looks: enough rooms, enough rock left over that the
// level reads as a dungeon, and corridors with loops rather than a pure tree.
func TestLevelShape(t *testing.T) {
	levels, rooms, withLoop := 0, 0, 0
	rockShare := 0.0
	for seed, cs := range testCounts() {
		for i, c := range cs {
			l := testDungeons()[seed][i]
			levels++
			rooms += len(l.Rooms)
			share := float64(c.rock) / float64(l.W*l.H)
			rockShare += share
			if share < 0.3 {
				t.Errorf("dungeon seed %d depth %d is only %.2f rock\n%s", seed, i+1, share, l.ASCII())
			}
			// The corridors are connected (a path is carved through rock only and ends on
			// the network), so passages beyond squares-1 close loops.
			if c.passages > c.corridor-1 {
				withLoop++
			}
		}
	}
	t.Logf("%.2f rooms and %.2f rock per level, %.2f of levels with a corridor loop",
		float64(rooms)/float64(levels), rockShare/float64(levels), float64(withLoop)/float64(levels))
	if mean := float64(rooms) / float64(levels); mean < minRooms || mean > maxRooms {
		t.Errorf("mean %.2f rooms per level, want %d..%d", mean, minRooms, maxRooms)
	}
	if mean := rockShare / float64(levels); mean < 0.4 || mean > 0.85 {
		t.Errorf("mean rock share %.2f", mean)
	}
	if f := float64(withLoop) / float64(levels); f < 0.8 {
		t.Errorf("only %.2f of levels have a corridor loop", f)
	}
}

func TestLevelSeed(t *testing.T) {
	if LevelSeed(1, 1) == LevelSeed(1, 2) || LevelSeed(1, 1) == LevelSeed(2, 1) {
		t.Fatal("level seeds collide for neighbouring inputs")
	}
	// The original dungeon is the same on every server and after every restart: a level's
	// seed depends on the dungeon's seed and the depth alone, fixed values that saved maps
	// (LevelMap.Seed) and regen (Level.Seed) are compared with, and the ones the dungeon's
	// levels are made from.
	if got := LevelSeed(42, 3); got != 0x4ef4df406f2c1e9d {
		t.Fatalf("LevelSeed(42, 3) = %#x, want 0x4ef4df406f2c1e9d as it has always been", got)
	}
	for i, l := range GenerateDungeon(42, 3) {
		if l.Seed != LevelSeed(42, i+1) {
			t.Fatalf("level %d of dungeon 42 has seed %#x, want LevelSeed(42, %d) = %#x", i+1, l.Seed, i+1, LevelSeed(42, i+1))
		}
	}
}

// checkHazards: seed 001's trap count for levels 1-10 ("1 + rnd(2)": 1 or 2), hidden on open
// squares; one chute and one pit on corridors above the bottom level, none on the bottom
// (nothing to fall to); none next to the stairs.
func checkHazards(l *Level, bottom bool) error {
	traps, chutes, pits := 0, 0, 0
	for p := range squares(l) {
		if l.Trap(p) != TrapNone {
			traps++
			if l.Terrain(p) == Rock || l.Feature(p) != FeatNone {
				return fmt.Errorf("trap %v on %v", l.Trap(p), p)
			}
		}
		switch l.Feature(p) {
		case FeatChute:
			chutes++
		case FeatPit:
			pits++
		default:
			continue
		}
		if l.Terrain(p) != Corridor || l.nextToStairs(p) {
			return fmt.Errorf("%v at %v is off a corridor or next to the stairs", l.Feature(p), p)
		}
	}
	// A knight who cannot levitate can still walk from the up stairs to the down stairs.
	if !l.stairsConnectedWithout(Pos{-1, -1}) {
		return fmt.Errorf("a chute or pit cuts the way between the stairs")
	}
	if traps < 1 || traps > 2 {
		return fmt.Errorf("%d traps, seed 001 gives 1 or 2 on levels 1-10", traps)
	}
	want := 1
	if bottom {
		want = 0
	}
	if chutes != want || pits != want {
		return fmt.Errorf("%d chutes and %d pits, want %d of each", chutes, pits, want)
	}
	return nil
}
