package server

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Seed 002 end to end, with two real SSH clients: Kay invites Bors into a party; Kay buys
// a potion of healing at a market; the party walks the surface together (Bors follows
// Kay's steps) until the die starts a battle, which holds two monsters, one for each
// hero; both heroes act, Kay drinks the potion as its move, and both screens show the
// same battle log; the party wins and both come out of the battle.
func TestPartyBattleOnTheSurface(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	market, common, there, back := firstMarket(t, defaultSeed)
	kay, bors := newKey(t), newKey(t)
	for _, k := range []struct {
		key  gossh.Signer
		name string
		gold int
	}{{kay, "Kay", 500}, {bors, "Bors", 0}} {
		seedKnight(t, dir, k.key, func(a *world.Adventurer) {
			a.Name, a.Gold = k.name, k.gold
			a.Str, a.Dex = 18, 18
			a.Hits, a.MaxHits = 20, 60 // wounded, so the potion has work to do
			a.Depth, a.X, a.Y = 0, market.X, market.Y
		})
	}
	srv, game := startConfigured(t, testConfig(dir, defaultSeed))
	tk := openTerminal(t, srv.addr, kay, 100, 30, nil)
	tb := openTerminal(t, srv.addr, bors, 100, 30, nil)
	for _, tm := range []*terminal{tk, tb} {
		tm.waitFor("Welcome back")
		tm.press(keyEnter)
		tm.waitFor("THE SURFACE")
	}

	// The party.
	tk.chat("/invite Bors")
	tb.waitFor("Kay invites you to join the party.")
	tb.chat("/accept")
	tk.waitFor("Bors joins the party.")
	tb.waitFor("You join Kay's party.")
	// whoami says whom each is with (issue 14).
	for _, key := range []gossh.Signer{kay, bors} {
		if p := whoamiJSON(t, srv.addr, key).Party; p.Leader != "Kay" || !slices.Equal(p.Members, []string{"Kay", "Bors"}) {
			t.Fatalf("whoami's party: %+v", p)
		}
	}
	if out, _, _ := runCmd(t, srv.addr, bors, "whoami"); !strings.Contains(out, "party: Kay, Bors (led by Kay)\n") {
		t.Fatalf("whoami's text does not say the party:\n%s", out)
	}

	// The market: a letter buys the potion of healing.
	tk.press("b")
	s := tk.waitFor("potion of healing", "Your gold: 500")
	letter := regexp.MustCompile(`(?m)^([a-z])  potion of healing`).FindStringSubmatch(s)
	if letter == nil {
		t.Fatalf("no letter for the potion of healing:\n%s", s)
	}
	tk.press(letter[1])
	tk.waitFor("You buy a potion of healing for 60 gold; you have 440 left.")
	tk.press("\x1b")
	tk.waitFor("THE SURFACE")

	// Walk together until the die starts a battle (one step in six onto common ground).
	// The world starts it in the turn of the step, so once Kay is seen there the census
	// counts it; the screen may draw it later.
	inBattle := func(s string) bool {
		return strings.Contains(s, "BATTLE, ROUND") || strings.Contains(s, "FIGHT, ROUND")
	}
	fights := func() int {
		c, err := game.engine.Census(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return c.Fights
	}
	at := market
	for step := 0; fights() == 0; step++ {
		if step > 120 {
			t.Fatalf("no battle in %d steps:\n%s", step, tk.screen())
		}
		key, to := there, common
		if at == common {
			key, to = back, market
		}
		tk.press(key)
		if !poll(10*time.Second, pollEvery, func() bool { return whereIs(t, srv.addr, kay) == to }) {
			t.Fatalf("step %d: Kay never reached %v:\n%s", step, to, tk.screen())
		}
		at = to
		if b := whereIs(t, srv.addr, bors); b != to {
			t.Fatalf("step %d: Kay is at %v, Bors at %v: the party did not walk together", step, to, b)
		}
	}
	if at != common {
		t.Fatalf("a battle started on %v, not on common ground", at)
	}
	// Seed 002: "There will be as many monsters as there are heroes."
	attacks := regexp.MustCompile(`│ [> ] [a-z] [A-Z]`) // one line a monster in the battle panel
	for _, tm := range []*terminal{tk, tb} {
		s := tm.waitScreen("the battle", inBattle)
		if n := len(attacks.FindAllString(s, -1)); n != 2 {
			t.Fatalf("%d monsters attack, want 2 for 2 heroes:\n%s", n, s)
		}
	}

	// Both act: Bors fights, Kay drinks the potion (i, then its letter).
	tb.press("f")
	tk.press("i")
	s = tk.waitFor("potion of healing")
	potionLine := regexp.MustCompile(`(?m)^ +([a-z])[).]? +potion of healing`)
	letter = potionLine.FindStringSubmatch(s)
	if letter == nil {
		t.Fatalf("no letter for the potion in the inventory:\n%s", s)
	}
	tk.press(letter[1])
	// The list loses the potion's line; the message under it may still name the potion
	// (from the belt pouch a potion takes a tenth of a round, so no later line need come).
	tk.waitScreen("the potion gone from the inventory", func(s string) bool { return !potionLine.MatchString(s) })
	tk.press("\x1b")
	// The log is read in the panel's own columns: a line it wraps goes on beside the view.
	drank := regexp.MustCompile(`Kay drinks a potion of healing and recovers \d+ hits\.`)
	borsActs := regexp.MustCompile(`Bors (hits|misses|swings at)`)
	for _, tm := range []*terminal{tk, tb} {
		tm.waitScreen("Kay drinking and Bors fighting", func(s string) bool {
			p := panelText(s)
			return drank.MatchString(p) && borsActs.MatchString(p)
		})
	}
	// Fight on until the party wins: both leave the battle.
	if !poll(60*time.Second, 100*time.Millisecond, func() bool {
		if !inBattle(tk.screen()) && !inBattle(tb.screen()) {
			return true
		}
		tk.press("f")
		tb.press("f")
		return false
	}) {
		t.Fatalf("the battle never ended:\n%s\n%s", tk.screen(), tb.screen())
	}
	for _, key := range []gossh.Signer{kay, bors} {
		if w := whoamiJSON(t, srv.addr, key); w.Dead || w.Experience == 0 {
			t.Fatalf("after the battle: %+v", w)
		}
	}
}

// Issue 29, a party battle heard through screen-reader mode: two real SSH sessions in
// play --plain, Kay and Bors in one party, walk the surface until the die starts a
// battle. Each is told "Your move" when it is its turn; Bors, having chosen, is told
// whom the battle waits for ("The battle waits for Kay."), and Kay, holding Bors up, how
// long it has ("you have 90 seconds to choose"); once Kay acts the round goes on and both
// are told their move again. Not one escape sequence reaches either.
func TestPartyBattleInScreenReaderMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	market, common, there, back := firstMarket(t, defaultSeed)
	kay, bors := newKey(t), newKey(t)
	for _, k := range []struct {
		key  gossh.Signer
		name string
	}{{kay, "Kay"}, {bors, "Bors"}} {
		seedKnight(t, dir, k.key, func(a *world.Adventurer) {
			a.Name, a.Str, a.Dex = k.name, 18, 18
			a.Hits, a.MaxHits = 400, 400 // the battle lasts as long as the test needs
			a.Depth, a.X, a.Y = 0, market.X, market.Y
			a.Options.Plain = true
		})
	}
	srv := startServer(t, dir)
	tk := openTerminalCmd(t, srv.addr, kay, 80, 24, "play --plain")
	tb := openTerminalCmd(t, srv.addr, bors, 80, 24, "play --plain")
	for _, tm := range []*terminal{tk, tb} {
		tm.waitRaw("Welcome back")
		tm.press(keyEnter)
		tm.waitRaw("You are on the surface")
	}
	tk.press("/invite Bors", keyEnter)
	tb.waitRaw("Kay invites you to join the party.")
	tb.press("/accept", keyEnter)
	tk.waitRaw("Bors joins the party.")

	// Walk together until the die starts a battle.
	moves := func(tm *terminal) int { return strings.Count(tm.rawOutput(), "Your move") }
	at := market
	for step := 0; moves(tk) == 0; step++ {
		if step > 120 {
			t.Fatalf("no battle in %d steps:\n%s", step, tk.rawOutput())
		}
		key, to := there, common
		if at == common {
			key, to = back, market
		}
		prompts := strings.Count(tk.rawOutput(), "\n> ")
		tk.press(key)
		if !poll(10*time.Second, pollEvery, func() bool { return whereIs(t, srv.addr, kay) == to }) {
			t.Fatalf("step %d: Kay never reached %v:\n%s", step, to, tk.rawOutput())
		}
		at = to
		// The step is answered (a battle, if any, with it) before the prompt comes back.
		tk.waitRawFor("the step's answer", func(s string) bool { return strings.Count(s, "\n> ") > prompts })
	}
	// Both heroes are choosing: each is told its move, and neither is hurried.
	for _, tm := range []*terminal{tk, tb} {
		tm.waitRawFor("the first move", func(s string) bool { return strings.Contains(s, "Your move") })
	}
	kayMoves, borsMoves := moves(tk), moves(tb)

	// Bors chooses; the battle waits for Kay, and both are told.
	tb.press("fight", keyEnter)
	tb.waitRaw("The battle waits for Kay.")
	tk.waitRaw("The others wait for you: you have 90 seconds to choose.")
	if strings.Contains(tk.rawOutput(), "The battle waits for Kay.") {
		t.Fatal("Kay was told the battle waits for itself")
	}
	// Kay chooses; the round goes on and each is told its move again.
	tk.press("fight", keyEnter)
	tk.waitRawFor("Kay's next move", func(string) bool { return moves(tk) > kayMoves })
	tb.waitRawFor("Bors's next move", func(string) bool { return moves(tb) > borsMoves })
	for _, tm := range []*terminal{tk, tb} {
		noEscape(t, tm.rawOutput())
	}
}
