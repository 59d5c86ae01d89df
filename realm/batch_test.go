package realm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// claimAll claims knights k0..k(n-1) on r.
func claimAll(t *testing.T, r *Realm, n int) []*Fenced {
	t.Helper()
	ctx := within(t, 10*time.Second)
	fs := make([]*Fenced, n)
	for i := range fs {
		f, err := r.Claim(ctx, fmt.Sprint("k", i))
		if err != nil {
			t.Fatal(err)
		}
		fs[i] = f
	}
	return fs
}

// sheets is one entry a knight: its sheet, value "NAME v".
func sheets(fs []*Fenced, v string) []Entry {
	es := make([]Entry, len(fs))
	for i, f := range fs {
		es[i] = Entry{Knight: f, Writes: []Write{{Key: "knight/" + f.Knight(), Value: []byte(f.Knight() + " " + v)}}}
	}
	return es
}

// sheetIn is a knight's sheet in etcd and its mod revision; nil if none.
func sheetIn(t *testing.T, r *Realm, knight string) ([]byte, int64) {
	t.Helper()
	resp, err := r.cli.Get(within(t, 5*time.Second), r.keys.sheet(knight))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return nil, 0
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
}

// Knights' checkpoints written together are one transaction: one revision.
func TestCommitAllWritesKnightsInOneTransaction(t *testing.T) {
	r := openRealm(t, newClient(t, etcdAddr), "A", nil)
	fs := claimAll(t, r, 10)
	noErrors(t, CommitAll(within(t, 10*time.Second), sheets(fs, "1")))
	_, rev := sheetIn(t, r, "k0")
	for _, f := range fs {
		if v, at := sheetIn(t, r, f.Knight()); string(v) != f.Knight()+" 1" || at != rev {
			t.Errorf("%s: %q at %d, want its sheet at %d with the others", f.Knight(), v, at, rev)
		}
	}
}

// One knight of a batch lost its claim (another realm holds it now): the others are
// written, it is not, its error is ErrFenced and the realm forgets it, as a lone
// write's would be.
func TestCommitAllWritesTheOthersWhenOneLostItsClaim(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	fs := claimAll(t, a, 5)
	noErrors(t, CommitAll(ctx, sheets(fs, "1")))
	// k2's claim ends as etcd sees it (say, an operator deleted it) and B claims it.
	if _, err := cli.Delete(ctx, a.keys.claim("k2")); err != nil {
		t.Fatal(err)
	}
	g, err := b.Claim(ctx, "k2")
	if err != nil {
		t.Fatal(err)
	}
	errs := CommitAll(ctx, sheets(fs, "2"))
	for i, f := range fs {
		v, _ := sheetIn(t, a, f.Knight())
		switch {
		case i == 2 && (!errors.Is(errs[i], ErrFenced) || string(v) != "k2 1"):
			t.Errorf("k2, lost: %v, sheet %q; want ErrFenced and its sheet of before", errs[i], v)
		case i != 2 && (errs[i] != nil || string(v) != f.Knight()+" 2"):
			t.Errorf("%s: %v, sheet %q; want it written", f.Knight(), errs[i], v)
		}
	}
	if string(g.Sheet()) != "k2 1" {
		t.Errorf("B's sheet of k2 = %q, want A's last", g.Sheet())
	}
	a.mu.Lock()
	_, held := a.t.held["k2"]
	a.mu.Unlock()
	if held {
		t.Error("A still holds k2")
	}
	if err := fs[2].Checkpoint(ctx, []byte("k2 3")); !errors.Is(err, ErrFenced) {
		t.Errorf("A's lone write of k2 after: %v, want ErrFenced", err)
	}
}

// A knight of a batch whose key to create has a value gets ErrTaken and is not written;
// the others are.
func TestCommitAllRefusesOnlyTheKnightWhoseKeyIsTaken(t *testing.T) {
	r := openRealm(t, newClient(t, etcdAddr), "A", nil)
	ctx := within(t, 10*time.Second)
	fs := claimAll(t, r, 3)
	bind := Write{Key: "key/SHA256:x", Value: []byte("k0"), Create: true}
	if _, err := fs[0].Commit(ctx, bind); err != nil {
		t.Fatal(err)
	}
	es := sheets(fs[1:], "1")
	es[0].Writes = append(es[0].Writes, bind)
	errs := CommitAll(ctx, es)
	if !errors.Is(errs[0], ErrTaken) || errs[1] != nil {
		t.Fatalf("errors %v, want ErrTaken for k1 and none for k2", errs)
	}
	if v, _ := sheetIn(t, r, "k1"); v != nil {
		t.Errorf("k1 written without its key: %q", v)
	}
	if v, _ := sheetIn(t, r, "k2"); string(v) != "k2 1" {
		t.Errorf("k2's sheet = %q", v)
	}
}

