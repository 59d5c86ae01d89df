package world

import (
	"fmt"
	"math/rand/v2"
)

// Dice is N dice of Sides sides each, as the seed's monster tables give them ("Hit Dice is
// how many dice are used for its hit points. Hit Dice Type is how many sides each of those
// dice has.").
type Dice struct {
	N     int `json:"n"`
	Sides int `json:"sides"`
}

// D is a shorthand for Dice{n, sides}.
func D(n, sides int) Dice { return Dice{N: n, Sides: sides} }

// Roll throws the dice with r and returns the sum; dice with no sides roll 0.
func (d Dice) Roll(r *rand.Rand) int {
	sum := 0
	if d.Sides <= 0 {
		return 0
	}
	for range d.N {
		sum += 1 + r.IntN(d.Sides)
	}
	return sum
}

// Min is the smallest possible roll: every die showing 1.
func (d Dice) Min() int {
	if d.Sides <= 0 {
		return 0
	}
	return max(0, d.N)
}

// Max is the largest possible roll.
func (d Dice) Max() int { return max(0, d.N*d.Sides) }

// String writes the dice the usual way, "2d8".
func (d Dice) String() string { return fmt.Sprintf("%dd%d", d.N, d.Sides) }
