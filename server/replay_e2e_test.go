package server

import (
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Replays over SSH (issue 33). A knight of 12 hits that cannot hit back walks into a
// guarded room of the default dungeon and dies there, a whisper reaching it during the
// fight. Another key then plays `replay Doomed --death` at 80×24 and at 40×20: the
// replay shows the blow that killed, and never the whisper; in screen-reader mode it
// tells the blow in sentences. The dead knight's own key lists the death and plays it
// with the whisper; its death screen's r plays the last minute. After a restart the
// replay is still there.
func TestAReplayOfADeathShowsTheBlowsToAnyoneAndTheWhisperOnlyToItsKnight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, other := newKey(t), newKey(t)
	in, room := seedDoomed(t, dir, key)
	srv := startServer(t, dir)
	tm, _, blow := dieWhispered(t, srv.addr, key, other, in, room)
	// The death screen offers the last minute: r plays it, q comes back.
	tm.waitFor("r: see how you fell")
	tm.press("r")
	tm.waitFor("REPLAY of Doomed")
	tm.press("f", "f", "f", "f")
	tm.waitFor("the end", blow)
	tm.press("q")
	tm.waitFor("R. I. P.", "r: see how you fell")
	tm.close()

	for _, size := range [][2]int{{80, 24}, {40, 20}} {
		r := openTerminalCmd(t, srv.addr, other, size[0], size[1], "replay Doomed --death")
		r.waitFor("REPLAY", blow)
		r.press("f", "f", "f", "f")
		r.waitFor("the end")
		if strings.Contains(r.rawOutput(), "secret is under") {
			t.Fatalf("%d×%d: the public replay shows the whisper:\n%s", size[0], size[1], r.screen())
		}
		r.press("q")
		if !r.ended(10 * time.Second) {
			t.Fatalf("q did not end the replay:\n%s", r.screen())
		}
	}

	plain := openTerminalCmd(t, srv.addr, other, 80, 24, "replay Doomed --death --plain")
	// At its own pace: the death comes as late in the minute as the fight was long (a
	// busy machine's fight takes more rounds), so the wait is the minute's and more.
	if !poll(90*time.Second, pollEvery, func() bool { return containsAll(plain.screen(), []string{"hits Doomed for", "Doomed is slain!"}) }) {
		t.Fatalf("the replay in words never told the blow that killed; it shows:\n%s", plain.screen())
	}
	if !strings.Contains(plain.rawOutput(), "You watch the replay of Doomed.") {
		t.Fatalf("screen-reader mode does not say whose replay it is:\n%s", plain.rawOutput())
	}
	plain.press("slower", keyEnter)
	plain.waitFor("Replay: ", "½×")

	out, _, code := runCmd(t, srv.addr, key, "replay")
	if code != 0 || !strings.Contains(out, "2  Doomed died") {
		t.Fatalf("the dead knight's key lists (status %d):\n%s", code, out)
	}
	own := openTerminalCmd(t, srv.addr, key, 100, 30, "replay 2")
	own.waitFor("REPLAY of Doomed")
	own.press("f", "f", "f", "f")
	own.waitFor("the end")
	if !strings.Contains(own.rawOutput(), "Bors whispers: the secret is under the stairs") {
		t.Fatalf("the knight's own replay lacks the whisper:\n%s", own.screen())
	}

	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	srv = startServer(t, dir)
	again := openTerminalCmd(t, srv.addr, other, 80, 24, "replay Doomed --death")
	again.waitFor("REPLAY of Doomed", blow)
}

