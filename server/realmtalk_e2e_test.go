package server

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// Talk across realms end to end: three realms in this process on one embedded etcd, each
// running a nats-server joined to the first's by routes, with real SSH clients.

// startTalkingRealm starts a realm whose embedded nats-server takes routes on a free
// loopback port and joins those given.
func startTalkingRealm(t *testing.T, name, etcd string, seed uint64, routes []string, admins ...gossh.Signer) (*testServer, *Server) {
	t.Helper()
	dir := t.TempDir()
	writeAdminKeys(t, dir, admins...)
	cfg := testConfig(dir, seed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
	cfg.NATSListen, cfg.NATSRoutes, cfg.RealmSecret = "127.0.0.1:0", routes, testRealmSecret
	cfg.HTTPAddr = "127.0.0.1:0"
	return startConfigured(t, cfg)
}

// threeRealms starts realms A, B and C, B and C routed to A, and waits until every
// nats-server has its routes to the two others; A's admins are given. It returns A's
// server too, for its web page.
func threeRealms(t *testing.T, admins ...gossh.Signer) (a, b, c *testServer, sa *Server) {
	t.Helper()
	etcd := etcdtest.Start(t)
	a, sa = startTalkingRealm(t, "A", etcd, defaultSeed, nil, admins...)
	route := []string{sa.talk.(*realmTalk).srv.ClusterAddr()}
	b, sb := startTalkingRealm(t, "B", etcd, defaultSeed+1, route)
	c, sc := startTalkingRealm(t, "C", etcd, defaultSeed+2, route)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range []*Server{sa, sb, sc} {
		if err := s.talk.(*realmTalk).srv.WaitRoutes(ctx, 2); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, c, sa
}

// waitWho waits until who on the realm at addr lists the knight with its realm.
func waitWho(t *testing.T, addr, name, realm string) {
	t.Helper()
	key := newKey(t)
	row := regexp.MustCompile(`(?m)^` + name + ` +` + realm + ` `)
	waitUntil(t, name+" of "+realm+" in who on "+addr, func() bool {
		out, _, _ := runCmdQuiet(addr, key, "who")
		return row.MatchString(out)
	})
}

// A whisper from a knight on A reaches a knight on B and its answer comes back; a shout
// is heard in every realm; who lists each realm's knights with their realm; realms lists
// the three with a round trip; a letter written on A is read on B.
func TestTalkAcrossRealms(t *testing.T) {
	t.Parallel()
	a, b, c, sa := threeRealms(t)
	kay := openTerminal(t, a.addr, newKey(t), 100, 30, nil)
	kay.enterDungeon("Kay")
	bors := openTerminal(t, b.addr, newKey(t), 100, 30, nil)
	bors.enterDungeon("Bors")
	waitWho(t, a.addr, "Bors", "B")
	waitWho(t, a.addr, "Kay", "A")
	waitWho(t, c.addr, "Kay", "A")
	kay.press("w")
	kay.waitFor("WHO IS IN THE GAME", "In other realms:", "Bors", "in B")
	kay.press("q")
	var who []web.Player
	getJSON(t, "http://"+sa.httpLn.Addr().String()+"/api/who", &who)
	want := []web.Player{{Name: "Kay", Level: 1, Depth: 1, Realm: "A", Deeds: []web.Deed{{ID: "depth-1", Title: "Into the labyrinth"}}},
		{Name: "Bors", Level: 1, Realm: "B", Far: true}} // a far knight's deeds are its realm's page's
	if !reflect.DeepEqual(who, want) {
		t.Fatalf("/api/who on A: %+v", who)
	}

	kay.chat("/w bors meet me at the gate")
	bors.waitFor("Kay (in A) whispers: meet me at the gate")
	kay.waitFor("You whisper to Bors (in B): meet me at the gate")
	bors.chat("/r on my way")
	kay.waitFor("Bors (in B) whispers: on my way")

	kay.chat("/shout HEAR ME")
	kay.waitFor("You shout: HEAR ME")
	bors.waitFor("Kay (in A) shouts: HEAR ME")

	out, _, code := runCmd(t, a.addr, newKey(t), "realms")
	for _, want := range []string{`(?m)^REALM +ADDRESS +PLAYERS +ROUND TRIP$`, `(?m)^A +localhost:\d+ +1 +\(here\)$`,
		`(?m)^B +localhost:\d+ +1 +\d+\.\d\d ms$`, `(?m)^C +localhost:\d+ +0 +\d+\.\d\d ms$`} {
		if !regexp.MustCompile(want).MatchString(out) || code != 0 {
			t.Fatalf("realms on A (exit %d) does not match %s:\n%s", code, want, out)
		}
	}
	rows := runJSON[[]command.Realm](t, dial(t, c.addr, newKey(t)), "realms --json")
	if len(rows) != 3 || rows[0].Name != "C" || !rows[0].Here || rows[1].Name != "A" || !rows[1].Answered || rows[1].RTTms <= 0 {
		t.Fatalf("realms --json on C: %+v", rows)
	}

	kay.chat("/mail bors the letter from A")
	kay.waitFor("Your letter to Bors is sent")
	bors.waitFor("A letter from Kay has come.")
	bors.press("e")
	bors.waitFor("LETTERS: 1 letter, 1 new", "from Kay, ", "the letter from A")
}

// A ban made on realm A closes the banned knight's session on realm B at once.
func TestABanOnOneRealmClosesTheSessionOnAnother(t *testing.T) {
	t.Parallel()
	admin := newKey(t)
	a, b, _, _ := threeRealms(t, admin)
	mordred := openTerminal(t, b.addr, newKey(t), 100, 30, nil)
	mordred.enterDungeon("Mordred")
	waitWho(t, a.addr, "Mordred", "B")
	if out, errOut, code := runCmd(t, a.addr, admin, "ban Mordred --reason treason"); code != 0 {
		t.Fatalf("ban on A (exit %d): %s %s", code, out, errOut)
	}
	if out := screenWords(mordred.finalOutput()); !strings.Contains(out, "removed you from the dungeon") || !strings.Contains(out, "treason") {
		t.Fatalf("Mordred's session on B was not ended:\n%s", mordred.screen())
	}
}

// getJSON reads url's JSON answer into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(v); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", url, r.StatusCode, err)
	}
}

// A realm without NATS says so at start, and realms lists it alone, saying why.
func TestARealmWithoutTalkSaysSo(t *testing.T) {
	etcd := etcdtest.Start(t)
	dir := t.TempDir()
	cfg := testConfig(dir, defaultSeed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = "A", []string{etcd}, 3*time.Second
	var log lockedBuffer
	a, _ := startLogging(t, cfg, &log)
	if !strings.Contains(log.String(), "realm: no talk with the other realms") {
		t.Fatalf("the log does not say the realm talks alone:\n%s", log.String())
	}
	out, _, code := runCmd(t, a.addr, newKey(t), "realms")
	if code != 0 || !regexp.MustCompile(`(?m)^A +localhost:\d+ +0 +\(here\)$`).MatchString(out) || !strings.Contains(out, noTalkLine) {
		t.Fatalf("realms on a realm without talk (exit %d):\n%s", code, out)
	}
}
