package world

import "testing"

// Issue 31: each seed and ruling number is held by a test that names the number itself,
// so a changed constant fails a test (the rule's own tests, through the engine, measure
// against the constants). Drop 50%, the belt pouch 10% and a potion 100% are held where
// they are measured (TestDropping, TestTheBeltPouchHoldsTwoQuickPotions), the restock's
// third in TestALevelRestocksWhenFewerThanAThirdOfItsGuardsLive, the screen-reader
// player's 3 in TestASilentHeroIsSkippedAfterTheGrace, and the server's seconds (10 s,
// 30 s) in server's TestTheRulingsTimes.

// Seed 003: "Throwing an item always costs 100%": an arrow of slaying, shot in a fight,
// costs a whole round, through the engine.
func TestShootingCostsAWholeRound(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemQuiver, Count: 3})
	ogre := fightWith(t, e, p, "ogre") // not mythical: the arrow does nothing, the fight goes on
	ogre.hits, ogre.held = 1000, true
	p.energy = 0
	if got := costOf(t, e, "a", Shoot{}); got != 100 || p.rec.Items[1].Count != 2 {
		t.Fatalf("shooting cost %v%% of a round (arrows left %d), want 100%%", got, p.rec.Items[1].Count)
	}
}

// DESIGN §12 "Fair play": a safe arrival lasts 400 turns (10 s at the default 25 ms
// tick) and a battle's grace 1200 turns (30 s), three times as long (3600) for a
// screen-reader player; an engine made without them takes these.
func TestTheFairPlayTurns(t *testing.T) {
	if DefaultSafeTurns != 400 || DefaultGraceTurns != 1200 || PlainGraceFactor != 3 {
		t.Fatalf("safe arrival %d turns, grace %d turns, screen-reader factor %d; want 400, 1200, 3",
			DefaultSafeTurns, DefaultGraceTurns, PlainGraceFactor)
	}
	e := New(Config{Seed: 1, WanderChance: -1})
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	if e.cfg.SafeTurns != 400 || e.graceOf(p) != 1200 {
		t.Fatalf("a new engine: safe arrival %d turns, grace %d; want 400 and 1200", e.cfg.SafeTurns, e.graceOf(p))
	}
	p.rec.Options.Plain = true
	if e.graceOf(p) != 3600 {
		t.Fatalf("a screen-reader player's grace is %d turns, want 3600", e.graceOf(p))
	}
	// The safe arrival ends on the 400th turn, not before.
	for range 399 {
		e.Step()
	}
	if !e.safe(p) {
		t.Fatalf("the safe arrival ended by turn %d", e.turn)
	}
	e.Step()
	if e.safe(p) {
		t.Fatalf("still safe on turn %d", e.turn)
	}
}
