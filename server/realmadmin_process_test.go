package server

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// An admin's commands across three realms, each the binary run as its own process on one
// embedded etcd, each with a nats-server of its own (B and C routed to A). The admin's
// session is on A; Kay plays on B; Bors is kept in etcd, last played on C. What each
// command did is read where the knight sees it (its SSH session's screen, or its next
// login on another realm) or on the other realms.

// The knights' terminals outlive a subtest, so each subtest makes them its own (kay.t =
// t): a failure on a screen fails that subtest.

// realmTrio is three realm processes that talk, and the admin key every one of them
// takes.
type realmTrio struct {
	etcd    string
	a, b, c *realmProcess
	admin   gossh.Signer
}

// startRealmTrio starts realms A, B and C as processes, B and C routed to A, and waits
// until A's realms listing has the three.
func startRealmTrio(t *testing.T) realmTrio {
	t.Helper()
	tr := realmTrio{etcd: etcdtest.Start(t), admin: newKey(t)}
	secret := secretFile(t, testRealmSecret)
	spec := func(name string, seed uint64, routes ...string) realmSpec {
		dir := t.TempDir()
		writeAdminKeys(t, dir, tr.admin)
		talk := []string{"-nats-listen", "127.0.0.1:0", "-realm-secret", secret}
		if len(routes) > 0 {
			talk = append(talk, "-nats-routes", strings.Join(routes, ","))
		}
		return realmSpec{name: name, etcd: tr.etcd, dir: dir, seed: seed, ttl: 5 * time.Second, extra: talk}
	}
	var err error
	if tr.a, err = launchRealm(t, spec("A", defaultSeed)); err != nil {
		t.Fatal(err)
	}
	if tr.b, err = launchRealm(t, spec("B", defaultSeed+1, tr.a.routesAddr())); err != nil {
		t.Fatal(err)
	}
	if tr.c, err = launchRealm(t, spec("C", defaultSeed+2, tr.a.routesAddr())); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*realmProcess{tr.a, tr.b, tr.c} {
		waitUntil(t, "the three realms listed on "+p.addr, func() bool {
			out, _, _ := runCmdQuiet(p.addr, tr.admin, "realms")
			return len(realmAnswered.FindAllString(out, -1)) == 3
		})
	}
	return tr
}

// realmAnswered is a line of realms of a realm that answered (or this one).
var realmAnswered = regexp.MustCompile(`(?m)^[ABC] +\S+ +\d+ +(\(here\)|[\d.]+ ms)$`)

// adminRun runs an admin's command on the realm at addr and fails the test unless it
// succeeds and its output matches want.
func (tr realmTrio) adminRun(t *testing.T, addr, cmd, want string) string {
	t.Helper()
	out, errOut, code := runCmd(t, addr, tr.admin, cmd)
	if code != 0 || !regexp.MustCompile(want).MatchString(out) {
		t.Fatalf("%s (exit %d) does not match %s:\n%s%s", cmd, code, want, out, errOut)
	}
	return out
}

