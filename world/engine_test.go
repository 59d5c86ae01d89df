package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewKnightStartsAtTheExit(t *testing.T) {
	e := fixtureEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	v := sub.last()
	if v.Self.Depth != 1 || v.Self.Pos != (Pos{0, 0}) || v.Self.Feature != FeatExit {
		t.Fatalf("new knight at depth %d %v on %v, want level 1 at the exit", v.Self.Depth, v.Self.Pos, v.Self.Feature)
	}
	// From the exit the corridor is seen east up to the door.
	for x, want := range []bool{true, true, true, false} {
		if got := Bit(v.Visible, v.Level.idx(Pos{x, 0})); got != want {
			t.Errorf("square %d,0 visible=%v, want %v", x, got, want)
		}
	}
	if !Bit(v.Known, 0) {
		t.Error("the square the knight stands on is not on its map")
	}
}

// Seed 003: at speed 0 a move costs 100% of a round, so a knight holding a key walks one
// square every ten turns.
func TestWalkingTakesARoundPerSquare(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	e.enqueue("a", p.session, Move{Dir: East})
	e.enqueue("a", p.session, Move{Dir: East})
	e.Step()
	if p.rec.Pos() != (Pos{1, 0}) {
		t.Fatalf("after one turn at %v, want 1,0", p.rec.Pos())
	}
	for range TurnsPerRound - 1 {
		e.Step()
	}
	if p.rec.Pos() != (Pos{1, 0}) {
		t.Fatalf("second move came early: at %v after %d turns", p.rec.Pos(), TurnsPerRound)
	}
	e.Step()
	if p.rec.Pos() != (Pos{2, 0}) {
		t.Fatalf("second move not made after a round: at %v", p.rec.Pos())
	}
}

func TestWallsAndDoors(t *testing.T) {
	e := fixtureEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	p := e.players["a"]

	do(e, "a", Move{Dir: North})
	if p.rec.Pos() != (Pos{0, 0}) || !strings.Contains(sub.lastMessage(), "wall") {
		t.Fatalf("walked through a wall: %v %q", p.rec.Pos(), sub.lastMessage())
	}
	if p.energy > 0 {
		t.Fatalf("bumping a wall cost %v energy", p.energy)
	}
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East}) // the door at 2,0 | 3,0 without shift
	if p.rec.Pos() != (Pos{2, 0}) || !strings.Contains(sub.lastMessage(), "door blocks") {
		t.Fatalf("a plain move crossed a door: %v %q", p.rec.Pos(), sub.lastMessage())
	}
	do(e, "a", Move{Dir: East, Door: true})
	if p.rec.Pos() != (Pos{3, 0}) {
		t.Fatalf("shift+east did not open the door: at %v", p.rec.Pos())
	}
}

// Seed 000: Strength "determines your ability to open up doors". With Strength 20 a
// locked door always gives way (chance Str in 20); with Strength 0 it never does, and
// every try costs a move.
func TestForcingALockedDoor(t *testing.T) {
	for _, tc := range []struct {
		str   int
		opens bool
	}{{20, true}, {0, false}} {
		e := fixtureEngine(t, nil)
		sub := &recorder{}
		e.join(knight("a", tc.str), sub)
		p := e.players["a"]
		p.rec.X, p.rec.Y = 2, 1 // in the corridor east of the room's locked door
		e.look(p)
		do(e, "a", Move{Dir: West, Door: true})
		got := p.rec.Pos() == (Pos{1, 1})
		if got != tc.opens {
			t.Fatalf("Str %d: in the room=%v, want %v (%q)", tc.str, got, tc.opens, sub.lastMessage())
		}
		if tc.opens {
			if e.levels[0].Edge(Pos{1, 1}, East) != EdgeDoor {
				t.Fatal("a broken door is still locked for everyone else")
			}
			v := sub.last()
			if !Bit(v.Visible, v.Level.idx(Pos{0, 2})) {
				t.Fatal("inside the room the whole room is not visible")
			}
		} else if p.energy <= 0 {
			t.Fatal("a failed try at a locked door cost nothing")
		}
	}
}

