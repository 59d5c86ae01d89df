package server

import (
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// A game and a watch on one connection, as a multiplexing client opens them, each draw
// on their own screen: a session's frames go to the channel found through the session's
// own context, not through its connection's, which the two share.
func TestAGameAndAWatchOnOneConnectionDrawApart(t *testing.T) {
	srv := startServer(t, t.TempDir())
	a := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	a.enterDungeon("Gareth")

	c := dial(t, srv.addr, newKey(t))
	// Both channels are open before either starts: a value kept in the connection's
	// context would be the watch's when the game's program starts.
	var chans [2]*gossh.Session
	for i := range chans {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		chans[i] = s
	}
	start := func(s *gossh.Session, w, h int, cmd string) *terminal {
		tm, err := startTerminalIn(t, c, s, w, h, nil, cmd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tm.close)
		return tm
	}
	game := start(chans[0], 80, 24, "")
	game.enterDungeon("Lynette")
	watch := start(chans[1], 120, 40, "watch gareth")
	watch.waitFor("WATCHING Gareth", "Gareth │ Level 1")
	_, k := openDir(t)
	game.press(k) // the game's frames come on, on its own screen
	a.press(k)
	waitUntil(t, "both screens to show their own knight's step", func() bool {
		g, w := game.screen(), watch.screen()
		return strings.Contains(g, "Lynette │ Level 1") && !strings.Contains(g, "On the exit") &&
			strings.Contains(w, "Gareth │ Level 1") && !strings.Contains(w, "On the exit")
	})
	if g := game.screen(); strings.Contains(g, "WATCHING") || strings.Contains(g, "Gareth │") {
		t.Fatalf("the watch's frames showed on the game's screen:\n%s", g)
	}
	if w := watch.screen(); strings.Contains(w, "Lynette │") {
		t.Fatalf("the game's frames showed on the watch's screen:\n%s", w)
	}
	if lines := strings.Split(strings.TrimRight(watch.screen(), "\n"), "\n"); len(lines) < 30 {
		t.Fatalf("the watch's 120×40 screen drew %d lines", len(lines))
	}
}
