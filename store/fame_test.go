package store

import (
	"path/filepath"
	"slices"
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

	dead := world.Adventurer{ID: "fp1", Name: "Kay", Experience: 700, Death: &world.Death{Killer: "a troll", Depth: 3}}
	retired := world.Adventurer{ID: "fp2", Name: "Bors", Experience: 9000, Retirement: &world.Retirement{Level: 5, Experience: 9000}}
	better := world.Adventurer{ID: "fp3", Name: "Galahad", Experience: 50000, Retirement: &world.Retirement{Level: 8, Experience: 50000}}
	sv.Put(dead, retired, better)
	sv.Put(world.Adventurer{ID: "fp1", Name: "Kay II"}, world.Adventurer{ID: "fp2", Name: "Bors II"})
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
	// The surface's state (depth 0) holds the markets' stock.
	stock := []world.StockState{{Item: world.Item{Kind: world.ItemPotionHealing}, Price: 60, Count: 2, Start: 3},
		{Item: world.Item{Kind: world.ItemGem, Value: 120}, Price: 120, Count: 1}}
	sv.PutLevels(world.LevelState{Depth: 0, Seed: 1977, Markets: []world.MarketState{{Square: 12, Stock: stock}}})
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := st.Levels()
	if err != nil || len(got) != 3 || got[0].Depth != 0 || got[1].Depth != 1 || got[2].Depth != 2 || got[2].Guards != 3 || len(got[2].Monsters) != 0 {
		t.Fatalf("levels %+v, %v", got, err)
	}
	if m := got[0].Markets; len(m) != 1 || m[0].Square != 12 || !slices.Equal(m[0].Stock, stock) {
		t.Fatalf("the surface's markets came back as %+v", m)
	}
}
