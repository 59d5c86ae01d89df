// Package knightstest is the contract of knights.Records as tests: every keeper of a
// knight's records (the bbolt store, etcd's records, the in-memory one) runs the same
// suite with Run, so that a server reads the same answers whichever keeps them; and of
// knights.Keeper, the records as a server writes them while knights play (RunKeeper).
package knightstest

import (
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Backend is one keeper of the records, fresh for one test, with the ways it writes
// what the contract reads back.
type Backend struct {
	knights.Records
	// Retire writes a knight's last sheet with its fame entry; Bury with its tombstone.
	Retire func(e knights.FameEntry) error
	Bury   func(t knights.Tombstone) error
	// AddKey writes a new knight's first sheet with its first key.
	AddKey func(a world.Adventurer, k knights.Key) error
	// Name gives a knight its name.
	Name func(knight, name string) error
	// PutMail replaces a knight's mailbox.
	PutMail func(to string, ls []world.Letter) error
}

// Run runs the suite, each test in a subtest on a Backend of its own from open.
func Run(t *testing.T, open func(t *testing.T) Backend) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}
