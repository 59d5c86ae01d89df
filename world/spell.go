package world

import (
	"math/rand/v2"
	"strings"
)

// This file holds seed 000's spells ("Spells", "Level 1 Spells" .. "Level 4 Spells") as a
// table and pure rules. The engine owns the effects and the knight's state; it asks this
// file what a spell costs, whether it may be cast now, whether it fails, whether it can
// touch a given monster and how much a missile hurts. Like combat.go, every function reads
// only its arguments and the *rand.Rand it is given, so fights replay from a seed. Where the
// seed leaves a number open, the ruling is written next to the code that makes it.

// SpellID indexes Spells. Knights' records may store it, so an ID must keep meaning the same
// spell: new spells are appended to the table, never inserted (SpellsOfLevel does not rely
// on a level's spells being next to each other).
type SpellID uint8

// The 22 spells in the seed's order, level by level. The seed's single "Pass floor or
// ceiling" is two spells here, because the knight has to say which way to go and a spell
// menu is simpler with one choice per line.
const (
	// Level 1.
	SpellCharm SpellID = iota
	SpellSleep
	SpellCure
	SpellLevitation
	SpellDepth
	SpellLight
	SpellMagicMissile
	// Level 2.
	SpellHoldPerson
	SpellSpeed
	SpellPray
	SpellFindTraps
	SpellProtection
	// Level 3.
	SpellESP
	SpellContinuousLight
	SpellHoldMonster
	SpellPassWall
	SpellBlastbolt
	// Level 4.
	SpellPassFloor
	SpellPassCeiling
	SpellDimensionDoor
	SpellInvisibility
	SpellTeleport
	// NumSpells is how many spells there are.
	NumSpells
)

// Special values of SpellInfo.Duration. Positive durations count the knight's moves.
const (
	// DurationInstant: the spell does its work at once and nothing lingers.
	DurationInstant = 0
	// DurationTrip: the effect lasts until the knight leaves the dungeon (Continuous Light,
	// "lasts the entire trip").
	DurationTrip = -1
	// DurationFight: the effect lasts until the current fight ends (Pray, "Lasts one full
	// combat", and the spells that charm, sleep or hold the monster being fought).
	DurationFight = -2
)

// MaxSpellLevel is the highest spell level (seed 000: "There are 4 levels of spells").
const MaxSpellLevel = 4

// RegenerationMoves is how many moves a Ring of Regeneration takes to give back one hit and
// one spell unit (seed 000: "replaces 1 hit and spell unit for every 25 moves").
const RegenerationMoves = 25

// SpellInfo is one line of the spell table: everything the engine and the spell menu need
// to know about a spell that does not depend on who casts it.
type SpellInfo struct {
	// Name is the spell's name in the seed's spelling, unique among spells.
	Name string
	// Level is 1..MaxSpellLevel; it is also the spell's cost in units (see UnitCost).
	Level int
	// Combat means the spell can be cast only during a fight.
	Combat bool
	// Anytime means the spell can be cast both in and out of a fight. A spell with neither
	// Combat nor Anytime can be cast only when not fighting.
	Anytime bool
	// OnMonster means the spell acts on the monster being fought, so the monster's class
	// and level decide whether it takes hold (see Affects). Spells that act on the knight
	// or the dungeon have it false.
	OnMonster bool
	// Duration is how long the effect lasts in the knight's moves, or one of
	// DurationInstant, DurationTrip, DurationFight.
	Duration int
	// FailMin and FailMax are the seed's failure range in percent, reached at Intelligence
	// 18 and 3 respectively (see FailChance); 0, 0 means the spell never fails.
	FailMin, FailMax int
	// Targets lists the monster classes an OnMonster spell works on; nil means any class,
	// except that spells below level 4 never affect Animated monsters.
	Targets []MonsterClass
	// MaxMonsterLevel is the highest monster level the spell works on; 0 means no limit.
	MaxMonsterLevel int
	// Damage is the dice a missile spell rolls for the hits it deals; zero dice for others.
	Damage Dice
	// Help is one line for the spell menu, in the seed's words where they fit.
	Help string
}

