package records

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The records in etcd keep the contract every keeper of them keeps.
func TestTheContract(t *testing.T) {
	knightstest.Run(t, func(t *testing.T) knightstest.Backend {
		cli := newClient(t)
		st := New(cli, Options{Prefix: prefixOf(t)})
		r := openRealm(t, cli)
		return knightstest.Backend{Records: st,
			Retire: func(e knights.FameEntry) error { return Retire(context.Background(), claim(t, r, e.Adventurer.ID), e) },
			Bury:   func(tb knights.Tombstone) error { return Bury(context.Background(), claim(t, r, tb.Adventurer.ID), tb) },
			AddKey: func(a world.Adventurer, k knights.Key) error {
				sheet, err := SheetWrite(&a, "A")
				if err != nil {
					return err
				}
				key, err := KeyWrite(k)
				if err != nil {
					return err
				}
				_, err = claim(t, r, a.ID).Commit(context.Background(), sheet, key)
				return err
			},
			Name: func(knight, name string) error {
				if ok, err := st.ClaimName(name, knight); !ok || err != nil {
					return fmt.Errorf("claim %q: %v, %w", name, ok, err)
				}
				return nil
			},
			PutMail: st.PutMail}
	})
}

func newClient(t *testing.T) *clientv3.Client {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdAddr},
		DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func prefixOf(t *testing.T) string { return "/test/" + strings.ReplaceAll(t.Name(), "/", "_") + "/" }

// openRealm is a realm of the test's prefix, closed with the test.
func openRealm(t *testing.T, cli *clientv3.Client) *realm.Realm {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := realm.Open(ctx, cli, realm.Config{Name: "A", Prefix: prefixOf(t), TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// claim claims knight id on r, as a login would.
func claim(t *testing.T, r *realm.Realm, id string) *realm.Fenced {
	f, err := r.Claim(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