// An admin sees what a reported knight did beside the report: `reports` says how to play
// the 2 minutes kept with it, and `replay --report N` plays them (what anyone may see of
// them); a player's key is refused, and a report with nothing kept says so.
func TestAnAdminReplaysAReportedKnight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin, alice, bob := newKey(t), newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	srv := startServer(t, dir)
	a := openTerminal(t, srv.addr, alice, 100, 30, nil)
	a.enterDungeon("Gawain")
	b := openTerminal(t, srv.addr, bob, 100, 30, nil)
	b.enterDungeon("Percival")
	b.chat("hello there, you fool")
	b.chat("/w Gawain and a secret insult")
	a.waitFor("Percival says: hello there, you fool")
	a.chat("/report Percival rude words")
	a.waitFor("Your report about Percival is with the admins")
	out, _, code := runCmd(t, srv.addr, admin, "reports")
	_, port, _ := net.SplitHostPort(srv.addr)
	if code != 0 || !strings.Contains(out, "(what Percival did in the 2 minutes before: ssh -t -p "+port+" localhost replay --report 1)") {
		t.Fatalf("reports (status %d):\n%s", code, out)
	}
	r := openTerminalCmd(t, srv.addr, admin, 80, 24, "replay --report 1")
	r.waitFor("REPLAY", "Percival") // at 80 columns the bar gives the name up for the keys' words; the status line names it
	r.press("f", "f", "f", "f")
	r.waitFor("the end", "You say: hello there, you fool")
	if strings.Contains(r.rawOutput(), "secret insult") {
		t.Fatalf("the report's replay shows a whisper:\n%s", r.screen())
	}
	refused := openTerminalCmd(t, srv.addr, alice, 80, 24, "replay --report 1")
	refused.waitFor(command.PermissionDenied)
	none := openTerminalCmd(t, srv.addr, admin, 80, 24, "replay --report 7")
	none.waitFor("No replay is kept with report 7.")
}

// A number past the key's list is answered with how many it has, counted in English:
// "1 replay", not "1 replays".
func TestAReplayNumberPastTheListSaysHowManyThereAre(t *testing.T) {
	key := newKey(t)
	srv := startServer(t, t.TempDir())
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Kay")
	tm.close()
	waitUntil(t, "the knight's record listed", func() bool {
		out, _, _ := runCmd(t, srv.addr, key, "replay")
		return strings.Contains(out, "1  your last 10 minutes")
	})
	r := openTerminalCmd(t, srv.addr, key, 80, 24, "replay 9")
	r.waitFor("You have 1 replay: replay alone lists them.")
}

// seedDoomed seeds Doomed at the guards' door of the default dungeon: 12 hits, so it
// lives past the first blow and the fight is seen, and Dexterity 3, so it cannot hit back.
func seedDoomed(t *testing.T, dir string, key gossh.Signer) (in []string, room []world.Pos) {
	return seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits = "Doomed", 3, 12, 12
	})
}

// dieWhispered plays Doomed (key) into the guarded room and fights until it dies, Bors
// (other) whispering to it during the fight. It returns Doomed's terminal on the death
// screen, the killer as the tombstone names it ("a Rot Grub") and the name its blows go
// by ("Rot Grub").
func dieWhispered(t *testing.T, addr string, key, other gossh.Signer, in []string, room []world.Pos) (tm *terminal, killer, blow string) {
	t.Helper()
	bors := openTerminal(t, addr, other, 100, 30, nil)
	bors.enterDungeon("Bors")
	tm = openTerminal(t, addr, key, 100, 30, nil)
	tm.waitFor("Welcome back, Doomed")
	tm.press(keyEnter)
	tm.waitFor("Doomed │ Level 1")
	walk(t, tm, addr, key, in, room)
	tm.waitFor("FIGHT")
	bors.chat("/w Doomed the secret is under the stairs")
	tm.waitFor("Bors whispers: the secret is under the stairs")
	if !poll(30*time.Second, 50*time.Millisecond, func() bool {
		if strings.Contains(tm.screen(), "R. I. P.") {
			return true
		}
		tm.press("f")
		return false
	}) {
		t.Fatalf("the knight did not die:\n%s", tm.screen())
	}
	death := tm.waitFor("R. I. P.", "slain by")
	m := regexp.MustCompile(`slain by (an? [A-Z][a-z]+)`).FindStringSubmatch(death)
	if m == nil {
		t.Fatalf("no killer on the tombstone:\n%s", death)
	}
	return tm, m[1], strings.TrimPrefix(strings.TrimPrefix(m[1], "an "), "a ")
}

// A knight's own record, asked for while it plays, has its last seconds: the recorder
// hands over the knight's open chunk first (the record missed up to 20 s of it before).
func TestAnOwnReplayAskedWhilePlayingHasItsLastSeconds(t *testing.T) {
	key := newKey(t)
	srv := startServer(t, t.TempDir())
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Kay")
	tm.chat("the newest line of all")
	tm.waitFor("You say: the newest line of all")
	r := openTerminalCmd(t, srv.addr, key, 80, 24, "replay 1")
	r.waitFor("REPLAY")
	r.press("f", "f", "f", "f")
	r.waitFor("the end", "You say: the newest line of all")
}
