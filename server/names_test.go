package server

import (
	"strings"
	"testing"
)

// A knight with a key may not take a guest's name; a guest may.
func TestAGuestsNameIsAGuests(t *testing.T) {
	for name, want := range map[string]bool{"Guest": true, "guest tom": true, "GUEST-Tom": true, "Guest's": true,
		"Guestwick": true, "GUESTLY": true, "Gu-est Lancelot": true, "G'uest Kay": true, "Gue5t": true, " G u e s t": true,
		"Tom Guest": false, "Sir Kay": false, "Gues": false, "Gust": false} {
		if got := looksLikeAGuest(name); got != want {
			t.Errorf("looksLikeAGuest(%q) = %v", name, got)
		}
	}
	srv := startWorld(t)
	if n := srv.namesFor("K-KEYED", false); !n.Taken("Guest Tom") || n.Claim("Guest Tom") {
		t.Error("a keyed knight may take a guest's name")
	}
	if n := srv.namesFor("guest-1", true); n.Taken("Guest Tom") || !n.Claim("Guest Tom") {
		t.Error("a guest may not take its own name")
	}
}

// Regression (issue 30): one address made 45 knights in 9 s, and a keyed knight took the
// name Guestly. An address makes -new-knights-per-hour knights in an hour; a game left
// before a knight was made does not count; the next new key reads why it is refused, and
// a key with a knight plays on. A name that begins with "Guest" is refused a keyed knight.
func TestNewKnightsPerAddressAreLimited(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Limits.NewKnightsPerHour = 2
	ts, _ := startConfigured(t, cfg)
	left := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	left.waitFor("Press Enter to begin")
	left.close()
	first := newKey(t)
	tm := openTerminal(t, ts.addr, first, 80, 24, nil)
	tm.waitFor("Press Enter to begin")
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press("Guestly", keyEnter)
	tm.waitFor("Names that begin with Guest are kept for guests")
	tm.press(strings.Repeat("\x7f", 10), "Kay", keyEnter)
	tm.waitFor("level 1 of the dungeon", "Depth 1")
	tm.quit()
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).enterDungeon("Bors")
	refused := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	refused.waitRaw("Too many new knights were made from your address in the last hour")
	again := openTerminal(t, ts.addr, first, 80, 24, nil)
	again.continueKnight()
}
