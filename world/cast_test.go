package world

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Seed 000: "Level 1 spells cost you 1 unit each, level 2 spells cost 2 units each, etc."
// and Cure "Replenishes hits in doses of 2-7".
func TestCastingCostsUnits(t *testing.T) {
	e, p, sub := caster(t, 3)
	p.rec.Hits = 100
	do(e, "a", Cast{Spell: SpellCure})
	if p.rec.SpellUnits != 2 || p.rec.Hits < 100+2 || p.rec.Hits > 100+9 {
		t.Fatalf("after Cure: units %d hits %d (%q)", p.rec.SpellUnits, p.rec.Hits, sub.lastMessage())
	}
	do(e, "a", Cast{Spell: SpellPassFloor}) // level 4: 4 units
	if p.rec.SpellUnits != 2 || !strings.Contains(sub.lastMessage(), "needs 4 spell units") {
		t.Fatalf("cast without the units: %q", sub.lastMessage())
	}
	// Seed 000: "Some spells can be cast during a fight, others when not fighting."
	do(e, "a", Cast{Spell: SpellMagicMissile})
	if p.rec.SpellUnits != 2 || !strings.Contains(sub.lastMessage(), "only in a fight") {
		t.Fatalf("a combat spell out of a fight: %q", sub.lastMessage())
	}
	fightWith(t, e, p, "giant rat")
	e.enqueue("a", p.session, Cast{Spell: SpellCure})
	stepUntil(t, e, "the refusal", func() bool { return strings.Contains(sub.lastMessage(), "cannot be cast in a fight") })
	if p.rec.SpellUnits != 2 {
		t.Fatal("a refused spell cost units")
	}
}

// Seed 000: Magic Missile gives "from 2 to 20 hits. Double on Undead" (2d10, the
// ruling), Blastbolt "5 to 60 hits" (5d12); "Only level 4 spells affect animated type
// monsters." Cast 2000 times at a Troll that cannot die, a missile does 2..20 in 2d10's
// triangle; at a Skeleton, twice that; at an Animated monster, nothing.
func TestMissilesAndAnimatedMonsters(t *testing.T) {
	missiles := func(name string, s SpellID, n int) map[int]int {
		e, p, _ := caster(t, 10)
		p.rec.Hits, p.rec.MaxHits = 1<<30, 1<<30
		m := fightWith(t, e, p, name)
		m.hits = 1 << 30
		hit := regexp.MustCompile(`^Kay a casts ` + s.String() + ` at the [A-Za-z ]+ for (\d+)\.`)
		seen := map[int]int{}
		total := 0
		for casts := 0; casts < n; {
			p.rec.SpellUnits = 10
			battleLines(t, e, p, 1, func() Command { return Cast{Spell: s} }, func(l string) {
				if s := hit.FindStringSubmatch(l); s != nil {
					d, _ := strconv.Atoi(s[1])
					seen[d]++
					total += d
					casts++
				}
			})
		}
		if m.hits != 1<<30-total {
			t.Fatalf("%d casts of %v did %d in all, and the %s lost %d hits", n, s, total, name, 1<<30-m.hits)
		}
		return seen
	}
	const n = 2000
	seen := missiles("troll", SpellMagicMissile, n)
	for v, c := range seen {
		if v < 2 || v > 20 {
			t.Fatalf("Magic Missile did %d (%d times): seed 000 says 2 to 20", v, c)
		}
	}
	for v := 2; v <= 20; v++ {
		within(t, "Magic Missile for "+strconv.Itoa(v), float64(seen[v])/n, float64(min(v-1, 21-v))/100, n)
	}
	for v := range missiles("skeleton", SpellMagicMissile, 500) {
		if v%2 != 0 || v < 4 || v > 40 {
			t.Fatalf("Magic Missile did %d to a Skeleton: seed 000 doubles 2..20 on the Undead", v)
		}
	}
	bolts := missiles("troll", SpellBlastbolt, 500)
	for v := range bolts {
		if v < 5 || v > 60 {
			t.Fatalf("Blastbolt did %d: seed 000 says 5 to 60", v)
		}
	}

	e, p, _ := caster(t, 10)
	golem := fightWith(t, e, p, Monsters[firstOfClass(t, Animated)].Name)
	before := golem.hits
	e.enqueue("a", p.session, Cast{Spell: SpellMagicMissile})
	stepUntil(t, e, "the missile", func() bool { return p.rec.SpellUnits == 9 })
	if golem.hits != before || !strings.Contains(strings.Join(golem.fight.log, "\n"), "no effect") {
		t.Fatal("a level-1 missile hurt an Animated monster")
	}
}

