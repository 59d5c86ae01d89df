package server

import (
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Realms end to end: two servers in this process, each with its own data folder and
// dungeon, sharing their knights through one embedded etcd.

// startRealm starts a realm server on etcd (an address, or a proxy's), its dungeon of
// seed, admins given; the lease is short so that a cut-off realm stops in a second or so.
func startRealm(t *testing.T, name, etcd string, seed uint64, admins ...gossh.Signer) *testServer {
	t.Helper()
	dir := t.TempDir()
	writeAdminKeys(t, dir, admins...)
	cfg := testConfig(dir, seed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
	ts, _ := startConfigured(t, cfg)
	return ts
}

// sharedRecords reads the realms' records in etcd, as the test's own client.
func sharedRecordsOf(t *testing.T, etcd string) *records.Store {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return records.New(cli, records.Options{})
}

// One key plays on realm A, then logs in on realm B: A's player is told where the
// knight went and disconnected, and B plays the knight with A's last checkpoint, at
// B's entrance.
func TestAKnightMovesBetweenRealms(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	a := startRealm(t, "A", etcd, defaultSeed)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	shared := sharedRecordsOf(t, etcd)
	key := newKey(t)
	ta, moved := stepAndCheckpoint(t, a.addr, key, "Kay", shared)

	tb := openTerminal(t, b.addr, key, 80, 24, nil)
	if out := ta.finalOutput(); !strings.Contains(out, "Your knight was called to realm B; it is saved.") {
		t.Fatalf("A's player was not told where its knight went:\n%s", ta.screen())
	}
	tb.continueKnight()
	if !strings.Contains(tb.rawOutput(), "Your knight is in realm A; calling it here") {
		t.Errorf("B's player was not told of the wait:\n%s", tb.rawOutput())
	}
	w := whoamiJSON(t, b.addr, key)
	entrance := world.Generate(1, world.LevelSeed(defaultSeed+1, 1), false).Up
	if w.Knight != moved.Knight || w.Name != "Kay" || !w.Online || w.Depth != 1 || w.X != entrance.X || w.Y != entrance.Y {
		t.Fatalf("on B: %+v; want Kay at B's entrance %v", w, entrance)
	}
	if w.Str != moved.Str || w.Int != moved.Int || w.Con != moved.Con || w.Dex != moved.Dex || w.MaxHits != moved.MaxHits {
		t.Fatalf("B's knight %+v is not A's %+v", w, moved)
	}
	if keyed, err := shared.KeyOf(moved.Fingerprint); err != nil || keyed.Knight != moved.Knight {
		t.Fatalf("the key in etcd: %+v, %v", keyed, err)
	}
}

// A ban made on realm A refuses the key on realm B.
func TestABanOnOneRealmHoldsOnAnother(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	admin := newKey(t)
	a := startRealm(t, "A", etcd, defaultSeed, admin)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	player := newKey(t)
	tm := openTerminal(t, a.addr, player, 80, 24, nil)
	tm.enterDungeon("Mordred")
	if out, errOut, code := runCmd(t, a.addr, admin, "ban Mordred --reason spamming"); code != 0 {
		t.Fatalf("ban (exit %d): %s %s", code, out, errOut)
	}
	if banner, err := dialBanner(t, b.addr, player); err == nil || !strings.Contains(banner, edge.BannedMessage) {
		t.Fatalf("the banned key on B: %v, banner %q", err, banner)
	}
}

// A realm cut off from etcd tells its players and takes no one in.
func TestACutOffRealmTellsItsPlayersAndRefusesLogins(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	p := tcpproxy.New(t, etcd)
	a := startRealm(t, "A", p.Addr(), defaultSeed)
	tm := openTerminal(t, a.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Kay")
	p.SetCut(true)
	if out := tm.finalOutput(); !strings.Contains(screenWords(out), "lost touch with the realms' records") {
		t.Fatalf("the player was not told:\n%s", tm.screen())
	}
	if banner, err := dialBanner(t, a.addr, newKey(t)); err == nil || !strings.Contains(banner, realmDownLine) {
		t.Fatalf("a login on the cut-off realm: %v, banner %q", err, banner)
	}
}

// stepAndCheckpoint enters the dungeon on the realm at addr as a new knight called name,
// takes one step, and waits for that step's checkpoint in etcd: the terminal, and where
// the knight stands.
func stepAndCheckpoint(t *testing.T, addr string, key gossh.Signer, name string, shared *records.Store) (*terminal, command.Whoami) {
	t.Helper()
	tm := openTerminal(t, addr, key, 80, 24, nil)
	tm.enterDungeon(name)
	before := whoamiJSON(t, addr, key)
	moved := tm.stepOut("the move", before, func() command.Whoami { return whoamiJSON(t, addr, key) })
	waitUntil(t, "the realm's checkpoint of the move in etcd", func() bool {
		rec, err := shared.LoadAdventurer(moved.Knight)
		return err == nil && rec.X == moved.X && rec.Y == moved.Y
	})
	return tm, moved
}
