package server

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// twoRealms starts realms A and B on one etcd, talking over routes, A's admins given.
func twoRealms(t *testing.T, admins ...gossh.Signer) (a, b *testServer, sa *Server) {
	t.Helper()
	etcd := etcdtest.Start(t)
	a, sa = startTalkingRealm(t, "A", etcd, defaultSeed, nil, admins...)
	b, sb := startTalkingRealm(t, "B", etcd, defaultSeed+1, []string{sa.talk.(*realmTalk).srv.ClusterAddr()}, admins...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range []*Server{sa, sb} {
		if err := s.talk.(*realmTalk).srv.WaitRoutes(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, sa
}

// kayID is the id of the knight named Kaye, as knight --json says on addr.
func kayID(t *testing.T, addr string, admin gossh.Signer) string {
	t.Helper()
	return runJSON[command.KnightJSON](t, dial(t, addr, admin), "knight Kaye --json").Knight
}

// An admin's commands on realm A act on knights wherever they play, as on a server alone:
// knight finds a knight playing on B, and says so; rename renames it there, telling it,
// and the new name is the one every realm finds; kick removes it from B; a knight offline
// renamed on A plays on B under its new name; stats counts the knights the realms keep.
func TestAdminCommandsReachEveryRealm(t *testing.T) {
	t.Parallel()
	admin := newKey(t)
	a, b, sa := twoRealms(t, admin)
	borsKey := newKey(t)
	bors := openTerminal(t, b.addr, borsKey, 100, 30, nil)
	bors.enterDungeon("Bors")
	bors.quit()
	kay := openTerminal(t, b.addr, newKey(t), 100, 30, nil)
	kay.enterDungeon("Kay")
	waitWho(t, a.addr, "Kay", "B")

	if out, errOut, code := runCmd(t, a.addr, admin, "knight Kay"); code != 0 || !regexp.MustCompile(`(?m)^status +online in realm B, level 1$`).MatchString(out) {
		t.Fatalf("knight Kay on A (exit %d):\n%s%s", code, out, errOut)
	}
	out, errOut, code := runCmd(t, a.addr, admin, "rename Kay Kaye")
	if code != 0 || !regexp.MustCompile(`^Renamed Kay \(K-[A-Z0-9]+\) to Kaye\. It plays in realm B, which has been told\.\n$`).MatchString(out) {
		t.Fatalf("rename on A (exit %d):\n%s%s", code, out, errOut)
	}
	kay.waitFor("An admin has renamed your knight: you are now Kaye (you were Kay).")
	waitWho(t, a.addr, "Kaye", "B")
	for _, addr := range []string{a.addr, b.addr} {
		if out, errOut, code := runCmd(t, addr, admin, "knight Kaye"); code != 0 || !strings.Contains(out, "Kaye") {
			t.Fatalf("knight Kaye on %s (exit %d):\n%s%s", addr, code, out, errOut)
		}
		if _, _, code := runCmd(t, addr, admin, "knight Kay"); code == 0 {
			out, _, _ := runCmd(t, addr, admin, "knight Kay")
			t.Fatalf("the old name still finds the knight on %s:\n%s", addr, out)
		}
	}
	// A rename anyone on the talk could send, with no rename of an admin's in etcd, is
	// refused; an admin's next one is told from the name the knight really has.
	sa.talk.(*realmTalk).bus.Moderate(talk.Moderation{Kind: talk.ModRename, Knight: kayID(t, a.addr, admin), Name: "Forged"})
	if out, errOut, code := runCmd(t, a.addr, admin, "rename Kaye Kai"); code != 0 {
		t.Fatalf("a second rename on A (exit %d):\n%s%s", code, out, errOut)
	}
	kay.waitFor("An admin has renamed your knight: you are now Kai (you were Kaye).")
	if strings.Contains(kay.rawOutput(), "Forged") {
		t.Fatal("a rename etcd does not hold renamed the knight")
	}
	waitWho(t, a.addr, "Kai", "B")
	if out, errOut, code := runCmd(t, a.addr, admin, "kick Kai --reason a rest"); code != 0 || out != "Removed Kai from the dungeon of realm B, telling it why: a rest\n" {
		t.Fatalf("kick on A (exit %d):\n%s%s", code, out, errOut)
	}
	if out := screenWords(kay.finalOutput()); !strings.Contains(out, "a rest") {
		t.Fatalf("Kaye's session on B was not ended:\n%s", kay.screen())
	}

	if out, errOut, code := runCmd(t, a.addr, admin, "rename Bors Borsa"); code != 0 || !strings.HasSuffix(out, "It will be told when it next plays.\n") {
		t.Fatalf("rename of a knight offline on A (exit %d):\n%s%s", code, out, errOut)
	}
	if out, _, _ := runCmd(t, b.addr, borsKey, "whoami"); !strings.Contains(out, "name: Borsa") {
		t.Fatalf("whoami on B after the rename on A:\n%s", out)
	}
	for _, addr := range []string{a.addr, b.addr} {
		if out, errOut, code := runCmd(t, addr, admin, "stats"); code != 0 || !regexp.MustCompile(`(?m)^knights stored +2$`).MatchString(out) {
			t.Fatalf("stats on %s (exit %d):\n%s%s", addr, code, out, errOut)
		}
	}
}
