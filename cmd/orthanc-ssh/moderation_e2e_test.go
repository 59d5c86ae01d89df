package main

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
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
	if raw := tm.finalOutput(); !strings.Contains(raw[max(0, len(raw)-300):], keyMovedMessage) {
		t.Errorf("the terminal does not keep why the game ended: %q", raw[max(0, len(raw)-300):])
	}
	again := openTerminal(t, srv.addr, found, 100, 30, nil)
	again.continueKnight()
	again.waitFor("Lucan")
}