func TestAdminCommandsReachThreeRealmProcesses(t *testing.T) {
	t.Parallel()
	tr := startRealmTrio(t)
	borsKey, kayKey := newKey(t), newKey(t)
	bors := openTerminal(t, tr.c.addr, borsKey, 100, 30, nil)
	bors.enterDungeon("Bors")
	bors.quit()
	kay := openTerminal(t, tr.b.addr, kayKey, 100, 30, nil)
	kay.enterDungeon("Kay")
	waitWho(t, tr.a.addr, "Kay", "B")

	// who: a knight of another realm has no session here, so none of its session's
	// figures: each is "-", not a connection of no time that sent nothing.
	t.Run("who", func(t *testing.T) {
		out := tr.adminRun(t, tr.a.addr, "who", `(?m)^Kay +B +1 `)
		if !regexp.MustCompile(`(?m)^Kay +B +1 +- +- +- +- +- +- +K-\S+ +-$`).MatchString(out) {
			t.Fatalf("who on A shows figures of a session Kay has not here:\n%s", out)
		}
	})

	t.Run("knight", func(t *testing.T) {
		tr.adminRun(t, tr.a.addr, "knight Kay", `(?m)^status +online in realm B, level 1$`)
		tr.adminRun(t, tr.a.addr, "knight Bors", `(?m)^status +offline, level 1`)
	})

	// rename of a knight playing on B: it is told there, and every realm finds it by its
	// new name only.
	t.Run("rename a knight playing on another realm", func(t *testing.T) {
		kay.t = t
		tr.adminRun(t, tr.a.addr, "rename Kay Kaye", `^Renamed Kay \(K-\S+\) to Kaye\. It plays in realm B, which has been told\.\n$`)
		kay.waitFor("An admin has renamed your knight: you are now Kaye (you were Kay).")
		// A renamed it as its command ran; B and C as they hear of it.
		if out, _, code := runCmd(t, tr.a.addr, tr.admin, "knight Kay"); code == 0 {
			t.Fatalf("the old name still finds the knight on A:\n%s", out)
		}
		for _, p := range []*realmProcess{tr.b, tr.c} {
			waitUntil(t, "the old name to find no knight on "+p.addr, func() bool {
				_, _, code := runCmdQuiet(p.addr, tr.admin, "knight Kay")
				return code == 1
			})
		}
		for _, p := range []*realmProcess{tr.a, tr.b, tr.c} {
			tr.adminRun(t, p.addr, "knight Kaye", `(?m)^knight +Kaye `)
		}
	})

	// rename of a knight kept on C, offline: a letter written on B reaches it by its new
	// name, it is told of the rename when it next plays, on C, and its old name is free
	// on B.
	t.Run("rename a knight kept in etcd", func(t *testing.T) {
		kay.t = t
		tr.adminRun(t, tr.a.addr, "rename Bors Borsa", `^Renamed Bors \(K-\S+\) to Borsa\. It will be told when it next plays\.\n$`)
		// B hears of the rename a moment after A's command ends: the letter is written
		// again, for 10 s, while B answers that no Borsa has been here.
		sent := func() bool { return strings.Contains(screenWords(kay.screen()), "Your letter to Borsa is sent") }
		for deadline := time.Now().Add(10 * time.Second); !sent(); {
			if time.Now().After(deadline) {
				t.Fatalf("the letter on B to Borsa was not sent:\n%s", kay.screen())
			}
			kay.chat("/mail Borsa the letter from B")
			poll(time.Second, pollEvery, sent)
		}
		bors = openTerminal(t, tr.c.addr, borsKey, 100, 30, nil)
		bors.continueKnight()
		bors.waitWords("An admin has renamed your knight Borsa while you were away.")
		bors.press("e")
		bors.waitFor("from Kaye, ", "the letter from B")
		bors.press("q")
		bors.quit()
		// The old name is free on every realm: B, whose name book had it, lets a new
		// knight take it.
		newBors := openTerminal(t, tr.b.addr, newKey(t), 100, 30, nil)
		newBors.enterDungeon("Bors")
		newBors.quit()
	})

	// keys move on A: the key of a knight kept on C goes to a new key, which plays it on
	// B; a knight playing on B keeps its key until it leaves there.
	t.Run("keys move", func(t *testing.T) {
		newBors := newKey(t)
		tr.adminRun(t, tr.a.addr, "keys move "+keys.Fingerprint(borsKey.PublicKey())+" "+keys.Fingerprint(newBors.PublicKey()), `^Borsa is now played by `)
		if out, errOut, code := runCmd(t, tr.b.addr, newBors, "whoami"); code != 0 || !strings.Contains(out, "name: Borsa") {
			t.Fatalf("whoami on B with the key moved to (exit %d):\n%s%s", code, out, errOut)
		}
		borsKey = newBors
		out, errOut, code := runCmd(t, tr.a.addr, tr.admin, "keys move "+keys.Fingerprint(kayKey.PublicKey())+" "+keys.Fingerprint(newKey(t).PublicKey()))
		if code == 0 || !strings.Contains(errOut, "the knight plays in realm B; leave the game there first") {
			t.Fatalf("keys move of a knight playing on B (exit %d):\n%s%s", code, out, errOut)
		}
	})

	// silence made on A holds on B at once, and every realm lists it; lifted on C.
	t.Run("silence", func(t *testing.T) {
		kay.t = t
		tr.adminRun(t, tr.a.addr, "silence Kaye 1h --reason shouting", `^Silenced Kaye \(K-\S+\) until .*\. It plays in realm B, which has been told\.\n$`)
		kay.waitWords("An admin has silenced you until", "shouting")
		tr.adminRun(t, tr.c.addr, "silences", `(?m)^K-\S+ +Kaye +.* shouting$`)
		tr.adminRun(t, tr.c.addr, "unsilence Kaye", `^Lifted the silence of Kaye`)
		kay.waitWords("An admin has lifted your silence: you may talk again.")
	})

	// broadcast on A: read on B by its knight, saying which realm's admin.
	t.Run("broadcast", func(t *testing.T) {
		kay.t = t
		tr.adminRun(t, tr.a.addr, "broadcast the gates close at noon", `(?m)^Sent to the other realms' knights too\.$`)
		kay.waitWords("[admin] realm A: the gates close at noon")
	})

	// a report filed on B, by Gawain about Kaye: listed on A numbered with its realm,
	// resolved from A, and closed on B.
	t.Run("reports", func(t *testing.T) {
		gawain := openTerminal(t, tr.b.addr, newKey(t), 100, 30, nil)
		gawain.enterDungeon("Gawain")
		gawain.chat("/report Kaye rude \x1b[31mwords")
		gawain.waitWords("Your report about Kaye is with the admins")
		tr.adminRun(t, tr.a.addr, "reports", `(?m)^#B-1 open  .*  Gawain \(K-\S+\) reported Kaye \(K-\S+\): rude words$`)
		tr.adminRun(t, tr.a.addr, "reports resolve B-1", `^Report #B-1 \(Gawain about Kaye\) is resolved\.\n$`)
		tr.adminRun(t, tr.b.addr, "reports", `(?m)^#1 resolved by SHA256:\S+ at `)
		gawain.quit()
	})

	t.Run("kick", func(t *testing.T) {
		kay.t = t
		tr.adminRun(t, tr.a.addr, "kick Kaye --reason a rest", `^Removed Kaye from the dungeon of realm B, telling it why: a rest\n$`)
		if out := screenWords(kay.finalOutput()); !strings.Contains(out, "a rest") {
			t.Fatalf("Kaye's session on B was not ended:\n%s", kay.screen())
		}
	})

	// ban made on A of a knight playing on B: its session there ends, and C refuses its
	// key; unban on C lets it in on A.
	t.Run("ban", func(t *testing.T) {
		kay = openTerminal(t, tr.b.addr, kayKey, 100, 30, nil)
		kay.continueKnight()
		waitWho(t, tr.a.addr, "Kaye", "B")
		tr.adminRun(t, tr.a.addr, "ban Kaye --reason enough", `^Banned Kaye \(SHA256:\S+\)\. It plays in realm B, which has been told\.\n$`)
		if !kay.ended(10 * time.Second) {
			t.Fatalf("Kaye's session on B did not end:\n%s", kay.screen())
		}
		if _, errOut, code := runCmdQuiet(tr.c.addr, kayKey, "whoami"); code == 0 {
			t.Fatalf("C let the banned key in: %s", errOut)
		}
		tr.adminRun(t, tr.b.addr, "bans", `(?m)^SHA256:\S+ +Kaye +.* enough$`)
		tr.adminRun(t, tr.c.addr, "unban Kaye", `^Lifted the ban on SHA256:`)
		if out, errOut, code := runCmd(t, tr.a.addr, kayKey, "whoami"); code != 0 || !strings.Contains(out, "name: Kaye") {
			t.Fatalf("whoami on A after the unban (exit %d):\n%s%s", code, out, errOut)
		}
	})
}

