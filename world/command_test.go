package world

import (
	"fmt"
	"strings"
	"testing"
)

// Seed 000: Strength "determines your ability to open up doors"; the ruling: each try at
// a locked door breaks it with chance Str in 20. Over 4000 tries (the door locked again
// each time) a Str 10 knight breaks it half the time, a Str 4 knight a fifth.
func TestForcingALockedDoorTakesStrengthInTwenty(t *testing.T) {
	for _, str := range []int{10, 4} {
		e := fixtureEngine(t, nil)
		e.state[0].monsters = nil // no guard in the room to start a fight
		e.join(knight("a", str), &recorder{})
		p := e.players["a"]
		l := e.levels[0]
		const n = 4000
		broke := 0
		for range n {
			l.SetEdge(Pos{1, 1}, East, EdgeLocked)
			e.place(p, 1, Pos{2, 1})
			p.energy = 0
			do(e, "a", Move{Dir: West, Door: true})
			if p.rec.Pos() == (Pos{1, 1}) {
				broke++
			}
		}
		within(t, fmt.Sprintf("Str %d breaking a locked door", str), float64(broke)/n, float64(str)/20, n)
	}
}

// Commands name an item by its place in the knight's list; a place that holds nothing
// does nothing and costs nothing, and the sword needs no wearing.
func TestItemCommandsNeedAnItem(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemRingOfLight})
	for _, c := range []Command{Drop{Index: -1}, Drop{Index: 2}, UseItem{Index: -1}, UseItem{Index: 2}} {
		if cost := e.act(p, c); cost != 0 || len(p.rec.Items) != 2 || p.rec.Items[1].Worn {
			t.Fatalf("%T%+v on two items cost %v and left %+v", c, c, cost, p.rec.Items)
		}
	}
	do(e, "a", UseItem{Index: 0})
	if p.energy != 0 || sub.lastMessage() != "The sword needs no wearing: you use the best you carry." {
		t.Fatalf("using the sword: energy %v, %q", p.energy, sub.lastMessage())
	}
}

// A knight keeps at least one sword (DESIGN §12): with one sword and other things it may
// not drop the sword; with two swords it may drop either.
func TestTheLastSwordStays(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemArmour}, Item{Kind: ItemShield})
	do(e, "a", Drop{Index: 0})
	if len(p.rec.Items) != 3 || !strings.Contains(sub.lastMessage(), "keeps at least one sword") {
		t.Fatalf("dropped the only sword among three things: %+v", p.rec.Items)
	}
	e, p, _ = inventoryEngine(t, Item{Kind: ItemSword, Plus: 1})
	do(e, "a", Drop{Index: 0})
	if len(p.rec.Items) != 1 || p.rec.Items[0] != (Item{Kind: ItemSword, Plus: 1}) {
		t.Fatalf("with two swords the plain one would not go: %+v", p.rec.Items)
	}
}

// A ring on each hand: MAG's rings count too, so a ring of sustain strength (the last
// ring kind) does not go on a third finger.
func TestSustainStrengthIsARingToo(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemRingOfLight}, Item{Kind: ItemRingOfProtection}, Item{Kind: ItemRingOfSustainStrength})
	do(e, "a", UseItem{Index: 1})
	do(e, "a", UseItem{Index: 2})
	do(e, "a", UseItem{Index: 3})
	if p.rec.Items[3].Worn || !strings.Contains(sub.lastMessage(), "ring on each hand") {
		t.Fatalf("a ring of sustain strength went on a third finger: %q", sub.lastMessage())
	}
	p.rec.Items[1].Worn = false
	do(e, "a", UseItem{Index: 3})
	if !p.rec.Items[3].Worn {
		t.Fatal("a ring of sustain strength would not go on a free hand")
	}
}

