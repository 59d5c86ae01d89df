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
	return r.current().claim(ctx, knight)
}

func (t *term) claim(ctx context.Context, knight string) (*Fenced, error) {
	if err := t.begin(knight); err != nil {
		return nil, err
	}
	resp, err := t.claimTxn(ctx, knight)
	if err != nil {
		t.end(knight, nil)
		return nil, fmt.Errorf("realm: claim %s: %w", knight, err)
	}
	if !resp.Succeeded {
		t.end(knight, nil)
		return nil, t.claimedBy(knight, resp)
	}
	f := &Fenced{realm: t.r, term: t, knight: knight, token: resp.Header.Revision}
	if kvs := resp.Responses[2].GetResponseRange().Kvs; len(kvs) > 0 {
		f.sheet = kvs[0].Value
	}
	if !t.end(knight, f) {
		return nil, t.Err() // stopped meanwhile: the claim is the old lease's, and goes with it
	}
	return f, nil
}

// claimTxn is the claim's transaction: if no claim exists, put this realm's on its
// lease, delete the request it answers and read the sheet; else read the claim.
func (t *term) claimTxn(ctx context.Context, knight string) (*clientv3.TxnResponse, error) {
	r := t.r
	key := r.keys.claim(knight)
	ctx, cancel := t.bound(ctx)
	defer cancel()
	return r.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(t.lease)),
			clientv3.OpDelete(r.keys.release(knight)),
			clientv3.OpGet(r.keys.sheet(knight))).
		Else(clientv3.OpGet(key)).
		Commit()
}

// claimedBy is the error of a claim refused, from the claim key read in its place.
func (t *term) claimedBy(knight string, resp *clientv3.TxnResponse) error {
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
	t := r.current()
	asked := false
	defer func() {
		if asked {
			t.withdraw(knight)
		}
	}()
	ctx, cancel := t.bound(ctx)
	defer cancel()
	for {
		f, err := t.claim(ctx, knight)
		var held *ClaimedError
		if !errors.As(err, &held) || held.Here {
			return f, err
		}
		if _, err := r.cli.Put(ctx, r.keys.release(knight), r.cfg.Name,
			clientv3.WithLease(t.lease)); err != nil {
			return nil, fmt.Errorf("realm: ask for %s: %w", knight, err)
		}
		asked = true
		if err := waitGone(ctx, r.cli, r.keys.claim(knight), held.Token); err != nil {
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
