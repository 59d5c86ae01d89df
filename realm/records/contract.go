package records

import (
	"net/netip"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
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

var (
	_ Bans = (*store.Store)(nil)
	_ Bans = (*Store)(nil)
)
