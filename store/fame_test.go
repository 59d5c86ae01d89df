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

func TestLevelStatesRoundTrip(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "orthanc.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sv := NewSaver(st, nil)
	sv.PutLevels(world.LevelState{Depth: 2, Seed: 9, Broken: []int{5}, Monsters: []world.MonsterState{{Kind: 3, X: 1, Y: 2, Hits: 7, Room: 0}}, Guards: 4})
	sv.PutLevels(world.LevelState{Depth: 1, Seed: 8}, world.LevelState{Depth: 2, Seed: 9, Guards: 3}) // newer state of level 2
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := st.Levels()
	if err != nil || len(got) != 2 || got[0].Depth != 1 || got[1].Depth != 2 || got[1].Guards != 3 || len(got[1].Monsters) != 0 {
		t.Fatalf("levels %+v, %v", got, err)
	}
}