// Spells is the spell table, indexed by SpellID.
//
// Rulings on what the seed leaves open:
//   - When a spell may be cast: the seed says only "Some spells can be cast during a fight,
//     others when not fighting" and calls Cure "Non-combat". Spells aimed at a monster, and
//     Pray ("Lasts one full combat"), need a fight; Speed, Protection and Invisibility help
//     both in a fight and before one, so they may be cast at any time; the rest, which
//     look at or move through the dungeon, are for when no monster is at hand.
//   - Charm, Sleep, Hold Person and Hold Monster last for the rest of the fight: the seed's
//     point is that "you can kill it without it fighting back".
//   - Sleep's "any monster ... except for undead types" is written as a list of every other
//     class, so Affects needs no special case for it (Animated is left out as well, since
//     Sleep is level 1).
//   - Magic Missile's "2 to 20 hits" is 2d10 and Blastbolt's "5 to 60" is 5d12: the only
//     whole dice that give exactly those ranges with a bell-shaped middle.
//   - ESP, Pass Wall, Pass Floor and Pass Ceiling are instant: one look, one passage.
var Spells = [NumSpells]SpellInfo{
	SpellCharm: {
		Name: "Charm", Level: 1, Combat: true, OnMonster: true, Duration: DurationFight,
		FailMin: 30, FailMax: 50, Targets: []MonsterClass{Man, Goblin},
		Help: "Charms a man or goblin so it cannot fight back. Fails 30-50%.",
	},
	SpellSleep: {
		Name: "Sleep", Level: 1, Combat: true, OnMonster: true, Duration: DurationFight,
		Targets:         []MonsterClass{Insect, Man, Goblin, Animal, Mythical, MagicUser},
		MaxMonsterLevel: 4,
		Help:            "Puts a monster to sleep. Any monster up to level 4, except undead.",
	},
	SpellCure: {
		Name: "Cure", Level: 1, Duration: DurationInstant,
		Help: "Heals wounds: 2-7 hits, modified by your intelligence.",
	},
	SpellLevitation: {
		Name: "Levitation", Level: 1, Duration: 12,
		Help: "Levitate over pits and chutes; you may still use a chute. 12 turns.",
	},
	SpellDepth: {
		Name: "Depth", Level: 1, Duration: DurationInstant,
		Help: "Determines how many levels down in the dungeon you are.",
	},
	SpellLight: {
		Name: "Light", Level: 1, Duration: 24,
		Help: "Shows secret doors; monsters and treasure appear as shadows. 24 turns.",
	},
	SpellMagicMissile: {
		Name: "Magic Missile", Level: 1, Combat: true, OnMonster: true, Duration: DurationInstant,
		Damage: D(2, 10),
		Help:   "Shoots a magic arrow at the monster: 2 to 20 hits. Double on undead.",
	},
	SpellHoldPerson: {
		Name: "Hold Person", Level: 2, Combat: true, OnMonster: true, Duration: DurationFight,
		FailMin: 10, FailMax: 30, Targets: []MonsterClass{Man, Goblin},
		Help: "Similar to Charm (man or goblin), but fails only 10-30%.",
	},
	SpellSpeed: {
		Name: "Speed", Level: 2, Anytime: true, Duration: 18,
		Help: "Gives you first hit in combat; moving takes less time. 18 turns.",
	},
	SpellPray: {
		Name: "Pray", Level: 2, Combat: true, Duration: DurationFight,
		Help: "83% chance of hitting a monster, 100% for undead. One full combat.",
	},
	SpellFindTraps: {
		Name: "Find Traps", Level: 2, Duration: 6,
		Help: "Tells you what traps are around you, if any. 6 turns.",
	},
	SpellProtection: {
		Name: "Protection", Level: 2, Anytime: true, Duration: 24,
		Help: "1/6 better chance of not being hit, 1/3 for undead. 24 turns.",
	},
	SpellESP: {
		Name: "ESP", Level: 3, Duration: DurationInstant,
		Help: "See through walls the way you choose: monsters and treasures.",
	},
	SpellContinuousLight: {
		Name: "Continuous Light", Level: 3, Duration: DurationTrip,
		Help: "Same as Light, but lasts the entire trip.",
	},
	SpellHoldMonster: {
		Name: "Hold Monster", Level: 3, Combat: true, OnMonster: true, Duration: DurationFight,
		FailMin: 10, FailMax: 30, Targets: []MonsterClass{Animal, Insect},
		Help: "Like Hold Person, but for animal or insect types. Fails 10-30%.",
	},
	SpellPassWall: {
		Name: "Pass Wall", Level: 3, Duration: DurationInstant,
		Help: "Allows you to pass through any wall.",
	},
	SpellBlastbolt: {
		Name: "Blastbolt", Level: 3, Combat: true, OnMonster: true, Duration: DurationInstant,
		Damage: D(5, 12),
		Help:   "Similar to Magic Missile, but delivers 5 to 60 hits. Double on undead.",
	},
	SpellPassFloor: {
		Name: "Pass Floor", Level: 4, Duration: DurationInstant,
		Help: "Pass down through the floor to the next level.",
	},
	SpellPassCeiling: {
		Name: "Pass Ceiling", Level: 4, Duration: DurationInstant,
		Help: "Pass up through the ceiling to the level above.",
	},
	SpellDimensionDoor: {
		Name: "Dimension Door", Level: 4, Combat: true, OnMonster: true, Duration: DurationInstant,
		FailMin: 20, FailMax: 40,
		Help: "Sends the monster out of the room. Fails 20-40%; then it strikes.",
	},
	SpellInvisibility: {
		Name: "Invisibility", Level: 4, Anytime: true, Duration: 36,
		Help: "You become invisible and safe from attack. 36 turns.",
	},
	SpellTeleport: {
		Name: "Teleport", Level: 4, Combat: true, OnMonster: true, Duration: DurationInstant,
		FailMin: 40, FailMax: 60,
		Help: "Sends the monster elsewhere on the level. Fails 40-60%, moving you.",
	},
}

