package world

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// threeRooms is a corridor with three rooms off it, each behind a door.
const threeRooms = `
+-+-+-+-+-+-+
|E          |
+D+-+D+-+D+-+
|.|#|.|#|.|#|
+-+-+-+-+-+-+`

// threeGuards is an engine on threeRooms with a guard in each room (rooms 0, 1, 2) and
// knights a (on the level) and b (outside), so the level's restocking can be watched.
func threeGuards(t *testing.T) (*Engine, []*monster) {
	t.Helper()
	l, err := ParseASCII(1, threeRooms)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 8, WanderChance: -1}, []*Level{l})
	st := &e.state[0]
	st.monsters = nil
	var guards []*monster
	for i, r := range l.Rooms {
		guards = append(guards, e.spawn(1, mustMonster(t, "ogre"), Pos{r.X, r.Y}, i, e.rng))
	}
	st.guards = len(guards)
	e.join(knight("a", 10), &recorder{})
	rec := knight("b", 10)
	rec.Depth, rec.X, rec.Y = 0, 0, 0
	e.join(rec, &recorder{})
	return e, guards
}

// Seed 000: "monsters respawn if most are killed on a level"; the ruling: when fewer than
// a third of the guards placed live. Of three guards, two may die (one in three, the guard
// of the first room, still lives) with no restock; the third's death restocks the level,
// and the knights on the level are told, not those elsewhere.
func TestALevelRestocksWhenFewerThanAThirdOfItsGuardsLive(t *testing.T) {
	for _, last := range []int{0, 2} { // the guard left alive: room 0 counts as much as room 2
		e, guards := threeGuards(t)
		for i, g := range guards {
			if i != last {
				e.removeMonster(g)
			}
		}
		if n := len(e.state[0].monsters); n != 1 {
			t.Fatalf("room %d's guard alive: %d monsters after two of three died, want it alone", last, n)
		}
		e.removeMonster(guards[last])
		if n := len(e.state[0].monsters); n == 0 {
			t.Fatal("the level did not restock when its last guard died")
		}
		if lastMsg(e.players["a"]) != "Somewhere on this level, the dungeon stirs: new monsters have come." {
			t.Fatalf("the knight on the level was told %q", lastMsg(e.players["a"]))
		}
		if lastMsg(e.players["b"]) == "Somewhere on this level, the dungeon stirs: new monsters have come." {
			t.Fatal("a knight outside was told the level stirred")
		}
	}
	// Below a third, not at it: of 7 guards placed, 3 alive (3 × 3 = 9, not below 7) keep
	// the level as it is, 2 alive (6) restock it. Three in seven and two in seven tell a
	// third from a half (3 × 2 = 6 would restock) and a quarter (2 × 4 = 8 would not).
	e, guards := threeGuards(t)
	e.state[0].guards = 7
	const stirs = "Somewhere on this level, the dungeon stirs: new monsters have come."
	e.removeMonster(e.spawn(1, mustMonster(t, "ogre"), Pos{0, 0}, -1, e.rng)) // a wanderer's death counts nothing
	if n := len(e.state[0].monsters); n != 3 || lastMsg(e.players["a"]) == stirs {
		t.Fatalf("3 of 7 guards alive: %d monsters, told %q; want no restock", n, lastMsg(e.players["a"]))
	}
	e.removeMonster(guards[0])
	if lastMsg(e.players["a"]) != stirs {
		t.Fatalf("2 of 7 guards alive: told %q, want a restock", lastMsg(e.players["a"]))
	}
}

// Seed 000: "Monsters normally stay where they are -- a cleared path usually stays clear":
// guards never leave their squares, the guard of the first room (room 0) too; wanderers
// walk.
func TestGuardsStayWhereTheyAre(t *testing.T) {
	e, guards := threeGuards(t)
	wanderer := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 0}, -1, e.rng)
	at := wanderer.pos
	moved := false
	for range 2000 {
		e.Step()
		moved = moved || wanderer.pos != at
	}
	for i, g := range guards {
		if r := e.levels[0].Rooms[i]; g.pos != (Pos{r.X, r.Y}) {
			t.Fatalf("the guard of room %d walked to %v", i, g.pos)
		}
	}
	if !moved {
		t.Fatal("the wanderer never moved")
	}
}

// slayGuard has knight p step from the corridor into room x of threeRooms (its door below
// x,0) and kill its guard with one blow, through the engine.
func slayGuard(t *testing.T, e *Engine, p *player, x int) {
	t.Helper()
	g := e.monsterAt(1, Pos{x, 1})
	if g == nil || g.room < 0 {
		t.Fatalf("no guard in the room at %d,1", x)
	}
	enterRoom(t, e, p, x)
	g.hits = 1
	p.rec.Dex = 60 // its blow cannot miss, and an Ogre (Dex 8) never dodges
	stepUntil(t, e, "the guard to fall", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue(p.rec.ID, p.session, Fight{})
		}
		return p.fight == nil
	})
	if e.alive(g) {
		t.Fatalf("the guard at %d,1 lives", x)
	}
}

