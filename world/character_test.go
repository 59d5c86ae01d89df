package world

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestLevelForExperience(t *testing.T) {
	for _, tc := range []struct{ exp, level int }{
		{384200, 11}, // seed 000: "Your experience is 384200. Level is 11."
		{33260, 6},   // seed 000: "Your experience is 33260. Level is 6."
		{0, 1}, {999, 1}, {1000, 1}, {1999, 1}, {2000, 2}, {4000, 3}, {32000, 6},
		{127999, 7}, {128000, 9}, {256000, 10},
	} {
		if got := LevelForExperience(tc.exp); got != tc.level {
			t.Errorf("LevelForExperience(%d) = %d, want %d", tc.exp, got, tc.level)
		}
	}
}

// Seed 000: "units = (level+1) ×2" and "To start, one has 4 units of magic."
func TestSpellUnits(t *testing.T) {
	if SpellUnitsForLevel(1) != 4 || SpellUnitsForLevel(6) != 14 {
		t.Fatal("spell units do not follow (level+1)×2")
	}
	a := NewAdventurer("fp", "Kay", Stats{10, 10, 10, 10}, 12)
	if a.SpellUnits != 4 || a.Level != 1 || a.Hits != 12 || a.MaxHits != 12 {
		t.Fatalf("new adventurer %+v", a)
	}
}

// threeD6 is how many of the 216 rolls of three six-sided dice sum to each of 3..18.
func threeD6(sum int) int {
	n := 0
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			if c := sum - a - b; c >= 1 && c <= 6 {
				n++
			}
		}
	}
	return n
}

// TestRollStatsShape checks 3d6 by its shape, not only its mean and range: over 80,000
// seeded rolls each characteristic's value comes up with its exact chance (from 1/216
// for 3 and 18 to 27/216 for 10 and 11) within four standard errors, which tells 3d6
// from 3d6 off by one, from 1+d17, or from 2d9.
func TestRollStatsShape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var seen [4][19]int
	for range n {
		s := RollStats(r)
		for i, v := range []int{s.Str, s.Int, s.Con, s.Dex} {
			seen[i][v]++
		}
	}
	for i, name := range []string{"Str", "Int", "Con", "Dex"} {
		for v := 3; v <= 18; v++ {
			within(t, fmt.Sprintf("%s %d", name, v), float64(seen[i][v])/n, float64(threeD6(v))/216, n)
		}
	}
}

// A new knight's hits (DESIGN §12): 8 + d8 + the Constitution bonus (−1 below 7, +1 from
// 15, +2 from 17), at least 1: seed 000's per-level d8 "modified by your constitution" on a
// base that survives a blow or two. Con 10 rolls 9..16, Con 3 8..15, Con 15 10..17, Con 17
// 11..18, each of the eight as often.
func TestStartHits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, c := range []struct{ con, lo int }{{10, 9}, {3, 8}, {6, 8}, {7, 9}, {14, 9}, {15, 10}, {16, 10}, {17, 11}, {18, 11}} {
		seen := map[int]int{}
		for range 8000 {
			seen[StartHits(r, c.con)]++
		}
		checkSpread(t, fmt.Sprintf("Con %d", c.con), seen, c.lo, c.lo+7)
	}
}

// Seed 000: "When your level increases, spells and hits also increase. Additional hits
// are determined by the roll of an eight-sided die, modified by your constitution", on a
// successful exit. A knight with the experience for level 2 climbs out 1600 times: with
// Con 10 it gains 1..8 hits, each as often; with Con 17, 3..10; with Con 3 a d8 − 1, at
// least 1 (so 1 comes up twice as often).
func TestLevelUpHitsAreAD8(t *testing.T) {
	for _, c := range []struct{ con, lo int }{{10, 1}, {17, 3}, {3, 1}} {
		e := fixtureEngine(t, nil)
		rec := knight("a", 10)
		rec.Con, rec.Experience = c.con, 2000 // seed 000: level 2 at 2000
		e.join(rec, &recorder{})
		p := e.players["a"]
		gains := map[int]int{}
		const n = 1600
		for range n {
			p.rec.Level, p.rec.MaxHits = 1, 10
			e.place(p, 1, e.levels[0].Up)
			p.energy = 0
			do(e, "a", Climb{})
			if p.rec.Depth != 0 || p.rec.Level != 2 || p.rec.Hits != p.rec.MaxHits {
				t.Fatalf("after the exit: depth %d, level %d, hits %d/%d", p.rec.Depth, p.rec.Level, p.rec.Hits, p.rec.MaxHits)
			}
			gains[p.rec.MaxHits-10]++
		}
		if c.con > 3 {
			checkSpread(t, fmt.Sprintf("level-up hits with Con %d", c.con), gains, c.lo, c.lo+7)
			continue
		}
		if gains[0] != 0 || gains[8] != 0 {
			t.Fatalf("Con 3: gains %v, want 1..7", gains)
		}
		within(t, "Con 3 gaining 1 hit", float64(gains[1])/n, 2.0/8, n)
		for g := 2; g <= 7; g++ {
			within(t, fmt.Sprintf("Con 3 gaining %d hits", g), float64(gains[g])/n, 1.0/8, n)
		}
	}
}
