package server

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
)

// Issue 47, item 1: a whisper to a knight reading the map went unseen until it looked at
// the log. Over real SSH, with the server's clock in the test's hands: a whisper to a
// knight that has pressed no key for 30 seconds rings the bell (one BEL byte in its
// terminal's raw output) and marks its status line; a second whisper within the bell's
// gap rings no more; a mention of its name in a say rings, a say that names no one does
// not; /bell off silences it; on the map a whisper rings at once, idle or not; /bell all
// is kept for the key's next connection.
func TestBellOverSSH(t *testing.T) {
	t.Parallel()
	cfg, _, clock := clockedConfig(t)
	srv, _ := startConfigured(t, cfg)
	a := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	a.enterDungeon("Gawain")
	kb := newKey(t)
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.enterDungeon("Bors")
	b.waitFor("With you: Gawain")
	bells := func() int { return strings.Count(b.rawOutput(), "\a") }
	want := func(what string, n int) {
		t.Helper()
		if got := bells(); got != n {
			t.Fatalf("%s: Bors's terminal got %d bells, want %d:\n%s", what, got, n, b.screen())
		}
	}
	want("coming into the game", 0)

	// Bors leaves the keys for 31 seconds: the whisper shows on its screen, and rings.
	clock.add(app.AlertIdle + time.Second)
	a.chat("/w bors one")
	b.waitFor("Gawain whispers: one", "(!) whisper from Gawain")
	want("a whisper to an idle knight", 1)
	a.chat("/w bors two")
	b.waitFor("Gawain whispers: two")
	want("a second whisper within the gap", 1)
	clock.add(app.BellGap)
	a.chat("bors, look at this")
	b.waitFor("Gawain says: bors, look at this", "(!) Gawain named you")
	want("a say naming Bors", 2)
	clock.add(app.BellGap)
	a.chat("nice weather")
	b.waitFor("Gawain says: nice weather")
	want("a say naming no one", 2)

	// /bell off: nothing rings, idle or not.
	b.chat("/bell off")
	b.waitFor("The bell is off")
	b.log() // keys: the note over the messages goes
	clock.add(app.AlertIdle + app.BellGap)
	a.chat("/w bors three")
	a.waitFor("You whisper to Bors: three")
	b.waitFor("Gawain whispers: three")
	want("a whisper with the bell off", 2)

	// Back to whispers and mentions: on the map, where the message does not show, a
	// whisper rings with a key just pressed. Cai whispers it: Gawain has said the five
	// lines the flood allowance lets a knight say in ten seconds.
	c := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	c.enterDungeon("Cai")
	b.chat("/bell mentions")
	b.waitFor("The bell rings for whispers")
	clock.add(app.BellGap)
	b.press("m")
	b.waitFor("Map of level 1")
	c.chat("/w bors four")
	c.waitFor("You whisper to Bors: four")
	waitUntil(t, "the bell on the map", func() bool { return bells() == 3 })
	b.press("q")
	b.waitFor("Cai whispers: four", "(!) whisper from Cai")
	b.press("M")
	b.waitFor("MESSAGES AND CHAT")
	b.press("q")
	b.waitScreen("the mark gone with the log looked at", func(s string) bool {
		return strings.Contains(s, "Bors │ Level 1") && !strings.Contains(s, "(!)")
	})
	want("the end", 3)

	// The setting is kept with the key's options, for its next connection.
	b.chat("/bell all")
	b.waitFor("The bell rings for every line said to you")
	b.quit()
	again := openTerminal(t, srv.addr, kb, 100, 30, nil)
	again.continueKnight()
	again.press("o")
	again.waitFor("OPTIONS", "h  Bell                 all")
}

// Screen-reader mode over real SSH writes no bell (a screen reader may read the byte out):
// a whisper to a knight away from the keys is said with "Alert: " before it; one at the
// keys is said as it is.
func TestPlainAlertOverSSH(t *testing.T) {
	cfg, _, clock := clockedConfig(t)
	srv, _ := startConfigured(t, cfg)
	a := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	a.enterDungeon("Gawain")
	p := openTerminalCmd(t, srv.addr, newKey(t), 80, 24, "play --plain")
	p.enterPlain("Bors")
	a.chat("/w bors at the keys")
	p.waitRaw("\r\nGawain whispers: at the keys\r\n")
	clock.add(app.AlertIdle + time.Second)
	a.chat("/w bors are you there?")
	p.waitRaw("Alert: Gawain whispers: are you there?")
	if raw := p.rawOutput(); strings.Contains(raw, "\a") || strings.Contains(raw, "Alert: Gawain whispers: at the keys") {
		t.Fatalf("screen-reader mode wrote a bell, or alerted a knight at the keys:\n%q", raw)
	}
}
