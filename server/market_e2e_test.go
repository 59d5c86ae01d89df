package server

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// potionsLeft reads how many potions of healing the market screen says are left.
func potionsLeft(t *testing.T, tm *terminal) (letter string, left int) {
	t.Helper()
	re := regexp.MustCompile(`([a-z])  potion of healing +60 +(\d+|none)`)
	s := tm.waitScreen("the potion of healing's line", func(s string) bool { return re.MatchString(s) })
	m := re.FindStringSubmatch(s)
	if m[2] == "none" {
		return m[1], 0
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		t.Fatal(err)
	}
	return m[1], n
}

// A market's stock outlasts a restart: a potion bought before the server stops is not on
// the shelf after it starts again.
func TestMarketStockSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	market, _, _, _ := firstMarket(t, defaultSeed)
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Gold = "Kay", 500
		a.Depth, a.X, a.Y = 0, market.X, market.Y
	})
	srv := startServer(t, dir)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.waitFor("Welcome back")
	tm.press(keyEnter)
	tm.waitFor("THE SURFACE")
	tm.press("b")
	letter, before := potionsLeft(t, tm)
	if before < 1 {
		t.Fatalf("the first market has no potion of healing to sell: %d", before)
	}
	tm.press(letter)
	tm.waitFor("You buy a potion of healing for 60 gold; you have 440 left.")
	if _, after := potionsLeft(t, tm); after != before-1 {
		t.Fatalf("%d potions left after buying one of %d", after, before)
	}
	tm.press("\x1b")
	tm.waitFor("THE SURFACE")
	tm.quit()
	if err := srv.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	srv = startServer(t, dir)
	tm = openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.waitFor("Welcome back")
	tm.press(keyEnter)
	tm.waitFor("THE SURFACE")
	tm.press("b")
	tm.waitFor("Your gold: 440")
	if _, left := potionsLeft(t, tm); left != before-1 {
		t.Fatalf("after a restart the market has %d potions of healing, want %d (it had %d before the purchase)", left, before-1, before)
	}
}