// routesAddr is where the realm's nats-server takes routes, as its log said before it
// listened; "" for none.
func (p *realmProcess) routesAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := routesAt.FindStringSubmatch(p.log.String()); m != nil {
		return m[1]
	}
	return ""
}

// A realm restarted lists the other realms' knights, and they list its own, as soon as
// it takes players: not 5 s later, at the others' next presence.
func TestARestartedRealmKnowsWhoPlaysElsewhereAtOnce(t *testing.T) {
	t.Parallel()
	tr := startRealmTrio(t)
	kay := openTerminal(t, tr.a.addr, newKey(t), 100, 30, nil)
	kay.enterDungeon("Kay")
	waitWho(t, tr.b.addr, "Kay", "A")

	spec := tr.b.spec
	if err := tr.b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = tr.b.cmd.Wait()
	b, err := launchRealm(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	gawain := openTerminal(t, b.addr, newKey(t), 100, 30, nil)
	gawain.enterDungeon("Gawain")
	entered := time.Now()
	kayRow, gawainRow := regexp.MustCompile(`(?m)^Kay +A `), regexp.MustCompile(`(?m)^Gawain +B `)
	var onB, onC time.Duration
	if !poll(10*time.Second, 10*time.Millisecond, func() bool {
		if out, _, _ := runCmdQuiet(b.addr, tr.admin, "who"); onB == 0 && kayRow.MatchString(out) {
			onB = time.Since(up)
		}
		if out, _, _ := runCmdQuiet(tr.c.addr, tr.admin, "who"); onC == 0 && gawainRow.MatchString(out) {
			onC = time.Since(entered)
		}
		return onB != 0 && onC != 0
	}) {
		t.Fatalf("after B's restart, who on B lists Kay of A after %v, who on C lists Gawain of B after %v (0: not in 10 s)", onB, onC)
	}
	t.Logf("after B's restart: Kay of A listed on B %v after B listened, Gawain of B listed on C %v after it entered", onB, onC)
	if limit := 2 * time.Second; onB > limit || onC > limit {
		t.Fatalf("after B's restart, who on B lists Kay of A after %v, who on C lists Gawain of B after %v: over %v", onB, onC, limit)
	}
}