// Info is the spell's line in Spells, or nil for an ID outside the table (such as one read
// from a database written by a newer version).
func (s SpellID) Info() *SpellInfo {
	if s >= NumSpells {
		return nil
	}
	return &Spells[s]
}

// String is the spell's name, so logs and errors can print a SpellID directly.
func (s SpellID) String() string {
	if in := s.Info(); in != nil {
		return in.Name
	}
	return "spell?"
}

// CastableIn reports whether the spell may be cast now: fighting tells whether the knight
// is in a fight. An ID outside the table is never castable.
func (s SpellID) CastableIn(fighting bool) bool {
	in := s.Info()
	switch {
	case in == nil:
		return false
	case in.Anytime:
		return true
	}
	return in.Combat == fighting
}

// spellByKey maps normalised names to IDs for SpellByName.
var spellByKey = func() map[string]SpellID {
	m := make(map[string]SpellID, NumSpells)
	for i := range Spells {
		m[spellKey(Spells[i].Name)] = SpellID(i)
	}
	return m
}()

// spellKey lower-cases a name and squeezes its spaces, so that "magic  missile" typed in
// a hurry still finds the spell.
func spellKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// SpellByName finds a spell by name, ignoring case and extra spaces.
func SpellByName(name string) (SpellID, bool) {
	id, ok := spellByKey[spellKey(name)]
	return id, ok
}

// SpellsOfLevel lists the spells of one level in table order, as the spell menu shows them
// after the knight presses that level's key; nil for a level that does not exist. The slice
// is new on each call, so the caller may keep or change it.
func SpellsOfLevel(level int) []SpellID {
	var ids []SpellID
	for i := range Spells {
		if Spells[i].Level == level {
			ids = append(ids, SpellID(i))
		}
	}
	return ids
}

// UnitCost is how many spell units casting the spell takes (seed 000: "Level 1 spells cost
// you 1 unit each, level 2 spells cost 2 units each, etc."); 0 for an ID outside the table.
func UnitCost(s SpellID) int {
	if in := s.Info(); in != nil {
		return in.Level
	}
	return 0
}

// Intelligence range over which FailChance slides: 3d6's lowest and highest roll.
const (
	failIntLow  = 3
	failIntHigh = 18
)

// failDenominator is the number of parts failNumerator counts in: percent times the width
// of the Intelligence range, so every step of one Intelligence point is a whole number.
const failDenominator = 100 * (failIntHigh - failIntLow)

// failNumerator is the spell's failure chance in 1/failDenominator parts, kept in integers
// so that FailChance and SpellFails agree exactly and Int 3 and 18 hit the ends exactly.
func failNumerator(in *SpellInfo, intel int) int {
	intel = max(failIntLow, min(intel, failIntHigh))
	span := failIntHigh - failIntLow
	return in.FailMax*span - (in.FailMax-in.FailMin)*(intel-failIntLow)
}

// FailChance is the probability, 0..1, that the spell fails when cast by a knight with the
// given Intelligence.
//
// Ruling: the seed gives ranges ("Fails 30% to 50% of the time") and says Intelligence "will
// help determine if the spell is effective or not", so the chance slides linearly from
// FailMax at Int 3 to FailMin at Int 18, and Intelligence outside 3..18 counts as the nearer
// end. Charm fails 50% at Int 3, 40% midway (the average of Int 10 and 11) and 30% at Int
// 18. Spells with no range never fail; neither does an ID outside the table.
func FailChance(s SpellID, intel int) float64 {
	in := s.Info()
	if in == nil {
		return 0
	}
	return float64(failNumerator(in, intel)) / failDenominator
}

