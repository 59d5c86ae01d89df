package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Seed 001: "levels 1 - 10: minimum 1, maximum 2, 1 + rnd(2); 11 - 20: 1..5, 1 + rnd(2) +
// rnd(4); 21+: 1..8, 1 + rnd(2) + rnd(4) + rnd(4)", rnd(X) being "rand() MOD X".
func TestTrapCountFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct{ depth, lo, hi int }{{1, 1, 2}, {10, 1, 2}, {11, 1, 5}, {20, 1, 5}, {21, 1, 8}, {40, 1, 8}} {
		seen := map[int]bool{}
		for range 20000 {
			n := TrapCount(r, tc.depth)
			if n < tc.lo || n > tc.hi {
				t.Fatalf("depth %d: %d traps, seed 001 allows %d..%d", tc.depth, n, tc.lo, tc.hi)
			}
			seen[n] = true
		}
		if len(seen) != tc.hi-tc.lo+1 {
			t.Errorf("depth %d: counts seen %v, want every one of %d..%d", tc.depth, seen, tc.lo, tc.hi)
		}
	}
}

// Seed 001's pendulum table, row by row.
func TestPendulumTable(t *testing.T) {
	table := []float64{45.0, 42.5, 40.0, 37.5, 35.0, 32.5, 30.0, 27.5, 25.0, 22.5, 20.0, 17.5, 15.0, 12.5, 10.0, 7.5, 5.0, 2.5, 0.0, 0.0, 0.0}
	for i, want := range table {
		level := i + 1
		if got := PendulumChance(level) * 100; got < want-1e-9 || got > want+1e-9 {
			t.Errorf("experience level %d: %.1f%%, seed 001 says %.1f%%", level, got, want)
		}
	}
}

// Seed 001's flying spear: "2d3 ... a random number from 0 to 2 plus another random number
// from 0 to 2": 0..4, every value reached.
func TestSpearDamageRange(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	seen := map[int]bool{}
	for range 10000 {
		d := SpearDamage(r)
		if d < 0 || d > 4 {
			t.Fatalf("spear did %d", d)
		}
		seen[d] = true
	}
	if len(seen) != 5 {
		t.Fatalf("spear damage seen %v, want 0..4", seen)
	}
}

// stepOn walks onto the trap square and back until the trap goes off, and reports the
// message it gave (the message log since the step).
func stepOn(t *testing.T, e *Engine, p *player) string {
	t.Helper()
	for range 200 {
		before := len(p.msgs())
		do(e, "a", Move{Dir: East})
		if p.rec.Maps[p.mapIdx].Traps != nil {
			return strings.Join(p.msgs()[before:], "\n")
		}
		p.rec.X, p.rec.Y = 0, 0
		e.look(p)
	}
	t.Fatal("the trap never went off")
	return ""
}

// Seed 001: "A player avoids traps 47.5 percent of the time."
func TestPlayersAvoidTraps47Point5Percent(t *testing.T) {
	e, p, _ := trapEngine(t, TrapFlyingSpear, 5)
	const n = 20000
	sprung := 0
	for range n {
		p.rec.Maps[p.mapIdx].Traps = nil
		e.springTrapAt(p, Pos{1, 0})
		if p.rec.Maps[p.mapIdx].Traps != nil {
			sprung++
		}
	}
	if avoided := 1 - float64(sprung)/n; avoided < 0.465 || avoided > 0.485 {
		t.Fatalf("avoided %.3f of traps, seed 001 says 0.475", avoided)
	}
}

// springTrapAt springs the trap at q on the knight without moving it there for real.
func (e *Engine) springTrapAt(p *player, q Pos) {
	at := p.rec.Pos()
	p.rec.X, p.rec.Y = q.X, q.Y
	e.springTrap(p)
	p.rec.X, p.rec.Y = at.X, at.Y
	p.rec.Status = nil
}

// Each trap's message and effect on a knight, as seed 001 gives them.
func TestTrapsOnKnights(t *testing.T) {
	for _, tc := range []struct {
		trap  TrapKind
		msg   string
		check func(*Engine, *player) string
	}{
		{TrapWeb, "You are caught in a sticky, strandy spider web!", func(e *Engine, p *player) string {
			if st := p.status(StatusStuck); st == nil || st.Left < 5 || st.Left > 9 {
				return "not stuck for 5 to 9 tries"
			}
			return ""
		}},
		{TrapStun, "<<ZZRRRRAAAPP>> An electric burning rips through your body!", func(e *Engine, p *player) string {
			if lost := 1000 - p.rec.Hits; lost < 1 || lost > 5 {
				return "did not lose 1 to 5 hits"
			}
			if len(p.rec.Status) != 1 {
				return "not confused, blind or asleep"
			}
			return ""
		}},
		{TrapStrangleWeed, "A weed snakes out and wraps around your neck!", func(e *Engine, p *player) string {
			if p.status(StatusStrangle) == nil {
				return "not held by the weed"
			}
			hits := p.rec.Hits
			for range TurnsPerRound {
				e.Step()
			}
			if p.rec.Hits != hits-1 {
				return "the weed did not take a hit in a turn"
			}
			return ""
		}},
		{TrapPoisonNeedle, "Ouch! A poison needle stabbed you in the foot.", func(e *Engine, p *player) string {
			if lost := 1000 - p.rec.Hits; lost < 5 || lost > 9 {
				return "did not lose 5 to 9 hits"
			}
			if e.str(p) >= 12 || e.str(p) < 10 {
				return "Strength not down by 1 or 2"
			}
			return ""
		}},
		{TrapSleepingGas, "A curious white mist encircles you...you fall asleep.", func(e *Engine, p *player) string {
			if st := p.status(StatusAsleep); st == nil || st.Left < 5 || st.Left > 9 {
				return "not asleep for 5 to 9 turns"
			}
			e.enqueue("a", p.session, Move{Dir: West})
			e.Step()
			if p.rec.Pos() != (Pos{1, 0}) {
				return "a sleeping knight walked"
			}
			return ""
		}},
		{TrapBear, "A bear trap snaps shut on your foot!", func(e *Engine, p *player) string {
			if lost := 1000 - p.rec.Hits; lost < 1 || lost > 6 {
				return "did not lose 1 to 6 hits"
			}
			if st := p.status(StatusStuck); st == nil || st.Left < 5 || st.Left > 9 {
				return "not stuck for 5 to 9 tries"
			}
			return ""
		}},
		{TrapFlyingSpear, "A spear shoots out from a hole in the wall!", func(e *Engine, p *player) string {
			if lost := 1000 - p.rec.Hits; lost < 0 || lost > 4 {
				return "did not lose 0 to 4 hits"
			}
			return ""
		}},
	} {
		t.Run(tc.trap.String(), func(t *testing.T) {
			e, p, _ := trapEngine(t, tc.trap, uint64(tc.trap))
			msg := stepOn(t, e, p)
			if !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q, seed 001 says %q", msg, tc.msg)
			}
			if why := tc.check(e, p); why != "" {
				t.Fatal(why)
			}
		})
	}
}