func firstOfClass(t *testing.T, c MonsterClass) MonsterID {
	for i, k := range Monsters {
		if k.Class == c {
			return MonsterID(i)
		}
	}
	t.Fatalf("no %v", c)
	return 0
}

// Seed 000, Sleep: "Puts monster to sleep. Works on any monster up to level 4"; a monster
// asleep, charmed or held does not fight back.
func TestSleepingMonsterDoesNotFightBack(t *testing.T) {
	e, p, _ := caster(t, 10)
	rat := fightWith(t, e, p, "giant rat")
	e.enqueue("a", p.session, Cast{Spell: SpellSleep})
	stepUntil(t, e, "the sleep", func() bool { return rat.held })
	hits := p.rec.Hits
	for range 500 {
		e.Step()
	}
	if p.rec.Hits != hits || !strings.Contains(strings.Join(rat.fight.log, "\n"), "does not fight back") {
		t.Fatal("the sleeping rat fought back")
	}
}

// Seed 000, Dimension Door: "Teleports the monster you are fighting outside of the room
// you are in. Failure rate = 20% to 40%. You may encounter the monster again, since you
// did not kill it but simply moved it away. If it fails, then the monster gets its turn."
// Teleport: "Teleports the monster somewhere else in the level. It has a higher failure
// rate (40-60%), but fails by teleporting you (guaranteeing survival)." Cast 400 times
// each at a Troll guarding the room the knight stands in: Dimension Door (Int 18) fails
// 20% of the time and the fight goes on, the Troll striking again; Teleport (Int 3) fails
// 60% of the time and carries the knight off to another square, out of the fight and out
// of the room. When
// either works the Troll is a wanderer on a corridor square of the level, out of the
// room, and the knight stands where it stood, the fight over.
func TestTeleportAndDimensionDoor(t *testing.T) {
	for _, c := range []struct {
		spell SpellID
		intel int
		fails float64
	}{{SpellDimensionDoor, 18, 0.20}, {SpellTeleport, 3, 0.60}} {
		const n = 400
		failed := 0
		for i := range n {
			e, p, _ := caster(t, 4)
			p.rec.Int = c.intel
			for range i {
				e.rng.Uint64() // a different fight each time
			}
			e.place(p, 1, Pos{2, 0})
			troll := e.spawn(1, mustMonster(t, "troll"), Pos{3, 1}, 0, e.rng)
			e.startFight(p, troll)
			p.energy = 0
			do(e, "a", Cast{Spell: c.spell})
			l := e.levels[0]
			said := strings.Join(p.msgs(), "\n") // the fight's lines are the knight's messages too
			switch {
			case strings.Contains(said, "but the spell fails"):
				failed++
				if c.spell != SpellDimensionDoor || p.fight == nil || troll.room != 0 || troll.pos != (Pos{3, 1}) {
					t.Fatalf("%v failed and the fight did not go on: fight %v, troll in room %d at %v", c.spell, p.fight != nil, troll.room, troll.pos)
				}
				acted := troll.acted
				stepUntil(t, e, "the Troll's turn after the failed spell", func() bool {
					if len(p.queue) == 0 {
						e.enqueue("a", p.session, Fight{})
					}
					return troll.acted > acted
				})
			case strings.Contains(said, "astray"):
				failed++
				if c.spell != SpellTeleport || p.fight != nil || troll.room != 0 || troll.fight != nil {
					t.Fatalf("Teleport went astray: knight at %v in a fight %v, troll in room %d", p.rec.Pos(), p.fight != nil, troll.room)
				}
				if l.Terrain(p.rec.Pos()) == Rock {
					t.Fatalf("Teleport carried the knight into rock at %v", p.rec.Pos())
				}
				// "guaranteeing survival": out of the Troll's room (issue 31).
				if l.RoomAt(p.rec.Pos()) == 0 {
					t.Fatalf("Teleport went astray and left the knight in the Troll's room, at %v", p.rec.Pos())
				}
			case strings.Contains(said, "vanishes!"):
				if p.fight != nil || troll.fight != nil || troll.room != -1 || l.Terrain(troll.pos) != Corridor ||
					e.monsterAt(1, troll.pos) != troll || p.rec.Pos() != (Pos{2, 0}) || e.roomGuard(1, 0) != nil {
					t.Fatalf("after %v the Troll is in room %d at %v (%v), the knight at %v, fighting %v",
						c.spell, troll.room, troll.pos, l.Terrain(troll.pos), p.rec.Pos(), p.fight != nil)
				}
			default:
				t.Fatalf("%v did nothing:\n%s", c.spell, strings.Join(p.msgs(), "\n"))
			}
		}
		within(t, c.spell.String()+" failing", float64(failed)/n, c.fails, n)
	}
}

