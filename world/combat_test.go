package world

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// combatTrials is how many rolls each statistical test makes: at 200k the standard error of
// a rate is at most 0.11 percentage points, so the ±0.5-point tolerance is over four of
// them, and with fixed seeds the tests cannot flake anyway.
const (
	combatTrials    = 200_000
	combatTolerance = 0.005
)

// combatRand is a fixed-seed generator so every run of these tests sees the same rolls.
func combatRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x0c0ffee)) }

// checkRate runs roll combatTrials times and fails if the observed rate of true strays more
// than combatTolerance from want.
func checkRate(t *testing.T, want float64, roll func() bool) {
	t.Helper()
	n := 0
	for range combatTrials {
		if roll() {
			n++
		}
	}
	got := float64(n) / combatTrials
	if math.Abs(got-want) > combatTolerance {
		t.Errorf("observed rate %.4f, exact %.4f (tolerance ±%.3f)", got, want, combatTolerance)
	}
}

func TestSwingsFirst(t *testing.T) {
	cases := []struct {
		name            string
		speed           bool
		dex, monsterDex int
		want            bool
	}{
		{"If you have cast a 'speed' spell, you will have the choice: slower knight", true, 5, 18, true},
		{"speed spell and faster knight", true, 18, 5, true},
		{"dexterity is greater than ... the monster's dexterity", false, 14, 12, true},
		{"dexterity is ... equal to the monster's dexterity", false, 12, 12, true},
		{"no speed, slower knight: the monster swings first", false, 11, 12, false},
	}
	for _, c := range cases {
		if got := SwingsFirst(c.speed, c.dex, c.monsterDex); got != c.want {
			t.Errorf("%s: SwingsFirst(%v, %d, %d) = %v, want %v", c.name, c.speed, c.dex, c.monsterDex, got, c.want)
		}
	}
}

func TestCarryCapacity(t *testing.T) {
	for _, c := range []struct{ str, want int }{{3, 30}, {10, 100}, {18, 180}, {0, 0}, {-2, 0}} {
		if got := CarryCapacity(c.str); got != c.want {
			t.Errorf("CarryCapacity(%d) = %d, want %d", c.str, got, c.want)
		}
	}
}

// "Your die has the number of sides corresponding to your dexterity, adjusted for the weight
// you carry."
func TestEffectiveDex(t *testing.T) {
	cases := []struct {
		name                   string
		dex, carried, capacity int
		want                   int
	}{
		{"empty-handed", 12, 0, 100, 12},
		{"half of capacity is free", 12, 50, 100, 12},
		{"just under the next 10%", 12, 59, 100, 12},
		{"60% of capacity costs a side", 12, 60, 100, 11},
		{"at capacity", 12, 100, 100, 7},
		{"one and a half times capacity", 12, 150, 100, 2},
		{"never below one side", 12, 1000, 100, 1},
		{"odd capacity: 16 of 30 is over half but under 60%", 12, 16, 30, 12},
		{"odd capacity: 18 of 30 is exactly 60%", 12, 18, 30, 11},
		{"negative weight counts as none", 12, -40, 100, 12},
		{"no capacity: any load is heavy", 12, 1, 0, 7},
		{"no capacity, no load", 12, 0, 0, 12},
		{"a dexterity below 1 is still one side", 0, 0, 100, 1},
		{"absurd load does not overflow", 18, math.MaxInt, 1, 1},
	}
	for _, c := range cases {
		if got := EffectiveDex(c.dex, c.carried, c.capacity); got != c.want {
			t.Errorf("%s: EffectiveDex(%d, %d, %d) = %d, want %d", c.name, c.dex, c.carried, c.capacity, got, c.want)
		}
	}
}

// hitCase is one row of the knight's chances of hitting.
type hitCase struct {
	name  string
	sides int
	pray  bool
	class MonsterClass
	want  float64
}

