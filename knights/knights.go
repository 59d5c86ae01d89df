// Package knights holds what a knight is across the server's doors: its records (keys,
// bans, silences, codes, names, fame, tombstones) as values, the errors of their
// contract, the contract itself (contract.go), which the bbolt store keeps for a server
// alone and etcd for realms (realm/records), and the services a server keeps on it: the
// books of one-time codes and of names, and the arrivals of keys. Nothing here does I/O
// but through the contract.
package knights

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Key is one SSH key of a knight.
type Key struct {
	// Fingerprint is the key's, as `ssh-keygen -l` prints it.
	Fingerprint string `json:"fingerprint"`
	// Knight is the id of the knight the key plays.
	Knight string `json:"knight"`
	// Type is the key's algorithm (ssh-ed25519), when known: a key from the store's
	// schema 1 has none.
	Type string `json:"type,omitempty"`
	// Kind is KindBrowser for a key a web browser made (the play page's, proved by a
	// signature over the socket rather than an SSH login); empty for an SSH client's.
	// Older records have none, which reads as an SSH client's: no migration is needed.
	Kind string `json:"kind,omitempty"`
	// Comment is what the player called the key when linking it (the comment in a key
	// file never reaches the server).
	Comment string `json:"comment,omitempty"`
	// Added is when the key was given to the knight; LastUsed when it last opened a
	// session or left the game, zero for never since added; LastAddr the address (no
	// port) that session came from.
	Added    time.Time `json:"added"`
	LastUsed time.Time `json:"last_used,omitzero"`
	LastAddr string    `json:"last_addr,omitempty"`
}

// KindBrowser is Key.Kind for a key made by a browser on the play page.
const KindBrowser = "browser"

// Ban is a key, or an address, an admin has banned: its sessions are refused at login,
// for ever or until a time.
type Ban struct {
	// Fingerprint is the banned key's; empty in a ban of an address.
	Fingerprint string `json:"fingerprint"`
	// Addr is the banned address prefix ("203.0.113.7/32", "2001:db8::/64"): every
	// connection from it is refused, a guest's (which has no key to ban) and a key's
	// alike. Empty in a ban of a key.
	Addr string `json:"addr,omitempty"`
	// Name is the name of the key's knight when it was banned, if it had one, so an admin
	// can find the ban again by name.
	Name   string    `json:"name,omitempty"`
	Reason string    `json:"reason,omitempty"`
	By     string    `json:"by"` // the banning admin's key fingerprint
	At     time.Time `json:"at"`
	// Until is when a timed ban lapses by itself; zero for a ban that lasts until lifted.
	Until time.Time `json:"until,omitzero"`
}

// Lapsed reports whether the ban has run out at now.
func (b Ban) Lapsed(now time.Time) bool { return !b.Until.IsZero() && !now.Before(b.Until) }

// AddrBanPrefix starts the key of a ban of an address prefix: bans of keys and of
// addresses share one set of keys, so "addr:" and a prefix reads as a fingerprint too
// (Unban takes either).
const AddrBanPrefix = "addr:"

// Key is the key the ban is kept under: its fingerprint, or AddrBanPrefix and its
// address prefix.
func (b Ban) Key() string {
	if b.Addr != "" {
		return AddrBanPrefix + b.Addr
	}
	return b.Fingerprint
}

// ErrNoBanKey is a ban of neither a key nor an address.
var ErrNoBanKey = errors.New("a ban of no fingerprint or address")

// Kept is the ban as every keeper keeps it: an address prefix masked ("203.0.113.7/24"
// is 203.0.113.0/24), and then no fingerprint. A prefix that does not parse, or a ban of
// neither, is an error.
func (b Ban) Kept() (Ban, error) {
	if b.Addr != "" {
		p, err := netip.ParsePrefix(b.Addr)
		if err != nil {
			return Ban{}, fmt.Errorf("ban %q: %w", b.Addr, err)
		}
		b.Addr, b.Fingerprint = p.Masked().String(), ""
	}
	if b.Key() == "" {
		return Ban{}, fmt.Errorf("ban: %w", ErrNoBanKey)
	}
	return b, nil
}

// Silence is an admin's silencing of a knight until a time: it plays but cannot talk. It
// is kept by the knight's id, so it holds whichever of the knight's keys plays it, and a
// silenced player cannot escape it by rolling a new knight.
type Silence struct {
	Knight string    `json:"knight"`
	Name   string    `json:"name,omitempty"` // the knight's name when it was silenced
	Reason string    `json:"reason,omitempty"`
	By     string    `json:"by"` // the admin's key fingerprint
	At     time.Time `json:"at"`
	Until  time.Time `json:"until"`
}