// Rings go on and off outside the dungeon too (the knight's sight there is daylight).
func TestWearingARingOutside(t *testing.T) {
	e := fightEngine(t, nil)
	p, _ := outsideKnight(t, e, "a", e.outside.grid.Entrance)
	p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfLight})
	if cost := costOf(t, e, "a", UseItem{Index: 1}); cost != CostRest || !p.rec.Items[1].Worn {
		t.Fatalf("putting a ring on outside cost %v, worn %v", cost, p.rec.Items[1].Worn)
	}
}

// Light shows traps as it shows secret doors (DESIGN §12, "An avoided trap"), at once: a
// trap in sight goes on the map the moment a ring of light goes on, or Light is cast.
func TestLightShowsATrapInSightAtOnce(t *testing.T) {
	for _, spell := range []bool{false, true} {
		e, p, sub := trapEngine(t, TrapBear, 41)
		p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfLight})
		p.rec.SpellUnits = 1
		if len(sub.last().Traps) != 0 {
			t.Fatal("the trap shows before any light")
		}
		if spell {
			do(e, "a", Cast{Spell: SpellLight})
		} else {
			do(e, "a", UseItem{Index: 1})
		}
		if v := sub.last(); len(v.Traps) != 1 || v.Traps[0] != (Pos{1, 0}) {
			t.Fatalf("spell %v: the trap in sight does not show at once: %v", spell, v.Traps)
		}
	}
}

// Seed 000, manuals: each "adds 1 point" to its characteristic and is used up; "Of Vile
// Darkness: Reading this takes away half of your available hit points".
func TestEveryManual(t *testing.T) {
	for _, c := range []struct {
		kind ItemKind
		got  func(*Adventurer) int
		want int
	}{
		{ItemManualOfBodilyHealth, func(a *Adventurer) int { return a.Con }, 11},
		{ItemManualOfGainfulExercise, func(a *Adventurer) int { return a.Str }, 11},
		{ItemManualOfQuickness, func(a *Adventurer) int { return a.Dex }, 11},
		{ItemManualOfPhilosophy, func(a *Adventurer) int { return a.Int }, 11},
		{ItemManualOfVileDarkness, func(a *Adventurer) int { return a.Hits }, 5},
	} {
		e, p, _ := inventoryEngine(t, Item{Kind: c.kind})
		p.rec.Hits = 9
		if c.kind != ItemManualOfVileDarkness {
			p.rec.Hits = 10
		}
		do(e, "a", UseItem{Index: 1})
		if got := c.got(&p.rec); got != c.want || len(p.rec.Items) != 1 {
			t.Errorf("after the %s: %d (want %d), %d items", Items[c.kind].Name, got, c.want, len(p.rec.Items))
		}
	}
}

// A step says what the knight has come to: the exit, stairs up, stairs down.
func TestAStepSaysWhatIsUnderfoot(t *testing.T) {
	e := fixtureEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	p := e.players["a"]
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: West})
	if got := sub.lastMessage(); got != "The exit is here. Press < to climb out of the dungeon." {
		t.Fatalf("back on the exit: %q", got)
	}
	e.place(p, 1, Pos{2, 1})
	do(e, "a", Move{Dir: East})
	if got := sub.lastMessage(); got != "Stairs lead down from here. Press > to descend." {
		t.Fatalf("onto the stairs down: %q", got)
	}
	do(e, "a", Climb{Down: true})
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: West})
	if got := sub.lastMessage(); got != "Stairs lead up from here. Press < to climb them." {
		t.Fatalf("onto the stairs up: %q", got)
	}
}

