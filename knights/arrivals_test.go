package knights_test

import (
	"errors"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A key plays its knight; a key with none that opens a game gets a new knight, the same
// one for a second session meanwhile; an address makes its hour's new knights and no
// more, a game left before its knight was made giving its place back.
func TestArrivalsGiveKeysTheirKnights(t *testing.T) {
	keeper := memory.NewKeeper()
	a := knights.NewArrivals(keeper, 2, nil)
	if k, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a"}, "192.0.2.1", false); k.Knight != "" || err != nil {
		t.Fatalf("a key with no knight and no game: %+v, %v", k, err)
	}
	used := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k, release, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a", LastUsed: used}, "192.0.2.1", true)
	first := k.Knight
	if err != nil || first == "" || k.Fingerprint != "SHA256:a" || !k.LastUsed.Equal(used) {
		t.Fatalf("a new key's game: %+v, %v", k, err)
	}
	if again, releaseAgain, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a"}, "192.0.2.1", true); again.Knight != first || err != nil {
		t.Fatalf("a second session of the key: %+v, %v; want %q", again, err, first)
	} else {
		releaseAgain()
	}
	keeper.Put(world.Adventurer{ID: first, Name: "Kay"}) // its first sheet, with its key
	release()
	if k, err := a.KnightOf("SHA256:a"); k != first || err != nil {
		t.Fatalf("the key's knight once written: %q, %v", k, err)
	}
	if k, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:a", LastUsed: used.Add(time.Hour)}, "192.0.2.1", true); k.Knight != first || !k.LastUsed.Equal(used) || err != nil {
		t.Fatalf("the key as kept, arriving again: %+v, %v", k, err)
	}
	_, leave, err := a.Arrive(knights.Key{Fingerprint: "SHA256:b"}, "192.0.2.1", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:c"}, "192.0.2.1", true); !errors.Is(err, knights.ErrTooManyKnights) {
		t.Fatalf("a third new knight from the address in the hour: %v", err)
	}
	leave() // b left before its knight was made
	if k, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:c"}, "192.0.2.1", true); err != nil || k.Knight == "" {
		t.Fatalf("the place given back: %+v, %v", k, err)
	}
	if _, _, err := a.Arrive(knights.Key{Fingerprint: "SHA256:d"}, "198.51.100.1", true); err != nil {
		t.Fatalf("another address: %v", err)
	}
	if k, err := a.KnightOf(""); k != "" || err != nil {
		t.Fatalf("a guest's empty fingerprint: %q, %v", k, err)
	}
}
