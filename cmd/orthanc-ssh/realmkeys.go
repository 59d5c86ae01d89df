package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keys given to knights on a realm (link, keys move): a key's entry in etcd is written
// under the claim of the knight it is given to (held here already, or claimed for the
// write and let go), conditioned on the entry's mod revision as read, so another realm's
// move of the same key meanwhile refuses it. A key may leave a knight only if the knight
// keeps another key: a knight left keyless would need its own claim in the same
// transaction (to entomb it), which a realm does not do; the player is told to link a new
// key instead.

var (
	// errOnlyKey is a key that is its knight's only one.
	errOnlyKey = errors.New("the key is its knight's only key")
	// errKeyMoved is a key another realm wrote between its read and this write.
	errKeyMoved = errors.New("the key changed meanwhile")
)

// giveKey writes k (its knight, k.Knight) in etcd; remove, when set, is a key of the same
// knight that loses its place. It returns the knight k played before, if another (with
// errOnlyKey too).
func (rs *realmSide) giveKey(ctx context.Context, k store.Key, remove string) (left string, err error) {
	writes, left, err := rs.keyWrites(k, remove)
	if err != nil {
		return left, err // errOnlyKey names the knight
	}
	f, done, err := rs.fenceOf(ctx, k.Knight)
	if err != nil {
		return "", err
	}
	defer done()
	if _, err = f.Commit(ctx, writes...); errors.Is(err, realm.ErrTaken) {
		return "", errKeyMoved
	}
	return left, err
}

// keyWrites are the conditioned writes that give k its knight and remove remove.
func (rs *realmSide) keyWrites(k store.Key, remove string) ([]realm.Write, string, error) {
	prev, rev, err := rs.recs.KeyAt(k.Fingerprint)
	left := ""
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, "", err
	case prev.Knight == k.Knight:
		return nil, "", store.ErrSameKnight
	default:
		rest, err := rs.recs.KeysOf(prev.Knight)
		if err != nil {
			return nil, "", err
		}
		if len(rest) < 2 {
			return nil, prev.Knight, errOnlyKey
		}
		left = prev.Knight
	}
	w, err := records.KeyWrite(k)
	if err != nil {
		return nil, "", err
	}
	w.Rev = rev
	writes := []realm.Write{w}
	if remove != "" {
		del, err := rs.removeWrite(remove, k.Knight)
		if err != nil {
			return nil, "", err
		}
		writes = append(writes, del)
	}
	return writes, left, nil
}

// removeWrite deletes the key fp of knight, if it is still that knight's as read.
func (rs *realmSide) removeWrite(fp, knight string) (realm.Write, error) {
	old, rev, err := rs.recs.KeyAt(fp)
	if err != nil || old.Knight != knight {
		return realm.Write{}, errors.Join(errKeyMoved, err)
	}
	return realm.Write{Key: "key/" + fp, Delete: true, Create: true, Rev: rev}, nil
}

