package records

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A realm's mailboxes in etcd. The world hands over a knight's whole mailbox; two realms
// may write one at once (a letter sent on A while its knight reads or deletes its letters
// on B), so each write is conditioned on the mailbox's mod revision, and one that finds it
// changed reads it again and merges. A deleted letter stays in its mailbox as a tombstone
// for goneFor, and a deletion wins: a realm writing from an older copy, at the same moment
// or later, does not bring it back. A letter is dropped only when deleted, never because
// another realm wrote in between. A merge the world did not have is handed to it.
//
// What was deleted here is known exactly: the realm follows which letters the world holds
// of each mailbox, in the world's own order (its Archive's PutMail calls, and each SetMail
// once applied), and a letter gone from one PutMail to the next was deleted by the world (a
// knight's deletion, or its oldest read letters beyond world.MaxRead).

// mailTries is how often one mailbox's write is tried against other realms' writes.
const mailTries = 5

// goneFor is how long a deleted letter's tombstone is kept in its mailbox: far beyond a
// merge's read and write, or a realm's copy handed over while it was written; maxGone
// bounds a mailbox's tombstones (the newest are kept).
const (
	goneFor = 24 * time.Hour
	maxGone = 200
)

// mailbox is what this realm knows of one mailbox in etcd.
type mailbox struct {
	seen  Mailbox              // etcd's, as last read or written here
	rev   int64                // its mod revision (0: none)
	fresh bool                 // rev is seen's: a write conditioned on it needs no read first
	held  map[string]bool      // the letters the world holds, by LetterID
	gone  map[string]time.Time // letters the world deleted, not yet written as tombstones
}

// box is the mailbox of id; the caller holds k.mu.
func (k *sheets) box(id string) *mailbox {
	b := k.boxes[id]
	if b == nil {
		b = &mailbox{held: map[string]bool{}, gone: map[string]time.Time{}}
		k.boxes[id] = b
	}
	return b
}

// holds notes the letters the world holds of the mailbox of id, as it handed them over:
// one it held before and holds no more it deleted. The caller holds k.mu.
func (k *sheets) holds(id string, letters []world.Letter) {
	b := k.box(id)
	now := letterIDs(letters)
	for lid := range b.held {
		if !now[lid] {
			b.gone[lid] = time.Now()
		}
	}
	b.held = now
}

// handed notes a mailbox the world was handed (SetMail), once it replaced its own: what
// it held before is gone without its knight deleting anything.
func (k *sheets) handed(id string, letters []world.Letter) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.box(id).held = letterIDs(letters)
}

// letterIDs is the set of the letters' LetterID.
func letterIDs(ls []world.Letter) map[string]bool {
	ids := make(map[string]bool, len(ls))
	for _, l := range ls {
		ids[LetterID(l)] = true
	}
	return ids
}

// sawMail notes the mailbox of id as read from etcd at rev, and reports whether the
// world may be handed it: not while a write of the world's own waits.
func (k *sheets) sawMail(id string, box Mailbox, rev int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, waits := k.mail[id]; waits {
		return false
	}
	b := k.box(id)
	b.seen, b.rev, b.fresh = box, rev, true
	return true
}