// Seed 000: Light "You are able to see all secret doors ... Lasts 24 turns."
func TestLightShowsSecretDoorsFor24Moves(t *testing.T) {
	e, p, sub := caster(t, 4)
	do(e, "a", Cast{Spell: SpellLight})
	if !sub.last().Self.Light {
		t.Fatal("no light after casting Light")
	}
	for i := range 23 {
		do(e, "a", Move{Dir: []Dir{East, West}[i%2]})
	}
	if !e.lit(p) {
		t.Fatal("Light ended before 24 moves")
	}
	do(e, "a", Move{Dir: West})
	if e.lit(p) || !strings.Contains(strings.Join(p.msgs(), "\n"), "Light spell wears off") {
		t.Fatal("Light did not wear off after 24 moves")
	}
}

// Seed 000: Speed "Gives you first hit in combat, and takes less time to move"; Pray
// "Lasts one full combat".
func TestSpeedAndPray(t *testing.T) {
	e, p, _ := caster(t, 10)
	p.rec.Dex = 3
	do(e, "a", Cast{Spell: SpellSpeed})
	if e.speed(p) != 10 {
		t.Fatal("Speed does not speed the knight")
	}
	troll := fightWith(t, e, p, "troll")
	if !strings.Contains(troll.fight.log[1], "may strike first") {
		t.Fatalf("a hasted knight with Dex 3 did not strike first: %q", troll.fight.log)
	}
	e.enqueue("a", p.session, Cast{Spell: SpellPray})
	stepUntil(t, e, "the prayer", func() bool { return p.has(SpellPray) })
	e.leaveFight(p)
	if p.has(SpellPray) {
		t.Fatal("Pray outlasted the fight")
	}
}

// Seed 000: Pass Wall "Allows you to pass through any wall"; Pass Floor or Ceiling "Allows
// you to pass either up or down to the next level".
func TestPassWallAndPassFloor(t *testing.T) {
	e := fixtureEngine(t, nil)
	rec := knight("a", 10)
	rec.SpellUnits = 20
	e.join(rec, &recorder{})
	p := e.players["a"]
	do(e, "a", Cast{Spell: SpellPassWall})
	do(e, "a", Move{Dir: South}) // a wall between the exit and the room below
	if p.rec.Pos() != (Pos{0, 1}) {
		t.Fatalf("Pass Wall: at %v", p.rec.Pos())
	}
	e.leaveFight(p)
	do(e, "a", Cast{Spell: SpellPassFloor})
	if p.rec.Depth != 2 {
		t.Fatalf("Pass Floor: depth %d", p.rec.Depth)
	}
	do(e, "a", Cast{Spell: SpellPassCeiling})
	do(e, "a", Cast{Spell: SpellPassCeiling})
	if p.rec.Depth != 0 {
		t.Fatalf("Pass Ceiling twice from level 2: depth %d, want outside", p.rec.Depth)
	}
}