var hitCases = []hitCase{
	{"you don't use 'pray' and the roll of your die is greater than 6: Dex 12", 12, false, Goblin, 6.0 / 12},
	{"no pray, Dex 18", 18, false, Animal, 12.0 / 18},
	{"no pray, Dex 6 can never roll greater than 6", 6, false, Man, 0},
	{"no pray against the Undead is still greater than 6", 12, false, Undead, 6.0 / 12},
	{"you use 'pray' for any other type of monster and the roll of your die is greater than 3: Dex 12", 12, true, Goblin, 9.0 / 12},
	// The Pray spell's description, "Gives you a 83% chance of hitting a monster", is the
	// greater-than-3 rule on an 18-sided die: 15/18 = 83.3%.
	{"Gives you a 83% chance of hitting a monster: d18 with pray", 18, true, Mythical, 15.0 / 18},
	{"you use 'pray' when fighting an Undead monster, you will always hit: Dex 12", 12, true, Undead, 1},
	{"pray vs Undead hits even with a one-sided die", 1, true, Undead, 1},
	{"a zero-sided die counts as one side", 0, false, Insect, 0},
}

func TestHitChance(t *testing.T) {
	for _, c := range hitCases {
		if got := HitChance(c.sides, c.pray, c.class); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: HitChance(%d, %v, %v) = %v, want %v", c.name, c.sides, c.pray, c.class, got, c.want)
		}
	}
	if got := HitChance(18, true, Goblin); math.Round(got*100) != 83 {
		t.Errorf("pray with d18 = %.4f, the seed says 83%%", got)
	}
}

// TestHitChanceCountsFaces checks HitChance and MonsterHitChance against counting the
// winning faces of every die from 0 to 30 sides, straight from the seed's sentences.
func TestHitChanceCountsFaces(t *testing.T) {
	for sides := range 31 {
		n := max(1, sides)
		for _, pray := range []bool{false, true} {
			for class := range NumMonsterClasses {
				wins, monsterWins := 0, 0
				for roll := 1; roll <= n; roll++ {
					switch {
					case pray && class == Undead: // "you will always hit"
						wins++
					case pray && roll > 3:
						wins++
					case !pray && roll > 6:
						wins++
					}
					adjusted := roll // here pray stands for protection
					if pray && class == Undead {
						adjusted -= 6
					} else if pray {
						adjusted -= 3
					}
					if adjusted > 6 {
						monsterWins++
					}
				}
				if got, want := HitChance(sides, pray, class), float64(wins)/float64(n); math.Abs(got-want) > 1e-12 {
					t.Errorf("HitChance(%d, %v, %v) = %v, counted %v", sides, pray, class, got, want)
				}
				if got, want := MonsterHitChance(sides, pray, class), float64(monsterWins)/float64(n); math.Abs(got-want) > 1e-12 {
					t.Errorf("MonsterHitChance(%d, %v, %v) = %v, counted %v", sides, pray, class, got, want)
				}
			}
		}
	}
}

func TestPlayerHitsStatistics(t *testing.T) {
	for i, c := range hitCases {
		t.Run(c.name, func(t *testing.T) {
			r := combatRand(uint64(100 + i))
			checkRate(t, c.want, func() bool { return PlayerHits(r, c.sides, c.pray, c.class) })
		})
	}
}

// monsterCase is one row of a monster's chances of hitting the knight.
type monsterCase struct {
	name       string
	dex        int
	protection bool
	class      MonsterClass
	want       float64
}