// enterRoom sets knight p down on the corridor above room x's door and has it step in,
// which starts the fight with the room's guard.
func enterRoom(t *testing.T, e *Engine, p *player, x int) {
	t.Helper()
	p.rec.Hits, p.rec.MaxHits = 1<<20, 1<<20
	e.place(p, 1, Pos{x, 0})
	p.energy = 0
	e.enqueue(p.rec.ID, p.session, Move{Dir: South, Door: true})
	stepUntil(t, e, "the guard to fight", func() bool { return p.fight != nil })
}

// What counts as a level's living guards (DESIGN §12, "Where monsters are"): the monsters
// in its rooms. A wanderer is none, nor is a guard Dimension Door sent off to wander: the
// level restocks when its last guard falls though they live, and a room whose guard was
// sent off is empty at the restock. The guards of a level are those in its rooms after
// its last stocking, the ones that lived through a restock included.
func TestWhatCountsAsALevelsLivingGuards(t *testing.T) {
	const stirs = "Somewhere on this level, the dungeon stirs: new monsters have come."
	restocked := func(p *player, since uint64) bool { return slices.Contains(saidSince(p, since), stirs) }
	t.Run("a wanderer is no guard", func(t *testing.T) {
		e, _ := threeGuards(t)
		p := e.players["a"]
		rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{5, 0}, -1, e.rng)
		rat.asleep = true // it stays at the corridor's end, out of the knight's way
		for _, x := range []int{0, 2} {
			slayGuard(t, e, p, x)
		}
		n := p.said
		slayGuard(t, e, p, 4)
		if !restocked(p, n) || !e.alive(rat) {
			t.Fatalf("the last guard fell with a wanderer alive: restocked %v, the wanderer alive %v", restocked(p, n), e.alive(rat))
		}
	})
	t.Run("a guard sent off is no guard", func(t *testing.T) {
		e, guards := threeGuards(t)
		p := e.players["a"]
		p.rec.Int = 18
		slayGuard(t, e, p, 2)
		enterRoom(t, e, p, 0)
		sent := guards[0]
		stepUntil(t, e, "Dimension Door to send the guard off", func() bool {
			if p.fight != nil && len(p.queue) == 0 {
				p.rec.SpellUnits = 4
				e.enqueue(p.rec.ID, p.session, Cast{Spell: SpellDimensionDoor})
			}
			return p.fight == nil
		})
		if sent.room != -1 || !e.alive(sent) {
			t.Fatalf("after Dimension Door the guard of room 0 guards room %d (alive %v)", sent.room, e.alive(sent))
		}
		sent.asleep, sent.pos = true, Pos{5, 0} // out of the knight's way
		n := p.said
		slayGuard(t, e, p, 4)
		if !restocked(p, n) || !e.alive(sent) {
			t.Fatalf("the last guard in a room fell: restocked %v, the guard sent off alive %v", restocked(p, n), e.alive(sent))
		}
		if g := e.roomGuard(1, 0); g == sent {
			t.Fatal("the guard sent off guards its room again")
		}
	})
	t.Run("guards that live through a restock count", func(t *testing.T) {
		// Seven guards placed, two alive: room 0's guard falls and the level restocks
		// around the guards of rooms 1 and 2. The restock gives room 0 a guard 85% of
		// the time; the seed is the first for which it does not, so the level's guards
		// are the two that lived through it, and it restocks when both have fallen.
		for seed := uint64(1); ; seed++ {
			if seed > 100 {
				t.Fatal("no seed in 100 leaves room 0 empty at the restock")
			}
			e, _ := threeGuards(t)
			e.rng = rand.New(rand.NewPCG(seed, 1))
			p := e.players["a"]
			e.state[0].guards = 7
			n := p.said
			slayGuard(t, e, p, 0)
			if !restocked(p, n) {
				t.Fatal("two of seven guards alive: no restock")
			}
			if e.roomGuard(1, 0) != nil {
				continue
			}
			n = p.said
			slayGuard(t, e, p, 2)
			if restocked(p, n) {
				t.Fatal("one of two guards alive: the level restocked")
			}
			n = p.said
			slayGuard(t, e, p, 4)
			if !restocked(p, n) {
				t.Fatalf("seed %d: both guards that lived through the restock fell, and the level did not restock", seed)
			}
			return
		}
	})
}
