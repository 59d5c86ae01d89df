package world

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// spellTrials is how many rolls each statistical test makes: at 100k the standard error of a
// rate is at most 0.16 percentage points, so the ±0.7-point tolerance is over four of them,
// and with fixed seeds the tests cannot flake anyway.
const (
	spellTrials    = 100_000
	spellTolerance = 0.007
)

// spellRand is a fixed-seed generator so every run of these tests sees the same rolls.
func spellRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5be11)) }

// spellRate is the observed rate of true over spellTrials calls of roll.
func spellRate(roll func() bool) float64 {
	n := 0
	for range spellTrials {
		if roll() {
			n++
		}
	}
	return float64(n) / spellTrials
}

// spellTestKind is a made-up monster of one class and level, so the Affects tests cover every
// combination without depending on the monster table's contents.
func spellTestKind(c MonsterClass, level int) *MonsterKind {
	return &MonsterKind{Name: fmt.Sprintf("%v %d", c, level), Class: c, Level: level}
}

func TestSpellTableShape(t *testing.T) {
	checkSpellLevels(t)
	seen := map[string]SpellID{}
	for i := range Spells {
		id := SpellID(i)
		in := id.Info()
		if in.Name == "" {
			t.Fatalf("spell %d has no name", i)
		}
		if prev, dup := seen[strings.ToLower(in.Name)]; dup {
			t.Errorf("%v and spell %d share a name", prev, i)
		}
		seen[strings.ToLower(in.Name)] = id
		checkSpellRow(t, id, in)
		checkSpellHelp(t, id, in)
	}
}

// checkSpellLevels checks the spells' levels. Seed 000: "There are 4 levels of spells";
// its lists name 7, 5, 5 and 4 spells, and splitting "Pass floor or ceiling" in two makes
// level 4 hold 5.
func checkSpellLevels(t *testing.T) {
	t.Helper()
	if NumSpells != 22 {
		t.Fatalf("NumSpells = %d, want 22", NumSpells)
	}
	wantPerLevel := map[int]int{1: 7, 2: 5, 3: 5, 4: 5}
	total := 0
	for level := 1; level <= MaxSpellLevel; level++ {
		ids := SpellsOfLevel(level)
		if len(ids) != wantPerLevel[level] {
			t.Errorf("SpellsOfLevel(%d) has %d spells, want %d", level, len(ids), wantPerLevel[level])
		}
		total += len(ids)
		for _, id := range ids {
			if id.Info().Level != level {
				t.Errorf("SpellsOfLevel(%d) lists %v of level %d", level, id, id.Info().Level)
			}
		}
	}
	if total != int(NumSpells) {
		t.Errorf("levels 1..4 hold %d spells, want %d", total, NumSpells)
	}
	for _, level := range []int{-1, 0, 5} {
		if ids := SpellsOfLevel(level); ids != nil {
			t.Errorf("SpellsOfLevel(%d) = %v, want nil", level, ids)
		}
	}
}

// checkSpellRow checks that a spell's row holds together: its cost, when it may be cast,
// its failure range, its duration, and what it does to monsters.
func checkSpellRow(t *testing.T, id SpellID, in *SpellInfo) {
	t.Helper()
	// "Level 1 spells cost you 1 unit each, level 2 spells cost 2 units each, etc."
	if UnitCost(id) != in.Level {
		t.Errorf("UnitCost(%v) = %d, want its level %d", id, UnitCost(id), in.Level)
	}
	if in.Combat && in.Anytime {
		t.Errorf("%v is both combat-only and castable any time", id)
	}
	if in.FailMin < 0 || in.FailMin > in.FailMax || in.FailMax > 100 {
		t.Errorf("%v fails %d..%d%%, not a range within 0..100", id, in.FailMin, in.FailMax)
	}
	if in.Duration < DurationFight {
		t.Errorf("%v has duration %d, below every special value", id, in.Duration)
	}
	if (in.Targets != nil || in.MaxMonsterLevel != 0 || in.Damage != (Dice{})) && !in.OnMonster {
		t.Errorf("%v limits or hurts monsters but is not aimed at one", id)
	}
}