var monsterCases = []monsterCase{
	{"The monster will hit you if that adjusted roll is greater than 6: Dex 12", 12, false, Goblin, 6.0 / 12},
	{"decreased by 3 if you use 'protection' for any other type of monster: Goblin, 12-3 > 6 means a roll over 9", 12, true, Goblin, 3.0 / 12},
	{"decreased by 6 if you use 'protection' when fighting an Undead monster: a d12 cannot beat 12", 12, true, Undead, 0},
	{"no protection against the Undead", 12, false, Undead, 6.0 / 12},
	{"Dex 18 without protection", 18, false, Man, 12.0 / 18},
	{"Dex 18 with protection", 18, true, Man, 9.0 / 18},
	{"Dex 18 Undead with protection", 18, true, Undead, 6.0 / 18},
	{"a Dex 6 monster never hits", 6, false, Animal, 0},
	{"a dexterity below 1 is a one-sided die", -3, false, Insect, 0},
}

func TestMonsterHitChance(t *testing.T) {
	for _, c := range monsterCases {
		if got := MonsterHitChance(c.dex, c.protection, c.class); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: MonsterHitChance(%d, %v, %v) = %v, want %v", c.name, c.dex, c.protection, c.class, got, c.want)
		}
	}
}

func TestMonsterHitsStatistics(t *testing.T) {
	for i, c := range monsterCases {
		t.Run(c.name, func(t *testing.T) {
			r := combatRand(uint64(200 + i))
			checkRate(t, c.want, func() bool { return MonsterHits(r, c.dex, c.protection, c.class) })
		})
	}
}

// The Protection spell says "Gives you a 1/6 better chance of not being hit. 1/3 for
// undead." That is exact for a Dex 18 monster: protection takes 3 of its 18 faces out of
// hitting range (3/18 = 1/6), or 6 of 18 against the Undead (6/18 = 1/3).
func TestProtectionMatchesSpellDescription(t *testing.T) {
	const dex = 18
	for _, c := range []struct {
		class MonsterClass
		want  float64
	}{{Goblin, 1.0 / 6}, {Undead, 1.0 / 3}} {
		gain := MonsterHitChance(dex, false, c.class) - MonsterHitChance(dex, true, c.class)
		if math.Abs(gain-c.want) > 1e-12 {
			t.Errorf("protection vs %v Dex %d: not-hit chance improves by %.4f, want %.4f", c.class, dex, gain, c.want)
		}
	}
}

// "-1 for low strength, +1 for high strength"
func TestStrengthAdjust(t *testing.T) {
	for _, c := range []struct{ str, want int }{
		{3, -1}, {6, -1}, {7, 0}, {10, 0}, {14, 0}, {15, 1}, {18, 1}, {25, 1}, {0, -1},
	} {
		if got := StrengthAdjust(c.str); got != c.want {
			t.Errorf("StrengthAdjust(%d) = %d, want %d", c.str, got, c.want)
		}
	}
}

// "increased by your player's level raised to the power of 0.7"
func TestExperienceLevelPower(t *testing.T) {
	for _, c := range []struct {
		level int
		want  float64
	}{{1, 1}, {2, 1.6245}, {6, 3.5051}, {10, 5.0119}, {0, 0}, {-4, 0}} {
		if got := ExperienceLevelPower(c.level); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("ExperienceLevelPower(%d) = %.4f, want %.4f", c.level, got, c.want)
		}
	}
}

