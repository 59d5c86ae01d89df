package records

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A knight's end is written under its claim: a realm that lost the claim writes
// neither the sheet nor the entry.
func TestAnEndIsFenced(t *testing.T) {
	cli := newClient(t)
	st := New(cli, Options{Prefix: prefixOf(t)})
	r := openRealm(t, cli)
	f := claim(t, r, "k1")
	a := world.Adventurer{ID: "k1", Name: "Kay", Experience: 100}
	if err := checkpoint(context.Background(), f, &a); err != nil {
		t.Fatal(err)
	}
	if err := f.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Experience = 900
	err := Retire(context.Background(), f, knights.FameEntry{Retired: time.Now(), Adventurer: a})
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