// Code is a one-time code waiting to be used, kept so that a restart loses none (a guest
// whose claim code was lost would lose its knight): a link code of keys add gives Knight
// to the key that links with it; a guest's claim code gives Guest, the guest's knight as
// it left, to the key that claims with it. Addr is the address that made it, which the
// server counts codes by.
type Code struct {
	Code    string            `json:"code"`
	Kind    string            `json:"kind"` // "link" or "claim"
	Knight  string            `json:"knight,omitempty"`
	Guest   *world.Adventurer `json:"guest,omitempty"`
	Addr    string            `json:"addr,omitempty"`
	Expires time.Time         `json:"expires"`
}

// FameEntry is a retired knight in the hall of fame: its last record (with
// world.Retirement set) and when it retired.
type FameEntry struct {
	Retired    time.Time        `json:"retired"`
	Adventurer world.Adventurer `json:"adventurer"`
}

// Tombstone is a dead knight: its last record (with world.Death set) and when it died.
type Tombstone struct {
	Died       time.Time        `json:"died"`
	Adventurer world.Adventurer `json:"adventurer"`
}

// KnightName is the name of a stored knight and its id; Ended says the knight has died
// or retired (letters no longer reach it).
type KnightName struct {
	Knight string
	Name   string
	Ended  bool
}

var (
	// ErrNotFound means no record is kept under the id, fingerprint or code asked for.
	ErrNotFound = errors.New("not found")

	// ErrHasKnight means the key already plays a living knight, which a link or a claim
	// would take from it: it is done only when asked to replace it.
	ErrHasKnight = errors.New("the key already has a living knight")

	// ErrSameKnight means the key already plays the knight it was to be given.
	ErrSameKnight = errors.New("the key already plays that knight")

	// ErrLastKey means the key is its knight's only key, which is never removed: the
	// knight would be left with no way in.
	ErrLastKey = errors.New("the knight's only key")

	// ErrCodeKind is a code taken as one kind ("link", "claim") that is of the other: it
	// is kept, for its own kind.
	ErrCodeKind = errors.New("a code of another kind")

	// ErrUnknownVersion means a record's encoding is of a version this program does not
	// know (usually: written by a newer one). The record is left as it is.
	ErrUnknownVersion = errors.New("unknown version")
)

// knightIDEncoding writes knight ids in capital letters and digits.
var knightIDEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewKnightID returns a new random knight id, "K-" and 16 characters (80 random bits).
func NewKnightID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "K-" + knightIDEncoding.EncodeToString(b[:])
}

// guestIDPrefix starts the knight id of a guest, which is never kept.
const guestIDPrefix = "guest-"

// NewGuestID returns a new random knight id for a guest, "guest-" and 16 characters.
func NewGuestID() string { return guestIDPrefix + NewKnightID()[2:] }

// IsGuest reports whether id is a guest's knight id, kept nowhere.
func IsGuest(id string) bool { return strings.HasPrefix(id, guestIDPrefix) }

// ErrNameTaken is a name another knight holds.
var ErrNameTaken = errors.New("the name is another knight's")

// ErrStopped is a keeper that takes no one in just now: a realm cut off from etcd, or
// whose lease is gone. Nothing was changed.
var ErrStopped = errors.New("the knights' records cannot be reached")

// ElsewhereError is a knight that plays on another server (Where, a realm's name), or
// that this one is letting go of (Here): it cannot be claimed or written here now.
type ElsewhereError struct {
	Knight string
	Where  string
	Here   bool
}

func (e *ElsewhereError) Error() string {
	if e.Here {
		return "knight " + e.Knight + " is leaving this server"
	}
	return "knight " + e.Knight + " plays in " + e.Where
}

// Named is the ids of the knights of names with the name, compared without regard to
// case or the spaces around it (names of dead knights may repeat), in names' order.
func Named(names []KnightName, name string) []string {
	name = strings.TrimSpace(name)
	var ids []string
	for _, n := range names {
		if strings.EqualFold(n.Name, name) && !slices.Contains(ids, n.Knight) {
			ids = append(ids, n.Knight)
		}
	}
	return ids
}

// Tally is how many records of each kind a realm world holds in etcd, at one revision:
// stats shows it, and an export says what it wrote.
type Tally struct {
	// Revision is etcd's revision the records were read at.
	Revision int64 `json:"revision"`
	Knights  int   `json:"knights"` // sheets, living, dead or retired
	Names    int   `json:"names"`
	Keys     int   `json:"keys"`
	// Mailboxes are those with letters in them, Letters every letter, read or not.
	Mailboxes  int `json:"mailboxes"`
	Letters    int `json:"letters"`
	Fame       int `json:"fame"`
	Tombstones int `json:"tombstones"`
	// Bans and Silences are those in force; Renames the renames an admin made of a knight
	// playing elsewhere, not applied yet.
	Bans     int `json:"bans"`
	Silences int `json:"silences"`
	Renames  int `json:"renames"`
}
