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

// stepTurns walks knight fp east and west n times on the fight level's corridor and
// returns the turns between one step and the next (n-1 of them).
func stepTurns(t *testing.T, e *Engine, fp string, n int) []int {
	t.Helper()
	p := e.players[fp]
	var gaps []int
	last, lastTurn := p.rec.Pos(), uint64(0)
	for steps := 0; steps < n; {
		if len(p.queue) == 0 {
			d := East
			if p.rec.X == 1 {
				d = West
			}
			e.enqueue(fp, p.session, Move{Dir: d})
		}
		e.Step()
		if p.rec.Pos() != last {
			if steps > 0 {
				gaps = append(gaps, int(e.turn-lastTurn))
			}
			last, lastTurn = p.rec.Pos(), e.turn
			steps++
		}
		if e.turn > 10000 {
			t.Fatal("the knight stopped walking")
		}
	}
	return gaps
}

// everyGap fails unless each gap between steps is want turns.
func everyGap(t *testing.T, what string, gaps []int, want ...int) {
	t.Helper()
	for i, g := range gaps {
		if g != want[i%len(want)] {
			t.Fatalf("%s: steps %v turns apart, want %v", what, gaps, want)
		}
	}
}

// Seed 003: "Moving one square takes a cost depending on speed. If the player's ... speed
// is zero, it takes 100% of a round to move. If the speed is +10, it takes 50%." Seed 000:
// Speed "takes less time to move". A knight walks a square a round (10 turns), five turns
// a square with Speed cast or boots of speed worn.
func TestSpeedHalvesTheTimeOfAStep(t *testing.T) {
	e := fightEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	everyGap(t, "speed 0", stepTurns(t, e, "a", 6), 10)
	e.players["a"].rec.SpellUnits = 2
	do(e, "a", Cast{Spell: SpellSpeed})
	everyGap(t, "with Speed", stepTurns(t, e, "a", 6), 5)

	e = fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Items = append(rec.Items, Item{Kind: ItemBootsOfSpeed, Worn: true})
	e.join(rec, &recorder{})
	everyGap(t, "boots of speed worn", stepTurns(t, e, "a", 6), 5)
}

// Seed 003: "Sometimes, you will be able to act faster or slower due to magic, weight
// carried ..."; DESIGN §3: weight carried lowers speed. With Strength 10 a knight carries
// 100 before the load is full (CarryCapacity); at half of it nothing changes, and every
// further 10% is a point of speed (LoadSpeed): at 100 (speed −5) a square costs 150%, 15
// turns; with boots of speed on as well (105 carried, speed +5) 75%, 7.5 turns.
func TestALoadSlowsTheKnightsSteps(t *testing.T) {
	walk := func(items ...Item) []int {
		e := fightEngine(t, nil)
		rec := knight("a", 10)
		rec.Items = append(rec.Items, items...)
		e.join(rec, &recorder{})
		return stepTurns(t, e, "a", 7)
	}
	armour := Item{Kind: ItemArmour} // weight 30
	shield := Item{Kind: ItemShield} // weight 15
	// sword 10 + armour 30 + shield 15 = 55: half of 100 and a little, still speed 0.
	everyGap(t, "55 carried", walk(armour, shield), 10)
	// sword 10 + 3 armour = 100: a full load.
	everyGap(t, "100 carried", walk(armour, armour, armour), 15)
	// and boots of speed (5) on top: 105 carried, speed −5 + 10.
	everyGap(t, "105 carried, boots of speed worn", walk(armour, armour, armour, Item{Kind: ItemBootsOfSpeed, Worn: true}), 8, 7)
	// Strength carries it: the same 100 for a knight of Strength 20 is half a load.
	e := fightEngine(t, nil)
	rec := knight("a", 20)
	rec.Items = append(rec.Items, armour, armour, armour)
	e.join(rec, &recorder{})
	everyGap(t, "100 carried with Strength 20", stepTurns(t, e, "a", 7), 10)
}
