package world

import (
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
