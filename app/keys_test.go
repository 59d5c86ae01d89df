package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The game's keys are one table: every row has its keys, its line of the help and what it
// does; a key two rows share goes to the first only where it applies (the second has
// it elsewhere); and the help shows every row.
func TestGameKeysTable(t *testing.T) {
	owner := map[string]int{}
	for i, r := range gameKeys {
		if len(r.keys) == 0 || r.label == "" || r.help == "" || (r.act == nil) == (r.cmd == nil) {
			t.Errorf("row %q: a field is empty, or it has both an act and a command", r.label)
		}
		if line := fmt.Sprintf("  %-12s  %s", r.label, r.help); !slices.Contains(helpLines, line) {
			t.Errorf("row %q: the help has no line %q", r.label, line)
		}
		for _, k := range r.keys {
			if j, ok := owner[k]; ok && gameKeys[j].when == nil {
				t.Errorf("key %q: row %q never has it, row %q always takes it first", k, r.label, gameKeys[j].label)
			}
			if _, ok := owner[k]; !ok {
				owner[k] = i
			}
		}
		for _, w := range r.words {
			if w.run == nil || w.when == 0 {
				t.Errorf("row %q: a word lacks its function or its prompts: %q", r.label, w.words)
			}
		}
	}
	for _, k := range append(stepKeys(false), stepKeys(true)...) {
		if _, door, ok := keyDir(k); !ok || door != (strings.HasPrefix(k, "shift+") || strings.ToUpper(k) == k) {
			t.Errorf("key %q: no direction, or the wrong door", k)
		}
	}
}

// Issue 28: a phone's keyboard is enough. Every key of the game has a letter, digit or
// sign too (no Esc, Tab, shift+arrow or function key needed), the help lists them in one
// line, and the chat line, the console and a market take Backspace and digits where
// they took Esc and Tab.
func TestAPhoneKeyboardIsEnough(t *testing.T) {
	for _, r := range gameKeys {
		if !slices.ContainsFunc(r.keys, phoneKey) {
			t.Errorf("%s (%v) has no key a phone types", r.label, r.keys)
		}
	}
	line := phoneKeysLine()
	for _, want := range []string{"k j h l walk", "K J H L d open a door", "t T target", "? help", "' chat", "Backspace or q closes a screen"} {
		if !strings.Contains(line, want) {
			t.Errorf("the phone's keys line does not say %q: %s", want, line)
		}
	}
	if !slices.Contains(helpLines, line) {
		t.Error("the help does not list the phone's keys")
	}

	m, _ := viewModel(t, crowdedView(t), 40, 20)
	keys(m, "enter", "ab", "backspace", "backspace")
	if !m.chat.open {
		t.Fatal("Backspace on a line with text closed the chat line")
	}
	keys(m, "backspace")
	if m.chat.open {
		t.Error("Backspace on an empty chat line does not close it")
	}
	m.p.Admin = func(string) (string, bool) { return "", true }
	keys(m, ":", "backspace")
	if m.console.open {
		t.Error("Backspace on an empty console line does not close it")
	}
	for _, screenKey := range []string{"m", "?", "M", "o", "F", "P", "1", "i"} {
		keys(m, screenKey)
		opened := m.screen
		keys(m, "backspace")
		if m.screen != screenPlay {
			t.Errorf("Backspace does not close the screen %q opens (%d)", screenKey, opened)
			m.screen = screenPlay
		}
		keys(m, screenKey, "q")
		if m.screen != screenPlay && screenKey != "i" { // q may be a thing's letter
			t.Errorf("q does not close the screen %q opens (%d)", screenKey, opened)
			m.screen = screenPlay
		}
		m.screen = screenPlay
	}

	m, _ = viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 40, 20)
	keys(m, "b", "2")
	if !m.mk.selling {
		t.Error("2 on a market does not turn to selling")
	}
	keys(m, "1")
	if m.mk.selling {
		t.Error("1 on a market does not turn to buying")
	}
}
