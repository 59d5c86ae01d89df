package world

import (
	"math"
	"testing"
)

// Seed 003 walks a player through one round of mind blasts: "a skill 2 power ... a
// mindcrafting skill of 15% ... each use of the power takes 23% of a round." The debt at
// the start of each of the ten turns, and whether a blast is fired then, must match the
// seed number by number.
func TestEnergyMindBlastWalkthrough(t *testing.T) {
	want := []struct {
		debt float64 // debt when the turn begins, before acting
		fire bool
	}{
		{0, true},   // "You have a 0% cost, and so can fire off a mind blast, with cost of 23%."
		{13, false}, // "Subtract 10% from the previous cost of 23%, leaving 13%."
		{3, false},  // "Subtract 10%, leaving 3%. This is positive, so no action this turn."
		{-7, true},  // "Subtract 10%, giving -7%. ... we add that to -7% to get 16%."
		{6, false},  // "Subtract 10% from the previous cost to get 6%."
		{-4, true},  // "Subtract 10% to get -4%. ... This leaves the cost as 23% + -4%, or 19%."
		{9, false},  // "Subtract 10% from the cost, leaving 9%."
		{-1, true},  // "leaving -1%. Firing off a mind blast ... leaves the cost at 22%."
		{12, false}, // "Subtract 10% from the cost, leaving 12%."
		{2, false},  // "Subtract 10% from the cost, leaving 2%."
	}
	afterFire := map[int]float64{0: 23, 3: 16, 5: 19, 7: 22}

	for _, tc := range []struct {
		name string
		cost float64
	}{
		{"seed's 23%", 23},
		{"CastCost(15-2)", CastCost(15 - 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Energy
			for turn, w := range want {
				if got := math.Round(float64(e)); got != w.debt {
					t.Fatalf("turn %d: debt %.2f, seed says %v%%", turn+1, float64(e), w.debt)
				}
				if e.Ready() != w.fire {
					t.Fatalf("turn %d: ready=%v, seed says fire=%v", turn+1, e.Ready(), w.fire)
				}
				if e.Ready() {
					e.Spend(tc.cost)
					if got := math.Round(float64(e)); got != afterFire[turn] {
						t.Fatalf("turn %d: debt after blast %.2f, seed says %v%%", turn+1, float64(e), afterFire[turn])
					}
				}
				e.EndTurn(false)
			}
		})
	}
}

// Seed 003: "If the player's or monster's speed is zero, it takes 100% of a round to move.
// If the speed is +10, it takes 50%. It takes 33% at +20, 26% at +30, and 24% at +40. ...
// if the speed is -10, it takes 200% of a round to move a square, and 333% at -20."
func TestMoveCostScale(t *testing.T) {
	for _, tc := range []struct {
		speed int
		cost  float64
	}{
		{0, 100}, {10, 50}, {-10, 200}, {20, 33}, {-20, 333}, {30, 26}, {40, 24},
		{5, 75}, {-5, 150}, {25, 29.5}, {-15, 266.5}, // "a sliding scale ... no sharp breakpoints"
		{60, 24}, {-40, 333}, // beyond the seed's range: its ends
	} {
		if got := MoveCost(tc.speed); math.Abs(got-tc.cost) > 1e-9 {
			t.Errorf("MoveCost(%+d) = %v, want %v", tc.speed, got, tc.cost)
		}
	}
	for s := -30; s < 50; s++ {
		if MoveCost(s+1) > MoveCost(s) {
			t.Fatalf("moving gets dearer from speed %d to %d", s, s+1)
		}
	}
}

// Seed 003: "if you get seven blows with a shortsword the cost is 14% each. It is not
// possible to get more than ten blows".
func TestBlowCost(t *testing.T) {
	if got := math.Floor(BlowCost(7)); got != 14 {
		t.Errorf("seven blows cost %v each, seed says 14%%", got)
	}
	if BlowCost(1) != 100 || BlowCost(10) != 10 || BlowCost(20) != 10 || BlowCost(0) != 100 {
		t.Errorf("blow costs out of 1..10 are not clamped")
	}
}

// Seed 003: "If the player's skill is at the minimum, the cost is 100%. It decreases to 50%
// if the player has 6% more skill, 33% at 9% additional skill, and 25% at 12% additional
// skill. It continues like this until bottoming out at 10% cost at 28% additional skill."
func TestCastCost(t *testing.T) {
	for _, tc := range []struct {
		margin int
		cost   float64
	}{{0, 100}, {6, 50}, {9, 33}, {12, 25}, {13, 23}, {27, 11}, {28, 10}, {30, 10}, {60, 10}, {-3, 100}} {
		if got := math.Round(CastCost(tc.margin)); got != tc.cost {
			t.Errorf("CastCost(+%d) = %v, want %v", tc.margin, got, tc.cost)
		}
	}
	for m := 0; m < 40; m++ {
		if CastCost(m+1) > CastCost(m) {
			t.Fatalf("casting gets dearer from +%d to +%d", m, m+1)
		}
	}
}

// An idle actor does not bank turns: after a long wait it still moves only once per
// 100% of cost, so holding back cannot buy a burst of moves.
func TestEnergyIdleDoesNotBank(t *testing.T) {
	var e Energy
	for range 50 {
		e.EndTurn(e.Ready())
	}
	if e != 0 {
		t.Fatalf("idle debt %v, want 0", e)
	}
	e.Spend(MoveCost(0))
	turns := 0
	for e.EndTurn(false); !e.Ready(); e.EndTurn(false) {
		turns++
	}
	if turns != TurnsPerRound-1 {
		t.Fatalf("next move after %d waiting turns, want %d (one round per move at speed 0)", turns, TurnsPerRound-1)
	}
}
