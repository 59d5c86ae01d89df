package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// Issue 47 on realms: two realms post to one receiver (one Discord channel), and each
// event is posted once, by the server that saw it: an admin's broadcast on A, read by a
// knight on B, by A alone; a knight's retirement on B by B alone. Each realm's sender
// posts in order, so once a later marker of each realm is in, anything either would have
// posted before it is in too.
func TestEachEventIsPostedOnceRealmWide(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	rc := newHookReceiver(t, false)
	admin := newKey(t)
	start := func(name string, seed uint64, routes []string) (*testServer, *Server) {
		dir := t.TempDir()
		writeAdminKeys(t, dir, admin)
		cfg := testConfig(dir, seed)
		cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
		cfg.NATSListen, cfg.NATSRoutes, cfg.RealmSecret = "127.0.0.1:0", routes, testRealmSecret
		cfg.Webhook = rc.URL
		return startConfigured(t, cfg)
	}
	a, sa := start("A", defaultSeed, nil)
	b, sb := start("B", defaultSeed+1, []string{sa.talk.(*realmTalk).srv.ClusterAddr()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range []*Server{sa, sb} {
		if err := s.talk.(*realmTalk).srv.WaitRoutes(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	gawain := openTerminal(t, b.addr, newKey(t), 100, 30, nil)
	gawain.enterDungeon("Gawain")
	kay := openTerminal(t, b.addr, newKey(t), 80, 24, nil)
	kay.enterDungeon("Kay")
	kay.press("<")
	kay.waitFor("THE SURFACE", "Outside")
	kay.press("R")
	kay.waitFor("(y/n)")
	kay.press("y")
	kay.waitFor("RETIRED WITH HONOUR", "Kay")

	if _, errOut, code := runCmd(t, a.addr, admin, "broadcast the gates close at noon"); code != 0 {
		t.Fatalf("broadcast on A: %s", errOut)
	}
	gawain.waitFor("the gates close at noon")
	for _, r := range []*testServer{a, b} {
		if _, errOut, code := runCmd(t, r.addr, admin, "broadcast marker"); code != 0 {
			t.Fatalf("broadcast on %s: %s", r.addr, errOut)
		}
	}
	var realms []string
	waitUntil(t, "both realms' markers", func() bool {
		posts, raw := rc.got()
		realms = realms[:0]
		for i, p := range posts {
			if p.Text == "[admin] marker" {
				realms = append(realms, realmOf(raw[i]))
			}
		}
		return len(realms) == 2
	})
	if strings.Join(realms, "") != "AB" && strings.Join(realms, "") != "BA" {
		t.Fatalf("the markers came from realms %q", realms)
	}
	posts, raw := rc.got()
	var gates, retired []string
	for i, p := range posts {
		switch {
		case strings.Contains(p.Text, "the gates close at noon"):
			gates = append(gates, realmOf(raw[i]))
		case p.Kind == "retirement" && p.Knight == "Kay":
			retired = append(retired, realmOf(raw[i]))
		}
	}
	if strings.Join(gates, ",") != "A" || strings.Join(retired, ",") != "B" {
		t.Errorf("the broadcast posted by realms %q (want A alone), the retirement by %q (want B alone); all posts:\n%s", gates, retired, strings.Join(raw, "\n"))
	}
}

// realmOf is the realm a post's JSON names.
func realmOf(raw string) string {
	_, after, ok := strings.Cut(raw, `"realm":"`)
	if !ok {
		return "(none)"
	}
	name, _, _ := strings.Cut(after, `"`)
	return name
}