// checkSpellHelp checks a spell's line in the menu: one line, well inside an 80-column
// screen, in plain ASCII like the rest of the game's text, and not contradicting the table.
func checkSpellHelp(t *testing.T, id SpellID, in *SpellInfo) {
	t.Helper()
	if in.Help == "" || len(in.Help) > 72 || strings.ContainsAny(in.Help, "\n\t") {
		t.Errorf("%v help %q: want one line of at most 72 characters", id, in.Help)
	}
	for _, r := range in.Help {
		if r < ' ' || r > '~' {
			t.Errorf("%v help %q has non-ASCII %q", id, in.Help, r)
			break
		}
	}
	if in.Duration > 0 && !strings.Contains(in.Help, fmt.Sprintf("%d turns", in.Duration)) {
		t.Errorf("%v lasts %d turns but its help %q does not say so", id, in.Duration, in.Help)
	}
	if in.FailMax > 0 && !strings.Contains(in.Help, fmt.Sprintf("%d-%d%%", in.FailMin, in.FailMax)) {
		t.Errorf("%v fails %d-%d%% but its help %q does not say so", id, in.FailMin, in.FailMax, in.Help)
	}
}

func TestSpellTableSeedNumbers(t *testing.T) {
	const (
		fight = "fight"
		calm  = "calm"
		both  = "both"
	)
	cases := []struct {
		id               SpellID
		name             string
		level            int
		when             string
		duration         int
		failMin, failMax int
		quote            string
	}{
		{SpellCharm, "Charm", 1, fight, DurationFight, 30, 50, "Fails 30% to 50% of the time."},
		{SpellSleep, "Sleep", 1, fight, DurationFight, 0, 0, "Puts monster to sleep."},
		{SpellCure, "Cure", 1, calm, DurationInstant, 0, 0, "Non-combat type spell. Heals wounds."},
		{SpellLevitation, "Levitation", 1, calm, 12, 0, 0, "Lasts 12 turns."},
		{SpellDepth, "Depth", 1, calm, DurationInstant, 0, 0, "Determines how many levels down"},
		{SpellLight, "Light", 1, calm, 24, 0, 0, "Lasts 24 turns."},
		{SpellMagicMissile, "Magic Missile", 1, fight, DurationInstant, 0, 0, "Shoots a magic arrow at the monster"},
		{SpellHoldPerson, "Hold Person", 2, fight, DurationFight, 10, 30, "failure rate of only 10% to 30%."},
		{SpellSpeed, "Speed", 2, both, 18, 0, 0, "Lasts 18 turns."},
		{SpellPray, "Pray", 2, fight, DurationFight, 0, 0, "Lasts one full combat."},
		{SpellFindTraps, "Find Traps", 2, calm, 6, 0, 0, "Lasts 6 turns."},
		{SpellProtection, "Protection", 2, both, 24, 0, 0, "Lasts 24 turns."},
		{SpellESP, "ESP", 3, calm, DurationInstant, 0, 0, "You choose the direction in which to \"look\"."},
		{SpellContinuousLight, "Continuous Light", 3, calm, DurationTrip, 0, 0, "lasts the entire trip."},
		{SpellHoldMonster, "Hold Monster", 3, fight, DurationFight, 10, 30, "Failure rate 10-30%."},
		{SpellPassWall, "Pass Wall", 3, calm, DurationInstant, 0, 0, "pass through any wall."},
		{SpellBlastbolt, "Blastbolt", 3, fight, DurationInstant, 0, 0, "delivers 5 to 60 hits."},
		{SpellPassFloor, "Pass Floor", 4, calm, DurationInstant, 0, 0, "pass either up or down"},
		{SpellPassCeiling, "Pass Ceiling", 4, calm, DurationInstant, 0, 0, "pass either up or down"},
		{SpellDimensionDoor, "Dimension Door", 4, fight, DurationInstant, 20, 40, "Failure rate = 20% to 40%."},
		{SpellInvisibility, "Invisibility", 4, both, 36, 0, 0, "Lasts 36 turns."},
		{SpellTeleport, "Teleport", 4, fight, DurationInstant, 40, 60, "higher failure rate (40-60%)"},
	}
	if len(cases) != int(NumSpells) {
		t.Fatalf("%d cases for %d spells", len(cases), NumSpells)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.id.Info()
			if in.Name != c.name || in.Level != c.level {
				t.Errorf("%q level %d, want %q level %d", in.Name, in.Level, c.name, c.level)
			}
			if in.Duration != c.duration {
				t.Errorf("duration %d, want %d (%s)", in.Duration, c.duration, c.quote)
			}
			if in.FailMin != c.failMin || in.FailMax != c.failMax {
				t.Errorf("fails %d..%d%%, want %d..%d%% (%s)", in.FailMin, in.FailMax, c.failMin, c.failMax, c.quote)
			}
			// "Some spells can be cast during a fight, others when not fighting."
			inFight, outside := c.id.CastableIn(true), c.id.CastableIn(false)
			want := map[string][2]bool{fight: {true, false}, calm: {false, true}, both: {true, true}}[c.when]
			if inFight != want[0] || outside != want[1] {
				t.Errorf("castable in a fight %v, outside %v; want %s", inFight, outside, c.when)
			}
		})
	}
}

