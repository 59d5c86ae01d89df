package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A typist opens the chat line on the dungeon screen, types typeLine runes, erases them
// with Ctrl-U and types them again; a chat line the screen shows closed, once nothing is
// waiting, is opened and typed afresh; off the dungeon screen it waits.
func TestTypistKeys(t *testing.T) {
	dungeon := "the level\n" + dungeonStatus + "1"
	open := chatOpenText + "\nSay: abc_\n" + dungeonStatus + "1"
	var ty typing
	if k := ty.key("Name your knight", false); k != "" {
		t.Fatalf("off the dungeon screen: %q, want nothing", k)
	}
	if k := ty.key(dungeon, false); k != keyEnter {
		t.Fatalf("on the dungeon screen: %q, want Enter", k)
	}
	var typed strings.Builder
	for range typeLine {
		// The screen has not caught up (keys wait): the typist goes on.
		typed.WriteString(ty.key(dungeon, true))
	}
	first := typed.String()
	if len(first) != typeLine || strings.ContainsAny(first, keyEraseLine+keyEnter) {
		t.Fatalf("the first %d keys: %q", typeLine, first)
	}
	if k := ty.key(open, false); k != keyEraseLine {
		t.Fatalf("key %d: %q, want Ctrl-U", typeLine+1, k)
	}
	typed.Reset()
	for range typeLine {
		typed.WriteString(ty.key(open, false))
	}
	if typed.String() != first {
		t.Fatalf("after Ctrl-U: %q, want the line again", typed.String())
	}
	if k := ty.key(dungeon, true); k == keyEnter {
		t.Fatal("a screen behind the keys closed the line")
	}
	if k := ty.key(dungeon, false); k != keyEnter || ty.typed != 0 {
		t.Fatalf("the line closed: %q (typed %d), want Enter and a new line", k, ty.typed)
	}
}

// A burst of keys (-type-burst) is the keys one at a time would be, written together:
// the Enter that opens the line and letters after it, then letters and backspaces.
func TestTypistBursts(t *testing.T) {
	dungeon := "the level\n" + dungeonStatus + "1"
	var one, burst typing
	var want strings.Builder
	want.WriteString(one.key(dungeon, false))
	for range typeLine + 19 {
		want.WriteString(one.key(dungeon, true))
	}
	var got strings.Builder
	for got.Len() < want.Len() {
		got.WriteString(burst.keys(dungeon, got.Len() > 0, 10))
	}
	if !strings.HasPrefix(got.String(), want.String()) {
		t.Fatalf("bursts of 10 typed %q,\nkeys one at a time %q", got.String(), want.String())
	}
	var off typing
	if k := off.keys("Name your knight", false, 10); k != "" {
		t.Fatalf("off the dungeon screen a burst is %q, want nothing", k)
	}
}

// A typist against the game server: it types past the screen's width, and every key,
// a letter or a backspace, changes the screen (none unanswered, none recovered), a key a
// write or ten.
func TestTypeScenarioTypesALongLine(t *testing.T) {
	t.Parallel()
	for _, burst := range []int{1, 10} {
		t.Run(fmt.Sprintf("burst=%d", burst), func(t *testing.T) {
			t.Parallel()
			data := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(data, 0o700); err != nil {
				t.Fatal(err)
			}
			g := runGame(t, data, "127.0.0.1:0")
			rep, err := Run(t.Context(), Config{
				Addr: g.addr, N: 1, Active: 1, Rate: 300, Duration: 3 * time.Second,
				Mode: ModeGame, Scenario: ScenarioType, TypeBurst: burst, Drain: time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", *rep)
			checkClean(t, rep, 1)
			k := rep.Keys
			if k.Sent < typeLine || k.Unanswered != 0 || k.Recoveries != 0 || k.Answered != k.Sent {
				t.Fatalf("keys %+v: want more than %d sent, every one answered", k, typeLine)
			}
		})
	}
}

// -type-burst is a typist's: other scenarios refuse it, and 0 is a key a write.
func TestTypeBurstIsATypists(t *testing.T) {
	base := Config{Addr: "127.0.0.1:1", N: 1, Active: 1, Rate: 1000, Duration: time.Second, Mode: ModeGame}
	for _, tc := range []struct {
		scenario string
		burst    int
		want     int // the burst checked; 0: refused
	}{
		{ScenarioType, 10, 10},
		{ScenarioType, 0, 1},
		{ScenarioType, -1, 0},
		{ScenarioWalk, 10, 0},
		{ScenarioWalk, 1, 1},
	} {
		cfg := base
		cfg.Scenario, cfg.TypeBurst = tc.scenario, tc.burst
		err := cfg.check()
		switch {
		case tc.want == 0 && err == nil:
			t.Errorf("-scenario %s -type-burst %d: accepted", tc.scenario, tc.burst)
		case tc.want != 0 && (err != nil || cfg.TypeBurst != tc.want):
			t.Errorf("-scenario %s -type-burst %d: %d, %v; want %d", tc.scenario, tc.burst, cfg.TypeBurst, err, tc.want)
		}
	}
}