// "You will give the monster damage based on the roll of an 8-sided die. That roll is
// increased by your player's level raised to the power of 0.7. That roll is adjusted further
// by the 'plus' value of your sword. The roll is further adjusted based on your strength."
func TestPlayerDamageRanges(t *testing.T) {
	cases := []struct {
		name              string
		level, sword, str int
		lo, hi            int
	}{
		{"level 1, sword +0, Str 10: 1+1..8+1 since 1^0.7 = 1", 1, 0, 10, 2, 9},
		{"high strength: +1", 1, 0, 18, 3, 10},
		{"low strength: -1", 1, 0, 5, 1, 8},
		{"sword +3", 1, 3, 10, 5, 12},
		{"level 6: 6^0.7 ≈ 3.51 rounds 1+3.51 up to 5 and 8+3.51 to 12", 6, 0, 10, 5, 12},
		{"a hit always does at least 1", 1, -5, 3, 1, 3},
	}
	for i, c := range cases {
		r := combatRand(uint64(300 + i))
		seen := map[int]bool{}
		for range 20_000 {
			d := PlayerDamage(r, c.level, c.sword, c.str)
			if d < c.lo || d > c.hi {
				t.Fatalf("%s: PlayerDamage = %d, outside %d..%d", c.name, d, c.lo, c.hi)
			}
			seen[d] = true
		}
		for d := c.lo; d <= c.hi; d++ {
			if !seen[d] {
				t.Errorf("%s: damage %d never rolled in %d..%d", c.name, d, c.lo, c.hi)
			}
		}
	}
	// Each blow is exactly one d8 roll on the generator: a twin generator predicts it.
	r, twin := combatRand(399), combatRand(399)
	for range 1000 {
		want := max(1, int(math.Round(float64(1+twin.IntN(8))+ExperienceLevelPower(6)+2+1)))
		if got := PlayerDamage(r, 6, 2, 16); got != want {
			t.Fatalf("PlayerDamage(level 6, +2, Str 16) = %d, want %d", got, want)
		}
	}
}

// "Each of the monster's dice are rolled and the sum is the base attack. This amount is
// doubled for Magic User type monsters in the first round in order to simulate the use of
// magic. The 'plus' value of your shield and armor is deducted from the attack."
func TestMonsterDamage(t *testing.T) {
	attack := D(2, 6)
	cases := []struct {
		name          string
		class         MonsterClass
		first         bool
		shield, armor int
		double        bool
	}{
		{"Magic User in the first round: doubled", MagicUser, true, 0, 0, true},
		{"Magic User after the first round: not doubled", MagicUser, false, 0, 0, false},
		{"other classes in the first round: not doubled", Undead, true, 0, 0, false},
		{"Goblin later on", Goblin, false, 0, 0, false},
		{"shield +1 and armour +2 are deducted", Man, false, 1, 2, false},
		{"doubling comes before the deduction", MagicUser, true, 2, 3, true},
		{"never below 0", Animal, false, 3, 3, false},
	}
	for i, c := range cases {
		r, twin := combatRand(uint64(400+i)), combatRand(uint64(400+i))
		for range 2000 {
			base := attack.Roll(twin)
			if c.double {
				base *= 2
			}
			want := max(0, base-c.shield-c.armor)
			if got := MonsterDamage(r, attack, c.class, c.first, c.shield, c.armor); got != want {
				t.Fatalf("%s: MonsterDamage = %d, want %d", c.name, got, want)
			}
		}
	}

	// Armour heavier than the biggest attack leaves every blow at exactly 0.
	r := combatRand(450)
	for range 1000 {
		if got := MonsterDamage(r, attack, MagicUser, true, 10, 15); got != 0 {
			t.Fatalf("MonsterDamage through +25 armour = %d, want 0", got)
		}
	}
	// Dice with no sides do no damage, and a cursed (negative) plus adds to the blow.
	if got := MonsterDamage(r, D(3, 0), Man, false, 0, 0); got != 0 {
		t.Errorf("0-sided dice did %d damage", got)
	}
	if got := MonsterDamage(r, D(1, 1), Man, false, -1, -1); got != 3 {
		t.Errorf("1d1 with -1 shield and -1 armour = %d, want 3", got)
	}
}