// Seed 000, ESP: "Allows you to 'see' through walls. You are able to detect monsters and
// treasures. You choose the direction in which to 'look'."
func TestESPLooksThroughWalls(t *testing.T) {
	e, p, sub := caster(t, 6)
	e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 0}, 0, e.rng)
	do(e, "a", Cast{Spell: SpellESP, Dir: East})
	if !strings.Contains(strings.ToLower(sub.lastMessage()), "giant rat guarding treasure 3 squares east") {
		t.Fatalf("ESP east: %q", sub.lastMessage())
	}
	do(e, "a", Cast{Spell: SpellESP, Dir: South})
	if !strings.Contains(sub.lastMessage(), "nothing stirs") || p.rec.SpellUnits != 0 {
		t.Fatalf("ESP south: %q, units %d", sub.lastMessage(), p.rec.SpellUnits)
	}
}

// Seed 000: Continuous Light is "Same as Light, but lasts the entire trip."
func TestContinuousLightLastsTheTrip(t *testing.T) {
	e, p, _ := caster(t, 3)
	do(e, "a", Cast{Spell: SpellContinuousLight})
	for i := range 60 {
		do(e, "a", Move{Dir: []Dir{East, West}[i%2]})
	}
	if !e.lit(p) {
		t.Fatal("Continuous Light ended inside the dungeon")
	}
	do(e, "a", Climb{})
	if e.lit(p) || p.has(SpellContinuousLight) {
		t.Fatal("Continuous Light outlasted the trip")
	}
}

// A wide room behind a door: the knight stands at 1,0 outside it (seeing only the
// corridor), the room is 2..10 × 0..1, and a dark corridor runs along the bottom left.
const shadowLevel = `
+-+-+-+-+-+-+-+-+-+-+-+
|E  D. . . . . . . . .|
+ +-+ + + + + + + + + +
|   |. . . . . . . . .|
+-+-+-+-+-+-+-+-+-+-+-+`

// Seed 000, Light: "You are able to see all secret doors and detect monsters and
// treasures (which appear as shadows)." With light, the monsters and guarded hoards
// within LightRange (4) squares that the knight does not see are in its view as shadows,
// through the wall; beyond the reach, in sight, or without light, none. A guard's hoard
// lies across the room from it (hoardSquare).
func TestLightShowsMonstersAndTreasureAsShadows(t *testing.T) {
	l, err := ParseASCII(1, shadowLevel)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 5, WanderChance: -1, ActiveRefreshTurns: 1}, []*Level{l})
	e.state[0].monsters, e.state[0].guards = nil, 0
	sub := &recorder{}
	rec := knight("a", 10)
	rec.SpellUnits = 4
	e.join(rec, sub)
	p := e.players["a"]
	do(e, "a", Move{Dir: East})
	guard := e.spawn(1, mustMonster(t, "troll"), Pos{3, 1}, 0, e.rng) // its hoard at 9,0: beyond the light
	e.spawn(1, mustMonster(t, "ogre"), Pos{9, 1}, -1, e.rng)          // 8 squares east: beyond the light
	if v := e.view(p); v.Shadows != nil || v.Monsters != nil {
		t.Fatalf("without light the knight sees shadows %v, monsters %v", v.Shadows, v.Monsters)
	}
	do(e, "a", Cast{Spell: SpellLight})
	want := []Shadow{{Pos: Pos{3, 1}, Glyph: "Tr"}}
	if got := sub.last().Shadows; !slices.Equal(got, want) {
		t.Fatalf("with light the shadows are %v, want %v", got, want)
	}
	// The guard across the room: its hoard (at 4,0) is within reach, the guard is not.
	guard.pos = Pos{8, 1}
	if got, want := e.view(p).Shadows, []Shadow{{Pos: Pos{4, 0}, Treasure: true}}; !slices.Equal(got, want) {
		t.Fatalf("the far guard's shadows are %v, want %v", got, want)
	}
	// The guard of room 0 dies far off: its hoard's shadow goes from the knight's next view,
	// though the knight did nothing.
	n := len(sub.views)
	e.removeMonster(guard)
	e.Step()
	if len(sub.views) == n || len(sub.last().Shadows) != 0 {
		t.Fatalf("after the guard's death %d new views, the shadows %v", len(sub.views)-n, sub.last().Shadows)
	}
	// A wanderer in the dark corridor below moves in the light: the knight's view shows
	// its shadow where it went at once.
	guard.pos = Pos{3, 1}
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 1}, -1, e.rng)
	rat.energy = 0
	n = len(sub.views)
	e.Step()
	if rat.pos != (Pos{0, 1}) || len(sub.views) == n {
		t.Fatalf("the rat at %v; %d new views", rat.pos, len(sub.views)-n)
	}
	if got := sub.last().Shadows; !slices.Contains(got, Shadow{Pos: Pos{0, 1}, Glyph: "Rt"}) {
		t.Fatalf("after the rat's step the shadows are %v", got)
	}
	// A blind knight sees no shadows; when the light is gone, none either.
	p.addStatus(StatusBlind, 5)
	if got := e.view(p).Shadows; got != nil {
		t.Fatalf("a blind knight sees shadows %v", got)
	}
	p.rec.Status = nil
	p.rec.Effects = nil
	if got := e.view(p).Shadows; got != nil {
		t.Fatalf("without light: shadows %v", got)
	}
}

