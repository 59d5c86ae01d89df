package realm

import (
	"errors"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
)

func TestPartitionedRealmStopsBeforeItsLeaseLapses(t *testing.T) {
	p := tcpproxy.New(t, etcdAddr)
	a := openRealm(t, newClient(t, p.Addr()), "A", checkIn("never"))
	b := openRealm(t, newClient(t, etcdAddr), "B", nil)
	ctx := within(t, 4*testTTL)
	f, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, []byte("before the cut")); err != nil {
		t.Fatal(err)
	}
	p.SetCut(true)
	// B asks; A cannot hear it, so B has the knight only when A's lease lapses.
	g, err := b.Take(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Done():
	default:
		t.Fatal("B took the knight while A had not stopped")
	}
	if !errors.Is(a.Err(), ErrCutOff) {
		t.Errorf("A stopped with %v, want ErrCutOff", a.Err())
	}
	if string(g.Sheet()) != "before the cut" {
		t.Errorf("B's sheet = %q", g.Sheet())
	}
	if err := f.Checkpoint(ctx, []byte("after")); !errors.Is(err, ErrCutOff) {
		t.Errorf("A's checkpoint after it stopped: %v, want ErrCutOff", err)
	}
	// Even had A not stopped, etcd would refuse A's token now that the claim is B's.
	stale := &Fenced{realm: b, term: b.current(), knight: "k1", token: f.Token()}
	if err := stale.Checkpoint(ctx, []byte("stale")); !errors.Is(err, ErrFenced) {
		t.Errorf("a checkpoint under A's token: %v, want ErrFenced", err)
	}
}
