package records

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// sheets is what a realm's saver is for its knights: the world hands it records
// (world.Saver's Put) and never waits; its run goroutine writes each knight's newest
// record through the knight's claim (realm.Fenced), batched per knight, with the new
// keys bound to it and its end (tombstone, fame) in the same transaction. A pending
// record keeps the claim it was made under, so a record made before a knight left
// can never be written under a later claim. Safe for concurrent use.
type sheets struct {
	realm string // this realm's name, written in each sheet
	recs  *Store
	log   *slog.Logger
	// lost is told of a knight whose claim went while it played here (ErrFenced).
	lost func(knight string)
	// beat is told of a new knight not kept: another realm bound its key first.
	beat func(knight string)
	// mailed is told of each mailbox written, for the other realms to read it anew.
	mailed func(knight string)
	kick   chan struct{}
	now    func() time.Time
	ages   realmAges // how long the records waited for etcd (realmages.go)

	mailing sync.Mutex // one flushMail at a time

	mu    sync.Mutex
	held  map[string]*heldKnight
	bound map[string]*binding // new keys by fingerprint, written with their knight's first sheet
	mail  map[string][]world.Letter
	boxes map[string]*mailbox // what this realm knows of each mailbox in etcd (realmmail.go)
	// merged is told of a mailbox merged with another realm's writes, for the world.
	merged func(knight string, letters []world.Letter)
}

// heldKnight is a knight this realm holds: its claim, the sessions playing it, and
// what waits to be written.
type heldKnight struct {
	f     *realm.Fenced
	refs  int
	last  world.Adventurer // the newest record known: the claim's sheet, then each Put
	dirty bool             // last is not written yet
	seq   uint64           // Puts so far, so a write does not drop a newer one
	ends  []realm.Write    // tombstones and fame entries waiting, written with the sheet
	since time.Time        // when the first record not yet taken for a write was filed; zero: none
	taken time.Time        // the since of the write in flight; zero: none
	write sync.Mutex       // one write of this knight at a time
}

// binding is a new key waiting for its knight's first sheet, and how many sessions hold it.
type binding struct {
	key  knights.Key
	refs int
}

func newSheets(name string, recs *Store, log *slog.Logger) *sheets {
	return &sheets{realm: name, recs: recs, log: log, lost: func(string) {}, beat: func(string) {}, mailed: func(string) {}, merged: func(string, []world.Letter) {}, kick: make(chan struct{}, 1), now: time.Now, ages: newRealmAges(),
		held: map[string]*heldKnight{}, bound: map[string]*binding{}, mail: map[string][]world.Letter{}, boxes: map[string]*mailbox{}}
}

// hold keeps f, a claim just made, with its sheet (nil for a knight never saved).
func (k *sheets) hold(f *realm.Fenced, sheet *world.Adventurer) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := &heldKnight{f: f, refs: 1}
	if sheet != nil {
		h.last = *sheet
	}
	k.held[f.Knight()] = h
}

// dropStopped forgets the knights held under claims of a realm's term that stopped:
// they can never be written.
func (k *sheets) dropStopped() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, h := range k.held {
		if h.f.Err() != nil {
			delete(k.held, id)
		}
	}
}

// join counts one more session of a knight held here already, and reports whether it was.
func (k *sheets) join(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := k.held[id]
	if h == nil || h.refs == 0 || h.f.Err() != nil {
		return false // a claim of a realm's stopped term is no one's to share
	}
	h.refs++
	return true
}

// Put files the world's records of held knights, to be written (world.Saver). They are
// kept as they are: the world made them for the Keeper, and nothing changes them after.
func (k *sheets) Put(recs ...world.Adventurer) {
	k.mu.Lock()
	now := k.now()
	for _, rec := range recs {
		h := k.held[rec.ID]
		if h == nil {
			k.log.Error("realm: a record of a knight not held here is not written", "knight", rec.ID)
			continue
		}
		h.last, h.dirty = rec, true
		h.seq++
		if h.since.IsZero() {
			h.since = now
		}
		if end, ok := endOf(rec); ok {
			h.ends = append(h.ends, end)
		}
	}
	k.mu.Unlock()
	k.wake()
}

// endOf is the tombstone or fame entry of a knight that just died or retired.
func endOf(rec world.Adventurer) (realm.Write, bool) {
	now := time.Now()
	var w realm.Write
	var err error
	switch {
	case rec.Death != nil:
		w, err = TombstoneWrite(knights.Tombstone{Died: now, Adventurer: rec.Clone()})
	case rec.Retirement != nil:
		w, err = FameWrite(knights.FameEntry{Retired: now, Adventurer: rec.Clone()})
	default:
		return w, false
	}
	return w, err == nil
}

// putMail files a mailbox to be written (the world's Archive).
func (k *sheets) putMail(to string, letters []world.Letter) {
	k.mu.Lock()
	k.mail[to] = slices.Clone(letters)
	k.holds(to, letters) // a letter gone since the world's last is deleted here (realmmail.go)
	k.mu.Unlock()
	k.wake()
}

func (k *sheets) wake() {
	select {
	case k.kick <- struct{}{}:
	default:
	}
}

// bind holds a new key until its knight's first sheet is written with it; release lets
// it go when the session that bound it ends.
func (k *sheets) bind(key knights.Key) (release func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.bound[key.Fingerprint]
	if b == nil {
		b = &binding{key: key}
		k.bound[key.Fingerprint] = b
	}
	b.refs++
	var once sync.Once
	return func() {
		once.Do(func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			if b.refs--; b.refs <= 0 && k.bound[key.Fingerprint] == b {
				delete(k.bound, key.Fingerprint)
			}
		})
	}
}

// keyOf is a key bound here, or the shared one.
func (k *sheets) keyOf(fp string) (knights.Key, error) {
	k.mu.Lock()
	b := k.bound[fp]
	k.mu.Unlock()
	if b != nil {
		return b.key, nil
	}
	return k.recs.KeyOf(fp)
}

// load is the newest record of a knight held here, or its shared sheet.
func (k *sheets) load(id string) (world.Adventurer, error) {
	k.mu.Lock()
	h := k.held[id]
	var rec world.Adventurer
	if h != nil && h.last.ID != "" {
		rec = h.last.Clone()
	}
	k.mu.Unlock()
	if rec.ID != "" {
		return rec, nil
	}
	return k.recs.LoadAdventurer(id)
}
