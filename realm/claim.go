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
	if err := r.begin(knight); err != nil {
		return nil, err
	}
	resp, err := r.claimTxn(ctx, knight)
	if err != nil {
		r.end(knight, nil)
		return nil, fmt.Errorf("realm: claim %s: %w", knight, err)
	}
	if !resp.Succeeded {
		r.end(knight, nil)
		return nil, r.claimedBy(knight, resp)
	}
	f := &Fenced{realm: r, knight: knight, token: resp.Header.Revision}
	if kvs := resp.Responses[2].GetResponseRange().Kvs; len(kvs) > 0 {
		f.sheet = kvs[0].Value
	}
	r.end(knight, f)
	return f, nil
}

// claimTxn is the claim's transaction: if no claim exists, put this realm's on its
// lease, delete the request it answers and read the sheet; else read the claim.
func (r *Realm) claimTxn(ctx context.Context, knight string) (*clientv3.TxnResponse, error) {
	key := r.keys.claim(knight)
	ctx, cancel := r.bound(ctx)
	defer cancel()
	return r.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(r.lease)),
			clientv3.OpDelete(r.keys.release(knight)),
			clientv3.OpGet(r.keys.sheet(knight))).
		Else(clientv3.OpGet(key)).
		Commit()
}

// claimedBy is the error of a claim refused, from the claim key read in its place.
func (r *Realm) claimedBy(knight string, resp *clientv3.TxnResponse) error {
	e := &ClaimedError{Knight: knight}
	if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
		e.Holder, e.Token = string(kvs[0].Value), kvs[0].CreateRevision
		e.Here = clientv3.LeaseID(kvs[0].Lease) == r.lease
	}
	return e
}

// begin notes a claim in flight, so that a request for the knight coming before the
// claim's answer is kept for it; a stopped realm claims nothing.
func (r *Realm) begin(knight string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if _, ok := r.claiming[knight]; ok {
		return &ClaimedError{Knight: knight, Holder: r.cfg.Name, Here: true}
	}
	r.claiming[knight] = struct{}{}
	return nil
}

// end closes a claim in flight: f holds the knight now, or nil if the claim failed.
// A request that came meanwhile is handed on.
func (r *Realm) end(knight string, f *Fenced) {
	r.mu.Lock()
	delete(r.claiming, knight)
	by, asked := r.early[knight]
	delete(r.early, knight)
	if f != nil && r.err == nil {
		r.held[knight] = f
	}
	r.mu.Unlock()
	if f != nil && asked {
		r.cfg.OnRelease(Request{Knight: f, By: by})
	}
}

// Take claims a knight, asking the realm that holds it to let go and waiting, until ctx
// ends, for it to do so or for its lease to lapse.
func (r *Realm) Take(ctx context.Context, knight string) (*Fenced, error) {
	asked := false
	defer func() {
		if asked {
			r.withdraw(knight)
		}
	}()
	ctx, cancel := r.bound(ctx)
	defer cancel()
	for {
		f, err := r.Claim(ctx, knight)
		var held *ClaimedError
		if !errors.As(err, &held) || held.Here {
			return f, err
		}
		if _, err := r.cli.Put(ctx, r.keys.release(knight), r.cfg.Name,
			clientv3.WithLease(r.lease)); err != nil {
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
func (r *Realm) withdraw(knight string) {
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.TTL/3)
	defer cancel()
	key := r.keys.release(knight)
	_, _ = r.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.LeaseValue(key), "=", r.lease)).
		Then(clientv3.OpDelete(key)).
		Commit()
}

// bound is ctx, ended also when the realm stops; call the cancel when done with it.
func (r *Realm) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(r.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
