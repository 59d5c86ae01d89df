package records

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
)

// The writing side of sheets: its run goroutine, and the check-in of a knight
// whose last session here has ended.

// realmRetry is how soon a realm's failed write (etcd slow or out of reach) is tried
// again; the lifeline stops the realm before its lease could lapse in any case.
const realmRetry = time.Second

// run writes what the world files, batched per knight, until ctx ends.
func (k *sheets) run(ctx context.Context) {
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.kick:
		case <-retry:
		}
		retry = nil
		if err := k.flush(ctx); err != nil {
			k.log.Error("realm: write failed; retrying", "err", err)
			retry = time.After(realmRetry)
		}
	}
}

// flush writes every knight with a record waiting, several to a transaction
// (realm.CommitAll), then the mailboxes.
func (k *sheets) flush(ctx context.Context) error {
	errs := k.writeAll(ctx, k.heldWhere(func(h *heldKnight) bool { return h.dirty && h.refs > 0 }), false)
	// A knight whose last session left but whose check-in failed is still claimed here
	// with no one playing it: its check-in is tried again, or no realm could claim it.
	errs = append(errs, k.writeAll(ctx, k.heldWhere(func(h *heldKnight) bool { return h.refs == 0 }), true)...)
	return errors.Join(append(errs, k.flushMail())...)
}

// writeAll writes the newest records of hs, several knights to a transaction; checkIn
// lets them go too, each in the transaction of its sheet.
func (k *sheets) writeAll(ctx context.Context, hs []*heldKnight, checkIn bool) []error {
	w := k.takeAll(hs, checkIn)
	wctx, cancel := context.WithTimeout(ctx, callTimeout)
	errs := realm.CommitAll(wctx, w.entries)
	cancel()
	for i, h := range w.knights {
		errs[i] = k.settle(ctx, h, w.pending[i], checkIn, errs[i])
		h.write.Unlock()
	}
	return errs
}

// heldWhere is the knights held here that pass, in the knights' order: the order their
// write locks are taken in, so that two takers never wait on each other.
func (k *sheets) heldWhere(pass func(*heldKnight) bool) []*heldKnight {
	k.mu.Lock()
	var hs []*heldKnight
	for _, h := range k.held {
		if pass(h) {
			hs = append(hs, h)
		}
	}
	k.mu.Unlock()
	slices.SortFunc(hs, func(a, b *heldKnight) int { return strings.Compare(a.f.Knight(), b.f.Knight()) })
	return hs
}

// taken is the knights of one writeAll, each's writes taken, and their entries.
type taken struct {
	knights []*heldKnight // each's write lock held until settled
	pending []pending
	entries []realm.Entry
}

// takeAll takes the writes of hs, holding the write lock of each with any (or, to check
// them in, of each still held).
func (k *sheets) takeAll(hs []*heldKnight, checkIn bool) taken {
	var w taken
	for _, h := range hs {
		if p, ok := k.take(h, checkIn); ok {
			w.knights, w.pending = append(w.knights, h), append(w.pending, p)
			w.entries = append(w.entries, realm.Entry{Knight: h.f, Writes: p.writes, LetGo: checkIn})
		}
	}
	return w
}

// take takes h's writes under its write lock, and keeps the lock if there are any to
// write, or to check it in, if h is still held.
func (k *sheets) take(h *heldKnight, checkIn bool) (pending, bool) {
	h.write.Lock()
	k.mu.Lock()
	held := k.held[h.f.Knight()] == h
	var p pending
	if held {
		p = k.pendingOf(h)
	}
	k.mu.Unlock()
	if held && (checkIn || len(p.writes) > 0) {
		return p, true
	}
	if held {
		k.written(h, p, false) // nothing to write after all
	}
	h.write.Unlock()
	return p, false
}

// leave ends one session's hold of a knight: the last to leave checks the knight in,
// its newest record written and its claim let go in one transaction.
func (k *sheets) leave(ctx context.Context, id string) error {
	k.mu.Lock()
	h := k.held[id]
	last := h != nil && h.refs > 0
	if last {
		h.refs--
		last = h.refs == 0
	}
	k.mu.Unlock()
	if !last {
		return nil
	}
	err := ctx.Err() // a caller out of time writes nothing: a write batched at once could land after it gave up
	if err == nil {
		err = k.write(ctx, h, true)
	}
	if err != nil {
		k.wake() // the run loop tries the check-in again
	}
	return err
}

// checkInAll checks in every knight still held, when the realm stops: several to a
// transaction, each's newest record written and its claim let go.
func (k *sheets) checkInAll(ctx context.Context) error {
	return errors.Join(k.writeAll(ctx, k.heldWhere(func(*heldKnight) bool { return true }), true)...)
}

