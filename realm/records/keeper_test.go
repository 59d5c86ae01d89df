package records

import (
	"context"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
)

// A realm's keeper keeps the contract every keeper keeps.
func TestTheKeeperContract(t *testing.T) {
	knightstest.RunKeeper(t, func(t *testing.T) knights.Keeper {
		cli := newClient(t)
		// A subtest's prefix is its name's: what a run before (-count) left there goes,
		// so that the keeper is fresh.
		if _, err := cli.Delete(context.Background(), prefixOf(t), clientv3.WithPrefix()); err != nil {
			t.Fatal(err)
		}
		k := keeperOf(t, New(cli, Options{Prefix: prefixOf(t)}), "A")
		// It writes what the world files in its Run, as a realm's does. Cleanups run last
		// first: Run ends before the keeper closes.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); k.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return k
	})
}