func TestStairsExitAndSecretDoor(t *testing.T) {
	e := fixtureEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	p := e.players["a"]
	do(e, "a", Climb{Down: true})
	if p.rec.Depth != 1 || !strings.Contains(sub.lastMessage(), "no stairs down") {
		t.Fatalf("went down without stairs: %q", sub.lastMessage())
	}
	p.rec.X, p.rec.Y = 3, 1
	e.look(p)
	do(e, "a", Climb{Down: true})
	if p.rec.Depth != 2 || p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("after > at depth %d %v, want level 2 at its up stairs", p.rec.Depth, p.rec.Pos())
	}
	// The secret door at 1,0 | 2,0 looks like a wall; shift finds it.
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East})
	if p.rec.Pos() != (Pos{1, 0}) || !strings.Contains(sub.lastMessage(), "wall") {
		t.Fatalf("secret door did not look like a wall: %v %q", p.rec.Pos(), sub.lastMessage())
	}
	do(e, "a", Move{Dir: East, Door: true})
	if p.rec.Pos() != (Pos{2, 0}) || len(sub.last().FoundDoors) != 1 {
		t.Fatalf("secret door not found: %v %q", p.rec.Pos(), sub.lastMessage())
	}
	p.rec.X, p.rec.Y = 0, 0
	e.look(p)
	do(e, "a", Climb{})
	if p.rec.Depth != 1 || p.rec.Pos() != (Pos{3, 1}) {
		t.Fatalf("< from level 2 put the knight at depth %d %v, want level 1's down stairs", p.rec.Depth, p.rec.Pos())
	}
	p.rec.X, p.rec.Y = 0, 0
	e.look(p)
	do(e, "a", Climb{})
	if !sub.last().Outside() {
		t.Fatal("< on the exit did not leave the dungeon")
	}
	do(e, "a", Enter{})
	if p.rec.Depth != 1 || p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("Enter from outside: depth %d %v", p.rec.Depth, p.rec.Pos())
	}
}

func TestPlayersSeeEachOtherMove(t *testing.T) {
	e := fixtureEngine(t, nil)
	a, b := &recorder{}, &recorder{}
	e.join(knight("a", 10), a)
	e.join(knight("b", 10), b)
	if o := a.last().InSight(); len(o) != 1 || o[0].Name != "Kay b" {
		t.Fatalf("a does not see b: %+v", o)
	}
	n := len(a.views)
	do(e, "b", Move{Dir: East})
	if len(a.views) == n {
		t.Fatal("a got no new view when b moved in sight")
	}
	if o := a.last().InSight(); o[0].Pos != (Pos{1, 0}) {
		t.Fatalf("a sees b at %v, want 1,0", o[0].Pos)
	}
	// An idle world sends nothing: no view is delivered when nothing changed.
	na, nb := len(a.views), len(b.views)
	for range 100 {
		e.Step()
	}
	if len(a.views) != na || len(b.views) != nb {
		t.Fatalf("idle turns sent %d and %d views", len(a.views)-na, len(b.views)-nb)
	}
}

// The same knight joining twice (by the same key, or by another of its keys: the server
// gives both the knight's id) takes the knight over: never two sessions driving it.
func TestSameKnightTakesOver(t *testing.T) {
	e := fixtureEngine(t, nil)
	first, second := &recorder{}, &recorder{}
	p1 := e.join(knight("a", 10), first)
	do(e, "a", Move{Dir: East})
	p2 := e.join(knight("a", 10), second)
	if first.last().Ended != TakenOverMessage {
		t.Fatalf("the first session was told %q, want %q", first.last().Ended, TakenOverMessage)
	}
	if second.last().Self.Pos != (Pos{1, 0}) {
		t.Fatalf("the new session did not take over the live knight: at %v", second.last().Self.Pos)
	}
	if _, ok := e.leave("a", p1.session); ok {
		t.Fatal("the old session's leave removed the knight from the new one")
	}
	if len(e.order) != 1 {
		t.Fatalf("%d players in the world, want 1", len(e.order))
	}
	if rec, ok := e.leave("a", p2.session); !ok || rec.X != 1 {
		t.Fatalf("leave: %v %+v", ok, rec)
	}
}

