package records

import (
	"net/netip"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Bans are the bans every realm applies: of keys, and of address prefixes, for ever or
// until a time. store.Store keeps them in bbolt, Store in etcd.
type Bans interface {
	// Ban stores b under its fingerprint or its address prefix (which must parse),
	// replacing an earlier ban of the same.
	Ban(b store.Ban) error
	// Unban lifts the ban on fp (a fingerprint, or "addr:" and a prefix, as Bans lists
	// it) and reports whether there was one.
	Unban(fp string) (bool, error)
	// IsBanned reports whether fp is banned at now; a lapsed timed ban is none.
	IsBanned(fp string, now time.Time) (bool, error)
	// IsAddrBanned reports whether addr is in a prefix banned at now, and which.
	IsAddrBanned(addr netip.Addr, now time.Time) (bool, string, error)
	// Bans lists the bans in force at now, oldest first, and deletes the lapsed ones.
	Bans(now time.Time) ([]store.Ban, error)
}

// Hall is the reading side of the knights' sheets and ends: a knight's last sheet, the
// hall of fame and the tombstones. Writing them differs by design: store.Store.Save
// writes a batch, a realm writes one knight's sheet with its end in one fenced
// transaction (Retire, Bury, Checkpoint).
type Hall interface {
	// LoadAdventurer is a knight's last sheet, or an error wrapping store.ErrNotFound.
	LoadAdventurer(id string) (world.Adventurer, error)
	// Fame is every retired knight, most experienced first, earlier first among equals.
	Fame() ([]store.FameEntry, error)
	// Tombstones is every tombstone, by knight id, then time of death.
	Tombstones() ([]store.Tombstone, error)
}

var (
	_ Bans = (*store.Store)(nil)
	_ Bans = (*Store)(nil)
	_ Hall = (*store.Store)(nil)
	_ Hall = (*Store)(nil)
)
