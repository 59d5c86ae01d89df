package records

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A rename of a knight that plays in another realm cannot write its sheet: that realm
// holds the claim. It is kept in etcd as a pending rename (rename/<id>), which whichever
// realm next claims the knight applies to the sheet it read, if the sheet still has the
// old name; the admin's realm also tells the realm that plays it, over its talk, so the
// knight is renamed at once when the talk is up.

// renameValue is a pending rename.
type renameValue struct {
	V    int    `json:"v"`
	Old  string `json:"old"`
	Name string `json:"name"`
}

func (s *Store) renameKey(id string) string { return s.prefix + "rename/" + id }

// Rename implements knights.Keeper: the name is claimed across the realms, the sheet
// renamed under the knight's claim (held here, or made for the write), and old let go.
func (k *Keeper) Rename(ctx context.Context, id, old, name string) error {
	ok, err := k.ClaimName(name, id)
	if err != nil {
		return err
	}
	if !ok {
		return knights.ErrNameTaken
	}
	err = k.renameSheet(ctx, id, old, name)
	var away *knights.ElsewhereError
	if err != nil && !errors.As(err, &away) {
		return err
	}
	if world.NameKey(old) != world.NameKey(name) {
		return errors.Join(err, k.ReleaseName(old, id)) // the new name is its own already
	}
	return err
}

// renameSheet writes knight id's sheet renamed. A knight played here is renamed by the
// world, which checkpoints it; one another realm holds gets a pending rename; one no
// realm holds is renamed in etcd, and gets a pending rename too, so that the realm that
// next claims it, whichever it is, tells it.
func (k *Keeper) renameSheet(ctx context.Context, id, old, name string) error {
	if k.sheets.plays(id) {
		return nil
	}
	f, done, err := k.fenceOf(ctx, id)
	var held *realm.ClaimedError
	if errors.As(err, &held) && !held.Here {
		if perr := k.putRename(id, old, name); perr != nil {
			return perr
		}
		return elsewhere(err)
	}
	if err != nil {
		return elsewhere(err)
	}
	defer done()
	if f.Sheet() == nil {
		return nil // never saved: its first sheet has the name the world gives it
	}
	rec, _, err := DecodeSheet(id, f.Sheet())
	if err != nil {
		return err
	}
	rec.Name = name
	sheet, err := SheetWrite(&rec, k.r.Name())
	if err != nil {
		return err
	}
	if _, err = f.Commit(ctx, sheet); err != nil {
		return err
	}
	return k.putRename(id, old, name)
}

// putRename keeps a pending rename of knight id.
func (k *Keeper) putRename(id, old, name string) error {
	data, err := json.Marshal(renameValue{V: valueVersion, Old: old, Name: name})
	if err != nil {
		return err
	}
	ctx, cancel := k.call()
	defer cancel()
	if _, err := k.cli.Put(ctx, k.renameKey(id), string(data)); err != nil {
		return fmt.Errorf("keep the rename of %s: %w", id, err)
	}
	return nil
}

// PendingRename is the name an admin gave knight id while another realm played it, kept
// in etcd; ok is false for none. A realm told of a rename over the talk believes the
// rename only when etcd has it: anyone who reaches the talk could say one.
func (k *Keeper) PendingRename(id string) (name string, ok bool, err error) {
	ctx, cancel := k.call()
	defer cancel()
	resp, err := k.cli.Get(ctx, k.renameKey(id))
	if err != nil || len(resp.Kvs) == 0 {
		return "", false, err
	}
	var v renameValue
	if err := decodeVersioned(resp.Kvs[0].Key, resp.Kvs[0].Value, &v, &v.V); err != nil {
		return "", false, err
	}
	return v.Name, true, nil
}

// takeRename applies the pending rename of the knight a claim (f) just read to its
// sheet a, and forgets it: the old name it was made from is renamed, a sheet renamed
// since (by the realm the knight played on) stays. It reports the name before the
// rename to tell the knight ("" for none): one applied now, or one the admin's realm
// wrote to the sheet while no realm held it. The claim read the pending rename, at its
// own revision.
func (k *Keeper) takeRename(a *world.Adventurer, f *realm.Fenced) (old string, err error) {
	pending, ok := f.Read("rename/" + a.ID)
	if !ok {
		return "", nil
	}
	var v renameValue
	if err := decodeVersioned([]byte(k.renameKey(a.ID)), pending.Value, &v, &v.V); err != nil {
		return "", err
	}
	// Forgotten only as read: a rename written since (another admin's, while the claim's
	// read was on its way) stays pending for the next claim, not wiped.
	ctx, cancel := k.call()
	defer cancel()
	key := k.renameKey(a.ID)
	if _, err := k.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", pending.Rev)).
		Then(clientv3.OpDelete(key)).Commit(); err != nil {
		return "", err
	}
	switch world.NameKey(a.Name) {
	case world.NameKey(v.Old):
		old, a.Name = a.Name, v.Name
		return old, nil
	case world.NameKey(v.Name):
		return v.Old, nil
	}
	return "", nil
}