// A guest's knight is never handed to the Saver: not on joining, at a checkpoint, on
// SaveAll or on leaving; Leave still returns its last record (for its claim code), and
// the who-list marks it.
func TestGuestsAreNeverSaved(t *testing.T) {
	saver := &recorder{}
	e := fixtureEngine(t, saver)
	g := knight("guest-1", 10)
	g.Guest, g.Name = true, "Guest Tom"
	p := e.join(g, &recorder{})
	e.join(knight("b", 10), &recorder{})
	do(e, "guest-1", Move{Dir: East})
	for range DefaultCheckpointTurns * 2 {
		e.Step()
	}
	e.saveAll()
	who := e.who()
	if len(who) != 2 || !who[0].Guest || who[1].Guest {
		t.Errorf("who = %+v, want the guest marked", who)
	}
	rec, ok := e.leave("guest-1", p.session)
	if !ok || rec.X != 1 || !rec.Guest {
		t.Fatalf("the guest's last record: %v %+v", ok, rec)
	}
	for _, r := range saver.saved {
		if r.Guest || r.ID == "guest-1" {
			t.Fatalf("a guest was handed to the saver: %+v", r)
		}
	}
	if saver.lastSaved("b").ID != "b" {
		t.Fatal("the knight beside the guest was not saved")
	}
}

func TestCheckpointsSaveOnlyChangedKnights(t *testing.T) {
	saver := &recorder{}
	e := fixtureEngine(t, saver)
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	for range DefaultCheckpointTurns {
		e.Step()
	}
	if len(saver.saved) != 2 {
		t.Fatalf("first checkpoint saved %d records, want 2", len(saver.saved))
	}
	do(e, "a", Move{Dir: East})
	for e.turn%DefaultCheckpointTurns != 0 {
		e.Step()
	}
	if len(saver.saved) != 3 || saver.saved[2].ID != "a" || saver.saved[2].X != 1 {
		t.Fatalf("second checkpoint: %+v", saver.saved[2:])
	}
	rec, _ := e.leave("b", e.players["b"].session)
	if got := saver.lastSaved("b"); got.Turn != rec.Turn {
		t.Fatal("leaving did not save the knight")
	}
}

// The same seed and the same commands give the same world, turn for turn.
func TestEngineIsDeterministic(t *testing.T) {
	run := func() []Adventurer {
		e := New(Config{Seed: 42, Depth: 3})
		for _, fp := range []string{"a", "b"} {
			e.join(knight(fp, 11), nil)
		}
		dirs := []Dir{East, South, West, North}
		for i := range 300 {
			fp := []string{"a", "b"}[i%2]
			e.enqueue(fp, e.players[fp].session, Move{Dir: dirs[(i/3)%4], Door: i%5 == 0})
			e.Step()
		}
		return []Adventurer{e.record(e.players["a"]), e.record(e.players["b"])}
	}
	a, b := run(), run()
	for i := range a {
		if a[i].X != b[i].X || a[i].Y != b[i].Y || a[i].Depth != b[i].Depth || !slices.Equal(a[i].Maps[0].Seen, b[i].Maps[0].Seen) {
			t.Fatalf("two runs differ: %+v vs %+v", a[i], b[i])
		}
	}
}

// A misplaced record (a level that no longer exists, a square of rock) is put back at
// the entrance instead of into the rock.
func TestJoinRepairsImpossiblePositions(t *testing.T) {
	e := fixtureEngine(t, nil)
	rec := knight("a", 10)
	rec.Depth, rec.X, rec.Y = 9, 3, 3
	e.join(rec, nil)
	if p := e.players["a"]; p.rec.Depth != 1 || p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("at depth %d %v", p.rec.Depth, p.rec.Pos())
	}
	rec = knight("b", 10)
	rec.Depth, rec.X, rec.Y = 1, 2, 2 // rock
	e.join(rec, nil)
	if p := e.players["b"]; p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("knight left in the rock at %v", p.rec.Pos())
	}
}