// fenceOf is the claim of knight id: the one held here for its sessions, or one made for
// a write, let go by done. A knight another realm holds is a *realm.ClaimedError.
func (rs *realmSide) fenceOf(ctx context.Context, id string) (*realm.Fenced, func(), error) {
	rs.knights.mu.Lock()
	h := rs.knights.held[id]
	here := h != nil && h.refs > 0
	rs.knights.mu.Unlock()
	if here {
		return h.f, func() {}, nil
	}
	if rs.r.Err() != nil {
		return nil, nil, errRealmDown
	}
	f, err := rs.r.Claim(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return f, func() {
		if err := f.Release(ctx); err != nil {
			rs.log.Error("realm: let go of a knight claimed for its keys", "knight", id, "err", err)
		}
	}, nil
}

// giveKeyLine is what a player or admin reads when a key could not be given on a realm,
// naming the key's knight before (name) when it has no other key.
func giveKeyLine(err error, name string) string {
	var held *realm.ClaimedError
	switch {
	case errors.Is(err, errOnlyKey):
		return fmt.Sprintf("this key is the only key of %s; on a realm a key can leave its knight only if the knight keeps another: give a new key instead (ssh-keygen -t ed25519 -f NEWKEY)", name)
	case errors.Is(err, store.ErrSameKnight):
		return "this key already plays that knight"
	case errors.As(err, &held) && held.Here:
		return "the knight is leaving the game just now; try again in a moment"
	case errors.As(err, &held):
		return fmt.Sprintf("the knight plays in realm %s; leave the game there first, then try again", held.Holder)
	case errors.Is(err, errKeyMoved):
		return "the key changed on another realm meanwhile; try again"
	}
	return "the key could not be given to the knight just now; try again later"
}

// realmLink is link CODE on a realm, the code taken: the key joins the code's knight in
// etcd (giveKey).
func (s *server) realmLink(c *call, code string, e codeEntry) int {
	rec, err := s.loadKnight(e.knight)
	if err != nil {
		return c.fail("the knight of that code is gone")
	}
	if rec.Ended() {
		return c.fail("the knight of that code, %s, has died or retired: its code is no good; roll a new knight and run `keys add` again", rec.Name)
	}
	k := store.Key{Fingerprint: c.fp, Knight: e.knight, Type: c.key.Type(), Comment: c.comment, Added: s.now().UTC()}
	left, err := s.realm.giveKey(c.ctx, k, "")
	if err != nil {
		s.codes.giveBack(code, e)
		old, _ := s.loadKnight(left)
		s.log.Info("realm: link refused", "fingerprint", c.fp, "knight", e.knight, "err", err)
		return c.fail("%s", giveKeyLine(err, old.Name))
	}
	s.log.Info("key given to a knight", "fingerprint", c.fp, "knight", e.knight, "left", left, "command", c.cmd.name)
	c.result = "key given to " + e.knight
	fmt.Fprintf(c.out, "This key now plays %s. Connect to play: %s\n", rec.Name, s.sshCommand())
	return 0
}

// realmKeysMove is keys move OLD NEW on a realm: NEW takes OLD's place with OLD's knight,
// in etcd (giveKey), and OLD's games here end.
func (s *server) realmKeysMove(c *call, oldFP, newFP string) int {
	old, err := s.keyOf(oldFP)
	if errors.Is(err, store.ErrNotFound) {
		return c.fail("%s plays no knight", printable(oldFP))
	} else if err != nil {
		return c.fail("could not read the key: %v", err)
	}
	rec, err := s.loadKnight(old.Knight)
	if err != nil {
		return c.fail("could not read the knight: %v", err)
	}
	k := store.Key{Fingerprint: newFP, Knight: old.Knight, Comment: "moved from " + oldFP[:min(len(oldFP), 15)] + "… by an admin", Added: s.now().UTC()}
	left, err := s.realm.giveKey(c.ctx, k, oldFP)
	if err != nil {
		was, _ := s.loadKnight(left)
		return c.fail("the key could not be moved: %s", giveKeyLine(err, was.Name))
	}
	s.tellKeyEnds(oldFP, keyMovedMessage)
	s.live.closeKey(oldFP, kickGrace)
	c.result = fmt.Sprintf("moved %s's key %s to %s", rec.Name, oldFP, newFP)
	if c.json {
		return c.writeJSON(keysMoveJSON{Old: oldFP, New: newFP, Knight: old.Knight, Name: rec.Name})
	}
	fmt.Fprintf(c.out, "%s is now played by %s in place of %s.\n", rec.Name, newFP, oldFP)
	return 0
}

// claimOnRealmLine refuses claim on a realm for a key that plays a knight already: the
// knight left behind would need entombing under its own claim.
const claimOnRealmLine = "on a realm, claim takes a key that plays no knight yet: make a new key (ssh-keygen -t ed25519 -f NEWKEY) and claim with it"

// realmClaim is claim CODE on a realm, the code taken: the guest's knight is written as a
// new knight of this realm, with the key, under its own claim, then let go.
func (s *server) realmClaim(c *call, code string, e codeEntry) int {
	if c.knight != "" {
		s.codes.giveBack(code, e)
		return c.fail("%s", claimOnRealmLine)
	}
	rec := e.rec.Clone()
	rec.ID, rec.Guest = store.NewKnightID(), false
	rec.Name = s.keptName(rec.Name, rec.ID)
	k := store.Key{Fingerprint: c.fp, Knight: rec.ID, Type: c.key.Type(), Comment: "claimed a guest", Added: s.now().UTC()}
	if err := s.realm.writeNew(c.ctx, &rec, k); err != nil {
		s.codes.giveBack(code, e)
		_ = s.realm.recs.ReleaseName(rec.Name, rec.ID)
		s.log.Info("realm: claim refused", "fingerprint", c.fp, "err", err)
		return c.fail("%s", giveKeyLine(err, ""))
	}
	if err := s.engine.KnowKnight(c.ctx, rec.ID, rec.Name); err != nil {
		s.log.Warn("enter a claimed knight in the book of knights", "knight", rec.ID, "err", err)
	}
	s.log.Info("key given to a knight", "fingerprint", c.fp, "knight", rec.ID, "command", c.cmd.name)
	c.result = "key given to " + rec.ID
	fmt.Fprintf(c.out, "This key now plays %s. Connect to play: %s\n", rec.Name, s.sshCommand())
	return 0
}

// writeNew writes a new knight's first sheet with its key, under a claim made for it.
func (rs *realmSide) writeNew(ctx context.Context, rec *world.Adventurer, k store.Key) error {
	sheet, err := records.SheetWrite(rec, rs.r.Name())
	if err != nil {
		return err
	}
	key, err := records.KeyWrite(k)
	if err != nil {
		return err
	}
	f, done, err := rs.fenceOf(ctx, rec.ID)
	if err != nil {
		return err
	}
	defer done()
	if _, err = f.Commit(ctx, sheet, key); errors.Is(err, realm.ErrTaken) {
		return errKeyMoved
	}
	return err
}
