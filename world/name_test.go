package world

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

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

// Names are 1 to 20 characters (MaxNameLen): twenty pass, twenty-one do not. Random names
// are "Name the Epithet" (all of them fit), and a new knight stands on no square until it
// first joins.
func TestNamesAtTheirLongest(t *testing.T) {
	if got, err := CleanName("Abcdefghij Klmnopqrs"); err != nil || len(got) != 20 {
		t.Fatalf("a name of 20: %q, %v", got, err)
	}
	if _, err := CleanName("Abcdefghij Klmnopqrst"); err == nil {
		t.Fatal("a name of 21 passed")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		if n := RandomName(r); !strings.Contains(n, " the ") {
			t.Fatalf("random name %q is not a knight's name and epithet", n)
		}
	}
	if a := NewAdventurer("fp", "Kay", Stats{10, 10, 10, 10}, 10); a.Pos() != (Pos{-1, -1}) || a.Depth != 1 {
		t.Fatalf("a new knight stands at %v on level %d, want no square of level 1", a.Pos(), a.Depth)
	}
}
