package memory

import (
	"context"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// Give implements knights.Keeper under the store's rules (store.Store.Attach), all of
// it or nothing: g.Knight, when given, is kept as the new knight g.Key.Knight (which
// must not be kept yet); without it that knight must be kept (knights.ErrNotFound). The
// key's entry names its new knight (a key it plays already is knights.ErrSameKnight),
// keeping when it was added if g.Key has no date, and g.Remove is deleted. A kept
// knight the key leaves with no key goes, with its letters and its claimed names (as
// the store's name goes with its sheet): a dead or retired one has its end already, a
// living one is knights.ErrHasKnight unless g.Replace, and is then entombed of g.Death
// at g.At.
func (k *Keeper) Give(_ context.Context, g knights.Give) (knights.Given, error) {
	return k.attach(g)
}

// attach is Give on the records: every check first, so a refusal changes nothing.
func (r *Records) attach(g knights.Give) (knights.Given, error) {
	id, fp := g.Key.Knight, g.Key.Fingerprint
	if id == "" || fp == "" {
		return knights.Given{}, fmt.Errorf("give key %q to knight %q: %w", fp, id, errNoID)
	}
	if g.Knight != nil && g.Knight.ID != id {
		return knights.Given{}, fmt.Errorf("give key %s: the knight given is %q, not %q", fp, g.Knight.ID, id)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.canTake(id, g.Knight != nil); err != nil {
		return knights.Given{}, fmt.Errorf("give key %s to knight %s: %w", fp, id, err)
	}
	done, tomb, err := r.leaving(g)
	if err != nil {
		return knights.Given{}, fmt.Errorf("give key %s to knight %s: %w", fp, id, err)
	}
	if old, had := r.keys[fp]; had && g.Key.Added.IsZero() {
		g.Key.Added = old.Added
	}
	if g.Knight != nil {
		r.sheets[id] = sheet(*g.Knight)
	}
	r.keys[fp] = g.Key
	if g.Remove != "" {
		delete(r.keys, g.Remove)
	}
	if tomb != nil {
		r.tombstones[endKey(tomb.Adventurer.ID, tomb.Died)] = *tomb
	}
	if done.Gone {
		r.forget(done.Left)
	}
	return done, nil
}

// canTake checks that knight id may be given a key: a new one (given) not kept yet, or
// else one kept. The caller holds r.mu.
func (r *Records) canTake(id string, given bool) error {
	_, kept := r.sheets[id]
	switch {
	case given && kept:
		return fmt.Errorf("knight %s is kept already", id)
	case !given && !kept:
		return fmt.Errorf("knight %s: %w", id, knights.ErrNotFound)
	}
	return nil
}

// leaving is what g does to the knight its key leaves: Left, and Gone when that knight
// is kept and has no other key (g.Remove gone too), with the tombstone of a living one
// replaced. The caller holds r.mu.
func (r *Records) leaving(g knights.Give) (knights.Given, *knights.Tombstone, error) {
	var done knights.Given
	old, had := r.keys[g.Key.Fingerprint]
	switch {
	case !had:
		return done, nil, nil
	case old.Knight == g.Key.Knight:
		return done, nil, knights.ErrSameKnight
	}
	done.Left = old.Knight
	for fp, key := range r.keys {
		if key.Knight == done.Left && fp != g.Key.Fingerprint && fp != g.Remove {
			return done, nil, nil // the knight left behind keeps its other keys
		}
	}
	rec, kept := r.sheets[done.Left]
	if !kept {
		return done, nil, nil
	}
	done.Gone = true
	if rec.Ended() {
		return done, nil, nil
	}
	if !g.Replace {
		return knights.Given{}, nil, knights.ErrHasKnight
	}
	done.Entombed = true
	d := g.Death
	d.Depth, d.Level, d.Experience, d.Turn = rec.Depth, rec.Level, rec.Experience, rec.Turn
	rec.Death = &d
	return done, &knights.Tombstone{Died: g.At, Adventurer: sheet(rec)}, nil
}

// forget takes knight id out of the records, a key's leaving it keyless: its sheet, its
// letters and the names it claimed. Its keys, tombstones and fame stay. The caller holds
// r.mu.
func (r *Records) forget(id string) {
	delete(r.sheets, id)
	delete(r.mail, id)
	for name, held := range r.claims {
		if held.Knight == id {
			delete(r.claims, name)
		}
	}
}
