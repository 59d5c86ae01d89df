package memory_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The keeper's names are the records' claims: a rename to another knight's name is
// refused, and a knight a Give leaves keyless lets its names go with its sheet, as the
// store's name goes with its sheet.
func TestTheKeepersNamesAreClaims(t *testing.T) {
	k := memory.NewKeeper()
	ctx := context.Background()
	for _, g := range []knights.Give{
		{Key: knights.Key{Fingerprint: "SHA256:a", Knight: "K-1"}, Knight: &world.Adventurer{ID: "K-1", Name: "Kay"}},
		{Key: knights.Key{Fingerprint: "SHA256:b", Knight: "K-2"}, Knight: &world.Adventurer{ID: "K-2", Name: "Bors"}},
	} {
		if _, err := k.Give(ctx, g); err != nil {
			t.Fatal(err)
		}
		if ok, err := k.ClaimName(g.Knight.Name, g.Knight.ID); !ok || err != nil {
			t.Fatalf("claim %s: %v, %v", g.Knight.Name, ok, err)
		}
	}
	if err := k.Rename(ctx, "K-1", "Kay", "BORS"); !errors.Is(err, knights.ErrNameTaken) {
		t.Fatalf("a rename to another knight's name: %v", err)
	}
	if a, _ := k.LoadAdventurer("K-1"); a.Name != "Kay" {
		t.Fatalf("a refused rename renamed the sheet: %q", a.Name)
	}
	if err := k.Rename(ctx, "K-1", "Kay", "KAY"); err != nil { // its own name, spelt anew
		t.Fatal(err)
	}
	want := []knights.KnightName{{Knight: "K-2", Name: "Bors"}, {Knight: "K-1", Name: "KAY"}}
	if got := k.ClaimedNames(); !slices.Equal(got, want) {
		t.Fatalf("claims: %+v, want %+v", got, want)
	}
	g := knights.Give{Key: knights.Key{Fingerprint: "SHA256:a", Knight: "K-2"}, Replace: true}
	if done, err := k.Give(ctx, g); err != nil || !done.Gone {
		t.Fatalf("give K-1's key to K-2: %+v, %v", done, err)
	}
	if got := k.ClaimedNames(); !slices.Equal(got, want[:1]) {
		t.Fatalf("claims after K-1 went: %+v", got)
	}
}

// A refused Give changes nothing: not the new knight, nor the key, nor the key removed.
func TestARefusedGiveChangesNothing(t *testing.T) {
	k := memory.NewKeeper()
	ctx := context.Background()
	if _, err := k.Give(ctx, knights.Give{Key: knights.Key{Fingerprint: "SHA256:a", Knight: "K-1"},
		Knight: &world.Adventurer{ID: "K-1", Name: "Kay"}}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []knights.Give{
		{Key: knights.Key{Fingerprint: "SHA256:a", Knight: "K-2"}, Knight: &world.Adventurer{ID: "K-2"}, Remove: "SHA256:a"},
		{Key: knights.Key{Fingerprint: "SHA256:b", Knight: "K-1"}, Knight: &world.Adventurer{ID: "K-1"}, Remove: "SHA256:a"},
		{Key: knights.Key{Fingerprint: "", Knight: "K-1"}},
	} {
		if done, err := k.Give(ctx, g); err == nil || done != (knights.Given{}) {
			t.Fatalf("give %+v: %+v, %v; want a refusal", g, done, err)
		}
	}
	if keys, _ := k.KeysOf("K-1"); len(keys) != 1 || keys[0].Fingerprint != "SHA256:a" {
		t.Fatalf("K-1's keys after refusals: %+v", keys)
	}
	if n, _ := k.CountKnights(); n != 1 {
		t.Fatalf("%d knights kept after refusals", n)
	}
}

// Sessions binding, putting and reading at once share no memory unguarded (-race), and
// every bound key whose knight was put is kept.
func TestTheKeeperIsSafeAtOnce(t *testing.T) {
	k := memory.NewKeeper()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			id, fp := "K-"+string(rune('A'+i)), "SHA256:"+string(rune('a'+i))
			release := k.Bind(knights.Key{Fingerprint: fp, Knight: id})
			defer release()
			for lvl := range 20 {
				k.Put(world.Adventurer{ID: id, Level: lvl})
				if key, err := k.KeyOf(fp); err != nil || key.Knight != id {
					t.Errorf("key %s: %+v, %v", fp, key, err)
				}
				_, _ = k.Knight(id)
			}
		})
	}
	wg.Wait()
	for i := range 8 {
		id := "K-" + string(rune('A'+i))
		if keys, err := k.KeysOf(id); err != nil || len(keys) != 1 {
			t.Errorf("keys of %s: %+v, %v", id, keys, err)
		}
	}
}