// hoardSquare: across the room, beside a guard in the middle, under one in a one-square room.
func TestHoardSquare(t *testing.T) {
	for _, c := range []struct {
		r           RoomRect
		guard, want Pos
	}{
		{RoomRect{2, 0, 9, 2}, Pos{3, 1}, Pos{9, 0}},
		{RoomRect{2, 0, 9, 2}, Pos{10, 0}, Pos{2, 1}},
		{RoomRect{0, 0, 3, 3}, Pos{1, 1}, Pos{1, 0}},
		{RoomRect{5, 5, 1, 3}, Pos{5, 6}, Pos{5, 5}},
		{RoomRect{5, 5, 1, 1}, Pos{5, 5}, Pos{5, 5}},
	} {
		if got := hoardSquare(c.r, c.guard); got != c.want {
			t.Errorf("hoardSquare(%v, %v) = %v, want %v", c.r, c.guard, got, c.want)
		}
	}
}

// Pass Floor on the bottom level is refused before any unit is spent: there is no level
// below.
func TestNoPassingTheBottomFloor(t *testing.T) {
	e, p, sub := caster(t, 8) // the fight level is the only, so the bottom, level
	do(e, "a", Cast{Spell: SpellPassFloor})
	if p.rec.Depth != 1 || p.rec.SpellUnits != 8 || sub.lastMessage() != "There is no level below this one." {
		t.Fatalf("Pass Floor on the bottom level: depth %d, units %d, %q", p.rec.Depth, p.rec.SpellUnits, sub.lastMessage())
	}
}

// Seed 000, Cure: "Heals wounds. Replenishes hits in doses of 2-7", never above the
// knight's maximum.
func TestCureNeverHealsPastTheMaximum(t *testing.T) {
	e, p, sub := caster(t, 10)
	p.rec.Hits = p.rec.MaxHits - 1
	do(e, "a", Cast{Spell: SpellCure})
	if p.rec.Hits != p.rec.MaxHits || sub.lastMessage() != "You cast Cure and recover 1 hit." {
		t.Fatalf("Cure one hit short of the maximum: %d/%d, %q", p.rec.Hits, p.rec.MaxHits, sub.lastMessage())
	}
}

