package server

import (
	"encoding/json"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// End-to-end tests of issue 20 with issue 18's knights: a knight of several keys is one
// knight to its letters and its silences, and a guest talks, asks on newbie, reports and
// is reported, is silenced for its session, but neither writes nor receives letters.

// A letter to a knight waits for the knight, not the key: written while it is away, it is
// read from its other key; a silence by name holds for every key of the knight, across a
// restart, and is listed by the knight's id.
func TestLettersAndSilencesHoldForEveryKeyOfAKnight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	ts, _ := startConfigured(t, testConfig(dir, defaultSeed))
	laptop, desktop, writer := newKey(t), newKey(t), newKey(t)
	b := openTerminal(t, ts.addr, laptop, 100, 30, nil)
	b.enterDungeon("Bors")
	knight := whoamiLive(t, b).Knight
	b.quit()
	code := keysAdd(t, ts.addr, laptop)
	if out, errOut, c := runCmd(t, ts.addr, desktop, "link "+code); c != 0 {
		t.Fatalf("link: %d %q %q", c, out, errOut)
	}

	w := openTerminal(t, ts.addr, writer, 100, 30, nil)
	w.enterDungeon("Gawain")
	w.chat("/mail Bors the north stair, at dusk")
	w.waitFor("Your letter to Bors is sent: Bors will find it on arriving.")
	out := mustRun(t, ts.addr, admin, "silence bors 2h --reason flooding")
	if !strings.Contains(out, "Silenced Bors ("+knight+")") {
		t.Fatalf("silence: %q", out)
	}
	var list []command.SilenceJSON
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "silences --json")), &list); err != nil || len(list) != 1 || list[0].Knight != knight {
		t.Fatalf("silences --json: %+v %v", list, err)
	}
	w.quit()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}

	ts, _ = startConfigured(t, testConfig(dir, defaultSeed))
	d := openTerminal(t, ts.addr, desktop, 100, 30, nil)
	d.continueKnight()
	d.waitFor("1 letter (e)")
	d.press("e")
	d.waitFor("LETTERS: 1 letter, 1 new", "from Gawain", "the north stair, at dusk")
	d.press("q")
	d.chat("hello?")
	d.waitFor("You are silenced until")

	// A timed ban of the knight by name bans each of its keys, with the same end.
	out = mustRun(t, ts.addr, admin, "ban bors --for 2h --reason cooling off")
	lfp, dfp := keys.Fingerprint(laptop.PublicKey()), keys.Fingerprint(desktop.PublicKey())
	if !strings.Contains(out, lfp) || !strings.Contains(out, dfp) || !strings.Contains(out, " until ") {
		t.Fatalf("ban --for of a knight of two keys: %q", out)
	}
	var bans []knights.Ban
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "bans --json")), &bans); err != nil || len(bans) != 2 ||
		bans[0].Until.IsZero() || !bans[0].Until.Equal(bans[1].Until) {
		t.Fatalf("bans --json: %+v %v", bans, err)
	}
	for _, key := range []gossh.Signer{laptop, desktop} {
		if banner, err := dialBanner(t, ts.addr, key); err == nil || !strings.Contains(banner, edge.BannedMessage) {
			t.Fatalf("a key of the banned knight: banner %q, err %v", banner, err)
		}
	}
}

// A guest is a newcomer: its title points it to newbie, where it asks and a knight
// answers; it emotes; it cannot write a letter, nor be written one, and is told why and
// how to keep a knight. It reports a knight and is reported, the reports marking it a
// guest; an admin silences it by its name for the session, the silence not kept.
func TestAGuestAsksReportsAndIsSilencedButHasNoLetters(t *testing.T) {
	t.Parallel()
	cfg, admin, clock := clockedConfig(t)
	ts, srv := startConfigured(t, cfg)
	c, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	g := terminalOn(t, c, 80, 24, nil, "")
	g.waitFor("You are a guest", "newbie channel")
	g.enterDungeon("Tom")
	g.waitFor("Guest Tom │ Level 1")
	k := openTerminal(t, ts.addr, newKey(t), 100, 30, nil)
	k.enterDungeon("Kay")
	k.waitFor("With you: Guest Tom")

	// The guest's two lines of its allowance (a letter it may not send counts for none).
	g.chat("/newbie how do I go down?")
	k.waitFor("[newbie] Guest Tom: how do I go down?")
	k.chat("/newbie find the > and press it")
	g.waitFor("[newbie] Kay: find the > and press it")
	g.chat("/mail Kay thank you")
	g.waitFor("Guests cannot send or receive letters")
	k.chat("/mail guest tom welcome")
	k.waitFor("Guest Tom is a guest: letters do not reach guests")
	k.chat("/report guest tom shouts at me")
	k.waitFor("Your report about Guest Tom is with the admins")
	g.chat("/report kay was rude")
	g.waitFor("Your report about Kay is with the admins")
	g.chat("/me bows") // its third line in ten seconds
	g.waitScreen("the guest's allowance", func(s string) bool {
		return strings.Contains(screenWords(s), "A guest may send 2 lines in 10 seconds")
	})
	out := mustRun(t, ts.addr, admin, "reports")
	if !strings.Contains(out, "reported Guest Tom (guest-") || !strings.Contains(out, "Guest Tom (guest-") ||
		!strings.Contains(out, ", a guest) reported Kay (K-") {
		t.Fatalf("reports:\n%s", out)
	}

	out = mustRun(t, ts.addr, admin, "silence guest tom 1h")
	if !strings.Contains(out, "Silenced Guest Tom (guest-") || !strings.Contains(out, "not kept in the database") {
		t.Fatalf("silence of a guest: %q", out)
	}
	g.waitFor("An admin has silenced you until 2025-06-01 15:00 UTC")
	if out := mustRun(t, ts.addr, admin, "silences"); !strings.Contains(out, "Guest Tom (a guest: for its session)") {
		t.Fatalf("silences does not list the guest's:\n%s", out)
	}
	if err := srv.saver.Flush(); err != nil {
		t.Fatal(err)
	}
	if stored, err := srv.store.Silences(clock.now()); err != nil || len(stored) != 0 {
		t.Fatalf("a guest's silence was stored: %+v %v", stored, err)
	}
	if out := mustRun(t, ts.addr, admin, "unsilence guest tom"); !strings.Contains(out, "Lifted the silence of Guest Tom") {
		t.Fatalf("unsilence of a guest: %q", out)
	}
	g.waitFor("An admin has lifted your silence")
	if _, errOut, code := runCmd(t, ts.addr, admin, "unsilence guest tom"); code != 1 || !strings.Contains(errOut, "is not silenced") {
		t.Fatalf("unsilence twice: %d %q", code, errOut)
	}
	if out := mustRun(t, ts.addr, admin, "silences"); !strings.Contains(out, "No knight is silenced.") {
		t.Fatalf("silences after the guest's was lifted:\n%s", out)
	}
}