// Seed 001, pendulum: "Player loses (5 + dungeon_level) to (9 + dungeon_level) hit
// points", with "The percent chance to be damaged by this trap" of the table by
// experience level, and the message "A huge sharp pendulum blade swings down from
// above..."; the ruling adds "...and misses you by a hair." when it does no damage. On
// dungeon level 2 a first-level knight stepping on one loses 7..11, each as often, in
// 45% of the swings; a tenth-level knight in 22.5%; a knight of level 19 never.
func TestThePendulum(t *testing.T) {
	for _, c := range []struct {
		level  int
		chance float64
	}{{1, 0.45}, {10, 0.225}, {19, 0}} {
		e := fixtureEngine(t, nil)
		e.levels[1].SetTrap(Pos{1, 0}, TrapPendulum)
		rec := knight("a", 10)
		rec.Level, rec.Hits, rec.MaxHits = c.level, 1<<20, 1<<20
		e.join(rec, &recorder{})
		p := e.players["a"]
		e.place(p, 2, e.levels[1].Up)
		const n = 4000
		swings, hurt := 0, map[int]int{}
		for range n {
			p.rec.X, p.rec.Y = 0, 0
			before, said := p.rec.Hits, p.said
			do(e, "a", Move{Dir: East})
			lines := saidSince(p, said)
			if !slices.Contains(lines, "A huge sharp pendulum blade swings down from above...") {
				continue // avoided (47.5%): no message
			}
			swings++
			missed := slices.Contains(lines, "...and misses you by a hair.")
			switch lost := before - p.rec.Hits; {
			case lost == 0 && missed:
			case lost > 0 && !missed:
				hurt[lost]++
			default:
				t.Fatalf("level %d: the pendulum took %d hits and said %q", c.level, lost, lines)
			}
		}
		total := 0
		for _, k := range hurt {
			total += k
		}
		within(t, fmt.Sprintf("experience level %d: swings that hurt", c.level), float64(total)/float64(swings), c.chance, swings)
		if c.level == 1 {
			checkSpread(t, "a pendulum on dungeon level 2", hurt, 7, 11)
		}
	}
}

// Seed 001, teleportation: "Player teleported to a random square on the current dungeon
// level and is confused for 1 to 3 turns"; "Message: no message". On the fight level
// (eight open squares) a knight who springs one 2000 times lands on each of them an
// eighth of the times, never leaves the level, and is confused for 1, 2 or 3 rounds.
func TestTheTeleportationTrap(t *testing.T) {
	e, p, _ := trapEngine(t, TrapTeleport, 8)
	l := e.levels[0]
	landed, confused := map[Pos]int{}, map[int]int{}
	sprung := 0
	for sprung < 2000 {
		p.rec.X, p.rec.Y, p.rec.Status = 0, 0, nil
		e.look(p)
		said := p.said
		do(e, "a", Move{Dir: East})
		st := p.status(StatusConfused)
		if st == nil {
			if p.rec.Pos() != (Pos{1, 0}) {
				t.Fatalf("an avoided teleportation trap moved the knight to %v", p.rec.Pos())
			}
			continue
		}
		sprung++
		landed[p.rec.Pos()]++
		confused[st.Left]++
		if p.rec.Depth != 1 || l.Terrain(p.rec.Pos()) == Rock || p.said != said {
			t.Fatalf("teleported to %v on level %d (%v), saying %q", p.rec.Pos(), p.rec.Depth, l.Terrain(p.rec.Pos()), lastMsg(p))
		}
	}
	if len(landed) != 8 {
		t.Fatalf("the knight landed on %d squares, want all 8: %v", len(landed), landed)
	}
	for q, k := range landed {
		within(t, fmt.Sprintf("landing on %v", q), float64(k)/2000, 1.0/8, 2000)
	}
	checkSpread(t, "confused rounds", confused, 1, 3)

	// On a level with rock, never into the rock: the fixture's first level has ten open
	// squares and two of rock.
	e = fixtureEngine(t, nil)
	e.state[0].monsters = nil
	e.levels[0].SetTrap(Pos{1, 0}, TrapTeleport)
	e.join(knight("a", 10), &recorder{})
	p = e.players["a"]
	l = e.levels[0]
	landed = map[Pos]int{}
	for range 2000 {
		p.rec.X, p.rec.Y, p.rec.Status = 0, 0, nil
		e.look(p)
		do(e, "a", Move{Dir: East})
		if p.status(StatusConfused) != nil {
			landed[p.rec.Pos()]++
		}
		if l.Terrain(p.rec.Pos()) == Rock {
			t.Fatalf("teleported into rock at %v", p.rec.Pos())
		}
	}
	if len(landed) != 10 {
		t.Fatalf("the knight landed on %d of the 10 open squares: %v", len(landed), landed)
	}
}

