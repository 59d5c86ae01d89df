// Package memory keeps a knight's records (knights.Records) in memory, under the bbolt
// store's rules (package store), for tests of the server's commands that want records
// without a file or an etcd; Keeper writes them as a server alone's knights.Keeper does
// (store.Keeper), at once. Nothing here starts a goroutine or does I/O.
//
// Every value handed in or out is a copy, so a caller changes what is kept only through
// a method; and what the store never writes (world.Adventurer.Prelude, world.Letter.ID)
// is not kept either, so a test reads back what it would read from the store.
package memory

import (
	"errors"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Records are a knight's records in memory. Its methods may be called from any
// goroutine; the zero value is not ready, use New.
type Records struct {
	mu         sync.Mutex
	bans       map[string]knights.Ban        // by banKey, as the store's bans bucket
	silences   map[string]knights.Silence    // by knight id
	codes      map[string]knights.Code       // by code
	keys       map[string]knights.Key        // by fingerprint
	sheets     map[string]world.Adventurer   // by knight id: each knight's last sheet
	fame       map[string]knights.FameEntry  // by endKey
	tombstones map[string]knights.Tombstone  // by endKey
	mail       map[string][]world.Letter     // by the recipient's id
	claims     map[string]knights.KnightName // by world.NameKey: names claimed, as etcd's
}

// New is an empty keeper of records.
func New() *Records {
	return &Records{
		bans:       map[string]knights.Ban{},
		silences:   map[string]knights.Silence{},
		codes:      map[string]knights.Code{},
		keys:       map[string]knights.Key{},
		sheets:     map[string]world.Adventurer{},
		fame:       map[string]knights.FameEntry{},
		tombstones: map[string]knights.Tombstone{},
		mail:       map[string][]world.Letter{},
		claims:     map[string]knights.KnightName{},
	}
}

// The whole contract, as the store and etcd keep it.
var _ knights.Records = (*Records)(nil)

// errNoID is a record that cannot be kept for want of its id, fingerprint or code, as
// the store refuses one it cannot key.
var errNoID = errors.New("no id or fingerprint")

// endKey is the key the store keeps a fame entry or a tombstone under: the knight's id,
// a slash, the time in UTC. Its byte order is the order the store lists them in, and an
// entry of the same knight and time replaces the earlier one, as there.
func endKey(id string, at time.Time) string {
	return id + "/" + at.UTC().Format(time.RFC3339Nano)
}

// sheet is a copy of a as the store would read it back: Adventurer.Clone, plus the
// death's slices (which Clone shares), without the Prelude (never saved), and with
// empty collections nil (the store's JSON omits them).
func sheet(a world.Adventurer) world.Adventurer {
	c := a.Clone()
	c.Prelude = nil
	if a.Death != nil {
		c.Death.LastBlows = append([]world.Blow(nil), a.Death.LastBlows...)
		c.Death.Hints = append([]string(nil), a.Death.Hints...)
		c.Death.LastLines = append([]string(nil), a.Death.LastLines...)
	}
	c.Options.Muted = nilIfEmpty(c.Options.Muted)
	c.Maps = nilIfEmpty(c.Maps)
	if len(c.Channels) == 0 {
		c.Channels = nil
	}
	return c
}

// nilIfEmpty is s, or nil when it is empty.
func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// letters is a copy of ls without their IDs, which the store does not keep (the engine
// numbers the letters it loads).
func letters(ls []world.Letter) []world.Letter {
	out := make([]world.Letter, len(ls))
	for i, l := range ls {
		l.ID = 0
		out[i] = l
	}
	return out
}

// code is a copy of c, its guest's sheet copied too.
func code(c knights.Code) knights.Code {
	if c.Guest != nil {
		g := sheet(*c.Guest)
		c.Guest = &g
	}
	return c
}