// Run serves Join, Do, Who, Lookup and Leave from other goroutines.
func TestRunServesSessions(t *testing.T) {
	e := fixtureEngine(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	defer cancel()

	sub := &chanSub{ch: make(chan View, 64)}
	p, err := e.Join(ctx, knight("a", 10), sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Do(ctx, Move{Dir: East}); err != nil {
		t.Fatal(err)
	}
	for {
		tick <- time.Time{}
		rec, online, err := e.Lookup(ctx, "a")
		if err != nil || !online {
			t.Fatal(online, err)
		}
		if rec.X == 1 {
			break
		}
	}
	who, _ := e.Who(ctx)
	if len(who) != 1 || who[0].Name != "Kay a" {
		t.Fatalf("who: %+v", who)
	}
	rec, ok, err := p.Leave(ctx)
	if err != nil || !ok || rec.X != 1 {
		t.Fatalf("leave: %+v %v %v", rec, ok, err)
	}
	cancel()
	<-e.done
	if _, err := e.Who(context.Background()); err != ErrStopped {
		t.Fatalf("Who on a stopped engine: %v", err)
	}
}

// A restart finds the dungeon as the knights left it: a broken door stays broken and a
// killed guard stays dead (seed 000: "a cleared path usually stays clear").
func TestLevelStateSurvivesARestart(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver})
	l := e.levels[0]
	var door Pos
	var dir Dir
	found := false
	for y := 0; y < l.H && !found; y++ {
		for x := 0; x < l.W && !found; x++ {
			for _, d := range []Dir{East, South} {
				if l.Edge(Pos{x, y}, d) == EdgeLocked {
					door, dir, found = Pos{x, y}, d, true
					break
				}
			}
		}
	}
	rec := knight("a", 20) // Str 20 always breaks a door
	e.join(rec, &recorder{})
	p := e.players["a"]
	p.rec.X, p.rec.Y = door.X, door.Y
	e.look(p)
	do(e, "a", Move{Dir: dir, Door: true})
	if l.Edge(door, dir) != EdgeDoor {
		t.Fatal("the locked door did not break")
	}
	victim := e.state[0].monsters[len(e.state[0].monsters)-1]
	e.removeMonster(victim)
	alive := len(e.state[0].monsters)
	e.saveAll()

	var levels []LevelState
	seen := map[int]bool{}
	for i := len(saver.levels) - 1; i >= 0; i-- { // the newest state of each level
		if ls := saver.levels[i]; !seen[ls.Depth] {
			seen[ls.Depth] = true
			levels = append(levels, ls)
		}
	}
	e2 := New(Config{Seed: 1977, Levels: levels})
	if e2.levels[0].Edge(door, dir) != EdgeDoor {
		t.Fatal("the broken door is locked again after the restart")
	}
	if n := len(e2.state[0].monsters); n != alive {
		t.Fatalf("%d monsters on level 1 after the restart, %d before", n, alive)
	}
	for _, m := range e2.state[0].monsters {
		if m.pos == victim.pos && m.kind == victim.kind && m.room == victim.room {
			t.Fatal("the killed guard is back")
		}
	}
	// A state saved for another generation of the level brings that generation back: the
	// saved seed wins over the configured one, so a level an admin regenerated survives a
	// restart (issue 7). Before, such a state was ignored; a server started with another
	// -seed now keeps its saved dungeon until an admin reverts it to the new original.
	other := New(Config{Seed: 1978, Levels: levels})
	if other.levels[0].Seed != e.levels[0].Seed || other.levels[0].Edge(door, dir) != EdgeDoor || len(other.state[0].monsters) != alive {
		t.Fatalf("a saved level of another generation was not rebuilt from its seed: seed %d, want %d; %d monsters, want %d",
			other.levels[0].Seed, e.levels[0].Seed, len(other.state[0].monsters), alive)
	}
	a, _ := other.levels[0].MarshalBinary()
	b, _ := e2.levels[0].MarshalBinary()
	if !slices.Equal(a, b) {
		t.Fatal("the level rebuilt from its saved seed differs from the one restored over the same seed")
	}
}

// A knight that was away while its level was rebuilt comes back on the new level's up
// stairs, not on whatever square has its old coordinates (it could be inside a room).
func TestKnightAwayDuringARegenStartsOnTheStairs(t *testing.T) {
	e := New(Config{Seed: 1977, Depth: 2})
	l := e.levels[0]
	rec := knight("a", 10)
	rec.Depth, rec.X, rec.Y = 1, l.Down.X, l.Down.Y
	rec.Maps = []LevelMap{{Depth: 1, Seed: l.Seed + 1, W: l.W, H: l.H, Seen: make([]byte, bitsetLen(l.W*l.H))}}
	e.join(rec, nil)
	if p := e.players["a"]; p.rec.Pos() != l.Up {
		t.Fatalf("at %v, want the up stairs %v", p.rec.Pos(), l.Up)
	}
}