// Seed 001: "A ring of free action allows the player to avoid all traps", with "Wait! The
// web melts and you pass through it."; the bear trap still holds it "for 1 turn".
func TestRingOfFreeAction(t *testing.T) {
	e, p, sub := trapEngine(t, TrapWeb, 9)
	p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfFreeAction, Worn: true})
	do(e, "a", Move{Dir: East})
	if !strings.Contains(sub.lastMessage(), "Wait! The web melts and you pass through it.") || p.status(StatusStuck) != nil {
		t.Fatalf("free action and a web: %q %+v", sub.lastMessage(), p.rec.Status)
	}
	e, p, _ = trapEngine(t, TrapBear, 10)
	p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfFreeAction, Worn: true})
	stepOn(t, e, p)
	if st := p.status(StatusStuck); st == nil || st.Left != 1 {
		t.Fatalf("free action and a bear trap: %+v", p.rec.Status)
	}
}

// Seed 001: "Player has to try to move for 5 to 9 turns to escape the trap."
func TestBeingStuck(t *testing.T) {
	e, p, _ := trapEngine(t, TrapWeb, 11)
	stepOn(t, e, p)
	tries := p.status(StatusStuck).Left
	for i := range tries {
		if p.rec.Pos() != (Pos{1, 0}) {
			t.Fatalf("got out after %d of %d tries", i, tries)
		}
		do(e, "a", Move{Dir: West})
	}
	if p.status(StatusStuck) != nil {
		t.Fatal("still stuck after all the tries")
	}
	do(e, "a", Move{Dir: West})
	if p.rec.Pos() != (Pos{0, 0}) {
		t.Fatal("cannot walk after struggling free")
	}
}

// Seed 001: poison needle strength loss; "Strength is not lost if player is wearing a ring
// of sustain strength"; and it comes back after 500 to 999 turns.
func TestPoisonNeedleStrength(t *testing.T) {
	e, p, _ := trapEngine(t, TrapPoisonNeedle, 12)
	p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfSustainStrength, Worn: true})
	stepOn(t, e, p)
	if e.str(p) != 12 {
		t.Fatal("Strength lost through a ring of sustain strength")
	}
	e, p, _ = trapEngine(t, TrapPoisonNeedle, 13)
	stepOn(t, e, p)
	if e.str(p) >= 12 {
		t.Fatal("no Strength lost")
	}
	for range 2000 * TurnsPerRound {
		e.Step()
	}
	if e.str(p) != 12 || len(p.rec.Status) != 0 {
		t.Fatalf("Strength %d after 2000 turns, want it back to 12", e.str(p))
	}
}

// Seed 001: monsters are affected by traps whether or not anyone sees them; the message
// reaches only the knights who see the monster, except "You hear a zapping sound.", which
// everyone on the level hears.
func TestWanderersSpringTraps(t *testing.T) {
	e := fightEngine(t, nil)
	l := e.levels[0]
	l.SetTrap(Pos{0, 1}, TrapBear)
	l.SetTrap(Pos{1, 1}, TrapStun)
	watcher, blind := &recorder{}, &recorder{}
	e.join(knight("w", 10), watcher) // at the exit 0,0: sees 0,1 down the corridor
	rec := knight("b", 10)
	e.join(rec, blind)
	e.place(e.players["b"], 1, Pos{3, 1}) // inside the room: cannot see the corridor
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{0, 1}, -1, e.rng)
	rat.hits = 100
	e.monsterTrap(rat)
	e.publish()
	if !rat.stuck || rat.hits >= 100 || rat.hits < 94 {
		t.Fatalf("bear trap on the rat: stuck %v hits %d", rat.stuck, rat.hits)
	}
	if !strings.Contains(watcher.lastMessage(), "A bear trap snaps shut on the Giant Rat.") {
		t.Fatalf("the watcher was told %q", watcher.lastMessage())
	}
	if strings.Contains(strings.Join(blind.last().Log.Lines(), "\n"), "bear trap") {
		t.Fatal("a knight who cannot see the rat was told about it")
	}
	if !containsInt(e.players["w"].rec.Maps[0].Traps, l.idx(Pos{0, 1})) {
		t.Fatal("the trap the watcher saw go off is not on its map")
	}
	rat.pos = Pos{1, 1}
	e.monsterTrap(rat)
	e.publish()
	for _, r := range []*recorder{watcher, blind} {
		if !strings.Contains(r.lastMessage(), "You hear a zapping sound.") {
			t.Fatalf("zapping sound not heard: %q", r.lastMessage())
		}
	}
	// A stuck monster gets free one time in seven.
	freed := 0
	for range 7000 {
		rat.stuck = true
		rat.energy = 0
		rat.pos = Pos{0, 1}
		e.wander()
		if !rat.stuck {
			freed++
		}
	}
	// Seed 001: "the monster has a 1 out of 7 chance (14 percent) to escape": within four
	// standard errors, which tells 1 in 7 from 1 in 6 or 1 in 8.
	within(t, "a stuck monster getting free", float64(freed)/7000, 1.0/7, 7000)
}

