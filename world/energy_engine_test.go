package world

import (
	"strings"
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

// Seed 003: "To quaff a potion ... takes one full round. The exception is that if the
// potion ... is equipped into a belt pouch, the action takes only 10% of a round." The
// belt pouch holds a knight's first two potions (PouchSlots): drinking the third of three
// costs a round, drinking the first a tenth of one, and once it is gone the next potion
// is in the pouch.
func TestTheBeltPouchHoldsTwoQuickPotions(t *testing.T) {
	potion := Item{Kind: ItemPotionHealing}
	e, p, _ := inventoryEngine(t, potion, potion, potion)
	p.rec.Hits, p.rec.MaxHits = 1, 1000
	if got := costOf(t, e, "a", UseItem{Index: 3}); got != 100 || len(p.rec.Items) != 3 {
		t.Fatalf("the third potion, outside the pouch, cost %v%% (%d items left), want 100%%", got, len(p.rec.Items))
	}
	for n := 2; n > 0; n-- {
		if got := costOf(t, e, "a", UseItem{Index: 1}); got != 10 || len(p.rec.Items) != n {
			t.Fatalf("a potion from the pouch cost %v%% (%d items left), want 10%%", got, len(p.rec.Items))
		}
	}
	// In a battle the quick potion is a tenth of the hero's round: the knight drinks and
	// is ready again the next turn.
	e, p, _ = inventoryEngine(t, Item{Kind: ItemPotionSpellUnits}, potion)
	p.rec.Hits, p.rec.MaxHits, p.rec.SpellUnits = 1, 1000, 0
	ogre := fightWith(t, e, p, "ogre")
	ogre.hits, ogre.held = 1000, true
	p.energy = 0
	if got := costOf(t, e, "a", UseItem{Index: 2}); got != 10 {
		t.Fatalf("in a battle a potion from the pouch cost %v%%, want 10%%", got)
	}
}

// blowsIn counts the blows knight "a" (Dexterity dex, experience level level) strikes in
// turns turns of a fight with a held Ogre that cannot die, always ready with Fight.
func blowsIn(t *testing.T, dex, level, turns int) int {
	t.Helper()
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Dex, rec.Level, rec.Hits, rec.MaxHits = dex, level, 1000, 1000
	e.join(rec, &recorder{})
	p := e.players["a"]
	ogre := fightWith(t, e, p, "ogre")
	ogre.hits, ogre.held = 1<<20, true
	p.energy = 0
	enc := p.fight
	n := len(enc.log)
	blows := 0
	for range turns {
		if len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		e.Step()
		for _, l := range enc.log[n:] {
			if strings.HasPrefix(l, p.rec.Name+" ") {
				blows++
			}
		}
		n = len(enc.log)
	}
	return blows
}

// Seed 003: "Hitting a creature in combat takes 100% divided by the number of blows per
// round". Blows come from Dexterity and level (Blows: one more for every 4 points of
// Dexterity above 10 and every 3 levels above the first), so in three rounds a Dex 10
// first-level knight strikes 3 times, a Dex 18 one 9 times (3 a round), and a Dex 10
// knight of level 4 6 times (2 a round).
func TestABlowCostsARoundOverTheBlows(t *testing.T) {
	for _, c := range []struct{ dex, level, want int }{{10, 1, 3}, {18, 1, 9}, {10, 4, 6}, {14, 4, 9}} {
		if got := blowsIn(t, c.dex, c.level, 3*TurnsPerRound); got != c.want {
			t.Errorf("Dex %d, level %d: %d blows in three rounds, want %d (Blows %d)", c.dex, c.level, got, c.want, Blows(c.dex, c.level))
		}
	}
}

// Seed 003: "If the player's skill is at the minimum, the cost is 100%. It decreases to
// 50% if the player has 6% more skill, 33% at 9% additional skill, and 25% at 12%
// additional skill." The skill is Intelligence and a spell's minimum 3 + 3 × its level
// (MinSkill): Depth (level 1, minimum 6) costs a round at Int 6, half at Int 12, a
// quarter at Int 18 (three turns, the last with 5% to spare); Invisibility (level 4,
// minimum 15) a round at Int 15, 600/9 = 67% (seven turns) at Int 18.
func TestCastingCostsBySkill(t *testing.T) {
	for _, c := range []struct {
		spell SpellID
		intel int
		want  float64
	}{{SpellDepth, 6, 100}, {SpellDepth, 3, 100}, {SpellDepth, 12, 50}, {SpellDepth, 18, 30}, {SpellInvisibility, 15, 100}, {SpellInvisibility, 18, 70}} {
		e, p, _ := caster(t, 10)
		p.rec.Int = c.intel
		if got := costOf(t, e, "a", Cast{Spell: c.spell}); got != c.want {
			t.Errorf("%v at Int %d took %v%% of a round (whole turns), want %v%% (CastEnergy %.1f%%)", c.spell, c.intel, got, c.want, CastEnergy(c.spell, c.intel))
		}
	}
}

// Seed 003: "Each monster has a movement speed", on the same scale as the player's: a
// Giant Rat (speed +10) steps every 5 turns, a Bandit (0) every 10, a Rot Grub (−10)
// every 20, walking the corridor.
func TestWanderersWalkAtTheirSpeed(t *testing.T) {
	for _, c := range []struct {
		name string
		want int
	}{{"giant rat", 5}, {"bandit", 10}, {"rot grub", 20}} {
		e, _ := corridorEngine(t)
		m := e.spawn(1, mustMonster(t, c.name), Pos{4, 0}, -1, e.rng)
		last, lastTurn := m.pos, uint64(0)
		var gaps []int
		for len(gaps) < 8 {
			e.Step()
			if m.pos != last {
				if lastTurn > 0 {
					gaps = append(gaps, int(e.turn-lastTurn))
				}
				last, lastTurn = m.pos, e.turn
			}
			if e.turn > 1000 {
				t.Fatalf("the %s stopped walking", c.name)
			}
		}
		everyGap(t, "a "+c.name+" walking", gaps, c.want)
	}
}
