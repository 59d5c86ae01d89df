package world

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
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

// 3d6 rolls stay in 3..18 with a mean near 10.5 over many seeded rolls.
func TestRollStatsDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	sum := 0
	for range n {
		s := RollStats(r)
		for _, v := range []int{s.Str, s.Int, s.Con, s.Dex} {
			if v < 3 || v > 18 {
				t.Fatalf("roll %d out of 3..18", v)
			}
			sum += v
		}
	}
	if mean := float64(sum) / (4 * n); mean < 10.3 || mean > 10.7 {
		t.Fatalf("mean roll %.2f, want about 10.5", mean)
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Kay": "Kay", "  Sir   Kay  ": "Sir Kay", "O'Brien-2": "O'Brien-2",
	} {
		if got, err := CleanName(in); err != nil || got != want {
			t.Errorf("CleanName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "9lives", "\x1b[31mRed", "Kаy" /* Cyrillic а */, "a\u202eb", "ThisNameIsFarTooLongToKeep"} {
		if got, err := CleanName(bad); err == nil {
			t.Errorf("CleanName(%q) = %q, want an error", bad, got)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		if _, err := CleanName(RandomName(r)); err != nil {
			t.Fatalf("generated name rejected: %v", err)
		}
	}
}

// FuzzCleanName: whatever a player types, a name that passes is short, printable ASCII of
// the allowed kinds and starts with a letter; nothing panics.
func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"Kay", " Sir  Kay ", "\x1b[31mRed", "Kаy", "a\u202eb", "\xff\xfe", "O'Brien-2", strings.Repeat("a", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, err := CleanName(s)
		if err != nil {
			return
		}
		if len(name) == 0 || len(name) > MaxNameLen || !unicode.IsLetter(rune(name[0])) {
			t.Fatalf("CleanName(%q) = %q", s, name)
		}
		for _, r := range name {
			if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '\'' || r == '-') {
				t.Fatalf("CleanName(%q) = %q lets %q through", s, name, r)
			}
		}
	})
}