// Cure at full hits would heal nothing: it is refused before a unit is spent (it took a
// unit for "You recover 0 hits").
func TestCureAtFullHitsCostsNothing(t *testing.T) {
	e, p, sub := caster(t, 10)
	p.rec.Hits = p.rec.MaxHits
	do(e, "a", Cast{Spell: SpellCure})
	if p.rec.SpellUnits != 10 || p.rec.Hits != p.rec.MaxHits || sub.lastMessage() != "You are at full hits: Cure would heal nothing." {
		t.Fatalf("Cure at full hits: %d units, %d/%d, %q", p.rec.SpellUnits, p.rec.Hits, p.rec.MaxHits, sub.lastMessage())
	}
}

// Speed, Protection and Invisibility may be cast outside the dungeon too (DESIGN §12,
// "Spells"), where there is daylight and nothing to look at again.
func TestCastingSpeedOutside(t *testing.T) {
	e := fightEngine(t, nil)
	p, sub := outsideKnight(t, e, "a", e.outside.grid.Entrance)
	p.rec.SpellUnits = 4
	do(e, "a", Cast{Spell: SpellSpeed})
	if !e.hasted(p) || p.rec.SpellUnits != 2 || sub.lastMessage() != "Kay a casts Speed." {
		t.Fatalf("Speed outside: hasted %v, units %d, %q", e.hasted(p), p.rec.SpellUnits, sub.lastMessage())
	}
}

// Dimension Door and Teleport in a battle on the surface: the monster, made for the
// battle, is simply gone, and the battle with it; a Teleport that goes astray carries the
// knight out of the battle, staying on its square (there is no other level square to put
// it on).
func TestTeleportAndDimensionDoorOnTheSurface(t *testing.T) {
	for _, c := range []struct {
		spell  SpellID
		intel  int
		astray bool
	}{{SpellDimensionDoor, 18, false}, {SpellTeleport, 18, false}, {SpellTeleport, 3, true}} {
		done := false
		for seed := uint64(0); seed < 200 && !done; seed++ {
			e := fightEngine(t, nil)
			e.rng = rand.New(rand.NewPCG(seed, 3))
			at := e.outside.grid.Entrance
			p, _ := outsideKnight(t, e, "a", at)
			p.rec.Int, p.rec.SpellUnits, p.rec.Hits, p.rec.MaxHits = c.intel, 4, 1000, 1000
			foes := e.ambush([]*player{p}, at)
			p.energy = 0
			do(e, "a", Cast{Spell: c.spell})
			said := strings.Join(p.msgs(), "\n")
			switch {
			case strings.Contains(said, "but the spell fails"):
				continue
			case strings.Contains(said, "astray") != c.astray:
				continue
			}
			done = true
			if p.fight != nil || foes[0].fight != nil || p.rec.Depth != 0 || p.rec.Pos() != at {
				t.Fatalf("%v on the surface (astray %v): fighting %v, the monster fighting %v, at depth %d %v",
					c.spell, c.astray, p.fight != nil, foes[0].fight != nil, p.rec.Depth, p.rec.Pos())
			}
		}
		if !done {
			t.Fatalf("%v (astray %v) never happened in 200 fights", c.spell, c.astray)
		}
	}
}

// Seed 000, ESP: "You are able to detect monsters and treasures. You choose the direction
// in which to 'look'"; the ruling: eight squares (espRange). Looking east, a monster
// eight squares away is sensed and one nine squares away is not; looking south, one two
// squares down is; looking north, nothing.
func TestESPLooksEightSquares(t *testing.T) {
	e, _, sub := espEngine(t, 9)
	for _, m := range []struct {
		name string
		at   Pos
	}{{"ogre", Pos{8, 0}}, {"troll", Pos{9, 0}}, {"giant rat", Pos{0, 2}}} {
		e.spawn(1, mustMonster(t, m.name), m.at, -1, e.rng).asleep = true // they stay put
	}
	for _, c := range []struct {
		dir  Dir
		want string
	}{
		{East, "You cast ESP and sense an Ogre 8 squares east."},
		{South, "You cast ESP and sense a Giant Rat 2 squares south."},
		{North, "You cast ESP and look north through the walls: nothing stirs."},
	} {
		do(e, "a", Cast{Spell: SpellESP, Dir: c.dir})
		if got := sub.lastMessage(); got != c.want {
			t.Errorf("ESP %v: %q, want %q", c.dir, got, c.want)
		}
	}
}

