package server

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// Issue 32's moderation tools, as the players see them over SSH.

// kick --reason: the kicked player reads the reason on its screen before the connection
// closes, and the terminal keeps it after; what could reach the terminal as a command
// (an escape sequence, a title change) is cleaned from it.
func TestKickReasonIsOnTheKickedPlayersScreen(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	tm := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Dinadan")
	out, errOut, code := runCmd(t, srv.addr, admin, "kick Dinadan --reason 'mocking \x1b]0;pwned\x07newcomers \x1b[2Kon the newbie channel'")
	if code != 0 || !strings.Contains(out, "telling it why: mocking newcomers on the newbie channel") {
		t.Fatalf("kick --reason: exit %d: %q %q", code, out, errOut)
	}
	tm.waitFor("An admin has removed you from the dungeon.", "Reason: mocking newcomers on the newb") // wrapped at 80 columns
	raw := tm.finalOutput()
	if strings.Contains(raw, "pwned") || strings.Contains(raw, "\x1b[2K") {
		t.Errorf("the reason reached the terminal with its escape sequences: %q", raw)
	}
	if tail := raw[max(0, len(raw)-200):]; !strings.Contains(tail, "Reason: mocking newcomers on the newbie channel") {
		t.Errorf("the terminal does not keep the reason after the game: %q", tail)
	}
}

// keys move: the old key's game, open when the knight is given to another key, reads why
// it ends, and its terminal keeps the line; the knight, saved, plays on with the new key.
func TestKeysMoveTellsTheOldSessionWhy(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	old, found := newKey(t), newKey(t)
	tm := openTerminal(t, srv.addr, old, 100, 30, nil)
	tm.enterDungeon("Lucan")
	mustRun(t, srv.addr, admin, "keys move "+keys.Fingerprint(old.PublicKey())+" "+keys.Fingerprint(found.PublicKey()))
	tm.waitFor("An admin has moved your knight to another key")
	if raw := tm.finalOutput(); !strings.Contains(raw[max(0, len(raw)-300):], command.KeyMovedMessage) {
		t.Errorf("the terminal does not keep why the game ended: %q", raw[max(0, len(raw)-300):])
	}
	again := openTerminal(t, srv.addr, found, 100, 30, nil)
	again.continueKnight()
	again.waitFor("Lucan")
}

// An admin in the game reads a line in its messages when a player files a report; a
// player who is not an admin reads nothing of it.
func TestAnAdminInTheGameIsToldOfANewReport(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	arthur := openTerminal(t, srv.addr, admin, 100, 30, nil)
	arthur.enterDungeon("Arthur")
	bystander := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	bystander.enterDungeon("Bors")
	reporter := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	reporter.enterDungeon("Gareth")
	rude := openTerminal(t, srv.addr, newKey(t), 100, 30, nil)
	rude.enterDungeon("Agravain")

	reporter.chat("/report Agravain shouts at newcomers")
	reporter.waitFor("Your report about Agravain is with the admins")
	arthur.waitFor("[report] Gareth reported Agravain: shouts at newcomers (:reports to read it)")
	bystander.chat("the report is filed by now")
	bystander.waitFor("the report is filed by now")
	if strings.Contains(bystander.screen(), "[report]") {
		t.Errorf("a player who is not an admin was told of the report:\n%s", bystander.screen())
	}
}

// rename: a knight in the game reads its new name in its messages and on its status
// line; one renamed while away is told when it next plays, and plays under the new name.
func TestARenamedKnightIsTold(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.enterDungeon("Rudeword")
	mustRun(t, srv.addr, admin, "rename Rudeword Lionel")
	tm.waitFor("An admin has renamed your knight: you are now Lionel (you were Rudeword).", "Lionel │ Level 1")
	tm.quit()

	mustRun(t, srv.addr, admin, "rename Lionel Ector")
	again := openTerminal(t, srv.addr, key, 100, 30, nil)
	again.continueKnight()
	again.waitFor("An admin has renamed your knight Ector while you were away.", "Ector │ Level 1")
	if _, errOut, code := runCmd(t, srv.addr, admin, "rename Rudeword Bors"); code != 1 || !strings.Contains(errOut, `no knight "Rudeword"`) {
		t.Errorf("the old name still finds the knight: %d %q", code, errOut)
	}
}
