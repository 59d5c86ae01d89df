package world

import (
	"slices"
	"testing"
)

// Seed 001, stun trap, on a monster: "Monster loses 1 hit point and has a 50 percent
// chance to become stuck or 50 percent chance to become confused", and "You hear a
// zapping sound." is "Always printed even for monsters not visible to the player".
// A wanderer steps from the middle of the corridor onto one of the two stun traps beside
// it, 4000 times: every time it loses a hit and is stuck or confused (10 to 19 rounds,
// the ruling), never both, half the time each.
func TestAStunnedMonsterIsStuckOrConfused(t *testing.T) {
	e, p := corridorEngine(t)
	e.levels[0].SetTrap(Pos{3, 0}, TrapStun)
	e.levels[0].SetTrap(Pos{5, 0}, TrapStun)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{4, 0}, -1, e.rng)
	const n = 4000
	stuck, zaps := 0, 0
	turns := map[int]bool{}
	for range n {
		rat.pos, rat.energy, rat.stuck, rat.confused, rat.hits = Pos{4, 0}, 0, false, 0, 100
		said := p.said
		e.Step()
		if rat.pos == (Pos{4, 0}) || rat.hits != 99 {
			t.Fatalf("the rat did not step onto a stun trap: at %v with %d hits", rat.pos, rat.hits)
		}
		if p.said > said && lastMsg(p) == "You hear a zapping sound." {
			zaps++
		}
		switch {
		case rat.stuck && rat.confused == 0:
			stuck++
		case !rat.stuck && rat.confused > 0:
			turns[rat.confused] = true
		default:
			t.Fatalf("a stunned rat is stuck %v and confused for %d rounds: seed 001 says one or the other", rat.stuck, rat.confused)
		}
	}
	within(t, "stuck after a stun", float64(stuck)/n, 0.5, n)
	for r := range turns {
		if r < 10 || r > 19 {
			t.Fatalf("confused for %d rounds, the ruling says 10 to 19", r)
		}
	}
	if len(turns) != 10 {
		t.Fatalf("confusion lasted %d different numbers of rounds, want each of 10..19", len(turns))
	}
	if zaps != n {
		t.Fatalf("the zapping sound was heard %d times in %d stuns", zaps, n)
	}
}

// A confused monster staggers (the ruling beside seed 001's stun): half of its steps go a
// random one of the four ways, and a way with no corridor is a step lost. In the middle
// of the corridor, two ways of four are open, so a confused wanderer stays where it is a
// quarter of the times it moves (1/2 × 2/4), and an unconfused one never; the confusion
// wears off after its rounds.
func TestAConfusedMonsterStaggers(t *testing.T) {
	e, _ := corridorEngine(t)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{4, 0}, -1, e.rng)
	stays := func(confused bool) float64 {
		const n = 8000
		stayed := 0
		for range n {
			rat.pos, rat.energy, rat.confused = Pos{4, 0}, 0, 0
			if confused {
				rat.confused = 100
			}
			e.Step()
			if rat.pos == (Pos{4, 0}) {
				stayed++
			}
		}
		return float64(stayed) / n
	}
	if got := stays(false); got != 0 {
		t.Fatalf("an unconfused wanderer stayed put %.4f of its steps with two ways open", got)
	}
	within(t, "a confused wanderer's lost steps", stays(true), 0.25, 8000)
	rat.confused = 3
	for range 3 * TurnsPerRound {
		e.Step()
	}
	if rat.confused != 0 {
		t.Fatalf("confusion of 3 rounds has %d rounds left after 3 rounds", rat.confused)
	}
}

// A trap that takes a monster's last hit kills it: a wanderer of 1 hit stepping onto a
// stun trap (it "loses 1 hit point") dies, and those who see it are told.
func TestAStunTrapKillsAMonsterOfOneHit(t *testing.T) {
	e, p := corridorEngine(t)
	e.levels[0].SetTrap(Pos{3, 0}, TrapStun)
	e.levels[0].SetTrap(Pos{5, 0}, TrapStun)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{4, 0}, -1, e.rng)
	rat.hits = 1
	e.Step()
	if e.alive(rat) {
		t.Fatalf("a rat of 1 hit lives on after a stun trap, with %d", rat.hits)
	}
	if !slices.Contains(p.msgs(), "The Giant Rat dies.") {
		t.Fatalf("the knight who sees the corridor was not told: %q", p.msgs())
	}
}

// Seed 001, strangle weed: the knight "loses 1 hit point each turn"; with one hit left
// the weed kills it at the end of the round.
func TestStrangleWeedKillsAtTheLastHit(t *testing.T) {
	e, p := corridorEngine(t)
	p.rec.Hits = 1
	p.addStatus(StatusStrangle, 9)
	for range TurnsPerRound {
		e.Step()
	}
	if _, alive := e.players["a"]; alive || p.rec.Death == nil || p.rec.Death.Killer != "strangle weed" {
		t.Fatalf("a knight of 1 hit in strangle weed after a round: alive %v, death %+v", alive, p.rec.Death)
	}
}
