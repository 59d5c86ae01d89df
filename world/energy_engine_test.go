package world

import (
	"testing"
)

// The costs of seed 003 ("Costs of various actions") as the engine charges them: each
// test plays the action through Engine commands and Step and measures the turns it
// takes, so it fails when the engine stops charging the cost, not only when the cost
// function is wrong.

// Seed 003: "Unlike players, monsters can make multiple attacks at the same time, if
// multiple attacks are defined in r_info.txt." A Troll (3 attacks a round) makes its three
// attacks in one turn, and the next three a round of the battle's clock later.
func TestAMonstersAttacksComeTogetherOnceARound(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Dex, rec.Hits, rec.MaxHits = 3, 100000, 100000 // the Troll (Dex 12) strikes first
	e.join(rec, &recorder{})
	p := e.players["a"]
	troll := fightWith(t, e, p, "troll")
	if troll.Kind().AttacksPerRound != 3 {
		t.Fatalf("the Troll has %d attacks a round; this test wants 3", troll.Kind().AttacksPerRound)
	}
	enc := p.fight
	var volleys []int // the battle's clock when the troll attacked
	last := 0
	for len(volleys) < 6 {
		if len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{}) // the knight is never what the battle waits for
		}
		e.Step()
		if troll.acted != last {
			if n := troll.acted - last; n != 3 {
				t.Fatalf("the Troll made %d attacks in one turn, want all 3 together", n)
			}
			volleys = append(volleys, enc.ticks)
			last = troll.acted
		}
	}
	for i := 1; i < len(volleys); i++ {
		if d := volleys[i] - volleys[i-1]; d != TurnsPerRound {
			t.Fatalf("the Troll's volleys came at turns %v of the battle: %d apart, want a round (%d)", volleys, d, TurnsPerRound)
		}
	}
}