// Seed 001's entries for monsters, over many springs of each trap on a rat on level 1:
// the hits it loses run from the least to the most and no further, it is stuck or asleep
// where the entry says, and the flying spear leaves it alone ("Monster: not affected by
// this trap"). The stun and teleportation traps have tests of their own.
func TestTrapsOnMonstersMinToMax(t *testing.T) {
	for _, c := range []struct {
		trap          TrapKind
		lo, hi        int // hits lost
		stuck, asleep bool
	}{
		{TrapWeb, 0, 0, true, false},
		{TrapPendulum, 6, 10, false, false}, // "(5 + dungeon_level) to (9 + dungeon_level)"
		{TrapStrangleWeed, 1, 4, true, false},
		{TrapPoisonNeedle, 5, 9, false, false},
		{TrapSleepingGas, 0, 0, false, true},
		{TrapBear, 1, 6, true, false},
		{TrapFlyingSpear, 0, 0, false, false},
	} {
		t.Run(c.trap.String(), func(t *testing.T) {
			e := fightEngine(t, nil)
			e.rng = rand.New(rand.NewPCG(uint64(c.trap), 7))
			e.levels[0].SetTrap(Pos{0, 1}, c.trap)
			rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{0, 1}, -1, e.rng)
			lost := map[int]bool{}
			for range 2000 {
				rat.hits, rat.stuck, rat.asleep = 100, false, false
				e.monsterTrap(rat)
				lost[100-rat.hits] = true
				if rat.stuck != c.stuck || rat.asleep != c.asleep {
					t.Fatalf("stuck %v and asleep %v, seed 001 says %v and %v", rat.stuck, rat.asleep, c.stuck, c.asleep)
				}
			}
			for n := range lost {
				if n < c.lo || n > c.hi {
					t.Fatalf("lost %d hits, seed 001 says %d to %d", n, c.lo, c.hi)
				}
			}
			if !lost[c.lo] || !lost[c.hi] {
				t.Fatalf("the least (%d) or the most (%d) hits lost never came up: %v", c.lo, c.hi, lost)
			}
		})
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Seed 000: chutes "drop you one or more levels" and levitation lets you "levitate over
// traps in the dungeon, such as pits and chutes. You are given the choice of using a chute,
// however."
func TestChutesPitsAndLevitation(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.levels[0].SetFeature(Pos{1, 0}, FeatChute)
	e.levels[0].SetFeature(Pos{2, 1}, FeatPit)
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 100, 100
	rec.Items = append(rec.Items, Item{Kind: ItemBootsOfLevitation, Worn: true})
	sub := &recorder{}
	e.join(rec, sub)
	p := e.players["a"]
	do(e, "a", Move{Dir: East})
	if p.rec.Depth != 1 || !strings.Contains(sub.lastMessage(), "float over a chute") {
		t.Fatalf("a levitating knight fell: depth %d %q", p.rec.Depth, sub.lastMessage())
	}
	do(e, "a", Climb{Down: true})
	if p.rec.Depth != 2 {
		t.Fatalf("> on a chute while levitating: depth %d", p.rec.Depth)
	}
	e.place(p, 1, Pos{3, 1})
	p.rec.Items[1].Worn = false
	do(e, "a", Move{Dir: West})
	if p.rec.Depth != 2 || p.rec.Hits >= 100 || !strings.Contains(sub.lastMessage(), "fall into a pit") {
		t.Fatalf("a pit: depth %d hits %d %q", p.rec.Depth, p.rec.Hits, sub.lastMessage())
	}
}

// Three levels, a chute beside the exit of the first.
const chuteLevels = `
+-+-+
|E C|
+-+-+
---
+-+-+
|< >|
+-+-+
---
+-+-+
|<  |
+-+-+`

// Seed 000: chutes "drop you one or more levels"; the ruling: one level, or two one time
// in three, never below the bottom. 1500 slides from level 1: a third end on level 3. A
// pit drops the knight one level with a fall of d6.
func TestAChuteDropsTwoLevelsOneTimeInThree(t *testing.T) {
	var levels []*Level
	for i, pic := range strings.Split(chuteLevels, "---") {
		l, err := ParseASCII(i+1, pic)
		if err != nil {
			t.Fatal(err)
		}
		levels = append(levels, l)
	}
	e := newWithLevels(Config{Seed: 9, WanderChance: -1}, levels)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	const n = 1500
	at := map[int]int{}
	for range n {
		e.place(p, 1, Pos{0, 0})
		do(e, "a", Move{Dir: East})
		at[p.rec.Depth]++
	}
	if at[2]+at[3] != n {
		t.Fatalf("after sliding down the chute the knight was on levels %v", at)
	}
	within(t, "slides of two levels", float64(at[3])/n, 1.0/3, n)
	// The ruling's pit: one level down, and a fall that hurts d6.
	e.levels[0].SetFeature(Pos{1, 0}, FeatPit)
	p.rec.Hits, p.rec.MaxHits = 1<<20, 1<<20
	hurt := map[int]int{}
	for range 1200 {
		e.place(p, 1, Pos{0, 0})
		before := p.rec.Hits
		do(e, "a", Move{Dir: East})
		if p.rec.Depth != 2 {
			t.Fatalf("a pit dropped the knight to level %d", p.rec.Depth)
		}
		hurt[before-p.rec.Hits]++
	}
	checkSpread(t, "a fall into a pit", hurt, 1, 6)
}

// Ruling on seed 001's confusion (DESIGN §12, "Confusion"): half of a confused knight's
// steps go a random way of the four, with "You stumble about in confusion."; a way that
// is a wall is a bump that costs nothing. Walking east in the middle of the corridor, a
// confused knight goes east 5/8 of the time (1/2 + 1/2 × 1/4), west 1/8, and bumps 1/4.
func TestAConfusedKnightStumbles(t *testing.T) {
	e, p := corridorEngine(t)
	p.addStatus(StatusConfused, 1<<20)
	const n = 4000
	went := map[int]int{}
	stumbled := 0
	for range n {
		p.rec.X, p.rec.Y = 3, 0
		p.energy = 0
		said := p.said
		e.enqueue("a", p.session, Move{Dir: East})
		e.Step()
		went[p.rec.X-3]++
		if slices.Contains(saidSince(p, said), "You stumble about in confusion.") {
			stumbled++
		}
	}
	within(t, "stumbling", float64(stumbled)/n, 0.5, n)
	within(t, "going east", float64(went[1])/n, 5.0/8, n)
	within(t, "going west", float64(went[-1])/n, 1.0/8, n)
	within(t, "bumping into a wall", float64(went[0])/n, 1.0/4, n)
}

// Seed 001, sleeping gas on a monster: "Source code looks like monster sleeps until woken
// up by player". A wanderer gassed in the corridor does not move for two thousand rounds;
// a knight who walks up to it wakes it, and it fights.
func TestAGassedMonsterSleepsUntilAKnightWakesIt(t *testing.T) {
	e, p := corridorEngine(t)
	e.levels[0].SetTrap(Pos{5, 0}, TrapSleepingGas)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{6, 0}, -1, e.rng) // its only way is west, onto the gas
	for !rat.asleep {
		e.Step()
	}
	at := rat.pos
	for range 2000 * TurnsPerRound {
		e.Step()
	}
	if !rat.asleep || rat.pos != at {
		t.Fatalf("the gassed rat woke by itself (asleep %v) or moved to %v", rat.asleep, rat.pos)
	}
	e.levels[0].SetTrap(at, TrapNone) // so the knight is not gassed too
	p.rec.Hits, p.rec.MaxHits = 1<<20, 1<<20
	for p.fight == nil {
		do(e, "a", Move{Dir: East})
	}
	if rat.asleep {
		t.Fatal("the knight's coming did not wake the rat")
	}
	stepUntil(t, e, "the rat to fight back", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return rat.acted > 0 || rat.fight == nil
	})
	if rat.acted == 0 {
		t.Fatal("the woken rat never attacked")
	}
}

