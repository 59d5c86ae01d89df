package store

import (
	"path/filepath"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Dead and retired knights keep their tombstone and hall-of-fame entry even when the same
// key's next knight is saved before the saver gets to write.
func TestTombstonesAndFameSurviveANewKnight(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "orthanc.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sv := NewSaver(st, nil)

	dead := world.Adventurer{Fingerprint: "fp1", Name: "Kay", Experience: 700, Death: &world.Death{Killer: "a troll", Depth: 3}}
	retired := world.Adventurer{Fingerprint: "fp2", Name: "Bors", Experience: 9000, Retirement: &world.Retirement{Level: 5, Experience: 9000}}
	better := world.Adventurer{Fingerprint: "fp3", Name: "Galahad", Experience: 50000, Retirement: &world.Retirement{Level: 8, Experience: 50000}}
	sv.Put(dead, retired, better)
	sv.Put(world.Adventurer{Fingerprint: "fp1", Name: "Kay II"}, world.Adventurer{Fingerprint: "fp2", Name: "Bors II"})
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	tombs, err := st.Tombstones()
	if err != nil || len(tombs) != 1 || tombs[0].Adventurer.Name != "Kay" || tombs[0].Adventurer.Death.Killer != "a troll" || tombs[0].Died.IsZero() {
		t.Fatalf("tombstones %+v, %v", tombs, err)
	}
	fame, err := st.Fame()
	if err != nil || len(fame) != 2 || fame[0].Adventurer.Name != "Galahad" || fame[1].Adventurer.Name != "Bors" {
		t.Fatalf("hall of fame %+v, %v", fame, err)
	}
	if a, _ := st.LoadAdventurer("fp1"); a.Name != "Kay II" || a.Ended() {
		t.Fatalf("the new knight was not saved over the dead one: %+v", a)
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}
