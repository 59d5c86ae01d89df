package records

import (
	"context"
	"errors"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
)

// Two realms that each made a first knight for one new key at the same moment: the key is
// bound to a knight only where etcd has none (KeyWrite), with the knight's first
// sheet, so the first realm to write wins and the second's knight is never written. The
// second realm lets it go (its claim and its name) and its player is told to connect
// again, to play the first's knight: no knight is left in etcd without a key.

// errKeyWritten is a retry after a write that bound the key but whose answer was lost.
var errKeyWritten = errors.New("the key was bound by an earlier try; writing the rest again")

// beaten handles h's write refused because a key it was to bind has an entry already.
func (k *sheets) beaten(ctx context.Context, h *heldKnight, p pending) error {
	id := h.f.Knight()
	for _, fp := range p.keys {
		key, err := k.recs.KeyOf(fp)
		if err != nil {
			return err
		}
		k.unbind(fp)
		if key.Knight == id {
			return errKeyWritten // this realm's own earlier try: the run loop writes the rest
		}
		k.log.Warn("realm: another realm bound this knight's new key first; the knight is not kept",
			"knight", id, "key", fp, "other", key.Knight)
	}
	k.drop(h)
	if err := h.f.Release(ctx); err != nil && !errors.Is(err, realm.ErrFenced) {
		k.log.Error("realm: let go of a knight not kept", "knight", id, "err", err)
	}
	if h.last.Name != "" {
		if err := k.recs.ReleaseName(h.last.Name, id); err != nil {
			k.log.Error("realm: free the name of a knight not kept", "knight", id, "err", err)
		}
	}
	k.beat(id)
	return nil
}

// unbind forgets a new key's binding.
func (k *sheets) unbind(fp string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.bound, fp)
}