// Seed 000: Find Traps "Tells you what traps are around you"; known traps show on the map.
func TestFindTraps(t *testing.T) {
	e, p, sub := trapEngine(t, TrapBear, 14)
	p.rec.SpellUnits = 2
	do(e, "a", Cast{Spell: SpellFindTraps})
	if !strings.Contains(sub.lastMessage(), "bear trap 1 squares east") {
		t.Fatalf("Find Traps said %q", sub.lastMessage())
	}
	if v := e.view(p); len(v.Traps) != 1 || v.Traps[0] != (Pos{1, 0}) {
		t.Fatalf("known traps in the view: %v", v.Traps)
	}
}

// A blind knight sees nothing; its sight comes back when the blindness wears off.
func TestBlindness(t *testing.T) {
	e, p, _ := trapEngine(t, TrapNone, 15)
	p.addStatus(StatusBlind, 2)
	e.look(p)
	for i := range p.visible {
		if p.visible[i] != 0 {
			t.Fatal("a blind knight sees")
		}
	}
	for range 2 * TurnsPerRound {
		e.Step()
	}
	if p.status(StatusBlind) != nil || !Bit(p.visible, 0) {
		t.Fatal("sight did not come back")
	}
}

// Regression: a knight killed by a trap during a turn left the world while the turn was
// still walking the list of knights, and the engine goroutine panicked on the next one,
// taking the whole server down. The turn now walks a copy and skips the departed.
func TestDeathOnATrapMidTurnDoesNotCrash(t *testing.T) {
	e := fightEngine(t, nil)
	e.levels[0].SetTrap(Pos{1, 0}, TrapPendulum)
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 1, 1
	e.join(rec, &recorder{})
	for _, fp := range []string{"b", "c", "d"} {
		e.join(knight(fp, 10), &recorder{})
	}
	a := e.players["a"]
	for range 2000 {
		if _, alive := e.players["a"]; !alive {
			break
		}
		if len(a.queue) == 0 {
			a.rec.X, a.rec.Y = 0, 0
			e.enqueue("a", a.session, Move{Dir: East})
		}
		for _, fp := range []string{"b", "c", "d"} { // the others act in the same turns
			if p := e.players[fp]; len(p.queue) == 0 {
				e.enqueue(fp, p.session, Move{Dir: []Dir{South, North}[e.turn%2]})
			}
		}
		e.Step()
	}
	if _, alive := e.players["a"]; alive {
		t.Fatal("the pendulum never killed the one-hit knight")
	}
	if len(e.order) != 3 {
		t.Fatalf("%d knights left, want 3", len(e.order))
	}
}

