package records

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// keeperOf is realm name's keeper of the test's records.
func keeperOf(t *testing.T, st *Store, name string) *Keeper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := realm.Open(ctx, st.cli, realm.Config{Name: name, Prefix: st.prefix, TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(st, KeeperConfig{Realm: r, TTL: 2 * time.Second, Log: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = k.Close() })
	return k
}

// A knight renamed on realm A while it plays on B: its name is A's to give at once, and
// the sheet B checks in with the old name is renamed when a realm next claims it, which
// tells its server once. A knight no realm plays is renamed in etcd at once; a name
// another knight holds is refused.
func TestARenameReachesAKnightPlayingOnAnotherRealm(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	a, b := keeperOf(t, st, "A"), keeperOf(t, st, "B")
	ctx := context.Background()
	kay := world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 3}
	key := knights.Key{Fingerprint: "SHA256:kay", Knight: kay.ID}
	if _, err := b.Give(ctx, knights.Give{Key: key, Knight: &kay}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ name, id string }{{"Kay", kay.ID}, {"Bors", "K-BORS"}} {
		if ok, err := st.ClaimName(n.name, n.id); !ok || err != nil {
			t.Fatalf("claim %s: %v, %v", n.name, ok, err)
		}
	}
	if err := b.Claim(ctx, kay.ID, func(string) { t.Error("B called its own knight") }); err != nil {
		t.Fatal(err)
	}
	if err := a.Rename(ctx, kay.ID, "Kay", "Bors"); !errors.Is(err, knights.ErrNameTaken) {
		t.Fatalf("a rename to another knight's name: %v", err)
	}
	var away *knights.ElsewhereError
	if err := a.Rename(ctx, kay.ID, "Kay", "Kaye"); !errors.As(err, &away) || away.Where != "B" {
		t.Fatalf("a rename of a knight playing on B: %v", err)
	}
	if names, _ := st.KnightNames(); len(knights.Named(names, "Kay")) != 0 || len(knights.Named(names, "Kaye")) != 1 {
		t.Fatalf("names after the rename: %+v", names)
	}
	b.Put(kay) // B's world knew nothing of it
	if err := b.Leave(ctx, kay.ID); err != nil {
		t.Fatal(err)
	}
	if sheet, _ := st.LoadAdventurer(kay.ID); sheet.Name != "Kay" {
		t.Fatalf("B checked in %q", sheet.Name)
	}
	if err := a.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Knight(kay.ID); err != nil || got.Name != "Kaye" || got.Level != 3 {
		t.Fatalf("the sheet A claimed: %+v, %v", got, err)
	}
	if old, ok := renamed(t, a, kay.ID); !ok || old != "Kay" {
		t.Fatalf("A's server told %q, %v", old, ok)
	}
	if _, ok := renamed(t, a, kay.ID); ok {
		t.Fatal("the rename was told twice")
	}
	if err := a.Leave(ctx, kay.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Rename(ctx, kay.ID, "Kaye", "Gareth"); err != nil {
		t.Fatalf("a rename of a knight no realm plays: %v", err)
	}
	if sheet, _ := st.LoadAdventurer(kay.ID); sheet.Name != "Gareth" || sheet.Level != 3 {
		t.Fatalf("the sheet renamed in etcd: %+v", sheet)
	}
	// The realm that next claims it, not the one that renamed it, tells it, once; and
	// other realms told over the talk find the rename in etcd.
	if name, ok, err := a.PendingRename(kay.ID); err != nil || !ok || name != "Gareth" {
		t.Fatalf("the rename of a knight no realm plays is not kept for the others: %q, %v, %v", name, ok, err)
	}
	if err := a.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if old, ok := renamed(t, a, kay.ID); !ok || old != "Kaye" {
		t.Fatalf("A's server told %q, %v, of a rename B made while no realm played the knight", old, ok)
	}
	if got, err := a.Knight(kay.ID); err != nil || got.Name != "Gareth" {
		t.Fatalf("the sheet A claimed: %+v, %v", got, err)
	}
	if err := a.Leave(ctx, kay.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if _, ok := renamed(t, a, kay.ID); ok {
		t.Fatal("the rename was told again at the next claim")
	}
}

// renamed is the rename a claim of id on k applied, which its server tells the knight, as
// k's Arrived hands it on: the name before, and whether there was one.
func renamed(t *testing.T, k *Keeper, id string) (string, bool) {
	t.Helper()
	a, err := k.Arrived(id)
	if err != nil {
		t.Fatal(err)
	}
	return a.Renamed, a.Renamed != ""
}

// A claim forgets the pending rename it read, and only that one: a rename written after
// the claim's read (another admin's, while it was on its way) stays pending, and the
// next claim applies it.
func TestAClaimForgetsOnlyTheRenameItRead(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	a, b := keeperOf(t, st, "A"), keeperOf(t, st, "B")
	ctx := context.Background()
	kay := world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 3}
	if _, err := b.Give(ctx, knights.Give{Key: knights.Key{Fingerprint: "SHA256:kay", Knight: kay.ID}, Knight: &kay}); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	var away *knights.ElsewhereError
	if err := a.Rename(ctx, kay.ID, "Kay", "Kaye"); !errors.As(err, &away) {
		t.Fatalf("a rename of a knight B plays: %v", err)
	}
	b.Put(kay)
	if err := b.Leave(ctx, kay.ID); err != nil {
		t.Fatal(err)
	}
	// A claims it, reading the pending rename; before A forgets it, B's admin renames
	// the knight again, which A holds now.
	f, err := a.r.TakeWith(ctx, kay.ID, realm.TakeOptions{Read: claimReads(kay.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Rename(ctx, kay.ID, "Kaye", "Gareth"); !errors.As(err, &away) {
		t.Fatalf("a rename of a knight A holds: %v", err)
	}
	sheet, _, err := DecodeSheet(kay.ID, f.Sheet())
	if err != nil {
		t.Fatal(err)
	}
	if old, err := a.takeRename(&sheet, f); err != nil || old != "Kay" || sheet.Name != "Kaye" {
		t.Fatalf("the rename the claim read: old %q, name %q, %v", old, sheet.Name, err)
	}
	if name, ok, err := a.PendingRename(kay.ID); err != nil || !ok || name != "Gareth" {
		t.Fatalf("the rename written after the claim's read: %q, %v, %v; want Gareth pending", name, ok, err)
	}
	checkedIn, err := encodeSheet(&sheet, "A")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckIn(ctx, checkedIn); err != nil { // as A's session would, leaving
		t.Fatal(err)
	}
	if err := a.Claim(ctx, kay.ID, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Knight(kay.ID); err != nil || got.Name != "Gareth" {
		t.Fatalf("the next claim's sheet: %+v, %v; want Gareth", got, err)
	}
	if old, ok := renamed(t, a, kay.ID); !ok || old != "Kaye" {
		t.Fatalf("the next claim told %q, %v; want Kaye", old, ok)
	}
}
