package realm

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ClaimedError is a claim refused because a realm holds the knight.
type ClaimedError struct {
	Knight string
	// Holder is the holding realm's name.
	Holder string
	// Here tells that the holder is this realm (an earlier login not yet ended).
	Here bool
	// Token is the holder's fencing token, its claim's create revision.
	Token int64
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("realm: knight %s plays in %s", e.Knight, e.Holder)
}

// Claim claims a knight for this realm, if no realm holds it, and reads its last
// checkpoint with the claim (Fenced.Sheet). A held knight gives a *ClaimedError.
func (r *Realm) Claim(ctx context.Context, knight string) (*Fenced, error) {
	f, _, err := r.current().claim(ctx, knight, nil, false)
	return f, err
}

// claim is one try of a claim (claimTxn), read besides the sheet; when ask, a refusal
// asks the holder to let go (unless it is this realm), and asked tells it did or had.
func (t *term) claim(ctx context.Context, knight string, read []string, ask bool) (f *Fenced, asked bool, err error) {
	if err := t.begin(knight); err != nil {
		return nil, false, err
	}
	resp, err := t.claimTxn(ctx, knight, read, ask)
	if err != nil {
		t.end(knight, nil)
		return nil, false, fmt.Errorf("realm: claim %s: %w", knight, err)
	}
	if !resp.Succeeded {
		t.end(knight, nil)
		held := t.claimedBy(knight, resp)
		return nil, ask && !held.Here, held
	}
	f = &Fenced{realm: t.r, term: t, knight: knight, token: resp.Header.Revision}
	if kvs := resp.Responses[2].GetResponseRange().Kvs; len(kvs) > 0 {
		f.sheet = kvs[0].Value
	}
	for i, key := range read {
		if kvs := resp.Responses[3+i].GetResponseRange().Kvs; len(kvs) > 0 {
			if f.read == nil {
				f.read = map[string]Value{}
			}
			f.read[key] = Value{Value: kvs[0].Value, Rev: kvs[0].ModRevision}
		}
	}
	if !t.end(knight, f) {
		return nil, false, t.Err() // stopped meanwhile: the claim is the old lease's, and goes with it
	}
	return f, false, nil
}

// claimTxn is the claim's transaction: if no claim exists, put this realm's on its
// lease, delete the request it answers, and read the sheet and the keys read (under the
// realm's prefix); else read the claim, and when ask, ask its holder to let go, unless
// the holder is this realm or this realm's request stands already (a request put again
// would be heard again).
func (t *term) claimTxn(ctx context.Context, knight string, read []string, ask bool) (*clientv3.TxnResponse, error) {
	r := t.r
	key, release := r.keys.claim(knight), r.keys.release(knight)
	ctx, cancel := t.bound(ctx)
	defer cancel()
	then := []clientv3.Op{clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(t.lease)),
		clientv3.OpDelete(release),
		clientv3.OpGet(r.keys.sheet(knight))}
	for _, k := range read {
		then = append(then, clientv3.OpGet(r.keys.under(k)))
	}
	otherwise := []clientv3.Op{clientv3.OpGet(key)}
	if ask {
		otherwise = append(otherwise, clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.LeaseValue(key), "!=", t.lease),
				clientv3.Compare(clientv3.LeaseValue(release), "!=", t.lease)},
			[]clientv3.Op{clientv3.OpPut(release, r.cfg.Name, clientv3.WithLease(t.lease))}, nil))
	}
	return r.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(then...).
		Else(otherwise...).
		Commit()
}

// claimedBy is the error of a claim refused, from the claim key read in its place.
func (t *term) claimedBy(knight string, resp *clientv3.TxnResponse) *ClaimedError {
	e := &ClaimedError{Knight: knight}
	if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
		e.Holder, e.Token = string(kvs[0].Value), kvs[0].CreateRevision
		e.Here = clientv3.LeaseID(kvs[0].Lease) == t.lease
	}
	return e
}

