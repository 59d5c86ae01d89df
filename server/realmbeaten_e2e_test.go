package server

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// One new key opens a game on realm A and on realm B at once, and each makes a first
// knight: A writes first and its knight has the key; B's is never written (no sheet, no
// claim, its name free), its player is told to connect again, and the key plays A's
// knight.
func TestTwoRealmsMakingAFirstKnightForOneKey(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	a := startRealm(t, "A", etcd, defaultSeed)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	key := newKey(t)
	fp := keys.Fingerprint(key.PublicKey())
	ta := openTerminal(t, a.addr, key, 80, 24, nil)
	ta.waitFor("Press Enter to begin")
	tb := openTerminal(t, b.addr, key, 80, 24, nil)
	tb.waitFor("Press Enter to begin") // each realm has given the key a new knight of its own

	ta.enterDungeon("Kay")
	var onA string
	waitUntil(t, "A's knight bound to the key in etcd", func() bool {
		k, err := shared.KeyOf(fp)
		onA = k.Knight
		return err == nil
	})
	tb.press(keyEnter)
	tb.waitFor("Press r to roll again")
	tb.press(keyEnter)
	tb.waitFor("Name your knight")
	tb.press("Gawain", keyEnter)
	if out := screenWords(tb.finalOutput()); !strings.Contains(out, "made a knight on another realm at the same moment") {
		t.Fatalf("B's player was not told:\n%s", tb.screen())
	}
	want := map[string]string{"knight/": "/orthanc/knight/" + onA, "claim/": "/orthanc/claim/" + onA, "name/": "/orthanc/name/kay"}
	for pre, key := range want {
		waitUntil(t, "only A's knight under "+pre, func() bool {
			got := etcdKeys(t, etcd, "/orthanc/"+pre)
			return len(got) == 1 && got[0] == key
		})
	}
	if k, err := shared.KeyOf(fp); err != nil || k.Knight != onA {
		t.Fatalf("the key in etcd: %+v, %v", k, err)
	}
	if w := whoamiJSON(t, b.addr, key); w.Knight != onA || w.Name != "Kay" {
		t.Fatalf("the key on B now: %+v; want A's Kay", w)
	}
}

// etcdKeys lists the keys under prefix.
func etcdKeys(t *testing.T, etcd, prefix string) []string {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range resp.Kvs {
		out = append(out, string(kv.Key))
	}
	return out
}
