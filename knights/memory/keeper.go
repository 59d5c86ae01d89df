package memory

import (
	"context"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keeper is a knights.Keeper in memory, for tests of the server's commands: the
// Records, written as a server alone writes them (store.Keeper), but at once, with no
// saver between. Claim and Leave are no-ops, as on a server alone, where every knight
// is the server's; names are claimed in the Records' claims (Records.ClaimName), so a
// name another knight claimed is refused, as across realms. Its methods may be called
// from any goroutine; the zero value is not ready, use NewKeeper.
type Keeper struct {
	*Records

	mu    sync.Mutex
	bound map[string]*binding // new keys by fingerprint, until their knight's first sheet
}

// binding is a key bound by sessions (Bind), and how many hold it.
type binding struct {
	key  knights.Key
	refs int
}

// NewKeeper is an empty keeper, its records in Records.
func NewKeeper() *Keeper { return &Keeper{Records: New(), bound: map[string]*binding{}} }

var _ knights.Keeper = (*Keeper)(nil)

// KeyOf implements knights.Keeper: a key bound and waiting for its knight's first
// sheet, or the kept one.
func (k *Keeper) KeyOf(fp string) (knights.Key, error) {
	k.mu.Lock()
	b := k.bound[fp]
	k.mu.Unlock()
	if b != nil {
		return b.key, nil
	}
	// Put writes a bound key and unbinds it under k.mu, so a key not bound is kept.
	return k.Records.KeyOf(fp)
}

// Bind implements knights.Keeper: key is KeyOf's answer until its knight's first sheet
// is put, which keeps it; a key bound again is the first binding's, and is let go by
// the last release (each release counts once).
func (k *Keeper) Bind(key knights.Key) (release func()) {
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

// Knight implements knights.Keeper: the kept sheet, for Put keeps it at once.
func (k *Keeper) Knight(id string) (world.Adventurer, error) { return k.LoadAdventurer(id) }

// Put implements knights.Keeper: each sheet is kept at once, with the keys bound to
// its knight and, for a death or a retirement, its tombstone or fame entry dated now,
// as the store's saver writes them in one batch. A sheet without an id is dropped, as
// the saver drops it.
func (k *Keeper) Put(recs ...world.Adventurer) {
	now := time.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, rec := range recs {
		if rec.ID == "" {
			continue
		}
		var keys []knights.Key
		for fp, b := range k.bound {
			if b.key.Knight == rec.ID {
				keys = append(keys, b.key)
				delete(k.bound, fp) // kept now: the records answer for it
			}
		}
		k.keep(rec, keys, now)
	}
}

// keep keeps rec with keys, and its end dated now.
func (r *Records) keep(rec world.Adventurer, keys []knights.Key, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheets[rec.ID] = sheet(rec)
	for _, key := range keys {
		r.keys[key.Fingerprint] = key
	}
	if rec.Death != nil {
		r.tombstones[endKey(rec.ID, now)] = knights.Tombstone{Died: now, Adventurer: sheet(rec)}
	}
	if rec.Retirement != nil {
		r.fame[endKey(rec.ID, now)] = knights.FameEntry{Retired: now, Adventurer: sheet(rec)}
	}
}

// PutMail implements knights.Keeper: the mailbox is kept at once (an empty one is
// deleted); one of no knight is dropped, as the store cannot key it.
func (k *Keeper) PutMail(to string, letters []world.Letter) { _ = k.Records.PutMail(to, letters) }

// Flush implements knights.Keeper: everything is kept already.
func (k *Keeper) Flush() error { return nil }

// Claim implements knights.Keeper: every knight is this keeper's already.
func (k *Keeper) Claim(context.Context, string, func(string)) error { return nil }

// Leave implements knights.Keeper: the knight's last sheet is kept already.
func (k *Keeper) Leave(context.Context, string) error { return nil }

// Err implements knights.Keeper: a keeper in memory never stops taking players in.
func (k *Keeper) Err() error { return nil }

// Rename implements knights.Keeper: name is claimed for knight id (knights.ErrNameTaken
// when another knight claimed it), its kept sheet renamed, and old let go. A knight
// never kept has no sheet to rename: its first has the name the world gives it.
func (k *Keeper) Rename(_ context.Context, id, old, name string) error {
	ok, err := k.ClaimName(name, id)
	if err != nil {
		return err
	}
	if !ok {
		return knights.ErrNameTaken
	}
	k.renameSheet(id, name)
	if world.NameKey(old) != world.NameKey(name) { // else the new name is the old claim
		return k.ReleaseName(old, id)
	}
	return nil
}

// renameSheet names knight id's kept sheet name, if it has one.
func (r *Records) renameSheet(id, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.sheets[id]; ok {
		a.Name = name
		r.sheets[id] = a
	}
}
