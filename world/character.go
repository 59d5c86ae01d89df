package world

import "math/rand/v2"

// Stats are the four characteristics a knight rolls (seed 000: Strength, Intelligence,
// Constitution, Dexterity; "the higher the number rolled, the better off your character is").
type Stats struct {
	Str, Int, Con, Dex int
}

// RollStats rolls each characteristic as 3d6 (3..18). The seed does not give the dice; 3d6
// fits its rule of thumb that a good knight has "all the characteristics with at least two
// digits" — about one roll in six manages all four.
func RollStats(r *rand.Rand) Stats {
	roll := func() int { return 3 + r.IntN(6) + r.IntN(6) + r.IntN(6) }
	return Stats{Str: roll(), Int: roll(), Con: roll(), Dex: roll()}
}

// ConBonus is Constitution's adjustment to a hit die: −1 below 7, +1 from 15, +2 from 17.
func ConBonus(con int) int {
	switch {
	case con < 7:
		return -1
	case con >= 17:
		return 2
	case con >= 15:
		return 1
	}
	return 0
}

// StartHits is a new knight's hit points: a level's d8 with the Constitution bonus (seed 000:
// "Additional hits are determined by the roll of an eight-sided die, modified by your
// constitution") on top of a base of 8 so a first-level knight survives a blow or two.
func StartHits(r *rand.Rand, con int) int {
	return max(1, 8+1+r.IntN(8)+ConBonus(con))
}

// LevelForExperience is seed 000's rule: from 128000 on, 8 plus experience/128000; below
// it, the largest n with 2^n ≤ experience/500, and at least 1.
func LevelForExperience(exp int) int {
	if exp >= 128000 {
		return 8 + exp/128000
	}
	n := 1
	for 500<<(n+1) <= exp {
		n++
	}
	return n
}

// SpellUnitsForLevel is seed 000's "units = (level+1) × 2".
func SpellUnitsForLevel(level int) int { return (level + 1) * 2 }

// NewAdventurer makes a first-level knight from rolled stats. It stands on level 1 at no
// square yet: the engine places it at the dungeon's entrance when it first joins.
func NewAdventurer(fingerprint, name string, s Stats, hits int) Adventurer {
	return Adventurer{
		ID: fingerprint, Name: name,
		Str: s.Str, Int: s.Int, Con: s.Con, Dex: s.Dex,
		Level: 1, Hits: hits, MaxHits: hits, Depth: 1, X: -1, Y: -1,
		SpellUnits: SpellUnitsForLevel(1), // seed 000: "You also have 4 spell units"
		// Seed 000: "As any well-equipped knight of the time, you have a normal sword to start with."
		Items: []Item{{Kind: ItemSword}},
	}
}