// Seed 001's ranges, over many seeded springs of each trap: every value from the minimum to
// the maximum comes up, and nothing outside.
func TestTrapRangesMinToMax(t *testing.T) {
	type rng struct{ lo, hi int }
	for _, tc := range []struct {
		trap    TrapKind
		measure func(before int, p *player) map[string]int // what to range-check, by name
		want    map[string]rng
	}{
		{TrapWeb, nil, map[string]rng{"stuck tries": {5, 9}}},
		{TrapStun, nil, map[string]rng{"hits lost": {1, 5}, "confused turns": {10, 19}, "blind turns": {5, 14}, "asleep turns": {5, 9}}},
		{TrapStrangleWeed, nil, map[string]rng{"strangled tries": {5, 9}}},
		// "down 1 point for 500 to 999 turns"; the second point, when lost, comes back 500
		// to 999 turns after the first (checked for its range below, 1000..1998).
		{TrapPoisonNeedle, nil, map[string]rng{"hits lost": {5, 9}, "weak turns": {500, 999}}},
		{TrapSleepingGas, nil, map[string]rng{"asleep turns": {5, 9}}},
		{TrapBear, nil, map[string]rng{"hits lost": {1, 6}, "stuck tries": {5, 9}}},
		{TrapFlyingSpear, nil, map[string]rng{"hits lost": {0, 4}}},
		{TrapTeleport, nil, map[string]rng{"confused turns": {1, 3}}},
	} {
		t.Run(tc.trap.String(), func(t *testing.T) {
			e, p, _ := trapEngine(t, tc.trap, 100+uint64(tc.trap))
			seen := map[string]map[int]bool{}
			note := func(name string, v int) {
				if seen[name] == nil {
					seen[name] = map[int]bool{}
				}
				seen[name][v] = true
			}
			for range 20000 {
				p.rec.Hits, p.rec.Maps[p.mapIdx].Traps = 1000, nil
				p.rec.X, p.rec.Y = 1, 0
				p.rec.Status = nil
				e.springTrap(p)
				if p.rec.Maps[p.mapIdx].Traps == nil {
					continue // avoided
				}
				if lost := 1000 - p.rec.Hits; tc.trap != TrapTeleport && tc.trap != TrapWeb && tc.trap != TrapStrangleWeed && tc.trap != TrapSleepingGas {
					note("hits lost", lost)
				}
				for _, st := range p.rec.Status {
					switch st.Kind {
					case StatusStuck:
						note("stuck tries", st.Left)
					case StatusStrangle:
						note("strangled tries", st.Left)
					case StatusConfused:
						note("confused turns", st.Left)
					case StatusBlind:
						note("blind turns", st.Left)
					case StatusAsleep:
						note("asleep turns", st.Left)
					case StatusWeak:
						if st.Left <= 999 {
							note("weak turns", st.Left)
						} else if st.Left > 1998 {
							t.Fatalf("the second Strength point comes back after %d turns, at most 999+999", st.Left)
						}
					}
				}
			}
			for name, r := range tc.want {
				vals := seen[name]
				for v := range vals {
					if v < r.lo || v > r.hi {
						t.Fatalf("%s: %d, seed 001 allows %d..%d", name, v, r.lo, r.hi)
					}
				}
				if !vals[r.lo] || !vals[r.hi] {
					t.Fatalf("%s: minimum %d or maximum %d never came up in %d values", name, r.lo, r.hi, len(vals))
				}
			}
		})
	}
}

// Seed 001, poison needle: "There is a 50 percent chance that player strength will go
// down 1 point for 500 to 999 turns. There is a 50 percent chance that strength will be
// down 2 points for 500 to 999 turns and then be down 1 point for an additional 500 to 999
// turns." Over 8000 needles that go off: half take one point, half two, the second coming
// back 500 to 999 rounds after the first, every one of those.
func TestAPoisonNeedleWeakensForAWhile(t *testing.T) {
	e, p, _ := trapEngine(t, TrapPoisonNeedle, 31)
	const n = 8000 // each of the 500 further turns comes up about 8 times
	two, sprung := 0, 0
	firsts, extras := map[int]int{}, map[int]int{}
	for sprung < n {
		p.rec.Hits, p.rec.Maps[p.mapIdx].Traps, p.rec.Status = 1000, nil, nil
		p.rec.X, p.rec.Y = 1, 0
		e.springTrap(p)
		if p.rec.Maps[p.mapIdx].Traps == nil {
			continue // avoided
		}
		sprung++
		var weak []int
		for _, st := range p.rec.Status {
			if st.Kind == StatusWeak {
				weak = append(weak, st.Left)
			}
		}
		switch len(weak) {
		case 1:
		case 2:
			two++
			extras[weak[1]-weak[0]]++
		default:
			t.Fatalf("a poison needle took %d points of Strength", len(weak))
		}
		firsts[weak[0]]++
		if e.str(p) != 12-len(weak) {
			t.Fatalf("Strength %d with %d points lost", e.str(p), len(weak))
		}
	}
	within(t, "needles taking two points", float64(two)/n, 0.5, n)
	for _, c := range []struct {
		what string
		seen map[int]int
	}{{"the first point's turns", firsts}, {"the second point's further turns", extras}} {
		for v := range c.seen {
			if v < 500 || v > 999 {
				t.Fatalf("%s: %d, seed 001 says 500 to 999", c.what, v)
			}
		}
		if c.seen[500] == 0 || c.seen[999] == 0 {
			t.Fatalf("%s: 500 or 999 never came up", c.what)
		}
	}
}

