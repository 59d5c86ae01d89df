package world

import (
	"math"
	"math/rand/v2"
)

// This file holds seed 000's combat rules ("Combat", "Who swings first?", "Chances of
// hitting or getting hit?", "How much damage is given?", "Equipment") as pure functions.
// They read only their arguments and the *rand.Rand they are given, so the engine can call
// them from its goroutine, tests can check them against exact probabilities, and the same
// seed always replays the same fight. Where the seed leaves a number open, the ruling is
// written next to the function that makes it.

// SwingsFirst reports whether the knight acts first in a fight. Seed 000: "If you have cast
// a 'speed' spell, you will have the choice of what you want to do first. If you don't have
// 'speed' on, but your dexterity is greater than or equal to the monster's dexterity, then
// you get first choice also." Ties go to the knight. Pass the knight's EffectiveDex, since
// dexterity is what a load slows down.
func SwingsFirst(speedSpell bool, dex, monsterDex int) bool {
	return speedSpell || dex >= monsterDex
}

// CarryCapacity is how much weight a knight of the given strength carries before the load
// starts to tell: Str × 10 weight units. The seed gives no number; ten units per point keeps
// the ruling easy to explain on the help screen.
func CarryCapacity(str int) int { return max(0, str*10) }

// EffectiveDex is the number of sides of the knight's combat die. Seed 000: "Your die has
// the number of sides corresponding to your dexterity, adjusted for the weight you carry."
//
// Ruling: carrying up to half of capacity costs nothing; beyond that, every further full
// 10% of capacity carried takes one side off the die, and the die never drops below one
// side. With Str 10 (capacity 100): 50 carried → no penalty, 60 → −1, 100 → −5, 150 → −10.
// A capacity below 1 counts as 1 so that a knight with no strength is slowed by any load
// rather than dividing by zero.
func EffectiveDex(dex, carriedWeight, capacity int) int {
	return max(1, dex-loadPenalty(carriedWeight, capacity))
}

// loadPenalty is how much a load tells: nothing up to half of capacity, then one for every
// further full 10% of capacity carried. EffectiveDex takes it off the to-hit die and
// LoadSpeed off the knight's speed, so one rule of thumb covers both.
func loadPenalty(carriedWeight, capacity int) int {
	// Weights beyond 2^40 are clamped and the sums done in int64 so they cannot overflow,
	// even where int is 32 bits; no real load or strength comes near that.
	const huge = 1 << 40
	capacity64 := min(max(1, int64(capacity)), huge)
	carried := min(max(0, int64(carriedWeight)), huge)
	// Work in tenths of capacity with integers so that exactly 60% of capacity is exactly
	// one step and no floating-point rounding can move a boundary.
	over := max(0, carried*10-capacity64*5)
	// Any penalty past a die's sides or the speed scale's end does the same as a capped
	// one, so a capped value is enough.
	return int(min(over/capacity64, math.MaxInt32))
}

// LoadSpeed is what a load does to a knight's speed in seed 003's sense ("Sometimes, you
// will be able to act faster or slower due to magic, weight carried, skill, or other
// factors"; DESIGN §3: weight carried lowers speed). Ruling: one point of speed for each
// step of loadPenalty, the steps that take a side off the to-hit die, so it is 0 up to
// half of capacity and −1 for every further full 10%:
//
//	carried (of capacity)   speed   one square costs (MoveCost)
//	up to 50%               0       100%
//	60%                     −1      110%
//	100%                    −5      150%
//	150%                    −10     200%
//	250% and more           −20     333% (the seed's slowest, where MoveCost's scale ends)
//
// Seed 003's speed slows only moving (Cthangband's speed "only affects how fast the
// player can run"): blows, spells and potions cost what they cost.
func LoadSpeed(carriedWeight, capacity int) int {
	return -loadPenalty(carriedWeight, capacity)
}

// Thresholds a roll must beat, from seed 000's "Chances of hitting or getting hit?".
const (
	playerHitOver    = 6 // "the roll of your die is greater than 6"
	prayHitOver      = 3 // "you use 'pray' for any other type of monster and the roll ... is greater than 3"
	monsterHitOver   = 6 // "The monster will hit you if that adjusted roll is greater than 6."
	protectionUndead = 6 // "decreased by 6 if you use 'protection' when fighting an Undead monster"
	protectionOther  = 3 // "decreased by 3 if you use 'protection' for any other type of monster"
)