func TestSpellByName(t *testing.T) {
	for i := range Spells {
		id := SpellID(i)
		for _, name := range []string{id.Info().Name, strings.ToUpper(id.Info().Name), "  " + strings.ReplaceAll(id.Info().Name, " ", "   ") + " "} {
			got, ok := SpellByName(name)
			if !ok || got != id {
				t.Errorf("SpellByName(%q) = %v, %v; want %v", name, got, ok, id)
			}
		}
		if id.String() != id.Info().Name {
			t.Errorf("String() = %q, want %q", id.String(), id.Info().Name)
		}
	}
	// The seed's combined name is two spells here, so it names neither.
	for _, name := range []string{"", "Fireball", "Pass floor or ceiling", "MagicMissile"} {
		if id, ok := SpellByName(name); ok {
			t.Errorf("SpellByName(%q) = %v, want not found", name, id)
		}
	}
}

func TestSpellOutsideTable(t *testing.T) {
	bad := NumSpells
	r := spellRand(1)
	if bad.Info() != nil || bad.String() != "spell?" || bad.CastableIn(true) || bad.CastableIn(false) {
		t.Error("an ID outside the table should have no info and never be castable")
	}
	if UnitCost(bad) != 0 || FailChance(bad, 10) != 0 || SpellFails(r, bad, 10) || Affects(bad, spellTestKind(Man, 1)) ||
		MissileDamage(r, bad, Man) != 0 || MinSkill(bad) != 0 {
		t.Error("an ID outside the table should cost, fail, affect and hurt nothing")
	}
}

func TestFailChance(t *testing.T) {
	for i := range Spells {
		id := SpellID(i)
		in := id.Info()
		lo, hi := float64(in.FailMin)/100, float64(in.FailMax)/100
		// Ruling: FailMax at Int 3, FailMin at Int 18, clamped outside.
		for _, c := range []struct {
			intel int
			want  float64
		}{{3, hi}, {18, lo}, {-5, hi}, {0, hi}, {19, lo}, {25, lo}} {
			if got := FailChance(id, c.intel); got != c.want {
				t.Errorf("FailChance(%v, %d) = %v, want %v", id, c.intel, got, c.want)
			}
		}
		prev := FailChance(id, 3)
		for intel := 4; intel <= 18; intel++ {
			got := FailChance(id, intel)
			if got > prev {
				t.Errorf("FailChance(%v) rises from %v to %v at Int %d", id, prev, got, intel)
			}
			if in.FailMax > in.FailMin && got == prev {
				t.Errorf("FailChance(%v) does not fall at Int %d", id, intel)
			}
			prev = got
		}
	}
	// Midway between Int 3 and 18 (10.5) Charm fails 40%, the middle of "30% to 50%".
	if mid := (FailChance(SpellCharm, 10) + FailChance(SpellCharm, 11)) / 2; math.Abs(mid-0.40) > 1e-12 {
		t.Errorf("Charm fails %v at Int 10.5, want 0.40", mid)
	}
}

