package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keeper is a server alone's knights.Keeper: the store, and the saver that batches the
// world's sheets into it. One process holds every knight, so a claim is no more than the
// session itself and a name is the server's own to give.
type Keeper struct {
	*Store
	saver *Saver
}

// NewKeeper is the keeper of st's knights, the world's sheets written by sv.
func NewKeeper(st *Store, sv *Saver) *Keeper { return &Keeper{Store: st, saver: sv} }

var _ knights.Keeper = (*Keeper)(nil)

// KeyOf implements knights.Keeper: a key bound in the saver, or the stored one.
func (k *Keeper) KeyOf(fp string) (knights.Key, error) { return k.saver.KeyOf(fp) }

// Bind implements knights.Keeper (Saver.Bind).
func (k *Keeper) Bind(key knights.Key) (release func()) { return k.saver.Bind(key) }

// Knight implements knights.Keeper: a sheet waiting in the saver, or the stored one.
func (k *Keeper) Knight(id string) (world.Adventurer, error) { return k.saver.Load(id) }

// Put implements knights.Keeper (Saver.Put).
func (k *Keeper) Put(recs ...world.Adventurer) { k.saver.Put(recs...) }

// PutMail implements knights.Keeper (Saver.PutMail).
func (k *Keeper) PutMail(to string, letters []world.Letter) { k.saver.PutMail(to, letters) }

// Flush implements knights.Keeper (Saver.Flush).
func (k *Keeper) Flush() error { return k.saver.Flush() }

// Claim implements knights.Keeper: every knight is this server's already.
func (k *Keeper) Claim(context.Context, string, func(string)) error { return nil }

// Leave implements knights.Keeper: the saver writes the knight's last sheet.
func (k *Keeper) Leave(context.Context, string) error { return nil }

// Err implements knights.Keeper: a store never stops taking players in.
func (k *Keeper) Err() error { return nil }

// Give implements knights.Keeper: what waits in the saver is written first, so the
// sheets Attach reads are the newest.
func (k *Keeper) Give(_ context.Context, g knights.Give) (knights.Given, error) {
	if err := k.saver.Flush(); err != nil {
		return knights.Given{}, fmt.Errorf("write what waits before a key is given: %w", err)
	}
	return k.Attach(g)
}

// ClaimName implements knights.Keeper: the server's book of names, read from the store,
// is the only one that gives names, so every name it claims is free here.
func (k *Keeper) ClaimName(string, string) (bool, error) { return true, nil }

// ReleaseName implements knights.Keeper: a stored name goes with its knight's sheet.
func (k *Keeper) ReleaseName(string, string) error { return nil }

// Rename implements knights.Keeper: the stored sheet is renamed (what waits in the saver
// written first); a knight never stored has nothing to rename.
func (k *Keeper) Rename(_ context.Context, id, _, name string) error {
	if err := k.saver.Flush(); err != nil {
		return fmt.Errorf("write what waits before a rename: %w", err)
	}
	rec, err := k.LoadAdventurer(id)
	if errors.Is(err, knights.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rec.Name = name
	return k.SaveAdventurers([]world.Adventurer{rec})
}
