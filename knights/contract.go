package knights

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Bans are the bans every realm applies: of keys, and of address prefixes, for ever or
// until a time. store.Store keeps them in bbolt, records.Store in etcd.
type Bans interface {
	// Ban stores b under its fingerprint or its address prefix (which must parse),
	// replacing an earlier ban of the same.
	Ban(b Ban) error
	// Unban lifts the ban on fp (a fingerprint, or "addr:" and a prefix, as Bans lists
	// it) and reports whether there was one.
	Unban(fp string) (bool, error)
	// IsBanned reports whether fp is banned at now; a lapsed timed ban is none.
	IsBanned(fp string, now time.Time) (bool, error)
	// IsAddrBanned reports whether addr is in a prefix banned at now, and which.
	IsAddrBanned(addr netip.Addr, now time.Time) (bool, string, error)
	// Bans lists the bans in force at now, oldest first, and deletes the lapsed ones.
	Bans(now time.Time) ([]Ban, error)
	// CountBans counts the bans in force at now, of keys and of addresses; it writes
	// nothing (the lapsed ones stay for Bans).
	CountBans(now time.Time) (keys, addrs int, err error)
}

// Hall is the reading side of the knights' sheets and ends: a knight's last sheet, the
// hall of fame and the tombstones. Writing them differs by design: store.Store.Save
// writes a batch, a realm writes one knight's sheet with its end in one fenced
// transaction (Retire, Bury, Checkpoint).
type Hall interface {
	// LoadAdventurer is a knight's last sheet, or an error wrapping ErrNotFound.
	LoadAdventurer(id string) (world.Adventurer, error)
	// Fame is every retired knight, most experienced first, earlier first among equals.
	Fame() ([]FameEntry, error)
	// Tombstones is every tombstone, by knight id, then time of death.
	Tombstones() ([]Tombstone, error)
	// CountKnights is how many knights' sheets are kept, living or not.
	CountKnights() (int, error)
	// Living is the last sheet of every living knight kept (neither dead nor retired),
	// by knight id: what the boards rank. Guests are never kept. A sheet may come
	// without its maps, things, options and channels (SheetWithoutMaps).
	Living() ([]world.Adventurer, error)
}

// Keys lead to knights: each SSH key's entry names the knight it plays, with what
// the player called it and when and whence it was last used. Writing a new key differs:
// the store writes it with its knight's first record (store.Batch.Keys), a realm with
// its knight's first sheet under the claim (KeyWrite).
type Keys interface {
	// KeyOf is the key fp's entry, or an error wrapping ErrNotFound.
	KeyOf(fp string) (Key, error)
	// KeysOf is the keys of a knight, the first added first.
	KeysOf(knight string) ([]Key, error)
	// TouchKey records that fp was used at at, from addr (kept when empty); a key that
	// plays no knight is left alone.
	TouchKey(fp string, at time.Time, addr string) error
	// RemoveKey takes fp from its knight; the knight's last key is ErrLastKey.
	RemoveKey(fp string) error
}

// Names are the knights' names, unique across knights (and across realms). Claiming
// differs: the store knows a name from its knight's record and the server keeps them
// unique in memory; in etcd a name is claimed in a transaction (records.Store.ClaimName).
type Names interface {
	// KnightNames is every knight's name with its id.
	KnightNames() ([]KnightName, error)
}

// Letters are the knights' mailboxes, by the recipient knight's id. The store writes
// them in its batches (store.Batch.Mail), etcd one mailbox at a time (records.Store.PutMail).
type Letters interface {
	// Mail is every mailbox, by the recipient's id.
	Mail() (map[string][]world.Letter, error)
}

// Silences are the admins' silences of knights, by knight id, each until a time: the
// knight plays but cannot talk, on every realm.
type Silences interface {
	// Silence stores sl under its knight's id, replacing an earlier one of the knight.
	Silence(sl Silence) error
	// Unsilence deletes the silence of knight id and reports whether there was one.
	Unsilence(id string) (bool, error)
	// Silences lists those lasting beyond now, soonest to end first, and deletes the ended.
	Silences(now time.Time) ([]Silence, error)
}