// playerNeeds returns what the knight's roll must exceed, or roll=false when the hit is
// certain (pray against the Undead), so PlayerHits and HitChance cannot disagree.
func playerNeeds(pray bool, class MonsterClass) (over int, roll bool) {
	switch {
	case pray && class == Undead:
		return 0, false
	case pray:
		return prayHitOver, true
	}
	return playerHitOver, true
}

// PlayerHits rolls the knight's die of dieSides sides (normally EffectiveDex) and reports
// whether the blow lands. Seed 000: "you don't use 'pray' and the roll of your die is greater
// than 6"; "you use 'pray' when fighting an Undead monster, you will always hit"; "you use
// 'pray' for any other type of monster and the roll of your die is greater than 3". A die
// with fewer than one side counts as one side. A certain hit does not roll, as nothing could
// depend on the result.
func PlayerHits(r *rand.Rand, dieSides int, pray bool, class MonsterClass) bool {
	over, roll := playerNeeds(pray, class)
	if !roll {
		return true
	}
	return 1+r.IntN(max(1, dieSides)) > over
}

// HitChance is the exact probability that PlayerHits returns true. With Dex 12 it is 6/12
// = 50%; with pray against anything but the Undead a Dex 18 knight has 15/18 ≈ 83%, which is
// the figure in the Pray spell's description.
func HitChance(dieSides int, pray bool, class MonsterClass) float64 {
	over, roll := playerNeeds(pray, class)
	if !roll {
		return 1
	}
	return chanceOver(max(1, dieSides), over)
}

// chanceOver is the probability that a fair die of sides faces (numbered 1..sides) shows
// more than over.
func chanceOver(sides, over int) float64 {
	return float64(max(0, sides-max(0, over))) / float64(sides)
}

// monsterNeeds is what the monster's raw roll must exceed. Subtracting the protection from
// the roll and comparing with 6 is the same as comparing the raw roll with 6 plus the
// protection, which lets MonsterHitChance count faces directly.
func monsterNeeds(protection bool, class MonsterClass) int {
	switch {
	case protection && class == Undead:
		return monsterHitOver + protectionUndead
	case protection:
		return monsterHitOver + protectionOther
	}
	return monsterHitOver
}

// MonsterHits rolls the monster's die and reports whether it hits the knight. Seed 000:
// "The monster's die has the same number of sides as its dexterity", the roll is "decreased
// by 6 if you use 'protection' when fighting an Undead monster; decreased by 3 ... for any
// other type of monster. The monster will hit you if that adjusted roll is greater than 6."
// A dexterity below 1 counts as a one-sided die.
func MonsterHits(r *rand.Rand, monsterDex int, protection bool, class MonsterClass) bool {
	return 1+r.IntN(max(1, monsterDex)) > monsterNeeds(protection, class)
}

// MonsterHitChance is the exact probability that MonsterHits returns true. For a Dex 18
// monster protection turns 12/18 into 9/18 (3 faces of 18, the Protection spell's "1/6
// better chance of not being hit") and, against the Undead, into 6/18 (6 of 18, its "1/3
// for undead").
func MonsterHitChance(monsterDex int, protection bool, class MonsterClass) float64 {
	return chanceOver(max(1, monsterDex), monsterNeeds(protection, class))
}

// StrengthAdjust is strength's change to the knight's damage, seed 000's "-1 for low
// strength, +1 for high strength". Ruling: Str 6 or less is low (−1), Str 15 or more is high
// (+1), the rest 0. With 3d6 stats that is about one knight in eleven at each end, and the
// bands are ConBonus's −1 and +1 bands, so one rule of thumb covers both.
func StrengthAdjust(str int) int {
	switch {
	case str <= 6:
		return -1
	case str >= 15:
		return 1
	}
	return 0
}

// ExperienceLevelPower is level^0.7, the level's share of the knight's damage (seed 000:
// "increased by your player's level raised to the power of 0.7"). Levels below 1 add
// nothing, which also keeps math.Pow away from negative bases.
func ExperienceLevelPower(level int) float64 {
	if level < 1 {
		return 0
	}
	return math.Pow(float64(level), 0.7)
}