// A trap or a fall that takes a knight's last hits kills it: a knight of 2 hits on a
// flying spear dies whenever the spear does 2 or more, and a pit's fall of exactly its
// hits kills it.
func TestATrapThatTakesTheLastHitsKills(t *testing.T) {
	deaths := 0
	for seed := uint64(0); deaths < 10; seed++ {
		if seed > 2000 {
			t.Fatal("no knight died of a spear of exactly its hits in 2000 tries")
		}
		e, p, _ := trapEngine(t, TrapFlyingSpear, 500+seed)
		p.rec.Hits = 2
		said := p.said
		do(e, "a", Move{Dir: East})
		if !slices.Contains(saidSince(p, said), "A spear shoots out from a hole in the wall!") {
			continue
		}
		switch _, alive := e.players["a"]; {
		case p.rec.Hits <= 0 && alive:
			t.Fatalf("a knight at %d hits lives on", p.rec.Hits)
		case p.rec.Hits == 0:
			deaths++
		}
	}
	falls := 0
	for seed := uint64(0); falls < 10; seed++ {
		if seed > 2000 {
			t.Fatal("no fall of exactly the knight's hits in 2000 tries")
		}
		e := fixtureEngine(t, nil)
		e.rng = rand.New(rand.NewPCG(seed, 77))
		e.levels[0].SetFeature(Pos{1, 0}, FeatPit)
		rec := knight("a", 10)
		rec.Hits = 3
		e.join(rec, &recorder{})
		p := e.players["a"]
		do(e, "a", Move{Dir: East})
		if _, alive := e.players["a"]; p.rec.Hits <= 0 && alive {
			t.Fatalf("a knight at %d hits after a pit lives on", p.rec.Hits)
		} else if p.rec.Hits == 0 {
			falls++
		}
	}
}

// Seed 000, Find Traps: "Tells you what traps are around you, if any"; the ruling: three
// squares each way. Traps at three squares are told with their way, one at four is not.
func TestFindTrapsReachesThreeSquares(t *testing.T) {
	e, l, sub := espEngine(t, 4)
	l.SetTrap(Pos{3, 0}, TrapBear)
	l.SetTrap(Pos{4, 0}, TrapWeb)
	l.SetTrap(Pos{0, 2}, TrapPendulum)
	l.SetTrap(Pos{0, 3}, TrapPoisonNeedle)
	l.SetTrap(Pos{0, 4}, TrapStun)
	do(e, "a", Cast{Spell: SpellFindTraps})
	if got, want := sub.lastMessage(), "You sense a bear trap 3 squares east; a pendulum 2 squares south; a poison needle 3 squares south."; got != want {
		t.Fatalf("Find Traps: %q, want %q", got, want)
	}
	e.place(e.players["a"], 1, Pos{5, 0})
	do(e, "a", Cast{Spell: SpellFindTraps})
	if got, want := sub.lastMessage(), "You sense a bear trap 2 squares west; a spider web 1 squares west."; got != want {
		t.Fatalf("Find Traps from 5,0: %q, want %q", got, want)
	}
}

// direction says where a square lies: the way and the distance, "here" for the same.
func TestDirection(t *testing.T) {
	at := Pos{5, 5}
	for q, want := range map[Pos]string{
		{5, 5}: "here", {5, 3}: "2 squares north", {5, 8}: "3 squares south", {4, 5}: "1 squares west",
		{7, 5}: "2 squares east", {7, 4}: "2 squares north-east", {3, 7}: "2 squares south-west",
		{6, 8}: "3 squares south-east", {2, 4}: "3 squares north-west", {5, 4}: "1 squares north",
	} {
		if got := direction(at, q); got != want {
			t.Errorf("direction(%v, %v) = %q, want %q", at, q, got, want)
		}
	}
}

