package world

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The chances the rules roll for are exact: a chance of k in n wins on the draws 0..k-1 of
// n and loses on the rest. A rate measured over many rolls cannot tell k in n from k+1 in
// n when n is 1500; drawing the boundary itself can. fixedDraw makes a generator whose
// every IntN(n) is v (a source that always gives the same 64 bits: IntN(n) takes the high
// word of those bits times n).

// fixedSource is a rand.Source that always returns the same value.
type fixedSource uint64

func (s fixedSource) Uint64() uint64 { return uint64(s) }

// drawBits is the 64 bits that make IntN(n) draw v (0 ≤ v < n): the middle of v's share
// of them, so IntN never has to draw again, and every other draw is the same fraction of
// its range.
func drawBits(t *testing.T, v, n int) uint64 {
	t.Helper()
	// x = (2v+1)/(2n) of 2^64.
	x, _ := bits.Div64(uint64(2*v+1)>>1, uint64(2*v+1)<<63, uint64(n))
	if got := rand.New(fixedSource(x)).IntN(n); got != v {
		t.Fatalf("drawBits(%d, %d) draws %d", v, n, got)
	}
	return x
}

// fixedDraw is a generator whose IntN(n) is always v.
func fixedDraw(t *testing.T, v, n int) *rand.Rand {
	t.Helper()
	return rand.New(fixedSource(drawBits(t, v, n)))
}

// sequence is a rand.Source that gives its values in turn, again and again.
type sequence struct {
	bits []uint64
	next int
}

func (s *sequence) Uint64() uint64 {
	x := s.bits[s.next%len(s.bits)]
	s.next++
	return x
}

// drawsOf is a generator whose draws are, in turn, draws[i][0] of draws[i][1].
func drawsOf(t *testing.T, draws ...[2]int) *rand.Rand {
	t.Helper()
	s := &sequence{}
	for _, d := range draws {
		s.bits = append(s.bits, drawBits(t, d[0], d[1]))
	}
	return rand.New(s)
}

// SpellFails: Charm at Int 18 fails 30%, 450 of the 1500 draws: draw 449 fails, 450 does
// not. Seed 000's ranges are exact at the ends.
func TestSpellFailsOnExactlyItsShareOfDraws(t *testing.T) {
	n := failNumerator(SpellCharm.Info(), 18)
	if n != 450 {
		t.Fatalf("Charm at Int 18: %d of %d, want 450", n, failDenominator)
	}
	if !SpellFails(fixedDraw(t, n-1, failDenominator), SpellCharm, 18) || SpellFails(fixedDraw(t, n, failDenominator), SpellCharm, 18) {
		t.Fatal("Charm at Int 18 does not fail on exactly draws 0..449 of 1500")
	}
}

// RunSucceeds: 75 of 100 at the first try: draw 74 gets away, 75 does not.
func TestRunSucceedsOnExactlyItsShareOfDraws(t *testing.T) {
	if !RunSucceeds(fixedDraw(t, 74, 100), 0) || RunSucceeds(fixedDraw(t, 75, 100), 0) {
		t.Fatal("the first run does not get away on exactly draws 0..74 of 100")
	}
}

// A locked door through the engine: Str 10 breaks it on draws 0..9 of 20 and not on 10.
func TestALockedDoorBreaksOnExactlyStrengthDraws(t *testing.T) {
	for _, c := range []struct {
		draw  int
		opens bool
	}{{9, true}, {10, false}} {
		e := fixtureEngine(t, nil)
		e.state[0].monsters = nil
		e.join(knight("a", 10), &recorder{})
		p := e.players["a"]
		e.place(p, 1, Pos{2, 1})
		e.rng = fixedDraw(t, c.draw, 20)
		do(e, "a", Move{Dir: West, Door: true})
		if got := p.rec.Pos() == (Pos{1, 1}); got != c.opens {
			t.Fatalf("Str 10, draw %d of 20: the door opened %v, want %v", c.draw, got, c.opens)
		}
	}
}

// A dodge through the engine: a Dex 18 monster dodges 16 of 100: a blow that hits is
// dodged on draw 15, not on 16.
func TestADodgeOnExactlyItsShareOfDraws(t *testing.T) {
	for _, c := range []struct {
		draw    int
		dodged  bool
		outcome string
	}{{15, true, "dodges"}, {16, false, "hits"}} {
		e, p, m := duelOf(t, "balrog", func(r *Adventurer) { r.Dex, r.Level = 60, 1 })
		m.held = true
		p.energy = 0
		e.rng = fixedDraw(t, c.draw, 100) // the to-hit die (60 sides) rolls well over 6 too
		do(e, "a", Fight{})
		if got := m.hits < 1<<30; got == c.dodged {
			t.Fatalf("draw %d of 100 at a Dex 18 Balrog: hurt %v, want it to %s\n%s", c.draw, got, c.outcome, log(p.fight))
		}
	}
}

// Seed 001: "A player avoids traps 47.5 percent of the time": draw 474 of 1000 avoids a
// trap, 475 springs it. And the pendulum's table: a first-level knight is hurt on draws
// 0..449 of 1000 (45.0%), a second-level one on 0..424 (42.5%).
func TestTrapsAvoidedAndPendulumsHurtOnExactlyTheirDraws(t *testing.T) {
	if AvoidChance*1000 != avoidPerMille {
		t.Fatalf("AvoidChance %v is not %d thousandths", AvoidChance, avoidPerMille)
	}
	for _, c := range []struct {
		level, avoid, swing int
		sprung, hurt        bool
	}{
		{1, 474, 0, false, false}, {1, 475, 449, true, true}, {1, 475, 450, true, false},
		{2, 475, 424, true, true}, {2, 475, 425, true, false},
	} {
		e, p, _ := trapEngine(t, TrapPendulum, 1)
		p.rec.Level = c.level
		e.rng = drawsOf(t, [2]int{c.avoid, 1000}, [2]int{c.swing, 1000}, [2]int{0, 5})
		do(e, "a", Move{Dir: East})
		sprung := p.rec.Maps[p.mapIdx].Traps != nil
		if sprung != c.sprung || (p.rec.Hits < 1000) != c.hurt {
			t.Fatalf("level %d, draws %d and %d of 1000: sprung %v, hurt %v (hits %d); want %v and %v",
				c.level, c.avoid, c.swing, sprung, p.rec.Hits < 1000, p.rec.Hits, c.sprung, c.hurt)
		}
	}
}
