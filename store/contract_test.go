package store

import (
	"path/filepath"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The store keeps the contract every keeper of the records keeps.
func TestTheContract(t *testing.T) {
	knightstest.Run(t, func(t *testing.T) knightstest.Backend {
		st, err := Open(filepath.Join(t.TempDir(), "orthanc.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return knightstest.Backend{Records: st,
			Retire: func(e knights.FameEntry) error {
				return st.Save(Batch{Adventurers: []world.Adventurer{e.Adventurer}, Fame: []knights.FameEntry{e}})
			},
			Bury: func(tb knights.Tombstone) error {
				return st.Save(Batch{Adventurers: []world.Adventurer{tb.Adventurer}, Tombstones: []knights.Tombstone{tb}})
			},
			AddKey: func(a world.Adventurer, k knights.Key) error {
				return st.Save(Batch{Adventurers: []world.Adventurer{a}, Keys: []knights.Key{k}})
			},
			Name: func(knight, name string) error {
				return st.SaveAdventurers([]world.Adventurer{{ID: knight, Name: name}})
			},
			PutMail: func(to string, ls []world.Letter) error {
				return st.Save(Batch{Mail: map[string][]world.Letter{to: ls}})
			}}
	})
}
