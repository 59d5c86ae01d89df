package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
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