// Two levels for Pass Floor: the knight stands at 3,1 of an open first level; below, only
// the stairs (0,0), 1,1 and 2,2 are open, and 1,1 and 2,2 are equally near.
const passFloorLevels = `
+-+-+-+-+
|E      |
+ + + + +
|       |
+ + + + +
|       |
+-+-+-+-+
---
+-+-+-+-+
|<|#|#|#|
+-+-+-+-+
|#| |#|#|
+-+-+-+-+
|#|#| |#|
+-+-+-+-+`

// Seed 000, Pass floor: "Allows you to pass either up or down to the next level"; the
// knight comes out on the open square of the level below nearest its own (the first of
// the nearest, row by row), never in rock.
func TestPassFloorComesOutOnTheNearestOpenSquare(t *testing.T) {
	var levels []*Level
	for i, pic := range strings.Split(passFloorLevels, "---") {
		l, err := ParseASCII(i+1, pic)
		if err != nil {
			t.Fatal(err)
		}
		levels = append(levels, l)
	}
	e := newWithLevels(Config{Seed: 2, WanderChance: -1}, levels)
	rec := knight("a", 10)
	rec.SpellUnits = 8
	e.join(rec, &recorder{})
	p := e.players["a"]
	e.place(p, 1, Pos{3, 1})
	do(e, "a", Cast{Spell: SpellPassFloor})
	if p.rec.Depth != 2 || p.rec.Pos() != (Pos{1, 1}) {
		t.Fatalf("through the floor from 3,1: level %d at %v, want level 2 at 1,1", p.rec.Depth, p.rec.Pos())
	}
	do(e, "a", Cast{Spell: SpellPassCeiling})
	if p.rec.Depth != 1 || p.rec.Pos() != (Pos{1, 1}) {
		t.Fatalf("back through the ceiling: level %d at %v, want level 1 at 1,1", p.rec.Depth, p.rec.Pos())
	}
}

// A room of five columns and six rows beside a corridor two squares wide, for Light's
// reach: the knight stands in the corridor at 1,3.
const lightReachLevel = `
+-+-+-+-+-+-+-+
|E  D. . . . .|
+ +-+ + + + + +
|   |. . . . .|
+ +-+ + + + + +
|   |. . . . .|
+ +-+ + + + + +
|   |. . . . .|
+ +-+ + + + + +
|   |. . . . .|
+ +-+ + + + + +
|   |. . . . .|
+-+-+-+-+-+-+-+`

// LightRange: a knight's light reaches four squares each way, counted from where it
// stands: from 1,3 it shows a monster four squares east (5,3) and two squares down (2,5),
// and not one five squares east (6,3); rows count the same, four up or down and not five.
func TestLightReachesFourSquares(t *testing.T) {
	l, err := ParseASCII(1, lightReachLevel)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 5, WanderChance: -1}, []*Level{l})
	e.state[0].monsters, e.state[0].guards = nil, 0
	rec := knight("a", 10)
	rec.Items = append(rec.Items, Item{Kind: ItemRingOfLight, Worn: true})
	e.join(rec, &recorder{})
	p := e.players["a"]
	e.place(p, 1, Pos{1, 3})
	for _, at := range []Pos{{5, 3}, {2, 5}, {6, 3}} {
		e.spawn(1, mustMonster(t, "ogre"), at, -1, e.rng).asleep = true
	}
	want := []Shadow{{Pos: Pos{5, 3}, Glyph: "Og"}, {Pos: Pos{2, 5}, Glyph: "Og"}}
	if got := e.view(p).Shadows; !slices.Equal(got, want) {
		t.Fatalf("from 1,3 the light shows %v, want %v", got, want)
	}
	// Up and down the same: from 1,1 the monster at 2,5 is four rows down, from 1,0 five.
	for _, tc := range []struct {
		at   Pos
		want []Shadow
	}{{Pos{1, 1}, want}, {Pos{1, 0}, want[:1]}} {
		e.place(p, 1, tc.at)
		if got := e.view(p).Shadows; !slices.Equal(got, tc.want) {
			t.Fatalf("from %v the light shows %v, want %v", tc.at, got, tc.want)
		}
	}
}