// A wounded monster is still wounded after a restart, and its fight panel shows its
// hits out of the hits it appeared with (a restart kept its hits but not its maximum,
// so a guard at 30/30 showed 28/28 after a blow of 2).
func TestAWoundedMonsterStaysWoundedAcrossARestart(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver, WanderChance: -1})
	var hurt *monster
	for _, m := range e.state[0].monsters {
		if m.maxHits >= 3 {
			hurt = m
			break
		}
	}
	if hurt == nil {
		t.Fatal("no monster on level 1 with 3 hits or more")
	}
	full := hurt.maxHits
	hurt.hits = full - 2
	e.saveAll()
	var levels []LevelState
	for i := len(saver.levels) - 1; i >= 0; i-- {
		if ls := saver.levels[i]; ls.Depth == 1 {
			levels = append(levels, ls)
			break
		}
	}
	again := New(Config{Seed: 1977, Levels: levels, WanderChance: -1})
	var back *monster
	for _, m := range again.state[0].monsters {
		if m.pos == hurt.pos && m.kind == hurt.kind {
			back = m
		}
	}
	if back == nil || back.hits != full-2 || back.maxHits != full {
		t.Fatalf("after the restart: %+v; want %d of %d hits", back, full-2, full)
	}
	rec := knight("kay", 12)
	again.join(rec, &recorder{})
	p := again.players["kay"]
	again.place(p, 1, back.pos)
	again.startFight(p, back)
	fv := again.fightView(p, p.fight)
	if m := fv.Monsters[0]; m.Hits != full-2 || m.MaxHits != full {
		t.Fatalf("the fight panel shows %d/%d; want %d/%d", m.Hits, m.MaxHits, full-2, full)
	}
}

// What a knight sees depends on its square alone: the set is made the first time a
// knight looks from the square and shared by every knight who stands there (and every
// square of a room sees the room), so a step onto a square looked from before makes
// nothing. The sets go with the level's snapshot: when the level changes they are made
// again, and the old ones, which views hold, stay as they were.
func TestKnightsOnASquareShareWhatTheySee(t *testing.T) {
	e := fightEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	a, b := e.players["a"], e.players["b"]
	a.rec.X, a.rec.Y = 2, 0 // the room: 2..3, 0..1
	e.look(a)
	room := a.visible
	a.rec.X = 3
	if _, allocs := allocated(func() { e.look(a) }); allocs != 0 || &a.visible[0] != &room[0] {
		t.Errorf("a step across the room made %d arrays, and a new set of what it sees: %v", allocs, &a.visible[0] != &room[0])
	}
	a.rec.X, a.rec.Y = 0, 0 // the corridor, where b stands
	b.rec.X, b.rec.Y = 0, 0
	e.look(b)
	if _, allocs := allocated(func() { e.look(a) }); allocs != 0 || &a.visible[0] != &b.visible[0] {
		t.Errorf("a knight looking from b's square made %d arrays, and a set of its own: %v", allocs, &a.visible[0] != &b.visible[0])
	}
	if slices.Equal(a.visible, room) {
		t.Fatalf("from the corridor a sees the room's squares %v", room)
	}
	want := make([]byte, len(a.visible))
	e.levels[0].visible(a.rec.Pos(), want)
	if !slices.Equal(a.visible, want) {
		t.Errorf("a sees %v from the corridor, want %v", a.visible, want)
	}

	v := e.view(a)
	seen := slices.Clone(v.Visible)
	l := e.levels[0].Clone()
	l.SetEdge(Pos{1, 0}, East, EdgeOpen) // the door into the room gone: the corridor sees into it
	e.resetLevel(1, l)
	e.look(a)
	want = make([]byte, len(a.visible))
	l.visible(a.rec.Pos(), want)
	if !slices.Equal(a.visible, want) || slices.Equal(a.visible, seen) {
		t.Errorf("after the level changed a sees %v, want %v", a.visible, want)
	}
	if !slices.Equal(v.Visible, seen) {
		t.Errorf("a view's squares in sight changed with the level: %v, was %v", v.Visible, seen)
	}
}

