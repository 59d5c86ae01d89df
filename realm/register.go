package realm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrNameInUse is a realm's name that another process keeps: its lease is renewed as
// the realm waits, so that process runs, and waiting for it would be in vain.
var ErrNameInUse = errors.New("realm: the name is held by a realm that runs (its lease is kept alive)")

// registration is a realm's name put on a new lease: the lease, when its grant was
// asked and for how long it was granted, and the revision of the put.
type registration struct {
	lease   clientv3.LeaseID
	sentAt  time.Time
	granted time.Duration
	rev     int64
}

// register takes a lease and puts the realm's name on it, waiting first, until ctx
// ends, for an earlier holder of the name to go (its lease to be revoked or lapse):
// a lease taken before the wait could lapse during it.
func (r *Realm) register(ctx context.Context) (registration, error) {
	key := r.keys.realm(r.cfg.Name)
	for {
		if err := r.waitForName(ctx, key); err != nil {
			return registration{}, err
		}
		reg := registration{sentAt: r.cfg.Clock.Now()}
		g, err := r.cli.Grant(ctx, int64(r.cfg.TTL/time.Second))
		if err != nil {
			return registration{}, fmt.Errorf("realm: lease: %w", err)
		}
		reg.lease, reg.granted = g.ID, time.Duration(g.TTL)*time.Second
		resp, err := r.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(g.ID))).
			Commit()
		if err == nil && resp.Succeeded {
			reg.rev = resp.Header.Revision
			return reg, nil
		}
		revokeQuietly(r.cli, g.ID) // another process took the name meanwhile: wait again
		if err != nil {
			return registration{}, fmt.Errorf("realm: register %q: %w", r.cfg.Name, err)
		}
	}
}

// waitForName waits until no process holds the realm's name key: the lease of a
// process that died lapses by itself. A holder whose lease is renewed meanwhile runs,
// and is refused at once (ErrNameInUse) rather than waited for.
func (r *Realm) waitForName(ctx context.Context, key string) error {
	seen, err := r.cli.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("realm: register %q: %w", r.cfg.Name, err)
	}
	if len(seen.Kvs) == 0 {
		return nil
	}
	kv := seen.Kvs[0]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gone := make(chan error, 1)
	go func() { gone <- waitGone(ctx, r.cli, key, kv.CreateRevision) }()
	alive := make(chan bool, 1)
	go func() { alive <- r.keptAlive(ctx, clientv3.LeaseID(kv.Lease)) }()
	for {
		select {
		case err := <-gone:
			if err != nil {
				return fmt.Errorf("realm: %q is up elsewhere: %w", r.cfg.Name, err)
			}
			return nil
		case kept := <-alive:
			if kept {
				return fmt.Errorf("%w: %q", ErrNameInUse, r.cfg.Name)
			}
			alive = nil // lapsing: wait for it to go
		}
	}
}

// nameLeasePoll is how often a name's lease is asked for its time to live, to tell a
// holder that renews it (a realm that runs) from one that lets it lapse (one that died).
const nameLeasePoll = 200 * time.Millisecond

// keptAlive reports whether lease is renewed while it is watched: its time to live
// grows (etcd tells it in whole seconds), or it lives past the time it had to live when
// first read. It returns false once the lease is gone or ctx ends. A lease's time to
// live also grows when etcd's leader changes (the new leader renews every lease): a
// realm started then is refused once, wrongly, and its supervisor starts it again.
func (r *Realm) keptAlive(ctx context.Context, lease clientv3.LeaseID) bool {
	last := int64(-1)
	var deadline time.Time // when the lease would be gone unless renewed
	for {
		resp, err := r.cli.TimeToLive(ctx, lease)
		switch {
		case err != nil && ctx.Err() != nil, err == nil && resp.TTL <= 0:
			return false
		case err == nil && last >= 0 && (resp.TTL > last || time.Now().After(deadline)):
			return true
		case err == nil:
			if last < 0 {
				deadline = time.Now().Add(time.Duration(resp.TTL+1)*time.Second + nameLeasePoll)
			}
			last = resp.TTL
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(nameLeasePoll):
		}
	}
}

var errWatchClosed = errors.New("realm: watch closed")

// waitGone waits, until ctx ends, for key to no longer be the key created at revision
// created: deleted (or deleted and put anew). It watches from the current revision,
// which etcd serves at once (a watch from a past revision waits for etcd's next sweep
// of late watchers, up to 100ms), and then reads the key, so a delete that came before
// the watch is not missed.
func waitGone(ctx context.Context, cli *clientv3.Client, key string, created int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := cli.Watch(ctx, key, clientv3.WithCreatedNotify(), clientv3.WithFilterPut())
	if err := watchErr(ctx, <-w); err != nil {
		return err
	}
	now, err := cli.Get(ctx, key)
	if err != nil {
		return err
	}
	if len(now.Kvs) == 0 || now.Kvs[0].CreateRevision != created {
		return nil
	}
	return nextEvent(ctx, w)
}

// nextEvent waits, until ctx ends, for an event on a watch w already created.
func nextEvent(ctx context.Context, w clientv3.WatchChan) error {
	for resp := range w {
		if err := resp.Err(); err != nil {
			return cmp.Or(ctx.Err(), err)
		}
		if len(resp.Events) > 0 {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errWatchClosed
}

// watchErr is why a watch's response ends the wait: the context's end, its error, or a
// watch closed for no reason given. The context comes first: a watch ended by its
// context is closed, and clientv3 reads a response cancelled with no reason as
// ErrFutureRev ("required revision is a future revision"), which was never so.
func watchErr(ctx context.Context, resp clientv3.WatchResponse) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := resp.Err(); err != nil {
		return err
	}
	if resp.Canceled || (!resp.Created && len(resp.Events) == 0) {
		return errWatchClosed
	}
	return nil
}
