package realm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
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

// A take from another realm asks for the knight in its first try, the claim's own
// transaction, while the claim key's watch is made; a try refused again asks no more;
// and a take that claims takes nothing back, its claim having deleted the request. A
// realm far from etcd waits a round trip for each call made after another: a take from
// a realm slow to let go is three. (Here 100 ms each way, so that calls made at once
// still count as one on a loaded box.)
func TestATakeAsksWithItsFirstTryAndTakesNothingBack(t *testing.T) {
	etcd := etcdtest.StartRecorded(t)
	const far = 100 * time.Millisecond
	p, err := tcpproxy.ListenDelay("127.0.0.1:0", etcd.Watched, far)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	var asked atomic.Int32
	a := openRealm(t, newClient(t, etcd.Addr), "A", func(q Request) {
		asked.Add(1)
		go func() {
			// A lets go once B's second try is refused, so that each step of the take
			// shows: a second call answered besides the watch, made after the watch.
			waitUntil(t, func() bool { return secondAfterWatch(etcd.Calls()) })
			checkIn("saved by A")(q)
		}()
	})
	b := openRealm(t, newClient(t, p.Addr()), "B", nil)
	ctx := within(t, 10*time.Second)
	if _, err := a.Claim(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { // B's watch of requests, made as it opened
		return slices.ContainsFunc(etcd.Calls(), func(c etcdtest.Call) bool { return c.Method == "Watch" && !c.End.IsZero() })
	})
	etcd.Reset()
	f, err := b.Take(ctx, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Sheet()) != "saved by A" {
		t.Errorf("B's sheet = %q, want A's check-in", f.Sheet())
	}
	var got []string
	for _, round := range etcdtest.Rounds(etcd.Calls(), far) {
		var methods []string
		for _, c := range round {
			methods = append(methods, c.Method)
		}
		slices.Sort(methods) // made at once: either may reach etcd first
		got = append(got, strings.Join(methods, " "))
	}
	if want := []string{"Txn Watch", "Txn", "Txn"}; !slices.Equal(got, want) {
		t.Errorf("B's round trips to etcd: %q, want %q (the claim or the request, with the watch; refused again; claimed): %v", got, want, etcd.Calls())
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("A was asked %d times, want once", n)
	}
}

// What a take reads beside the sheet comes with its claim; the holder is told.
func TestATakeReadsWithItsClaim(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", checkIn("saved by A"))
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	put, err := cli.Put(ctx, prefixOf(t)+"mail/k1", "a letter")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Claim(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	var holder string
	f, err := b.TakeWith(ctx, "k1", TakeOptions{Read: []string{"mail/k1", "silence/k1"}, Asked: func(h string) { holder = h }})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Read("mail/k1"); !ok || string(v.Value) != "a letter" || v.Rev != put.Header.Revision {
		t.Errorf("the mail read with the claim: %q at %d (%v), want %q at %d", v.Value, v.Rev, ok, "a letter", put.Header.Revision)
	}
	if v, ok := f.Read("silence/k1"); ok {
		t.Errorf("a key with no value read as %q", v.Value)
	}
	if holder != "A" {
		t.Errorf("told the holder %q, want A", holder)
	}
}

// A take that runs out takes its request back: the holder, asked, need not let go.
func TestATakeThatRunsOutTakesItsRequestBack(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	if _, err := a.Claim(within(t, testTTL), "k1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := b.Take(ctx, "k1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Take that ran out: %v", err)
	}
	resp, err := cli.Get(within(t, testTTL), prefixOf(t)+"release/k1")
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("the request after the take ran out: %v, %v", resp.Kvs, err)
	}
}

// secondAfterWatch reports whether etcd has answered two calls besides a watch, one of
// them made after the watch was.
func secondAfterWatch(calls []etcdtest.Call) bool {
	var made time.Time
	for _, c := range calls {
		if c.Method == "Watch" && !c.End.IsZero() {
			made = c.End
		}
	}
	answered, after := 0, false
	for _, c := range calls {
		if c.Method != "Watch" && !c.End.IsZero() {
			answered++
			after = after || (!made.IsZero() && c.Start.After(made))
		}
	}
	return answered >= 2 && after
}

// waitUntil polls cond until it holds, failing the test after 10 s.
func waitUntil(t testing.TB, cond func() bool) {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Error("waited 10 s in vain")
			return
		}
		time.Sleep(time.Millisecond)
	}
}