// A checkpoint hands the Saver the records of every knight changed since the last: the
// array of them is made once, at its size (a record is half a kilobyte, and appending a
// thousand made the array again at each doubling), and each record shares the squares
// its knight has seen with the engine, which never changes them in place.
func TestACheckpointMakesItsRecordsOnce(t *testing.T) {
	e := fixtureEngine(t, &discardSaver{})
	const n = 64
	for i := range n {
		e.join(knight(fmt.Sprint("k", i), 10), &recorder{})
	}
	p := e.players["k0"]
	_, base := allocated(func() { e.checkpoint() })
	_, one := allocated(func() { e.record(p) })
	_, all := allocated(func() {
		for _, q := range e.order {
			q.changed = true
		}
		e.checkpoint()
	})
	if want := base + 1 + n*one; all != want {
		t.Errorf("a checkpoint of %d knights made %d arrays, want %d: %d for the records' array, %d a record, %d besides", n, all, want, 1, one, base)
	}

	r := e.record(p)
	seen := slices.Clone(r.Maps[0].Seen)
	if &r.Maps[0].Seen[0] != &p.rec.Maps[0].Seen[0] {
		t.Error("a record copies the squares its knight has seen")
	}
	p.rec.X, p.rec.Y = 3, 0 // behind the door
	e.look(p)
	if slices.Equal(p.rec.Maps[0].Seen, seen) {
		t.Fatal("k0 saw nothing new behind the door")
	}
	if !slices.Equal(r.Maps[0].Seen, seen) {
		t.Error("a record's seen squares changed after it was made")
	}
}

// The log's views share its chunks, so a line once written is never changed: every view
// handed out keeps its lines and their kinds exactly, across the log's drops of its
// oldest lines and its new chunks. What a line costs is bounded too: the log writes each
// line once into a chunk of 32, so a line costs its slot (16 bytes, and a byte for its
// kind) and a share of the chunk's list, and a knight's log holds at most its 200 lines
// and the chunk they began in.
func TestTheLogKeepsWhatEveryViewWasGiven(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	kinds := []MsgKind{MsgGame, MsgOwn, MsgDeed, MsgComing}
	line := func(i uint64) (string, MsgKind) { return fmt.Sprint("line ", i), kinds[i%uint64(len(kinds))] }
	start := p.said
	var views []View
	for range 5 * maxMessages {
		msg, k := line(p.said - start)
		noteKind(p, k, msg)
		views = append(views, e.view(p))
	}
	for _, v := range views {
		if n := v.Log.Len(); n != min(maxMessages, int(v.Said)) || len(v.Log.Lines()) != n || len(v.Log.Kinds()) != n {
			t.Fatalf("a view of %d lines (%d, %d kinds) after %d said", n, len(v.Log.Lines()), len(v.Log.Kinds()), v.Said)
		}
		for j, l := range v.Log.All() {
			i := v.Said - uint64(v.Log.Len()) + uint64(j)
			if i < start {
				continue // the knight's welcome
			}
			if msg, k := line(i - start); l != msg || v.Log.Line(j) != msg || v.Log.Kind(j) != k {
				t.Fatalf("the view of line %d holds %q (kind %d) where line %d was %q (kind %d)", v.Said-start-1, l, v.Log.Kind(j), i-start, msg, k)
			}
		}
		if last, _ := line(v.Said - start - 1); v.Log.Last() != last {
			t.Fatalf("the last line of the view of line %d is %q", v.Said-start-1, v.Log.Last())
		}
	}

	const lines = 10 * maxMessages
	bytes, _ := allocated(func() {
		for range lines {
			noteKind(p, MsgGame, "x")
		}
	})
	// A chunk of 32 lines and kinds is 576 bytes with the allocator's rounding, and every
	// chunk a new list of the 7 to 9 chunks: about 20 bytes a line. A log in one array,
	// copied to a new one of 256 slots every 56 lines, cost 78.
	if perLine := float64(bytes) / lines; perLine > 22 {
		t.Errorf("a line costs the log %.1f bytes, want at most 22 (its slot in a chunk of 32)", perLine)
	}
	if l := p.log.Log(); l.Len() != maxMessages || len(l.chunks) > maxMessages/logChunkLen+2 {
		t.Errorf("the log holds %d lines in %d chunks, want %d in at most %d", l.Len(), len(l.chunks), maxMessages, maxMessages/logChunkLen+2)
	}
}