// Seed 003: "Hitting a creature in combat takes 100% divided by the number of blows per
// round ... It is not possible to get more than ten blows or shots in a round."
func TestBlows(t *testing.T) {
	cases := []struct{ dex, level, want int }{
		{10, 1, 1}, // first-level knight, Dex 10: one blow, a whole round
		{3, 1, 1},  // low dexterity never takes blows away
		{13, 1, 1}, // 3 over 10 is not yet a full 4
		{14, 1, 2},
		{18, 1, 3},
		{10, 3, 1}, // two levels above the first are not yet a full 3
		{10, 4, 2},
		{10, 7, 3},
		{18, 7, 5},
		{18, 19, 9},
		{18, 22, 10}, // 1+2+7 = 10
		{18, 40, 10}, // "not possible to get more than ten blows"
		{50, 100, 10},
		{10, 0, 1},
		{-5, -5, 1},
	}
	for _, c := range cases {
		if got := Blows(c.dex, c.level); got != c.want {
			t.Errorf("Blows(dex %d, level %d) = %d, want %d", c.dex, c.level, got, c.want)
		}
	}
	if got := BlowCost(Blows(10, 1)); got != 100 {
		t.Errorf("a first-level Dex 10 knight's blow costs %v%%, want 100%%", got)
	}
	if got := BlowCost(Blows(18, 40)); got != 10 {
		t.Errorf("ten blows cost %v%% each, want 10%%", got)
	}
}

// "Running is not always successful, and its chances of failure increase each time you try
// to run."
func TestRunChance(t *testing.T) {
	want := []float64{0.75, 0.60, 0.45, 0.30, 0.15, 0.10, 0.10, 0.10}
	for tries, w := range want {
		if got := RunChance(tries); math.Abs(got-w) > 1e-12 {
			t.Errorf("RunChance(%d) = %v, want %v", tries, got, w)
		}
	}
	for tries := 1; tries < 100; tries++ {
		prev, got := RunChance(tries-1), RunChance(tries)
		if got > prev || (prev > 0.10 && got >= prev) {
			t.Errorf("RunChance(%d) = %v after %v: must strictly fall until 10%%", tries, got, prev)
		}
		if got < 0.10 {
			t.Errorf("RunChance(%d) = %v, below the 10%% floor", tries, got)
		}
	}
	for _, tries := range []int{math.MaxInt, math.MaxInt / 15, math.MaxInt - 1} {
		if got := RunChance(tries); got != 0.10 {
			t.Errorf("RunChance(%d) = %v, want the 10%% floor", tries, got)
		}
	}
	if got := RunChance(-3); got != 0.75 {
		t.Errorf("RunChance(-3) = %v, want 0.75 as for a first try", got)
	}
}

func TestRunSucceedsStatistics(t *testing.T) {
	for _, tries := range []int{0, 2, 4, 9} {
		t.Run(fmt.Sprintf("earlier tries %d", tries), func(t *testing.T) {
			r := combatRand(uint64(500 + tries))
			checkRate(t, RunChance(tries), func() bool { return RunSucceeds(r, tries) })
		})
	}
}

// "Arrows automatically kill any mythical type monster. They do not work on any other
// monster." ... "you can have up to 31 arrows at one time."
func TestArrows(t *testing.T) {
	for class := range NumMonsterClasses {
		if got, want := ArrowKills(class), class == Mythical; got != want {
			t.Errorf("ArrowKills(%v) = %v, want %v", class, got, want)
		}
	}
	if MaxArrows != 31 {
		t.Errorf("MaxArrows = %d, want 31", MaxArrows)
	}
}

// LoadSpeed's table (the ruling on seed 003's "slower due to ... weight carried"): the
// steps of the to-hit die's load penalty, as speed.
func TestLoadSpeed(t *testing.T) {
	for _, c := range []struct{ carried, capacity, want int }{
		{0, 100, 0}, {50, 100, 0}, {59, 100, 0}, {60, 100, -1}, {100, 100, -5}, {150, 100, -10}, {250, 100, -20}, {18, 30, -1},
	} {
		if got := LoadSpeed(c.carried, c.capacity); got != c.want {
			t.Errorf("LoadSpeed(%d, %d) = %d, want %d", c.carried, c.capacity, got, c.want)
		}
	}
	if MoveCost(LoadSpeed(100, 100)) != 150 || MoveCost(LoadSpeed(150, 100)) != 200 {
		t.Error("a full load does not cost 150% a square, one and a half loads 200%")
	}
}
