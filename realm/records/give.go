package records

import (
	"context"
	"errors"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keys given to knights on a realm (link, claim, keys move), as store.Attach gives them
// on a server alone: a key's entry in etcd is written under the claim of the knight it is given to
// (held here already, or claimed for the write and let go), conditioned on the entry's
// mod revision as read, so another realm's move of the same key meanwhile refuses it. A
// key that leaves a knight it is the only key of leaves that knight keyless: a dead or
// retired one is left as it is; a living one is refused (knights.ErrHasKnight) unless
// --replace, and is then entombed in the same transaction, under its own claim too
// (realm.Fenced.CommitWith), so no realm plays it meanwhile; its letters go with it.

// Give implements knights.Keeper: g.Key is written with g.Knight's first sheet, when
// given, under the claim of the knight it is given to; the knight it leaves keyless is
// settled as g says. A knight another realm plays is a *knights.ElsewhereError.
func (k *Keeper) Give(ctx context.Context, g knights.Give) (knights.Given, error) {
	var extra []realm.Write
	if g.Knight != nil {
		sheet, err := SheetWrite(g.Knight, k.r.Name())
		if err != nil {
			return knights.Given{}, err
		}
		extra = append(extra, sheet)
	}
	given, err := k.giveKey(ctx, g, extra...)
	return given, elsewhere(err)
}

// giveKey writes g.Key in etcd, with extra (a new knight's first sheet) under the same
// claim, and removes g.Remove.
func (k *Keeper) giveKey(ctx context.Context, g knights.Give, extra ...realm.Write) (knights.Given, error) {
	writes, l, err := k.keyWrites(g.Key, g.Remove)
	if err != nil {
		return l.Given, err
	}
	f, done, err := k.fenceOf(ctx, g.Key.Knight)
	if err != nil {
		return l.Given, err
	}
	defer done()
	commit := f.Commit
	if l.Gone {
		h, letGo, err := k.leave(ctx, &l, g)
		if err != nil {
			return l.Given, err
		}
		defer letGo()
		if h != nil {
			commit = func(ctx context.Context, ws ...realm.Write) (int64, error) { return f.CommitWith(ctx, h, ws...) }
		}
	}
	if _, err = commit(ctx, slices.Concat(extra, writes, l.tomb)...); errors.Is(err, realm.ErrTaken) {
		err = knights.ErrKeyMoved
	}
	return l.Given, err
}

// plays reports whether knight id plays here.
func (k *sheets) plays(id string) bool { return k.fence(id) != nil }

// fence is the claim of knight id held for its sessions here; nil when none plays it.
func (k *sheets) fence(id string) *realm.Fenced {
	k.mu.Lock()
	defer k.mu.Unlock()
	if h := k.held[id]; h != nil && h.refs > 0 {
		return h.f
	}
	return nil
}

// keyWrites are the conditioned writes that give key its knight and remove remove, and
// the knight key leaves (Gone when key was its only key).
func (k *Keeper) keyWrites(key knights.Key, remove string) ([]realm.Write, leavingKnight, error) {
	var given leavingKnight
	prev, rev, err := k.KeyAt(key.Fingerprint)
	switch {
	case errors.Is(err, knights.ErrNotFound):
	case err != nil:
		return nil, given, err
	case prev.Knight == key.Knight:
		return nil, given, knights.ErrSameKnight
	default:
		rest, err := k.KeysOf(prev.Knight)
		if err != nil {
			return nil, given, err
		}
		given.Left, given.Gone = prev.Knight, len(rest) < 2
	}
	w, err := KeyWrite(key)
	if err != nil {
		return nil, given, err
	}
	w.Rev = rev
	writes := []realm.Write{w}
	if remove != "" {
		del, err := k.removeWrite(remove, key.Knight)
		if err != nil {
			return nil, given, err
		}
		writes = append(writes, del)
	}
	return writes, given, nil
}

// leavingKnight is what a give did so far, with the writes that entomb the knight left.
type leavingKnight struct {
	knights.Given
	tomb []realm.Write
}

// leave settles the knight a key leaves keyless: a dead or retired one needs nothing; a
// living one is knights.ErrHasKnight unless g.Replace, and is then claimed (returned,
// let go by done) and its tombstone written in l.tomb. A knight played here is refused.
func (k *Keeper) leave(ctx context.Context, l *leavingKnight, g knights.Give) (*realm.Fenced, func(), error) {
	rec, err := k.sheets.load(l.Left)
	if err != nil || rec.Ended() {
		return nil, func() {}, err
	}
	if !g.Replace {
		return nil, nil, knights.ErrHasKnight
	}
	if k.sheets.plays(l.Left) {
		return nil, nil, &realm.ClaimedError{Knight: l.Left, Holder: k.r.Name(), Here: true}
	}
	f, done, err := k.fenceOf(ctx, l.Left)
	if err != nil {
		return nil, nil, err
	}
	if f.Sheet() != nil { // the newest checkpoint, read with the claim
		if rec, _, err = DecodeSheet(l.Left, f.Sheet()); err != nil {
			done()
			return nil, nil, err
		}
	}
	if l.tomb, err = entombWrites(rec, g, k.r.Name()); err != nil {
		done()
		return nil, nil, err
	}
	l.Entombed = true
	return f, done, nil
}

// entombWrites write rec dead of g.Death, with its tombstone, and delete its letters.
func entombWrites(rec world.Adventurer, g knights.Give, realmName string) ([]realm.Write, error) {
	d := g.Death
	d.Depth, d.Level, d.Experience, d.Turn = rec.Depth, rec.Level, rec.Experience, rec.Turn
	rec.Death = &d
	sheet, err := SheetWrite(&rec, realmName)
	if err != nil {
		return nil, err
	}
	tomb, err := TombstoneWrite(knights.Tombstone{Died: g.At, Adventurer: rec})
	if err != nil {
		return nil, err
	}
	return []realm.Write{sheet, tomb, {Key: "letters/" + rec.ID, Delete: true}}, nil
}

// removeWrite deletes the key fp of knight, if it is still that knight's as read.
func (k *Keeper) removeWrite(fp, knight string) (realm.Write, error) {
	old, rev, err := k.KeyAt(fp)
	if err != nil || old.Knight != knight {
		return realm.Write{}, errors.Join(knights.ErrKeyMoved, err)
	}
	return realm.Write{Key: "key/" + fp, Delete: true, Create: true, Rev: rev}, nil
}

// fenceOf is the claim of knight id: the one held here for its sessions, or one made for
// a write, let go by done. A knight another realm holds is a *realm.ClaimedError.
func (k *Keeper) fenceOf(ctx context.Context, id string) (*realm.Fenced, func(), error) {
	if f := k.sheets.fence(id); f != nil {
		return f, func() {}, nil
	}
	if k.r.Err() != nil {
		return nil, nil, knights.ErrStopped
	}
	f, err := k.r.Claim(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return f, func() {
		if err := f.Release(ctx); err != nil {
			k.log.Error("realm: let go of a knight claimed for its keys", "knight", id, "err", err)
		}
	}, nil
}
