package store

import (
	"slices"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// KnightNames lists every stored knight's name with its key, in key order, and whether
// it has died or retired; a record saved with options reads them back.
func TestKnightNames(t *testing.T) {
	st := openTemp(t)
	recs := []world.Adventurer{
		{ID: "SHA256:2", Name: "Bors", Options: world.Options{Plain: true, Muted: []string{"Kay"}}},
		{ID: "SHA256:1", Name: "Sir Kay"},
		{ID: "SHA256:3", Name: "Lamorak", Death: &world.Death{Killer: "the Troll"}},
		{ID: "SHA256:4", Name: "Percival", Retirement: &world.Retirement{Level: 9}},
	}
	if err := st.SaveAdventurers(recs); err != nil {
		t.Fatal(err)
	}
	got, err := st.KnightNames()
	want := []knights.KnightName{{Knight: "SHA256:1", Name: "Sir Kay", Ended: false}, {Knight: "SHA256:2", Name: "Bors", Ended: false}, {Knight: "SHA256:3", Name: "Lamorak", Ended: true}, {Knight: "SHA256:4", Name: "Percival", Ended: true}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("KnightNames() = %v, %v; want %v", got, err, want)
	}
	rec, err := st.LoadAdventurer("SHA256:2")
	if err != nil || !rec.Options.Plain || !slices.Equal(rec.Options.Muted, []string{"Kay"}) {
		t.Fatalf("options did not survive the store: %+v, %v", rec.Options, err)
	}
}