func TestSpellFailsRate(t *testing.T) {
	cases := []struct {
		id     SpellID
		lo, hi float64
		quote  string
	}{
		{SpellCharm, 0.30, 0.50, "Fails 30% to 50% of the time."},
		{SpellTeleport, 0.40, 0.60, "It has a higher failure rate (40-60%)"},
	}
	for _, c := range cases {
		rates := map[int]float64{}
		for intel := 3; intel <= 18; intel++ {
			r := spellRand(uint64(intel))
			got := spellRate(func() bool { return SpellFails(r, c.id, intel) })
			rates[intel] = got
			if got < c.lo-spellTolerance || got > c.hi+spellTolerance {
				t.Errorf("%v at Int %d fails %.4f, outside %v..%v (%s)", c.id, intel, got, c.lo, c.hi, c.quote)
			}
			if want := FailChance(c.id, intel); math.Abs(got-want) > spellTolerance {
				t.Errorf("%v at Int %d fails %.4f, FailChance says %.4f", c.id, intel, got, want)
			}
		}
		mid := (c.lo + c.hi) / 2
		if got := (rates[10] + rates[11]) / 2; math.Abs(got-mid) > spellTolerance {
			t.Errorf("%v at Int 10.5 fails %.4f, want %.2f", c.id, got, mid)
		}
	}

	// A spell that cannot fail never does, and does not roll: the generator is untouched.
	r, twin := spellRand(7), spellRand(7)
	for range 1000 {
		if SpellFails(r, SpellMagicMissile, 3) {
			t.Fatal("Magic Missile failed; the seed gives it no failure rate")
		}
	}
	if r.Uint64() != twin.Uint64() {
		t.Error("SpellFails rolled for a spell that cannot fail")
	}
}

func TestMissileDamage(t *testing.T) {
	cases := []struct {
		id       SpellID
		min, max int
		quote    string
	}{
		{SpellMagicMissile, 2, 20, "giving it from 2 to 20 hits. Double on Undead."},
		{SpellBlastbolt, 5, 60, "delivers 5 to 60 hits. Double on undead."},
	}
	for _, c := range cases {
		if d := c.id.Info().Damage; d.Min() != c.min || d.Max() != c.max {
			t.Errorf("%v dice %v give %d..%d, want %d..%d (%s)", c.id, d, d.Min(), d.Max(), c.min, c.max, c.quote)
		}
		for _, class := range []MonsterClass{Man, Undead} {
			mult := 1
			if class == Undead {
				mult = 2
			}
			r := spellRand(uint64(c.id)*10 + uint64(class))
			seen := map[int]int{}
			for range spellTrials {
				hits := MissileDamage(r, c.id, class)
				if hits < c.min*mult || hits > c.max*mult || hits%mult != 0 {
					t.Fatalf("%v on %v did %d hits, want a multiple of %d in %d..%d (%s)",
						c.id, class, hits, mult, c.min*mult, c.max*mult, c.quote)
				}
				seen[hits]++
			}
			// Magic Missile's ends come up once in a hundred casts, so 100k casts see every
			// value; Blastbolt's ends are 1 in 12^5, so only its range is checked above.
			if c.id == SpellMagicMissile {
				for v := c.min; v <= c.max; v++ {
					if seen[v*mult] == 0 {
						t.Errorf("%v on %v never did %d hits", c.id, class, v*mult)
					}
				}
			}
		}
	}

	r := spellRand(3)
	for i := range Spells {
		id := SpellID(i)
		if id == SpellMagicMissile || id == SpellBlastbolt {
			// Only level 4 spells affect Animated monsters, and neither missile is one.
			if got := MissileDamage(r, id, Animated); got != 0 {
				t.Errorf("%v did %d hits to an Animated monster, want 0", id, got)
			}
			continue
		}
		if got := MissileDamage(r, id, Man); got != 0 {
			t.Errorf("MissileDamage(%v) = %d, want 0 for a spell that is no missile", id, got)
		}
	}
}