// flushMail writes the mailboxes waiting; one that fails waits for the next try unless a
// newer one came meanwhile. One flush at a time: a Flush returns once what another took
// just before it is written too.
func (k *sheets) flushMail() error {
	k.mailing.Lock()
	defer k.mailing.Unlock()
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
func (k *sheets) writeMail(to string, ours []world.Letter) error {
	seen, rev, fresh, gone := k.mailBase(to)
	theirs := seen
	for range mailTries {
		if !fresh {
			var err error
			if theirs, rev, err = k.recs.MailAt(to); err != nil {
				return err
			}
		}
		merged := mergeMail(seen.Letters, ours, theirs, gone, time.Now())
		newRev, err := k.recs.PutMailIf(to, merged, rev)
		if errors.Is(err, ErrMailChanged) {
			fresh = false
			continue
		}
		if err != nil {
			return err
		}
		k.wroteMail(to, merged, newRev, gone)
		if !sameMail(merged.Letters, ours) {
			k.merged(to, merged.Letters)
		}
		return nil
	}
	return fmt.Errorf("write letters of %q: %w, %d times", to, ErrMailChanged, mailTries)
}

// mailBase is what this realm knows of the mailbox to, to merge the world's with, and
// the letters the world deleted from it since it was last written.
func (k *sheets) mailBase(to string) (seen Mailbox, rev int64, fresh bool, gone map[string]time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.box(to)
	return b.seen, b.rev, b.fresh, maps.Clone(b.gone)
}

// wroteMail notes a mailbox written, with the deletions written in it as tombstones.
func (k *sheets) wroteMail(to string, box Mailbox, rev int64, written map[string]time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b := k.box(to)
	b.seen, b.rev, b.fresh = box, rev, true
	for lid := range written {
		delete(b.gone, lid)
	}
}

// mergeMail is the mailbox from base (etcd's letters as this realm last saw them), ours
// (the world's), theirs (etcd's now) and gone (the letters the world deleted since it
// last wrote): theirs' letters but the deleted ones (in theirs' tombstones or in gone),
// then ours' letters etcd never had (new here) and no realm deleted; a letter read on
// either side is read. The tombstones are theirs and gone, for goneFor from now.
func mergeMail(base, ours []world.Letter, theirs Mailbox, gone map[string]time.Time, now time.Time) Mailbox {
	dead := deadLetters(theirs.Gone, gone)
	mine := map[string]world.Letter{}
	for _, l := range ours {
		mine[LetterID(l)] = l
	}
	had := letterIDs(base)
	out := make([]world.Letter, 0, len(theirs.Letters)+len(ours))
	done := map[string]bool{}
	for _, l := range theirs.Letters {
		id := LetterID(l)
		if _, deleted := dead[id]; deleted {
			continue
		}
		o, here := mine[id]
		l.Read = l.Read || (here && o.Read)
		out, done[id] = append(out, l), true
	}
	for _, l := range ours {
		id := LetterID(l)
		if _, deleted := dead[id]; !done[id] && !had[id] && !deleted {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b world.Letter) int { return a.Sent.Compare(b.Sent) })
	return Mailbox{Letters: out, Gone: keptGone(dead, now)}
}

// deadLetters is every letter deleted: in a mailbox's tombstones, or deleted here.
func deadLetters(tombs []GoneLetter, here map[string]time.Time) map[string]time.Time {
	dead := make(map[string]time.Time, len(tombs)+len(here))
	for _, g := range tombs {
		dead[g.ID] = g.At
	}
	for id, at := range here {
		if _, ok := dead[id]; !ok {
			dead[id] = at
		}
	}
	return dead
}

// keptGone is the tombstones a mailbox keeps: those of goneFor up to now, the newest
// maxGone, oldest first.
func keptGone(dead map[string]time.Time, now time.Time) []GoneLetter {
	var out []GoneLetter
	for id, at := range dead {
		if now.Sub(at) < goneFor {
			out = append(out, GoneLetter{ID: id, At: at.UTC()})
		}
	}
	slices.SortFunc(out, func(a, b GoneLetter) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ID, b.ID))
	})
	return out[max(0, len(out)-maxGone):]
}

// sameMail reports whether two mailboxes hold the same letters, read alike.
func sameMail(a, b []world.Letter) bool {
	return slices.EqualFunc(a, b, func(x, y world.Letter) bool {
		return LetterID(x) == LetterID(y) && x.Read == y.Read
	})
}

// seedMail notes the mailboxes loaded at start as this realm's last sight of them (their
// revisions unknown: the first write reads them anew), and as what the world holds.
func (k *sheets) seedMail(mail map[string][]world.Letter) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, ls := range mail {
		k.box(id).seen = Mailbox{Letters: slices.Clone(ls)}
		k.holds(id, ls)
	}
}
