package records

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The lag is the age of the oldest record filed and not yet written: a newer record of
// the same knight does not make it younger.
func TestRealmLagIsTheOldestRecordWaiting(t *testing.T) {
	k := newSheets("A", nil, slog.New(slog.DiscardHandler))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	k.now = func() time.Time { return now }
	k.held["k1"] = &heldKnight{refs: 1}
	k.held["k2"] = &heldKnight{refs: 1}
	if got := k.lag(); got != 0 {
		t.Fatalf("lag with nothing filed = %v, want 0", got)
	}
	k.Put(world.Adventurer{ID: "k1"})
	now = now.Add(time.Second)
	k.Put(world.Adventurer{ID: "k1"}, world.Adventurer{ID: "k2"})
	now = now.Add(2 * time.Second)
	if got := k.lag(); got != 3*time.Second {
		t.Errorf("lag = %v, want 3s (k1's first record)", got)
	}
}

// checkInAll, at a realm's stop, checks every knight held in, several to a transaction:
// 100 knights' newest sheets written and their claims deleted (the realm still up, its
// lease alive) in four transactions of up to 64 operations, two a knight.
func TestRealmCheckInAllChecksKnightsInTogether(t *testing.T) {
	etcd := etcdtest.Start(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := realm.Open(ctx, cli, realm.Config{Name: "A"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	shared := New(cli, Options{})
	k := newSheets("A", shared, slog.New(slog.DiscardHandler))
	for i := range 100 {
		f, err := r.Claim(ctx, fmt.Sprint("K-", i))
		if err != nil {
			t.Fatal(err)
		}
		k.hold(f, nil)
		k.Put(world.Adventurer{ID: f.Knight(), Name: fmt.Sprint("Knight", i), X: i})
	}
	if err := k.checkInAll(ctx); err != nil {
		t.Fatal(err)
	}
	revs := map[int64]bool{}
	for i := range 100 {
		id := fmt.Sprint("K-", i)
		if rec, err := shared.LoadAdventurer(id); err != nil || rec.X != i {
			t.Errorf("%s's sheet: %+v, %v; want X %d", id, rec, err, i)
		}
		resp, err := cli.Get(ctx, "/orthanc/knight/"+id)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("%s: %v, %v", id, resp, err)
		}
		revs[resp.Kvs[0].ModRevision] = true
	}
	if resp, err := cli.Get(ctx, "/orthanc/claim/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || resp.Count != 0 {
		t.Errorf("claims left: %v, %v", resp, err)
	}
	if len(revs) != 4 || len(k.held) != 0 {
		t.Errorf("written in %d transactions, %d knights still held; want 4 and none", len(revs), len(k.held))
	}
}
