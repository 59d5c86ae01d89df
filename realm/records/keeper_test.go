package records

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
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

// A check-in that fails (etcd did not answer in time) is tried again by the keeper's run
// loop: the knight is free to be claimed again soon after, here or on another realm,
// rather than held with no one playing it until the realm stops.
func TestAFailedCheckInIsTriedAgain(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	a := keeperOf(t, st, "A")
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go a.Run(ctx)
	kay := world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 2}
	if err := a.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	a.Put(kay)
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.Leave(gone, kay.ID); err == nil {
		t.Fatal("a check-in with no time to run did not fail")
	}
	claimed, cancelClaim := context.WithTimeout(ctx, 3*time.Second) // less than a claim's own wait
	defer cancelClaim()
	if err := a.Claim(claimed, kay.ID, func(string) {}); err != nil {
		t.Fatalf("the knight could not be claimed again: %v", err)
	}
	if got, err := a.Knight(kay.ID); err != nil || got.Level != 2 {
		t.Fatalf("the sheet claimed again: %+v, %v", got, err)
	}
}