// PlayerDamage rolls the damage of one blow that has hit. Seed 000: "an 8-sided die ...
// increased by your player's level raised to the power of 0.7 ... adjusted further by the
// 'plus' value of your sword ... -1 for low strength, +1 for high strength".
//
// Ruling: level^0.7 stays fractional until the whole sum is rounded to the nearest integer
// (halves away from zero), so a level-6 knight's 3.51 counts in full rather than as a
// truncated 3; and a blow that hits always does at least 1 damage, so a weak knight with a cursed
// sword still scratches. A level-1 knight with a +0 sword and Str 10 deals 2..9.
func PlayerDamage(r *rand.Rand, level, swordPlus, str int) int {
	roll := 1 + r.IntN(8)
	total := float64(roll) + ExperienceLevelPower(level) + float64(swordPlus+StrengthAdjust(str))
	return max(1, int(math.Round(total)))
}

// MonsterDamage rolls the damage of one monster attack that has hit. Seed 000: "Each of the
// monster's dice are rolled and the sum is the base attack. This amount is doubled for Magic
// User type monsters in the first round in order to simulate the use of magic. The 'plus'
// value of your shield and armor is deducted from the attack." The result never goes below
// 0: good armour can turn a blow aside entirely. A negative (cursed) plus adds to the attack.
func MonsterDamage(r *rand.Rand, attack Dice, class MonsterClass, firstRound bool, shieldPlus, armourPlus int) int {
	base := attack.Roll(r)
	if class == MagicUser && firstRound {
		base *= 2
	}
	return max(0, base-shieldPlus-armourPlus)
}

// Blows is a knight's blows per round; each blow costs BlowCost(Blows(...)) of a round
// (seed 003: "Hitting a creature in combat takes 100% divided by the number of blows per
// round").
//
// Ruling: 1, plus one for every full 4 points of dexterity above 10, plus one for every
// full 3 levels above the first, kept within 1..MaxBlows (seed 003: "It is not possible to
// get more than ten blows or shots in a round"). A first-level knight with Dex 10 has one
// blow, so a blow is a whole round as in the PLATO original; Dex 18 at level 1 gives 3.
func Blows(dex, level int) int {
	b := 1 + max(0, dex-10)/4 + max(0, level-1)/3
	return max(1, min(b, MaxBlows))
}

// Running away (seed 000): "Running is not always successful, and its chances of failure
// increase each time you try to run." Ruling: 75% on the first try, 15 points less for each
// earlier try in the same fight, never below 10%, so a cornered knight always has some
// hope. "If you are in a room, you may not run": that depends on where the knight stands,
// so the engine checks it before calling these.
const (
	runFirstPercent = 75
	runStepPercent  = 15
	runFloorPercent = 10
)

// runPercent is RunChance in whole percent, so that RunSucceeds can draw an integer and its
// odds equal RunChance exactly.
func runPercent(tries int) int {
	tries = max(0, tries)
	// From the fifth earlier try on the chance is the floor; deciding that before the
	// multiplication also keeps a huge tries value from overflowing into a high chance.
	if tries > (runFirstPercent-runFloorPercent)/runStepPercent {
		return runFloorPercent
	}
	return runFirstPercent - runStepPercent*tries
}

// RunChance is the probability that running away succeeds, given how many times the knight
// has already tried to run in this fight (0 for the first try): 75%, 60%, 45%, 30%, 15%,
// then 10% from the fifth earlier try on.
func RunChance(tries int) float64 { return float64(runPercent(tries)) / 100 }

// RunSucceeds rolls one attempt to run away; see RunChance.
func RunSucceeds(r *rand.Rand, tries int) bool { return r.IntN(100) < runPercent(tries) }

// MaxArrows is how many arrows of mythical slaying a knight can carry (seed 000: "you can
// have up to 31 arrows at one time").
const MaxArrows = 31

// ArrowKills reports whether an arrow of mythical slaying kills a monster of the class.
// Seed 000: "Arrows automatically kill any mythical type monster. They do not work on any
// other monster."
func ArrowKills(class MonsterClass) bool { return class == Mythical }

// DodgePercent is the chance, in percent, that a combatant with this Dexterity avoids a
// blow, an attack or a spell that would have hurt it (seed 002: "Monsters have a base
// dodge chance ... Heroes also have a dodge chance"). Ruling: 2% for each point of
// Dexterity above 10, for heroes and monsters alike (a monster's Dexterity is the sides of
// its to-hit die), so Dex 18 dodges 16% of the time and Dex 10 or less never.
func DodgePercent(dex int) int { return max(0, 2*(dex-10)) }