// Issue 31: each lasting spell works on every move of its duration, not only when cast:
// seed 000's Find Traps "Lasts 6 turns", Levitation 12, Speed 18, Light and Protection 24,
// Invisibility 36, durations counting the knight's moves. Cast, each is on for moves 1 to
// N and gone after move N. Find Traps senses the trap near the knight on each of its 6
// moves (and not on the 7th); Levitation floats over a pit on its 12th move and the 14th
// falls in (the one level it has: the pit leaves it where it was); an invisible knight's 36th move takes it into a guarded room unnoticed and its
// 37th starts the fight.
func TestLastingSpellsWorkOnEveryMoveOfTheirDuration(t *testing.T) {
	for s, n := range map[SpellID]int{SpellFindTraps: 6, SpellLevitation: 12, SpellSpeed: 18, SpellLight: 24, SpellProtection: 24, SpellInvisibility: 36} {
		e, p, _ := caster(t, 10)
		do(e, "a", Cast{Spell: s})
		for k := 1; k <= n+1; k++ {
			if p.has(s) != (k <= n) {
				t.Fatalf("%s before move %d: on %v", s.Info().Name, k, p.has(s))
			}
			do(e, "a", Move{Dir: []Dir{East, West}[(k+1)%2]})
		}
	}

	// Find Traps: a web two or three squares east of the knight's walk.
	e, p, _ := caster(t, 10)
	e.levels[0].SetTrap(Pos{2, 1}, TrapWeb)
	do(e, "a", Cast{Spell: SpellFindTraps})
	for k := 1; k <= 7; k++ {
		p.rec.Maps[p.mapIdx].Traps = nil // forget it, so each move must sense it again
		said := p.said
		do(e, "a", Move{Dir: []Dir{East, West}[(k+1)%2]})
		lines := strings.Join(saidSince(p, said), "\n")
		sensed := strings.Contains(lines, "You sense a spider web") && len(p.rec.Maps[p.mapIdx].Traps) == 1
		if sensed != (k <= 6) {
			t.Fatalf("Find Traps, move %d: sensed %v (%q)", k, sensed, lines)
		}
	}

	// Levitation: the knight starts on a pit and steps off and on; the 12th move is onto it.
	e, p, _ = caster(t, 10)
	e.levels[0].SetFeature(Pos{1, 0}, FeatPit)
	e.place(p, 1, Pos{1, 0})
	do(e, "a", Cast{Spell: SpellLevitation})
	for k := 1; k <= 14; k++ {
		said := p.said
		do(e, "a", Move{Dir: []Dir{West, East}[(k+1)%2]})
		lines := strings.Join(saidSince(p, said), "\n")
		if fell := strings.Contains(lines, "You fall into a pit"); fell != (k == 14) {
			t.Fatalf("Levitation, move %d: fell %v (%q)", k, fell, lines)
		}
	}

	// Invisibility: 35 moves in the corridor, the 36th through the door into the room.
	e, p, _ = caster(t, 10)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	do(e, "a", Cast{Spell: SpellInvisibility})
	for k := 1; k <= 35; k++ {
		do(e, "a", Move{Dir: []Dir{East, West}[(k+1)%2]})
	}
	do(e, "a", Move{Dir: East, Door: true})
	if p.rec.Pos() != (Pos{2, 0}) || p.fight != nil {
		t.Fatalf("Invisibility's 36th move: at %v, fighting %v", p.rec.Pos(), p.fight != nil)
	}
	do(e, "a", Move{Dir: East})
	if p.fight == nil || rat.fight != p.fight {
		t.Fatal("the 37th move, visible again, did not start the fight")
	}
}
