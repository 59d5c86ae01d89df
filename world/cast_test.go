package world

import (
	"slices"
	"strings"
	"testing"
)

func caster(t *testing.T, units int) (*Engine, *player, *recorder) {
	t.Helper()
	e := fightEngine(t, nil)
	sub := &recorder{}
	rec := knight("a", 10)
	rec.Int, rec.SpellUnits, rec.Hits, rec.MaxHits = 18, units, 500, 500
	e.join(rec, sub)
	return e, e.players["a"], sub
}

func fightWith(t *testing.T, e *Engine, p *player, name string) *monster {
	t.Helper()
	m := e.spawn(1, mustMonster(t, name), p.rec.Pos(), -1, e.rng)
	e.startFight(p, m)
	return m
}

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

// Seed 000: Magic Missile gives "from 2 to 20 hits"; "Only level 4 spells affect animated
// type monsters."
func TestMissilesAndAnimatedMonsters(t *testing.T) {
	e, p, _ := caster(t, 10)
	troll := fightWith(t, e, p, "troll")
	before := troll.hits
	e.enqueue("a", p.session, Cast{Spell: SpellMagicMissile})
	stepUntil(t, e, "the missile", func() bool { return p.rec.SpellUnits == 9 })
	if d := before - troll.hits; troll.fight != nil && (d < 2 || d > 20) {
		t.Fatalf("missile did %d hits", d)
	}
	e.leaveFight(p)
	golem := fightWith(t, e, p, Monsters[firstOfClass(t, Animated)].Name)
	before = golem.hits
	e.enqueue("a", p.session, Cast{Spell: SpellMagicMissile})
	stepUntil(t, e, "the missile", func() bool { return p.rec.SpellUnits == 8 })
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

// Seed 000, Teleport: "fails by teleporting you (guaranteeing survival)"; Dimension Door
// moves the monster away: "You may encounter the monster again".
func TestTeleportAndDimensionDoor(t *testing.T) {
	sawFail, sawSuccess := false, false
	for i := 0; i < 40 && !(sawFail && sawSuccess); i++ {
		e, p, _ := caster(t, 4)
		p.rec.Int = 3 // fails most (60%)
		for range i {
			e.rng.Uint64() // a different fight each time
		}
		ogre := fightWith(t, e, p, "ogre")
		e.enqueue("a", p.session, Cast{Spell: SpellTeleport})
		stepUntil(t, e, "the teleport", func() bool { return p.rec.SpellUnits == 0 })
		if p.fight != nil {
			t.Fatal("still fighting after Teleport")
		}
		if ogre.pos == p.rec.Pos() && ogre.room >= 0 {
			t.Fatal("neither the knight nor the ogre moved")
		}
		if strings.Contains(strings.Join(p.lastFight, "\n"), "astray") {
			sawFail = true
		} else {
			sawSuccess = true
			if ogre.room != -1 || e.monsterAt(1, ogre.pos) != ogre {
				t.Fatal("the teleported ogre is not a wanderer on the level")
			}
		}
	}
	if !sawFail || !sawSuccess {
		t.Fatalf("in 40 casts saw failure %v, success %v", sawFail, sawSuccess)
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
	if e.lit(p) || !strings.Contains(strings.Join(p.msgs, "\n"), "Light spell wears off") {
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
	// A wanderer in the dark corridor below moves in the light: the knight's view shows
	// its shadow where it went at once.
	guard.pos = Pos{3, 1}
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 1}, -1, e.rng)
	rat.energy = 0
	n := len(sub.views)
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