// SpellFails rolls whether a cast fails, with exactly FailChance's probability. A spell that
// cannot fail does not roll, so adding a sure spell to a fight does not shift later rolls.
func SpellFails(r *rand.Rand, s SpellID, intel int) bool {
	in := s.Info()
	if in == nil {
		return false
	}
	n := failNumerator(in, intel)
	if n <= 0 {
		return false
	}
	return r.IntN(failDenominator) < n
}

// Affects reports whether the spell can take hold of a monster of kind k. Seed 000: "Only
// level 4 spells affect animated type monsters"; Charm and Hold Person work on "a man or
// goblin type monster", Hold Monster on "animal or insect types", and Sleep "Works on any
// monster up to level 4, except for undead types".
//
// Ruling: these limits are about spells aimed at the monster. Spells that act on the knight
// (Pray, Protection, Speed ...) or the dungeon always return true, even against an Animated
// monster: a prayer steadies the knight's sword arm whatever it swings at. A monster spell
// with no kind to act on (k nil), and an ID outside the table, return false.
func Affects(s SpellID, k *MonsterKind) bool {
	in := s.Info()
	switch {
	case in == nil:
		return false
	case !in.OnMonster:
		return true
	case k == nil:
		return false
	case k.Class == Animated && in.Level < MaxSpellLevel:
		return false
	case in.MaxMonsterLevel > 0 && k.Level > in.MaxMonsterLevel:
		return false
	case in.Targets == nil:
		return true
	}
	for _, c := range in.Targets {
		if c == k.Class {
			return true
		}
	}
	return false
}

// MissileDamage rolls the hits a missile spell deals to a monster of the given class: Magic
// Missile "from 2 to 20 hits" (2d10) and Blastbolt "5 to 60 hits" (5d12), each "Double on
// Undead". Other spells deal 0. Against an Animated monster a missile also deals 0 without
// rolling, since neither is a level 4 spell; the engine should still ask Affects first.
func MissileDamage(r *rand.Rand, s SpellID, class MonsterClass) int {
	in := s.Info()
	if in == nil || (class == Animated && in.Level != MaxSpellLevel) {
		return 0 // no dice (not a missile) roll 0 anyway
	}
	hits := in.Damage.Roll(r)
	if class == Undead {
		hits *= 2
	}
	return hits
}

// IntBonus is Intelligence's change to a Cure: −1 for Int 6 or less, +1 from 15, +2 at 18.
// The bands match StrengthAdjust's and ConBonus's so one rule of thumb covers all three, and
// the extra point at 18 rewards the rare top roll (1 knight in 216).
func IntBonus(intel int) int {
	switch {
	case intel <= 6:
		return -1
	case intel >= 18:
		return 2
	case intel >= 15:
		return 1
	}
	return 0
}

// CureAmount rolls the hits a Cure gives back. Seed 000: "Replenishes hits in doses of 2-7,
// modified by your intelligence." Ruling: 1 + d6 + IntBonus, never below 1, so an ordinary
// knight heals exactly 2..7, a dull one 1..6 and a brilliant one up to 9.
func CureAmount(r *rand.Rand, intel int) int {
	return max(1, 2+r.IntN(6)+IntBonus(intel))
}

// MinSkill is the least Intelligence at which casting the spell is not slowed: 3 + 3 × level,
// so 6, 9, 12 and 15 for levels 1..4. Seed 003 gives every magical effect "a certain minimum
// skill to use"; the ruling takes the knight's skill to be Intelligence, and spaces the
// minimums so an average knight (Int 10–11) casts level 1 and 2 quickly, level 3 at full
// cost and level 4 below its minimum. An ID outside the table has minimum 0.
func MinSkill(s SpellID) int {
	if in := s.Info(); in != nil {
		return 3 + 3*in.Level
	}
	return 0
}

// CastMargin is how far the knight's Intelligence exceeds the spell's MinSkill; it may be
// negative. A knight below the minimum may still cast: the seed never forbids a spell for
// lack of Intelligence, so the margin only sets the casting time.
func CastMargin(s SpellID, intel int) int { return intel - MinSkill(s) }

// CastEnergy is the energy casting the spell costs, in percent of a round: seed 003's
// casting cost for the knight's margin (CastCost), so 100% at the minimum or below, 50% at
// +6, 25% at +12.
func CastEnergy(s SpellID, intel int) float64 { return CastCost(CastMargin(s, intel)) }
