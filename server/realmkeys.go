package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keys given to knights on a realm (link, claim, keys move), as store.Attach gives them
// alone: a key's entry in etcd is written under the claim of the knight it is given to
// (held here already, or claimed for the write and let go), conditioned on the entry's
// mod revision as read, so another realm's move of the same key meanwhile refuses it. A
// key that leaves a knight it is the only key of leaves that knight keyless: a dead or
// retired one is left as it is; a living one is refused (store.ErrHasKnight) unless
// --replace, and is then entombed in the same transaction, under its own claim too
// (realm.Fenced.CommitWith), so no realm plays it meanwhile; its letters go with it.

// errKeyMoved is a key another realm wrote between its read and this write.
var errKeyMoved = errors.New("the key changed meanwhile")

// leaving is how a key may leave a living knight it is the only key of.
type leaving struct {
	replace bool        // entomb the knight (link and claim --replace); refused otherwise
	death   world.Death // its death, in the tombstone
	at      time.Time
}

// keyGiven is what giveKey did: left is the knight the key played before, if another;
// gone when that knight has no key now, entombed when it was living and is entombed.
type keyGiven struct {
	left           string
	gone, entombed bool
}

// giveKey writes k (its knight, k.Knight) in etcd, with extra (a new knight's first
// sheet) under the same claim; remove, when set, is a key of the same knight that loses
// its place; how says what becomes of a living knight k leaves keyless.
func (rs *realmSide) giveKey(ctx context.Context, k knights.Key, remove string, how leaving, extra ...realm.Write) (keyGiven, error) {
	writes, l, err := rs.keyWrites(k, remove)
	if err != nil {
		return l.keyGiven, err
	}
	f, done, err := rs.fenceOf(ctx, k.Knight)
	if err != nil {
		return l.keyGiven, err
	}
	defer done()
	commit := f.Commit
	if l.gone {
		g, letGo, err := rs.leave(ctx, &l, how)
		if err != nil {
			return l.keyGiven, err
		}
		defer letGo()
		if g != nil {
			commit = func(ctx context.Context, ws ...realm.Write) (int64, error) { return f.CommitWith(ctx, g, ws...) }
		}
	}
	if _, err = commit(ctx, slices.Concat(extra, writes, l.tomb)...); errors.Is(err, realm.ErrTaken) {
		err = errKeyMoved
	}
	return l.keyGiven, err
}

// plays reports whether knight id plays here.
func (k *realmKnights) plays(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := k.held[id]
	return h != nil && h.refs > 0
}

// keyWrites are the conditioned writes that give k its knight and remove remove, and the
// knight k leaves (gone when k was its only key).
func (rs *realmSide) keyWrites(k knights.Key, remove string) ([]realm.Write, leavingKnight, error) {
	var given leavingKnight
	prev, rev, err := rs.recs.KeyAt(k.Fingerprint)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, given, err
	case prev.Knight == k.Knight:
		return nil, given, knights.ErrSameKnight
	default:
		rest, err := rs.recs.KeysOf(prev.Knight)
		if err != nil {
			return nil, given, err
		}
		given.left, given.gone = prev.Knight, len(rest) < 2
	}
	w, err := records.KeyWrite(k)
	if err != nil {
		return nil, given, err
	}
	w.Rev = rev
	writes := []realm.Write{w}
	if remove != "" {
		del, err := rs.removeWrite(remove, k.Knight)
		if err != nil {
			return nil, given, err
		}
		writes = append(writes, del)
	}
	return writes, given, nil
}

// leavingKnight is keyGiven with the writes that entomb the knight left.
type leavingKnight struct {
	keyGiven
	tomb []realm.Write
}

// leave settles the knight a key leaves keyless: a dead or retired one needs nothing; a
// living one is store.ErrHasKnight unless how.replace, and is then claimed (returned, let
// go by done) and its tombstone written in l.tomb. A knight played here is refused.
func (rs *realmSide) leave(ctx context.Context, l *leavingKnight, how leaving) (*realm.Fenced, func(), error) {
	rec, err := rs.knights.load(l.left)
	if err != nil || rec.Ended() {
		return nil, func() {}, err
	}
	if !how.replace {
		return nil, nil, knights.ErrHasKnight
	}
	if rs.knights.plays(l.left) {
		return nil, nil, &realm.ClaimedError{Knight: l.left, Holder: rs.r.Name(), Here: true}
	}
	g, done, err := rs.fenceOf(ctx, l.left)
	if err != nil {
		return nil, nil, err
	}
	if g.Sheet() != nil { // the newest checkpoint, read with the claim
		if rec, _, err = records.DecodeSheet(l.left, g.Sheet()); err != nil {
			done()
			return nil, nil, err
		}
	}
	if l.tomb, err = entombWrites(rec, how, rs.r.Name()); err != nil {
		done()
		return nil, nil, err
	}
	l.entombed = true
	return g, done, nil
}

