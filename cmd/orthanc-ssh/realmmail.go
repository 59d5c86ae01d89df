package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A realm's mailboxes in etcd. The world hands over a knight's whole mailbox; two realms
// may write one at once (a letter sent on A while its knight reads its letters on B), so
// each write is conditioned on the mailbox's mod revision, and one that finds it changed
// reads it again and merges: a letter is dropped only when one side deleted it, never
// because another realm wrote in between. A merge the world did not have is handed to it.

// mailTries is how often one mailbox's write is tried against other realms' writes.
const mailTries = 5

// mailbox is what this realm knows of one mailbox in etcd.
type mailbox struct {
	seen  []world.Letter    // etcd's, as last read or written here
	rev   int64             // its mod revision (0: none)
	fresh bool              // rev is seen's: a write conditioned on it needs no read first
	kept  map[letterID]bool // letters the world has handed over read in the mailbox
}

// letterID is a letter's identity across realms (the engine's ID is each world's own).
type letterID struct {
	from, to, text string
	sent           int64
}

func idOf(l world.Letter) letterID {
	return letterID{l.From, l.To, l.Text, l.Sent.UnixNano()}
}

// box is the mailbox of id; the caller holds k.mu.
func (k *realmKnights) box(id string) *mailbox {
	b := k.boxes[id]
	if b == nil {
		b = &mailbox{kept: map[letterID]bool{}}
		k.boxes[id] = b
	}
	return b
}

// sawMail notes the mailbox of id as read from etcd at rev, and reports whether the
// world may be handed it: not while a write of the world's own waits.
func (k *realmKnights) sawMail(id string, ls []world.Letter, rev int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, waits := k.mail[id]; waits {
		return false
	}
	b := k.box(id)
	b.seen, b.rev, b.fresh = slices.Clone(ls), rev, true
	return true
}

// flushMail writes the mailboxes waiting; one that fails waits for the next try unless a
// newer one came meanwhile.
func (k *realmKnights) flushMail() error {
	k.mu.Lock()
	mail := k.mail
	k.mail = map[string][]world.Letter{}
	k.mu.Unlock()
	var errs []error
	for to, ls := range mail {
		if err := k.writeMail(to, ls); err != nil {
			errs = append(errs, err)
			k.mu.Lock()
			if _, newer := k.mail[to]; !newer {
				k.mail[to] = ls
			}
			k.mu.Unlock()
			continue
		}
		k.mailed(to)
	}
	return errors.Join(errs...)
}

// writeMail writes ours, the world's mailbox of to, merged with what other realms wrote.
func (k *realmKnights) writeMail(to string, ours []world.Letter) error {
	base, rev, fresh, kept := k.mailBase(to, ours)
	theirs := base
	for range mailTries {
		if !fresh {
			var err error
			if theirs, rev, err = k.recs.MailAt(to); err != nil {
				return err
			}
		}
		merged := mergeMail(base, ours, theirs, kept)
		newRev, err := k.recs.PutMailIf(to, merged, rev)
		if errors.Is(err, records.ErrMailChanged) {
			fresh = false
			continue
		}
		if err != nil {
			return err
		}
		k.wroteMail(to, merged, newRev)
		if !sameMail(merged, ours) {
			k.merged(to, merged)
		}
		return nil
	}
	return fmt.Errorf("write letters of %q: %w, %d times", to, records.ErrMailChanged, mailTries)
}

// mailBase notes the letters ours holds read, and is what this realm knows of the
// mailbox to merge ours with.
func (k *realmKnights) mailBase(to string, ours []world.Letter) (base []world.Letter, rev int64, fresh bool, kept map[letterID]bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.box(to)
	for _, l := range ours {
		if l.Read { // the world has kept it read: gone from a later one, its knight deleted it
			b.kept[idOf(l)] = true
		}
	}
	return b.seen, b.rev, b.fresh, maps.Clone(b.kept)
}

// wroteMail notes a mailbox written, and forgets the deleted letters.
func (k *realmKnights) wroteMail(to string, ls []world.Letter, rev int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.box(to)
	b.seen, b.rev, b.fresh = ls, rev, true
	now := map[letterID]bool{}
	for _, l := range ls {
		now[idOf(l)] = b.kept[idOf(l)]
	}
	maps.DeleteFunc(now, func(_ letterID, kept bool) bool { return !kept })
	b.kept = now
}

// mergeMail is the mailbox from base (etcd's as this realm last saw it), ours (the world's)
// and theirs (etcd's now): theirs without the letters the world kept once, read, and has
// no more (deleted here: a knight deletes what it has read), then ours' letters etcd never had (new here); a letter read on either
// side is read.
func mergeMail(base, ours, theirs []world.Letter, kept map[letterID]bool) []world.Letter {
	mine := map[letterID]world.Letter{}
	for _, l := range ours {
		mine[idOf(l)] = l
	}
	had := map[letterID]bool{}
	for _, l := range base {
		had[idOf(l)] = true
	}
	out := make([]world.Letter, 0, len(theirs)+len(ours))
	done := map[letterID]bool{}
	for _, l := range theirs {
		id := idOf(l)
		o, here := mine[id]
		if kept[id] && !here {
			continue
		}
		l.Read = l.Read || (here && o.Read)
		out, done[id] = append(out, l), true
	}
	for _, l := range ours {
		if id := idOf(l); !done[id] && !had[id] {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b world.Letter) int { return a.Sent.Compare(b.Sent) })
	return out
}

// sameMail reports whether two mailboxes hold the same letters, read alike.
func sameMail(a, b []world.Letter) bool {
	return slices.EqualFunc(a, b, func(x, y world.Letter) bool { return idOf(x) == idOf(y) && x.Read == y.Read })
}

// seedMail notes the mailboxes loaded at start as this realm's last sight of them (their
// revisions unknown: the first write reads them anew).
func (k *realmKnights) seedMail(mail map[string][]world.Letter) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, ls := range mail {
		k.box(id).seen = slices.Clone(ls)
	}
}

// loadMail reads the mailbox of id from etcd and hands it to the world: when its knight
// is claimed here (a letter written while talk was down, or that another realm's word
// never brought, is not missed), and when another realm says it wrote it.
func (rs *realmSide) loadMail(e *world.Engine, id string) error {
	ls, rev, err := rs.recs.MailAt(id)
	if err != nil {
		return err
	}
	if !rs.knights.sawMail(id, ls, rev) {
		return nil // this realm's own write waits: it merges, and hands the world the result
	}
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	return e.SetMail(ctx, id, ls)
}

// handMail hands the world a mailbox merged with another realm's writes.
func (s *server) handMail(id string, ls []world.Letter) {
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if err := s.engine.SetMail(ctx, id, ls); err != nil {
		s.log.Error("realm: hand the world a merged mailbox", "knight", id, "err", err)
	}
}