// begin notes a claim in flight, so that a request for the knight coming before the
// claim's answer is kept for it; a stopped term claims nothing.
func (t *term) begin(knight string) error {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	if _, ok := t.claiming[knight]; ok {
		return &ClaimedError{Knight: knight, Holder: t.r.cfg.Name, Here: true}
	}
	t.claiming[knight] = struct{}{}
	return nil
}

// end closes a claim in flight: f holds the knight now, or nil if the claim failed.
// A request that came meanwhile is handed on. It reports whether f is held: false if
// the term stopped meanwhile.
func (t *term) end(knight string, f *Fenced) bool {
	t.r.mu.Lock()
	delete(t.claiming, knight)
	by, asked := t.early[knight]
	delete(t.early, knight)
	held := f != nil && t.err == nil
	if held {
		t.held[knight] = f
	}
	t.r.mu.Unlock()
	if held && asked {
		t.r.cfg.OnRelease(Request{Knight: f, By: by})
	}
	return held
}

// Take claims a knight, asking the realm that holds it to let go and waiting, until ctx
// ends, for it to do so or for its lease to lapse.
func (r *Realm) Take(ctx context.Context, knight string) (*Fenced, error) {
	return r.TakeWith(ctx, knight, TakeOptions{})
}

// TakeOptions is what TakeWith is told besides the knight.
type TakeOptions struct {
	// Read are keys, under the realm's prefix, read in the claim's own transaction, at
	// its revision, beside the sheet (Fenced.Read): what the caller would read next,
	// without a round trip more to etcd.
	Read []string
	// Asked is told the holding realm's name when the knight is held elsewhere and that
	// realm has been asked to let go.
	Asked func(holder string)
}

// TakeWith is Take, reading and telling what opt says. Its first try is the claim, or
// if another realm holds the knight, the request to let it go, in one transaction; the
// claim key is watched from that try on, so a later try needs no read of its own before
// waiting. A claim made deletes the request, so only a take that fails takes it back.
func (r *Realm) TakeWith(ctx context.Context, knight string, opt TakeOptions) (f *Fenced, err error) {
	t := r.current()
	ctx, cancel := t.bound(ctx)
	defer cancel()
	// The watch is made beside the first try (clientv3's Watch returns once etcd has
	// made it): by the time the holder is heard to be another realm, the watch is
	// (nearly always) there, and the next try needs no wait.
	wctx, unwatch := context.WithCancel(ctx)
	defer unwatch()
	watch := make(chan clientv3.WatchChan, 1)
	go func() {
		watch <- r.cli.Watch(wctx, r.keys.claim(knight), clientv3.WithCreatedNotify(), clientv3.WithFilterPut())
	}()
	f, asked, err := t.claim(ctx, knight, opt.Read, true)
	defer func() {
		if asked && err != nil {
			t.withdraw(knight)
		}
	}()
	var held *ClaimedError
	if !errors.As(err, &held) || held.Here {
		return f, err
	}
	if opt.Asked != nil {
		opt.Asked(held.Holder)
	}
	w := <-watch
	if err := watchErr(ctx, <-w); err != nil {
		return nil, fmt.Errorf("realm: %s stays in %s: %w", knight, held.Holder, err)
	}
	for {
		// Every try from here on comes after the watch began: a claim it finds is either
		// gone by the try (which claims) or deleted later (which the watch hears).
		var again bool
		f, again, err = t.claim(ctx, knight, opt.Read, true)
		asked = asked || again
		if !errors.As(err, &held) || held.Here {
			return f, err
		}
		if err := nextEvent(ctx, w); err != nil {
			return nil, fmt.Errorf("realm: %s stays in %s: %w", knight, held.Holder, err)
		}
	}
}

// withdraw takes back this realm's request for a knight, unless another realm's
// request has replaced it (a claim deletes the request it answers).
func (t *term) withdraw(knight string) {
	r := t.r
	ctx, cancel := context.WithTimeout(t.ctx, r.cfg.TTL/3)
	defer cancel()
	key := r.keys.release(knight)
	_, _ = r.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.LeaseValue(key), "=", t.lease)).
		Then(clientv3.OpDelete(key)).
		Commit()
}

// bound is ctx, ended also when the term stops; call the cancel when done with it.
func (t *term) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(t.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