// Codes are the one-time codes of keys add and of guests' claims (Code), each good
// once until it expires. A server alone keeps its book in memory and the codes in bbolt
// across a restart (store.Store); realms keep them in etcd (records.Store), so a code given on one
// realm is good on another.
type Codes interface {
	// PutCode keeps c until c.Expires, replacing a code of the same name.
	PutCode(c Code) error
	// TakeCode returns the code of kind ("link", "claim") and forgets it, once: of two
	// takes at once one has it. A code not kept, or expired by now, wraps
	// ErrNotFound; one of the other kind is ErrCodeKind, and is kept.
	TakeCode(code, kind string, now time.Time) (Code, error)
	// DeleteCode forgets a code, used or replaced; a code not kept is no error.
	DeleteCode(code string) error
}

// Records is the whole contract: every record a knight takes from realm to realm, as a
// server reads and writes it. store.Store keeps them in bbolt for a server alone,
// records.Store in etcd for realms; one suite of tests (knightstest) holds both to it.
type Records interface {
	Bans
	Hall
	Keys
	Names
	Letters
	Silences
	Codes
}

// Keeper is where a server keeps its knights: the records, read and written, and the
// ways a server writes a knight while it plays. Chosen once at start: a server alone's is
// its store with the saver that batches the world's sheets (store.Keeper); a realm's is
// etcd, each knight written under its claim (records.Keeper). Nothing else asks which.
type Keeper interface {
	Records
	// KeyOf is the key fp's entry: a new key bound here (Bind) before its knight's
	// first sheet is written, or the kept one; an error wrapping ErrNotFound for none.
	KeyOf(fp string) (Key, error)
	// Bind holds k, a new key, until its knight's first sheet is written with it;
	// release lets it go when the session that bound it ends.
	Bind(k Key) (release func())
	// Knight is the newest sheet of knight id: one waiting to be written, or the kept
	// one (an error wrapping ErrNotFound for a knight never saved).
	Knight(id string) (world.Adventurer, error)
	// Put files the world's newest sheets of knights playing here, to be written; a
	// death or retirement is written with its tombstone or fame entry (world.Saver).
	// The sheets are kept as they are given: the caller changes them no more.
	Put(recs ...world.Adventurer)
	// PutMail files a knight's whole mailbox, to be written (world.Archive).
	PutMail(to string, letters []world.Letter)
	// Flush writes what waits, and reports what kept it from being written.
	Flush() error
	// Claim takes knight id for a session's game here, before it joins the world; a
	// knight playing elsewhere is called here, calling told of it first. Every Claim
	// is ended by a Leave.
	Claim(ctx context.Context, id string, calling func(where string)) error
	// Leave ends one session's game of knight id; the last one here checks it in.
	Leave(ctx context.Context, id string) error
	// Give gives a key to a knight (link, claim, keys move), entombing the knight it
	// leaves keyless when asked to; the knights concerned are out of the world.
	Give(ctx context.Context, g Give) (Given, error)
	// ClaimName reserves name for knight id among every knight this keeper serves; a
	// name another knight holds is refused (false). ReleaseName lets it go.
	ClaimName(name, id string) (bool, error)
	ReleaseName(name, id string) error
	// Rename gives knight id name in place of old: its kept sheet renamed, name claimed
	// (ErrNameTaken when another knight holds it) and old let go. A knight playing on
	// another server is renamed when it next plays anywhere, and is an *ElsewhereError
	// for the caller to tell that server now.
	Rename(ctx context.Context, id, old, name string) error
	// Err is non-nil once the keeper can take no one in (a realm cut off from etcd).
	Err() error
}

// Give is which key goes to which knight, and how (Keeper.Give).
type Give struct {
	// Key is the key to give, with the knight it is to play.
	Key Key
	// Knight, when set, is kept first as the new knight Key.Knight (a claimed guest's).
	Knight *world.Adventurer
	// Remove is a key of the same knight that loses its place to Key (an admin's keys
	// move OLD NEW); empty for none.
	Remove string
	// Replace lets the key leave a living knight it is the only key of: that knight is
	// entombed with Death at At. Without it, such a give is ErrHasKnight.
	Replace bool
	Death   world.Death
	At      time.Time
}

// ReplacedKiller is the "killer" in the tombstone of a knight a Give with Replace
// entombed (link or claim --replace): its player took its last key to another knight.
// It is no death, so the web page lists no such tombstone among the dead.
const ReplacedKiller = "its player, who took its key to another knight"

// Given is what a Give did: Left is the knight the key played before, if another; Gone
// when that knight has no key now, and Entombed when it was living and is entombed.
type Given struct {
	Left     string
	Gone     bool
	Entombed bool
}

// ErrKeyMoved is a key given while another server changed it: nothing was changed.
var ErrKeyMoved = errors.New("the key changed meanwhile")
