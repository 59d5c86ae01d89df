package world

import (
	"math/rand/v2"
	"testing"
	"time"
)

// killInFight has knight fp strike at its fight's monsters until the fight is over.
func killInFight(t *testing.T, e *Engine, fp string) {
	t.Helper()
	p := e.players[fp]
	stepUntil(t, e, fp+"'s fight to end", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue(fp, p.session, Fight{})
		}
		return p.fight == nil
	})
}

// The engine counts a knight's tallies where they happen, for all time and for the week
// it was told: a level reached by the stairs, a monster its blow killed, the coins and
// valuables of a guard's hoard.
func TestTalliesAreCountedWhereTheyHappen(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.Week = "2026-W49"
	rec := knight("a", 18)
	rec.Dex, rec.Hits, rec.MaxHits = 18, 1<<20, 1<<20
	rec.X, rec.Y = 3, 1 // on the stairs down
	e.join(rec, &recorder{})
	a := e.players["a"]
	if a.rec.Deepest != 1 || a.rec.Week != (WeekTally{Name: "2026-W49", Deepest: 1, Deeds: 1}) { // the deed of level 1
		t.Fatalf("joined on level 1: deepest %d, week %+v", a.rec.Deepest, a.rec.Week)
	}
	do(e, "a", Climb{Down: true})
	if a.rec.Depth != 2 || a.rec.Deepest != 2 || a.rec.Week.Deepest != 2 {
		t.Fatalf("down the stairs: depth %d, deepest %d, week %+v", a.rec.Depth, a.rec.Deepest, a.rec.Week)
	}
	do(e, "a", Move{Dir: West}) // off the stairs up
	do(e, "a", Climb{})
	if a.rec.Depth != 1 || a.rec.Deepest != 2 || a.rec.Week.Deepest != 2 {
		t.Fatalf("back up: depth %d, deepest %d, week %+v", a.rec.Depth, a.rec.Deepest, a.rec.Week)
	}

	// A guard of a room, killed by the knight's blows: one slain, its hoard won.
	e.rng = rand.New(rand.NewPCG(1, 1)) // seed 1: the rat's hoard has coins and a gem
	gold, items := a.rec.Gold, len(a.rec.Items)
	m := e.spawn(1, mustMonster(t, "giant rat"), a.rec.Pos(), 0, e.rng)
	e.startFight(a, m)
	killInFight(t, e, "a")
	won := a.rec.Gold - gold
	valuables := 0
	for _, it := range a.rec.Items[items:] {
		if it.Kind == ItemGem || it.Kind == ItemJewelry {
			won += it.Value
			valuables++
		}
	}
	if valuables == 0 {
		t.Fatal("seed 1: the hoard had no gem or jewelry")
	}
	if a.rec.Slain != 1 || a.rec.Week.Slain != 1 {
		t.Fatalf("slain %d, week %+v", a.rec.Slain, a.rec.Week)
	}
	if won == 0 || a.rec.GoldWon != won || a.rec.Week.GoldWon != won {
		t.Fatalf("gold won %d, week %+v; the hoard was %d", a.rec.GoldWon, a.rec.Week, won)
	}

	// A week turns: the week's tally starts again from the level the knight stands on;
	// all time's stays.
	weekReq{"2026-W50"}.handle(e)
	if a.rec.Week != (WeekTally{Name: "2026-W50", Deepest: 1}) || a.rec.Deepest != 2 || a.rec.Slain != 1 || a.rec.GoldWon != won {
		t.Fatalf("a new week: %+v; deepest %d, slain %d, gold won %d", a.rec.Week, a.rec.Deepest, a.rec.Slain, a.rec.GoldWon)
	}
	m = e.spawn(1, mustMonster(t, "giant rat"), a.rec.Pos(), -1, e.rng) // a wanderer: no hoard
	e.startFight(a, m)
	killInFight(t, e, "a")
	if a.rec.Slain != 2 || a.rec.Week.Slain != 1 || a.rec.Week.GoldWon != 0 {
		t.Fatalf("a wanderer slain in the new week: slain %d, week %+v", a.rec.Slain, a.rec.Week)
	}
	a.rec.NoteDeed()
	if a.rec.Week.Deeds != 1 {
		t.Fatalf("a deed noted: week %+v", a.rec.Week)
	}
}

// A knight's saved tally of another week counts nothing for this one: on the boards
// (Board.Value), and in the engine, which starts it afresh when the knight joins.
func TestALastWeeksTallyIsNotThisWeeks(t *testing.T) {
	rec := knight("a", 10)
	rec.Deepest, rec.Slain, rec.GoldWon = 5, 9, 300
	rec.Deeds = []Deed{{ID: DeedFirstLevel}, {ID: DeedChute}, {ID: DeedUnscathed}}
	rec.Week = WeekTally{Name: "2026-W48", Deepest: 5, Slain: 4, GoldWon: 100, Deeds: 2}
	for _, c := range []struct {
		b          BoardID
		ever, last int
	}{{BoardDeepest, 5, 5}, {BoardSlain, 9, 4}, {BoardGold, 300, 100}, {BoardDeeds, 3, 2}} {
		b := Boards[c.b]
		if b.Value(&rec, "") != c.ever || b.Value(&rec, "2026-W48") != c.last || b.Value(&rec, "2026-W49") != 0 {
			t.Errorf("%s: %d for all time, %d in W48, %d in W49", b.Name, b.Value(&rec, ""), b.Value(&rec, "2026-W48"), b.Value(&rec, "2026-W49"))
		}
	}
	e := fixtureEngine(t, nil)
	e.cfg.Week = "2026-W49"
	e.join(rec, &recorder{})
	if got := e.players["a"].rec; got.Week != (WeekTally{Name: "2026-W49", Deepest: 1, Deeds: 1}) || got.Slain != 9 || got.Deepest != 5 { // the deed of level 1
		t.Fatalf("joined in W49: week %+v, slain %d, deepest %d", got.Week, got.Slain, got.Deepest)
	}
}

// Weeks are ISO weeks in UTC: a Sunday evening east of Greenwich may be Monday's week in
// UTC, and the first days of January may be the last year's week.
func TestWeekOf(t *testing.T) {
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC), "2026-W50"},
		{time.Date(2026, 12, 6, 23, 59, 59, 0, time.UTC), "2026-W49"},
		{time.Date(2026, 12, 7, 0, 30, 0, 0, time.FixedZone("east", 3600)), "2026-W49"}, // 23:30 UTC on Sunday
		{time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC), "2026-W53"},
	} {
		if got := WeekOf(c.at); got != c.want {
			t.Errorf("WeekOf(%v) = %s, want %s", c.at, got, c.want)
		}
	}
}