// write writes h's newest record, its new keys and its ends under its claim; checkIn
// lets the knight go too. A claim lost or a realm stopped drops what waited: it can
// never be written.
func (k *sheets) write(ctx context.Context, h *heldKnight, checkIn bool) error {
	h.write.Lock()
	defer h.write.Unlock()
	k.mu.Lock()
	if k.held[h.f.Knight()] != h {
		k.mu.Unlock()
		return nil // checked in or dropped meanwhile
	}
	p := k.pendingOf(h)
	k.mu.Unlock()
	return k.settle(ctx, h, p, checkIn, k.commit(ctx, h.f, p, checkIn))
}

// settle is what follows h's write of p: forget what it wrote, or, its key taken, let it
// go; a claim lost or a realm stopped drops what waited: it can never be written. Any
// other error leaves it waiting, to be written again. The caller holds h.write.
func (k *sheets) settle(ctx context.Context, h *heldKnight, p pending, checkIn bool, err error) error {
	id := h.f.Knight()
	switch {
	case err == nil:
		k.written(h, p, checkIn)
		return nil
	case errors.Is(err, realm.ErrTaken):
		k.untaken(h, p)
		return k.beaten(ctx, h, p)
	case errors.Is(err, realm.ErrFenced), errors.Is(err, realm.ErrCutOff), errors.Is(err, realm.ErrLeaseLost), errors.Is(err, realm.ErrClosed):
		k.drop(h)
		if errors.Is(err, realm.ErrFenced) {
			k.log.Error("realm: the knight's claim went while it played here", "knight", id)
			k.lost(id)
		}
		return nil
	}
	k.untaken(h, p)
	return err
}

// pending is one knight's writes taken for a transaction.
type pending struct {
	writes []realm.Write // ends and new keys, then the sheet last (when dirty)
	dirty  bool
	seq    uint64
	ends   int
	keys   []string  // fingerprints of the bound keys written
	since  time.Time // when the oldest record not yet written was filed
}

// pendingOf takes h's writes; the caller holds k.mu.
func (k *sheets) pendingOf(h *heldKnight) pending {
	p := pending{dirty: h.dirty, seq: h.seq, ends: len(h.ends)}
	if !h.dirty {
		return p
	}
	p.since, h.taken, h.since = h.since, h.since, time.Time{} // a Put from now on waits for the next write
	p.writes = append(p.writes, h.ends...)
	for fp, b := range k.bound {
		if b.key.Knight == h.f.Knight() {
			if w, err := KeyWrite(b.key); err == nil {
				p.writes, p.keys = append(p.writes, w), append(p.keys, fp)
			}
		}
	}
	sheet, err := SheetWrite(&h.last, k.realm)
	if err != nil {
		k.log.Error("realm: encode a knight", "knight", h.f.Knight(), "err", err)
		return pending{}
	}
	p.writes = append(p.writes, sheet)
	return p
}

// commit writes p under f: one transaction, then the check-in (the sheet put again and
// the claim let go) when asked.
func (k *sheets) commit(ctx context.Context, f *realm.Fenced, p pending, checkIn bool) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	switch {
	case !checkIn && len(p.writes) == 0:
		return nil
	case !checkIn:
		_, err := f.Commit(ctx, p.writes...)
		return err
	case len(p.writes) == 0:
		return f.Release(ctx)
	}
	if len(p.writes) > 1 {
		if _, err := f.Commit(ctx, p.writes[:len(p.writes)-1]...); err != nil {
			return err
		}
	}
	return f.CheckIn(ctx, p.writes[len(p.writes)-1].Value)
}

// written forgets what p wrote, but what came since.
func (k *sheets) written(h *heldKnight, p pending, checkIn bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if h.seq == p.seq {
		h.dirty = false
	}
	h.taken = time.Time{}
	k.ages.observe(p.since, k.now())
	h.ends = h.ends[p.ends:]
	for _, fp := range p.keys {
		delete(k.bound, fp) // in etcd now: the shared records answer for it
	}
	if checkIn && k.held[h.f.Knight()] == h {
		delete(k.held, h.f.Knight())
	}
}

// untaken puts back p's records as waiting, after a write that failed.
func (k *sheets) untaken(h *heldKnight, p pending) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h.taken = time.Time{}
	if !p.since.IsZero() && (h.since.IsZero() || p.since.Before(h.since)) {
		h.since = p.since
	}
}

// drop forgets a knight this realm can no longer write.
func (k *sheets) drop(h *heldKnight) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.held[h.f.Knight()] == h {
		delete(k.held, h.f.Knight())
	}
}

// leaveAll checks a knight in whatever sessions hold it (another realm asked for it and
// none plays it here).
func (k *sheets) leaveAll(ctx context.Context, id string) error {
	k.mu.Lock()
	h := k.held[id]
	if h != nil {
		h.refs = 0
	}
	k.mu.Unlock()
	if h == nil {
		return nil
	}
	return k.write(ctx, h, true)
}
