package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A typist opens the chat line on the dungeon screen, types typeLine runes and then a
// backspace and a letter in turn; a chat line the screen shows closed, once nothing is
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
	if s := typed.String(); len(s) != typeLine || strings.ContainsAny(s, keyBackspace+keyEnter) {
		t.Fatalf("the first %d keys: %q", typeLine, s)
	}
	for i := range 6 {
		k := ty.key(open, false)
		if back := i%2 == 1; (k == keyBackspace) != back || len(k) != 1 {
			t.Fatalf("key %d past the line's length: %q", typeLine+i+1, k)
		}
	}
	if k := ty.key(dungeon, true); k == keyEnter {
		t.Fatal("a screen behind the keys closed the line")
	}
	if k := ty.key(dungeon, false); k != keyEnter || ty.typed != 0 {
		t.Fatalf("the line closed: %q (typed %d), want Enter and a new line", k, ty.typed)
	}
}

// A typist against the game server: it types past the screen's width, and every key,
// a letter or a backspace, changes the screen (none unanswered, none recovered).
func TestTypeScenarioTypesALongLine(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	g := runGame(t, data, "127.0.0.1:0")
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: 1, Active: 1, Rate: 300, Duration: 3 * time.Second,
		Mode: ModeGame, Scenario: ScenarioType, Drain: time.Second,
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
}