// Names of traps and conditions, and a condition's count: stuck and strangled count tries,
// the rest turns; a kind outside the tables says so.
func TestTrapAndStatusNames(t *testing.T) {
	if TrapTeleport.String() != "teleportation trap" || NumTrapKinds.String() != "trap?" {
		t.Fatalf("trap names %q, %q", TrapTeleport.String(), NumTrapKinds.String())
	}
	for _, c := range []struct {
		st   Status
		want string
	}{
		{Status{StatusStuck, 5}, "stuck (5 tries)"}, {Status{StatusStrangle, 2}, "strangled (2 tries)"},
		{Status{StatusConfused, 12}, "confused (12 turns)"}, {Status{StatusWeak, 600}, "weak (600 turns)"},
		{Status{StatusKind(len(statusNames)), 1}, "status? (1 turns)"},
	} {
		if got := c.st.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}

// Seed 001's nine traps all turn up in generated dungeons, and nothing else.
func TestGeneratedTrapsAreOfTheNineKinds(t *testing.T) {
	kinds := map[TrapKind]int{}
	for seed := range uint64(60) {
		for _, l := range GenerateDungeon(seed, DefaultDepth) {
			for p := range squares(l) {
				if k := l.Trap(p); k != TrapNone {
					kinds[k]++
				}
			}
		}
	}
	for k := TrapWeb; k < NumTrapKinds; k++ {
		if kinds[k] == 0 {
			t.Errorf("no %v in 600 levels", k)
		}
	}
	if len(kinds) != int(NumTrapKinds)-1 {
		t.Fatalf("trap kinds generated: %v", kinds)
	}
}

// A corridor from the stairs down to the stairs up through one square: closing that
// square cuts the way, closing another does not; chutes and pits are never placed on
// the stairs' own squares or beside them (at most one step away).
func TestTheWayBetweenTheStairs(t *testing.T) {
	l, err := ParseASCII(1, `
+-+-+-+-+
|E     >|
+-+ +-+-+
|#|   |#|
+-+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	if !l.stairsConnectedWithout(Pos{-1, -1}) || !l.stairsConnectedWithout(Pos{1, 1}) || l.stairsConnectedWithout(Pos{2, 0}) {
		t.Fatal("closing 2,0 should cut the stairs apart and closing 1,1 should not")
	}
	l.SetFeature(Pos{1, 0}, FeatChute)
	if l.stairsConnectedWithout(Pos{-1, -1}) {
		t.Fatal("a chute on the only way between the stairs does not cut it")
	}
	for q, want := range map[Pos]bool{{0, 0}: true, {1, 0}: true, {2, 0}: true, {2, 1}: false, {3, 0}: true, {3, 1}: true, {1, 1}: false} {
		if got := l.nextToStairs(q); got != want {
			t.Errorf("nextToStairs(%v) = %v, want %v", q, got, want)
		}
	}
	// Rows count as columns do: stairs on the second row.
	low, err := ParseASCII(1, `
+-+-+-+-+
|       |
+ +-+-+ +
|E     >|
+-+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[Pos]bool{{0, 1}: true, {1, 1}: true, {0, 0}: true, {1, 0}: false, {2, 1}: true, {2, 0}: false, {3, 0}: true} {
		if got := low.nextToStairs(q); got != want {
			t.Errorf("stairs on the second row: nextToStairs(%v) = %v, want %v", q, got, want)
		}
	}
}

// Seed 000: Invisibility makes the knight "safe from attack"; only Levitation floats
// over "traps in the dungeon, such as pits and chutes". Invisibility keeps monsters off
// and nothing else: a chute, a pit and a trap act on an invisible knight walking onto
// them as on any other, whether the ring or the spell makes it invisible, and an
// invisible knight that also levitates still floats.
func TestInvisibilityIsNoPassOverTraps(t *testing.T) {
	for _, how := range []string{"ring", "spell"} {
		invisible := func(e *Engine, p *player) {
			if how == "ring" {
				p.rec.Items = append(p.rec.Items, Item{Kind: ItemRingOfInvisibility, Worn: true})
			} else {
				p.addEffect(SpellInvisibility)
			}
			if !e.invisible(p) {
				t.Fatalf("%s: the knight is not invisible", how)
			}
		}
		for _, f := range []Feature{FeatChute, FeatPit} {
			e := fixtureEngine(t, nil)
			e.levels[0].SetFeature(Pos{1, 0}, f)
			rec := knight("a", 10)
			rec.Hits, rec.MaxHits = 100, 100
			e.join(rec, &recorder{})
			p := e.players["a"]
			invisible(e, p)
			do(e, "a", Move{Dir: East})
			if p.rec.Depth != 2 {
				t.Fatalf("%s: an invisible knight walked onto a %v and stayed on level %d: %q", how, f, p.rec.Depth, lastMsg(p))
			}
			// Levitation still floats over it, invisible or not.
			e.place(p, 1, Pos{0, 0})
			p.rec.Items = append(p.rec.Items, Item{Kind: ItemBootsOfLevitation, Worn: true})
			do(e, "a", Move{Dir: East})
			if p.rec.Depth != 1 || !strings.Contains(lastMsg(p), "float over") {
				t.Fatalf("%s: an invisible, levitating knight on a %v: level %d, %q", how, f, p.rec.Depth, lastMsg(p))
			}
		}
		// A trap goes off on an invisible knight as on any other (it avoids 47.5% of them):
		// 40 steps onto a poison needle, and every one it did not avoid stabbed it.
		e, p, _ := trapEngine(t, TrapPoisonNeedle, 11)
		stabbed := 0
		for range 40 {
			p.rec.Items, p.rec.Effects = nil, nil
			invisible(e, p) // afresh each time: a spell lasts 36 moves
			before := p.rec.Hits
			do(e, "a", Move{Dir: East})
			if p.rec.Hits < before {
				stabbed++
			}
			do(e, "a", Move{Dir: West})
			p.rec.Status = nil
		}
		if stabbed < 10 {
			t.Fatalf("%s: an invisible knight stepped onto a poison needle 40 times and was stabbed %d times", how, stabbed)
		}
	}
}

// Seed 001, stun: "Blind for 5 to 14 turns if not already confused" (issue 31: made as
// the seed says, not "if not already blind"). A confused knight stepping onto a stun trap
// again and again is confused or knocked out but never blinded; a blind knight that is not
// confused is blinded again, one blindness lasting the longer of the two.
func TestAStunTrapBlindsOnlyAKnightThatIsNotConfused(t *testing.T) {
	e, p, _ := trapEngine(t, TrapStun, 4)
	blinded := 0
	for range 300 {
		p.rec.Status = []Status{{Kind: StatusConfused, Left: 1000}}
		said := p.said
		e.springTrapAt(p, Pos{1, 0})
		if strings.Contains(strings.Join(saidSince(p, said), "\n"), "You can't see anything!") {
			blinded++
		}
	}
	if blinded != 0 {
		t.Fatalf("a confused knight was blinded %d times in 300 stuns", blinded)
	}
	again := 0
	for range 300 {
		p.rec.Status = []Status{{Kind: StatusBlind, Left: 7}}
		p.rec.X, p.rec.Y = 1, 0
		said := p.said
		e.springTrap(p)
		if strings.Contains(strings.Join(saidSince(p, said), "\n"), "You can't see anything!") {
			again++
			if n := len(p.rec.Status); n != 1 || p.rec.Status[0].Left < 7 || p.rec.Status[0].Left > 14 {
				t.Fatalf("blinded again: %+v, want one blindness of 7 to 14 rounds", p.rec.Status)
			}
		}
		p.rec.X, p.rec.Y = 0, 0
	}
	// Sprung about 52.5% of the time, blinding a third of those: about 52 of 300.
	if again < 25 {
		t.Fatalf("a blind knight that is not confused was blinded again %d times in 300 stuns", again)
	}
}