// entombWrites write rec dead of how.death, with its tombstone, and delete its letters.
func entombWrites(rec world.Adventurer, how leaving, realmName string) ([]realm.Write, error) {
	d := how.death
	d.Depth, d.Level, d.Experience, d.Turn = rec.Depth, rec.Level, rec.Experience, rec.Turn
	rec.Death = &d
	sheet, err := records.SheetWrite(&rec, realmName)
	if err != nil {
		return nil, err
	}
	tomb, err := records.TombstoneWrite(knights.Tombstone{Died: how.at, Adventurer: rec})
	if err != nil {
		return nil, err
	}
	return []realm.Write{sheet, tomb, {Key: "letters/" + rec.ID, Delete: true}}, nil
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

// giveKeyLine is what a player or admin reads when a key could not be given on a realm.
func giveKeyLine(err error) string {
	var held *realm.ClaimedError
	switch {
	case errors.Is(err, knights.ErrSameKnight):
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
	k := knights.Key{Fingerprint: c.fp, Knight: e.knight, Type: c.key.Type(), Comment: c.comment, Added: s.now().UTC()}
	given, err := s.realm.giveKey(c.ctx, k, "", s.leavingBy(c))
	if err != nil {
		s.codes.giveBack(code, e)
		return s.giveRefused(c, given, err)
	}
	return s.keyGivenTo(c, given, k.Knight, rec.Name)
}

// leavingBy is how the call's key may leave a living knight it is the only key of.
func (s *server) leavingBy(c *call) leaving {
	return leaving{replace: c.replace, death: world.Death{Killer: replacedKiller}, at: s.now().UTC()}
}

// giveRefused says why link or claim could not give the key on a realm.
func (s *server) giveRefused(c *call, given keyGiven, err error) int {
	s.log.Info("realm: key not given", "fingerprint", c.fp, "command", c.cmd.name, "err", err)
	if errors.Is(err, knights.ErrHasKnight) {
		old, _ := s.loadKnight(given.left)
		return c.fail("this key plays a living knight, %s; run it again with --replace to retire %s into a tombstone", old.Name, old.Name)
	}
	return c.fail("%s", giveKeyLine(err))
}

// keyGivenTo tells that link or claim gave the key to knight (named name) on a realm,
// and what became of the knight it played before, as attach does alone.
func (s *server) keyGivenTo(c *call, given keyGiven, knight, name string) int {
	if given.gone {
		s.forgetKnight(c, given.left)
	}
	s.log.Info("key given to a knight", "fingerprint", c.fp, "knight", knight, "left", given.left, "entombed", given.entombed, "command", c.cmd.name)
	c.result = "key given to " + knight
	fmt.Fprintf(c.out, "This key now plays %s. Connect to play: %s\n", name, s.sshCommand())
	if given.entombed {
		fmt.Fprintln(c.out, "The knight it played before was retired into a tombstone.")
	}
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
	k := knights.Key{Fingerprint: newFP, Knight: old.Knight, Comment: "moved from " + oldFP[:min(len(oldFP), 15)] + "… by an admin", Added: s.now().UTC()}
	given, err := s.realm.giveKey(c.ctx, k, oldFP, leaving{})
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		return c.fail("%s plays a living knight of its own; it cannot take another", printable(newFP))
	case err != nil:
		return c.fail("the key could not be moved: %s", giveKeyLine(err))
	case given.gone:
		s.forgetKnight(c, given.left) // the dead knight NEW played before
	}
	return s.keyMoved(c, oldFP, newFP, old.Knight, rec.Name)
}

// realmClaim is claim CODE on a realm, the code taken: the guest's knight is written as a
// new knight of this realm, with the key, under its own claim (giveKey), then let go.
func (s *server) realmClaim(c *call, code string, e codeEntry) int {
	rec := e.rec.Clone()
	rec.ID, rec.Guest = knights.NewKnightID(), false
	rec.Name = s.keptName(rec.Name, rec.ID)
	k := knights.Key{Fingerprint: c.fp, Knight: rec.ID, Type: c.key.Type(), Comment: "claimed a guest", Added: s.now().UTC()}
	sheet, err := records.SheetWrite(&rec, s.realm.r.Name())
	var given keyGiven
	if err == nil {
		given, err = s.realm.giveKey(c.ctx, k, "", s.leavingBy(c), sheet)
	}
	if err != nil {
		s.codes.giveBack(code, e)
		_ = s.realm.recs.ReleaseName(rec.Name, rec.ID)
		s.book().forget(rec.ID) // the name is free again for the claim run anew
		return s.giveRefused(c, given, err)
	}
	if err := s.engine.KnowKnight(c.ctx, rec.ID, rec.Name); err != nil {
		s.log.Warn("enter a claimed knight in the book of knights", "knight", rec.ID, "err", err)
	}
	return s.keyGivenTo(c, given, rec.ID, rec.Name)
}