// A batch bigger than one transaction may be (etcd's --max-txn-ops and request size, as
// the embedded etcd has them by default) is split: 300 knights, then 40 of 100 KiB.
func TestCommitAllKeepsWithinEtcdsLimits(t *testing.T) {
	r := openRealm(t, newClient(t, etcdAddr), "A", nil)
	ctx := within(t, 20*time.Second)
	fs := claimAll(t, r, 300)
	noErrors(t, CommitAll(ctx, sheets(fs, "1")))
	big := sheets(fs[:40], "2")
	for i := range big {
		big[i].Writes[0].Value = bytes.Repeat([]byte("x"), 100<<10)
	}
	noErrors(t, CommitAll(ctx, big))
	if v, _ := sheetIn(t, r, "k299"); string(v) != "k299 1" {
		t.Errorf("k299's sheet = %q", v)
	}
	if v, _ := sheetIn(t, r, "k39"); len(v) != 100<<10 {
		t.Errorf("k39's sheet is %d bytes, want 100 KiB", len(v))
	}
}

// The groups keep every bound, one realm each, and never a key twice.
func TestGroupsKeepTheirBounds(t *testing.T) {
	a, b := &Realm{keys: "/a/"}, &Realm{keys: "/b/"}
	a.t, b.t = &term{r: a}, &term{r: b}
	knight := func(r *Realm, id string, writes ...Write) Entry {
		return Entry{Knight: &Fenced{realm: r, term: r.t, knight: id}, Writes: writes}
	}
	sheet := Write{Key: "knight/k", Value: []byte("s")}
	var es []Entry
	for i := range 100 {
		es = append(es, knight(a, fmt.Sprint("k", i), Write{Key: fmt.Sprint("knight/k", i)}))
	}
	es = append(es, knight(a, "x", sheet), knight(a, "y", sheet), knight(b, "z"))
	var sizes []int
	for _, g := range groups(es) {
		sizes = append(sizes, len(g))
	}
	if want := []int{64, 37, 1, 1}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("groups of %v, want %v", sizes, want)
	}
}

// A stopped realm's batch writes nothing and says why.
func TestCommitAllOfAStoppedRealm(t *testing.T) {
	r := openRealm(t, newClient(t, etcdAddr), "A", nil)
	fs := claimAll(t, r, 2)
	r.halt(ErrClosed)
	for i, err := range CommitAll(context.Background(), sheets(fs, "1")) {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("entry %d: %v, want ErrClosed", i, err)
		}
	}
}

// Knights let go in a batch are checked in: their sheets written and their claims gone in
// one transaction, so another realm claims them at once and reads those sheets; this
// realm holds them no more. A knight of the batch not let go stays held.
func TestCommitAllLetsKnightsGo(t *testing.T) {
	cli := newClient(t, etcdAddr)
	a := openRealm(t, cli, "A", nil)
	b := openRealm(t, cli, "B", nil)
	ctx := within(t, 10*time.Second)
	fs := claimAll(t, a, 3)
	es := sheets(fs, "last")
	es[0].LetGo, es[1].LetGo = true, true
	noErrors(t, CommitAll(ctx, es))
	for _, k := range []string{"k0", "k1"} {
		g, err := b.Claim(ctx, k)
		if err != nil {
			t.Fatalf("B's claim of %s: %v", k, err)
		}
		if string(g.Sheet()) != k+" last" {
			t.Errorf("B's sheet of %s = %q, want A's check-in", k, g.Sheet())
		}
	}
	var held *ClaimedError
	if _, err := b.Claim(ctx, "k2"); !errors.As(err, &held) || held.Holder != "A" {
		t.Errorf("B's claim of k2, not let go: %v, want held by A", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.t.held["k0"]; ok || a.t.held["k2"] == nil {
		t.Errorf("A holds %v, want k2 alone of the three", a.t.held)
	}
}
