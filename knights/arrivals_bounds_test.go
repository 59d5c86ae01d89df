package knights_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// An address's new knights are counted for an hour (docs/DESIGN.md, "New knights per
// address"): a second before the hour its first still counts, at the hour it no longer
// does. A place given back is that game's own, not another's of the same moment.
func TestNewKnightsAreCountedForAnHour(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	keeper := memory.NewKeeper()
	a := knights.NewArrivals(keeper, 2, func() time.Time { return now })
	made := 0
	arrive := func(addr string) (func(), error) {
		made++
		fp := fmt.Sprint("SHA256:", made)
		k, release, err := a.Arrive(knights.Key{Fingerprint: fp}, addr, true)
		if err == nil {
			keeper.Put(world.Adventurer{ID: k.Knight, Name: fmt.Sprint("Knight", made)})
			if _, err := keeper.KeyOf(fp); err != nil {
				t.Fatalf("the new knight's key was not written: %v", err)
			}
		}
		return release, err
	}
	for range 2 {
		release, err := arrive("192.0.2.1")
		if err != nil {
			t.Fatal(err)
		}
		release()
		now = now.Add(time.Minute)
	}
	now = start.Add(time.Hour - time.Second)
	if _, err := arrive("192.0.2.1"); !errors.Is(err, knights.ErrTooManyKnights) {
		t.Fatalf("a third new knight a second before the hour: %v", err)
	}
	now = start.Add(time.Hour)
	if _, err := arrive("192.0.2.1"); err != nil {
		t.Fatalf("a new knight an hour after the first: %v", err)
	}
	if _, err := arrive("192.0.2.1"); !errors.Is(err, knights.ErrTooManyKnights) {
		t.Fatalf("a new knight an hour after the first, its second at 0:01 still counting: %v", err)
	}

	// Two games opened at one moment, the second left before its knight was made: it
	// gives back its own place, and the first's still counts.
	b := knights.NewArrivals(keeper, 2, func() time.Time { return now })
	first, releaseFirst, err := b.Arrive(knights.Key{Fingerprint: "SHA256:x"}, "198.51.100.1", true)
	if err != nil {
		t.Fatal(err)
	}
	keeper.Put(world.Adventurer{ID: first.Knight, Name: "Kay"})
	releaseFirst()
	_, leave, err := b.Arrive(knights.Key{Fingerprint: "SHA256:y"}, "198.51.100.1", true)
	if err != nil {
		t.Fatal(err)
	}
	leave()
	if _, _, err := b.Arrive(knights.Key{Fingerprint: "SHA256:z"}, "198.51.100.1", true); err != nil {
		t.Fatalf("the place given back: %v", err)
	}
	if _, _, err := b.Arrive(knights.Key{Fingerprint: "SHA256:w"}, "198.51.100.1", true); !errors.Is(err, knights.ErrTooManyKnights) {
		t.Fatalf("a third knight after a game gave back its place: %v", err)
	}
}

// An address's first new knight of the hour, its game left before the knight was made,
// gives its place back: with one an hour, the next game gets one.
func TestTheFirstPlaceIsGivenBack(t *testing.T) {
	a := knights.NewArrivals(memory.NewKeeper(), 1, nil)
	_, leave, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a"}, "192.0.2.1", true)
	if err != nil {
		t.Fatal(err)
	}
	leave()
	if _, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:b"}, "192.0.2.1", true); err != nil {
		t.Fatalf("the hour's one place, given back: %v", err)
	}
}

// Counts are kept for 10000 addresses; past them, those with no knight in the last hour
// are forgotten.
func TestNewKnightsAreCountedForTenThousandAddresses(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	a := knights.NewArrivals(memory.NewKeeper(), 5, func() time.Time { return now })
	for i := range 10000 {
		_, release, err := a.Arrive(knights.Key{Fingerprint: fmt.Sprint("SHA256:", i)}, fmt.Sprintf("10.0.%d.%d", i/250, i%250), true)
		if err != nil {
			t.Fatal(err)
		}
		_ = release // held: each address keeps its count
	}
	now = start.Add(time.Hour)
	if _, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:next"}, "192.0.2.1", true); err != nil {
		t.Fatal(err)
	}
	if n := a.AddrsCounted(); n != 1 {
		t.Errorf("past 10000 addresses an hour on, %d are counted, want the one of this hour", n)
	}
}

// hiding is a keeper that does not show the next key it is asked for, as a keeper does
// to a session that asked just before another bound it.
type hiding struct {
	knights.Keeper
	hide int
}

func (h *hiding) KeyOf(fp string) (knights.Key, error) {
	if h.hide > 0 {
		h.hide--
		return knights.Key{}, knights.ErrNotFound
	}
	return h.Keeper.KeyOf(fp)
}

// Two sessions of a new key opened at once: the second, which found no knight before the
// first bound one, plays the first's knight and takes no place of the address's.
func TestTwoSessionsOfANewKeyPlayOneKnight(t *testing.T) {
	keeper := &hiding{Keeper: memory.NewKeeper()}
	a := knights.NewArrivals(keeper, 2, nil)
	first, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a"}, "192.0.2.1", true)
	if err != nil {
		t.Fatal(err)
	}
	keeper.hide = 1 // the second session asks before the first's binding shows
	second, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a"}, "192.0.2.1", true)
	if err != nil || second.Knight != first.Knight {
		t.Fatalf("the second session plays %q (%v), want the first's %q", second.Knight, err, first.Knight)
	}
	if _, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:b"}, "192.0.2.1", true); err != nil {
		t.Fatalf("another key's new knight, the second session having taken no place: %v", err)
	}
}