// Two secret doors, and one found twice: the knight's map keeps each once.
func TestFoundSecretDoorsAreKeptOnce(t *testing.T) {
	l, err := ParseASCII(1, `
+-+-+-+
|ES S |
+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 4, WanderChance: -1}, []*Level{l})
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	do(e, "a", Move{Dir: East, Door: true})
	do(e, "a", Move{Dir: West, Door: true})
	do(e, "a", Move{Dir: East, Door: true})
	do(e, "a", Move{Dir: East, Door: true})
	if got := sub.last().FoundDoors; len(got) != 2 || got[0] == got[1] {
		t.Fatalf("found doors %v, want the two secret doors once each", got)
	}
}

// Issue 31, the messages: walking into a locked door says it is locked and how to break
// it; a knight in a fight in a room is not offered running (seed 000: "If you are in a
// room, you may not run"), one in a corridor is; a gem is treasure to sell, not a thing
// to wear.
func TestEachThingGivesItsOwnHint(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemGem, Value: 50})
	e.levels[0].SetEdge(Pos{1, 0}, East, EdgeLocked)
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East})
	if got := lastMsg(p); got != "A locked door blocks the way east. Shift+arrow (or d, then a direction) tries to break it down." {
		t.Fatalf("walking into a locked door: %q", got)
	}
	do(e, "a", UseItem{Index: 1})
	if got := lastMsg(p); got != "The gem is treasure: a market pays its worth, 50 gold." {
		t.Fatalf("using a gem: %q", got)
	}
	for _, at := range []Pos{{1, 0}, {2, 0}} { // a corridor, then the room
		e, p, _ := inventoryEngine(t)
		e.place(p, 1, at)
		ogre := fightWith(t, e, p, "ogre")
		ogre.hits, ogre.held = 1000, true
		p.energy = 0
		do(e, "a", Move{Dir: West})
		want := "You are in a fight! f fights, r runs."
		if at.X == 2 {
			want = "You are in a fight! f fights; there is no running from a room."
		}
		if got := lastMsg(p); got != want {
			t.Fatalf("a step in a fight at %v: %q, want %q", at, got, want)
		}
	}
}

// The inventory marks what is in use (issue 31): the best sword, shield and armour (the
// first of two as good), and boots and rings only while worn.
func TestInUse(t *testing.T) {
	items := []Item{
		{Kind: ItemSword}, {Kind: ItemShield, Plus: 1}, {Kind: ItemSword, Plus: 2}, {Kind: ItemArmour, Plus: 1},
		{Kind: ItemShield, Plus: 1}, {Kind: ItemRingOfLight, Worn: true}, {Kind: ItemBootsOfSpeed}, {Kind: ItemGem, Value: 5},
	}
	want := []bool{false, true, true, true, false, true, false, false}
	for i := range items {
		if got := InUse(items, i); got != want[i] {
			t.Errorf("item %d (%s): in use %v, want %v", i, items[i].Name(), got, want[i])
		}
	}
}

// A knight walking into walls is told so several times a second, the same line each
// time: the lines of a refused step are made once, one a direction, and its log holds
// that one string rather than a copy a bump.
func TestABumpIsToldWithALineMadeOnce(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"] // at E, the corner of level 1: a wall to the north
	l := e.levels[0]
	for range maxMessages {
		e.passEdge(p, l, p.rec.Pos(), Move{Dir: North}, 0)
	}
	if got := lastMsg(p); got != "A wall blocks the way north." {
		t.Fatalf("a bump is told %q", got)
	}
	const bumps = 50
	if _, allocs := allocated(func() {
		for range bumps {
			e.passEdge(p, l, p.rec.Pos(), Move{Dir: North}, 0)
		}
	}); allocs > 1 { // the log moves to a new array once in a while
		t.Errorf("%d bumps made %d allocations, want at most the log's one", bumps, allocs)
	}

	out, _ := outsideKnight(t, e, "o", Pos{0, 0}) // the surface's corner: its edge to the north
	if e.surfaceMove(out, North); lastMsg(out) != "You are at the edge of the land: you can go no further north." {
		t.Fatalf("a bump at the edge of the land is told %q", lastMsg(out))
	}
	for range maxMessages {
		e.surfaceMove(out, North)
	}
	if _, allocs := allocated(func() {
		for range bumps {
			e.surfaceMove(out, North)
		}
	}); allocs > 1 {
		t.Errorf("%d bumps at the edge of the land made %d allocations, want at most the log's one", bumps, allocs)
	}
}
