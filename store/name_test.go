package store

import (
	"slices"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// KnightNames lists every stored knight's name with its key, in key order; a record
// saved with options reads them back.
func TestKnightNames(t *testing.T) {
	st := openTemp(t)
	recs := []world.Adventurer{
		{Fingerprint: "SHA256:2", Name: "Bors", Options: world.Options{Plain: true, Muted: []string{"Kay"}}},
		{Fingerprint: "SHA256:1", Name: "Sir Kay"},
	}
	if err := st.SaveAdventurers(recs); err != nil {
		t.Fatal(err)
	}
	got, err := st.KnightNames()
	want := []KnightName{{"SHA256:1", "Sir Kay"}, {"SHA256:2", "Bors"}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("KnightNames() = %v, %v; want %v", got, err, want)
	}
	rec, err := st.LoadAdventurer("SHA256:2")
	if err != nil || !rec.Options.Plain || !slices.Equal(rec.Options.Muted, []string{"Kay"}) {
		t.Fatalf("options did not survive the store: %+v, %v", rec.Options, err)
	}
}