func TestAffects(t *testing.T) {
	for i := range Spells {
		id := SpellID(i)
		in := id.Info()
		for class := range NumMonsterClasses {
			for level := 1; level <= MaxMonsterLevel; level++ {
				k := spellTestKind(class, level)
				got := Affects(id, k)
				var want bool
				switch {
				case !in.OnMonster:
					// Spells that act on the knight or the dungeon are never resisted.
					want = true
				case class == Animated:
					// "Only level 4 spells affect animated type monsters."
					want = in.Level == 4
				case id == SpellSleep:
					// "Works on any monster up to level 4, except for undead types."
					want = level <= 4 && class != Undead
				case id == SpellCharm || id == SpellHoldPerson:
					// "Charms a man or goblin type monster"; Hold Person is "Similar to Charm".
					want = class == Man || class == Goblin
				case id == SpellHoldMonster:
					// "Like Hold Person, but for animal or insect types."
					want = class == Animal || class == Insect
				default:
					// Missiles, Dimension Door and Teleport name no limit.
					want = true
				}
				if got != want {
					t.Errorf("Affects(%v, %v level %d) = %v, want %v", id, class, level, got, want)
				}
			}
		}
		if got := Affects(id, nil); got != !in.OnMonster {
			t.Errorf("Affects(%v, nil) = %v, want %v", id, got, !in.OnMonster)
		}
	}
	// The table's real monsters obey the same rules: Sleep never touches the Undead or
	// anything above level 4.
	for i := range Monsters {
		k := &Monsters[i]
		if Affects(SpellSleep, k) && (k.Class == Undead || k.Level > 4 || k.Class == Animated) {
			t.Errorf("Sleep affects %s (%v, level %d)", k.Name, k.Class, k.Level)
		}
	}
}

func TestCureAmount(t *testing.T) {
	// "Replenishes hits in doses of 2-7, modified by your intelligence."
	cases := []struct{ intel, min, max int }{
		{3, 1, 6}, {6, 1, 6}, {7, 2, 7}, {10, 2, 7}, {14, 2, 7}, {15, 3, 8}, {17, 3, 8}, {18, 4, 9},
	}
	for _, c := range cases {
		r := spellRand(uint64(c.intel))
		seen := map[int]bool{}
		for range 10_000 {
			got := CureAmount(r, c.intel)
			if got < 1 {
				t.Fatalf("CureAmount(Int %d) = %d, below 1", c.intel, got)
			}
			if got < c.min || got > c.max {
				t.Fatalf("CureAmount(Int %d) = %d, want %d..%d", c.intel, got, c.min, c.max)
			}
			seen[got] = true
		}
		if len(seen) != c.max-c.min+1 {
			t.Errorf("CureAmount(Int %d) gave %d distinct values, want all of %d..%d", c.intel, len(seen), c.min, c.max)
		}
	}
	if IntBonus(6) != -1 || IntBonus(7) != 0 || IntBonus(14) != 0 || IntBonus(15) != 1 || IntBonus(18) != 2 {
		t.Error("IntBonus bands: want −1 to Int 6, 0 for 7..14, +1 for 15..17, +2 at 18")
	}
}

func TestCastEnergy(t *testing.T) {
	wantMin := map[int]int{1: 6, 2: 9, 3: 12, 4: 15}
	for i := range Spells {
		id := SpellID(i)
		m := MinSkill(id)
		if m != wantMin[id.Info().Level] {
			t.Errorf("MinSkill(%v) = %d, want %d", id, m, wantMin[id.Info().Level])
		}
		// Seed 003: "If the player's skill is at the minimum, the cost is 100%. It decreases
		// to 50% if the player has 6% more skill".
		if got := CastEnergy(id, m); got != 100 {
			t.Errorf("CastEnergy(%v, minimum) = %v, want 100", id, got)
		}
		if got := CastEnergy(id, m+6); got != 50 {
			t.Errorf("CastEnergy(%v, minimum+6) = %v, want 50", id, got)
		}
		// A knight below the minimum may still cast, at the full 100%.
		if got := CastEnergy(id, m-3); got != 100 {
			t.Errorf("CastEnergy(%v, minimum−3) = %v, want 100", id, got)
		}
		if got := CastMargin(id, 18); got != 18-m {
			t.Errorf("CastMargin(%v, 18) = %d, want %d", id, got, 18-m)
		}
	}
}

func TestRegenerationMoves(t *testing.T) {
	// "When worn, this ring replaces 1 hit and spell unit for every 25 moves."
	if RegenerationMoves != 25 {
		t.Errorf("RegenerationMoves = %d, want 25", RegenerationMoves)
	}
}