// What the engine keeps a walking knight, measured as the world's share of a session's
// memory (docs/PERFORMANCE.md): 200 knights walking on level 1 for 600 turns, bumping
// into walls as walkers do, keep their logs (about 160 lines each), their maps and what
// they see. The bump's line is one string for all (TestABumpIsToldWithALineMadeOnce),
// the squares in sight are shared by square (TestKnightsOnASquareShareWhatTheySee): 8.1
// KB a knight before these, 6.4 after, most of it the logs' arrays; the index of where
// each knight stands (standing.go: a list a square of the level, 24 bytes each, over
// 200 knights) brings it to 7.0.
func TestAWalkingKnightKeepsLittle(t *testing.T) {
	const n, most = 200, 15 << 9 // 7.5 KB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := New(Config{Seed: 1977})
	rng := rand.New(rand.NewPCG(1977, 42))
	for i := range n {
		rec := NewAdventurer(fmt.Sprint("fp", i), fmt.Sprint("Knight ", i), Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10)
		rec.X, rec.Y = -1, -1
		e.join(rec, &countingSub{}) // keeps no view
	}
	for range 600 {
		for _, p := range e.order {
			if len(p.queue) == 0 {
				e.enqueue(p.rec.ID, p.session, Move{Dir: Dirs[rng.IntN(len(Dirs))]})
			}
		}
		e.Step()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if kept := (after.HeapAlloc - before.HeapAlloc) / n; kept > most {
		t.Errorf("the engine keeps %d bytes a walking knight, want at most %d", kept, most)
	}
	runtime.KeepAlive(e)
}

// keepingSaver keeps each record it is handed beside a deep copy made then.
type keepingSaver struct{ recs, copies []Adventurer }

func (k *keepingSaver) Put(recs ...Adventurer) {
	for _, r := range recs {
		k.recs, k.copies = append(k.recs, r), append(k.copies, r.Clone())
	}
}

func (k *keepingSaver) PutLevels(...LevelState) {}

// A Saver keeps the records the engine hands it as they are (store's makes no copy of
// its own), so nothing the engine does after may change one: a knight walks about for
// 3000 turns, seeing new squares, fighting what guards the rooms it walks into and
// taking what they held, and every record handed over at a checkpoint, or at once for
// what matters, is as it was.
func TestRecordsHandedToTheSaverNeverChange(t *testing.T) {
	s := &keepingSaver{}
	e := New(Config{Seed: 1977, Saver: s})
	a := knight("walker", 18)
	a.Hits, a.MaxHits = 5000, 5000
	e.join(a, &recorder{})
	p := e.players["walker"]
	rng := rand.New(rand.NewPCG(46, 5))
	for range 3000 {
		if p.fight != nil {
			e.act(p, Fight{})
		} else {
			e.act(p, Move{Dir: Dir(rng.IntN(4))})
		}
		e.Step()
	}
	// The walk (seed 46, 5) goes down to level 6 by chutes and trapdoors, and earns 5
	// deeds: the records differ in all that.
	if len(s.recs) < 20 || len(p.rec.Maps) < 3 || len(p.rec.Deeds) < 3 {
		t.Fatalf("%d records handed over in 3000 turns, %d levels mapped, %d deeds", len(s.recs), len(p.rec.Maps), len(p.rec.Deeds))
	}
	for i, r := range s.recs {
		if !reflect.DeepEqual(r, s.copies[i]) {
			t.Fatalf("record %d of %d changed after it was handed over (turn %d)", i, len(s.recs), r.Turn)
		}
	}
	if reflect.DeepEqual(s.copies[0].Maps, p.rec.Maps) {
		t.Fatal("the knight saw nothing new in 3000 turns: the test walks nowhere")
	}
}
