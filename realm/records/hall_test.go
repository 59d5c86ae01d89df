package records

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestTheHallOfFameIsByExperienceThenTime(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		for _, e := range []store.FameEntry{
			{Retired: at.Add(time.Hour), Adventurer: world.Adventurer{ID: "k1", Name: "Kay", Experience: 100}},
			{Retired: at.Add(2 * time.Hour), Adventurer: world.Adventurer{ID: "k2", Name: "Bors", Experience: 300}},
			{Retired: at, Adventurer: world.Adventurer{ID: "k3", Name: "Gawain", Experience: 100}},
		} {
			if err := st.retire(e); err != nil {
				t.Fatal(err)
			}
		}
		fame, err := st.Fame()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range fame {
			names = append(names, e.Adventurer.Name)
		}
		if want := []string{"Bors", "Gawain", "Kay"}; !slices.Equal(names, want) {
			t.Errorf("fame = %v, want %v", names, want)
		}
		if a, err := st.LoadAdventurer("k2"); err != nil || a.Name != "Bors" || a.Experience != 300 {
			t.Errorf("the retired knight's last sheet = %+v, %v", a, err)
		}
		if _, err := st.LoadAdventurer("nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a knight never saved: %v, want ErrNotFound", err)
		}
	})
}

func TestTombstonesAreByKnightThenTime(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		for _, tb := range []store.Tombstone{
			{Died: at.Add(time.Hour), Adventurer: world.Adventurer{ID: "k2", Name: "Bors"}},
			{Died: at, Adventurer: world.Adventurer{ID: "k1", Name: "Kay"}},
		} {
			if err := st.bury(tb); err != nil {
				t.Fatal(err)
			}
		}
		tombs, err := st.Tombstones()
		if err != nil {
			t.Fatal(err)
		}
		if len(tombs) != 2 || tombs[0].Adventurer.Name != "Kay" || !tombs[1].Died.Equal(at.Add(time.Hour)) {
			t.Errorf("tombstones = %+v", tombs)
		}
	})
}

// A knight's end is written under its claim: a realm that lost the claim writes
// neither the sheet nor the entry.
func TestAnEndIsFenced(t *testing.T) {
	cli := newClient(t)
	st := New(cli, Options{Prefix: prefixOf(t)})
	r := openRealm(t, cli)
	f := claim(t, r, "k1")
	a := world.Adventurer{ID: "k1", Name: "Kay", Experience: 100}
	if err := Checkpoint(context.Background(), f, &a); err != nil {
		t.Fatal(err)
	}
	if err := f.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Experience = 900
	err := Retire(context.Background(), f, store.FameEntry{Retired: time.Now(), Adventurer: a})
	if !errors.Is(err, realm.ErrFenced) {
		t.Fatalf("an end after the claim went: %v, want ErrFenced", err)
	}
	if fame, _ := st.Fame(); len(fame) != 0 {
		t.Errorf("fame = %+v, want none", fame)
	}
	if got, err := st.LoadAdventurer("k1"); err != nil || got.Experience != 100 {
		t.Errorf("sheet = %+v, %v; want the checkpoint before", got, err)
	}
	g := claim(t, r, "k1")
	if got, err := DecodeKnight("k1", g.Sheet()); err != nil || got.Name != "Kay" {
		t.Errorf("the claim's sheet = %+v, %v", got, err)
	}
}
