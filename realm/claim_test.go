package realm

import (
	"errors"
	"testing"
	"time"
)

func TestSecondClaimIsRefused(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	f, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if f.Sheet() != nil {
		t.Errorf("a new knight's sheet = %q, want none", f.Sheet())
	}
	_, err = b.Claim(ctx, "k1")
	var held *ClaimedError
	if !errors.As(err, &held) || held.Holder != "A" || held.Here {
		t.Fatalf("B's claim: %v, want held by A elsewhere", err)
	}
	_, err = a.Claim(ctx, "k1")
	if !errors.As(err, &held) || !held.Here {
		t.Fatalf("A's second claim: %v, want held here", err)
	}
	if err := f.CheckIn(ctx, []byte("sheet 1")); err != nil {
		t.Fatal(err)
	}
	g, err := b.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if string(g.Sheet()) != "sheet 1" || g.Token() <= f.Token() {
		t.Errorf("B's claim: sheet %q token %d, want A's last sheet and a token after %d", g.Sheet(), g.Token(), f.Token())
	}
}

func TestReleaseFlow(t *testing.T) {
	cli := newClient(t, etcdAddr)
	asked := make(chan string, 1)
	a := openRealm(t, cli, "A", func(q Request) {
		asked <- q.By
		checkIn("saved by A")(q)
	})
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	if _, err := a.Claim(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f, err := b.Take(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if by := <-asked; by != "B" {
		t.Errorf("A was asked by %q, want B", by)
	}
	if string(f.Sheet()) != "saved by A" {
		t.Errorf("B's sheet = %q, want A's check-in", f.Sheet())
	}
	t.Logf("B took the knight from A in %v", time.Since(start))
	if a.Err() != nil {
		t.Errorf("A stopped: %v", a.Err())
	}
}

func TestCrashedRealmsKnightsLapse(t *testing.T) {
	cli := newClient(t, etcdAddr)
	crashed := newClient(t, etcdAddr)
	a := openRealm(t, crashed, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 4*testTTL)
	f, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, []byte("last words")); err != nil {
		t.Fatal(err)
	}
	a.halt(ErrClosed) // no revoke: the lease lives on until it lapses
	crashed.Close()
	g, err := b.Take(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if string(g.Sheet()) != "last words" {
		t.Errorf("B's sheet = %q, want A's last checkpoint", g.Sheet())
	}
	// A restarted under its name waits for its old lease too, then plays again.
	again := openRealm(t, cli, "A", nil)
	if _, err := again.Claim(ctx, "k2"); err != nil {
		t.Fatal(err)
	}
}

func TestFencedWriteRefusedAfterClaimLost(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	f, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, []byte("1")); err != nil {
		t.Fatal(err)
	}
	// The lease's end, as etcd sees it, before A hears of it.
	if _, err := cli.Revoke(ctx, a.t.lease); err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, []byte("2")); !errors.Is(err, ErrFenced) {
		t.Fatalf("A's checkpoint after its claim ended: %v, want ErrFenced", err)
	}
	g, err := b.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, []byte("3")); !errors.Is(err, ErrFenced) {
		t.Fatalf("A's checkpoint under B's claim: %v, want ErrFenced", err)
	}
	if string(g.Sheet()) != "1" {
		t.Errorf("B's sheet = %q, want 1", g.Sheet())
	}
	waitDone(t, a, 2*testTTL)
	if !errors.Is(a.Err(), ErrLeaseLost) {
		t.Errorf("A stopped with %v, want ErrLeaseLost", a.Err())
	}
	if _, err := a.Claim(ctx, "k2"); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("a stopped realm's claim: %v, want its reason", err)
	}
}

// A create-only write that finds its key taken refuses the whole transaction with
// ErrTaken, not ErrFenced: the claim still holds and writes on.
func TestACreateOnlyWriteFindingItsKeyTakenIsErrTaken(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	fa, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := b.Claim(ctx, "k2")
	if err != nil {
		t.Fatal(err)
	}
	bind := func(knight string) Write { return Write{Key: "key/SHA256:x", Value: []byte(knight), Create: true} }
	if _, err := fa.Commit(ctx, Write{Key: "knight/k1", Value: []byte("1")}, bind("k1")); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Commit(ctx, Write{Key: "knight/k2", Value: []byte("1")}, bind("k2")); !errors.Is(err, ErrTaken) {
		t.Fatalf("B's binding of a key A bound: %v, want ErrTaken", err)
	}
	resp, err := cli.Get(ctx, prefixOf(t)+"knight/k2")
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("B's sheet was written without its key: %v, %v", resp, err)
	}
	if err := fb.Checkpoint(ctx, []byte("2")); err != nil {
		t.Fatalf("B's claim after ErrTaken: %v", err)
	}
}

// A write under two claims is written only while both hold: the second's lost refuses it
// all with ErrFenced, and the first claim writes on.
func TestAWriteUnderTwoClaimsNeedsBoth(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	f1, err := a.Claim(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	f2, err := a.Claim(ctx, "k2")
	if err != nil {
		t.Fatal(err)
	}
	both := []Write{{Key: "knight/k1", Value: []byte("1")}, {Key: "knight/k2", Value: []byte("1")}}
	if _, err := f1.CommitWith(ctx, f2, both...); err != nil {
		t.Fatal(err)
	}
	if _, err := f1.CommitWith(ctx, f2, Write{Key: "knight/k1", Value: []byte("x")}, Write{Key: "key/SHA256:x", Create: true, Rev: 1}); !errors.Is(err, ErrTaken) {
		t.Fatalf("a create finding its key changed: %v, want ErrTaken", err)
	}
	if err := f2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Claim(ctx, "k2"); err != nil {
		t.Fatal(err)
	}
	if _, err := f1.CommitWith(ctx, f2, Write{Key: "knight/k1", Value: []byte("2")}, Write{Key: "knight/k2", Value: []byte("2")}); !errors.Is(err, ErrFenced) {
		t.Fatalf("a write under a claim B took: %v, want ErrFenced", err)
	}
	for _, k := range []string{"k1", "k2"} {
		if resp, err := cli.Get(ctx, prefixOf(t)+"knight/"+k); err != nil || string(resp.Kvs[0].Value) != "1" {
			t.Fatalf("%s after the refused writes: %v, %v", k, resp.Kvs, err)
		}
	}
	if err := f1.Checkpoint(ctx, []byte("3")); err != nil {
		t.Fatalf("the claim still held: %v", err)
	}
	other := openRealm(t, newClient(t, etcdAddr), "C", nil)
	g, err := other.Claim(ctx, "k3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f1.CommitWith(ctx, g, both...); err == nil {
		t.Fatal("a write under claims of two realms")
	}
}
