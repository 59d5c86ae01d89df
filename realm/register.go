package realm

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// register takes a lease and puts the realm's name on it, waiting first, until ctx
// ends, for an earlier holder of the name to go (its lease to be revoked or lapse):
// a lease taken before the wait could lapse during it.
func (r *Realm) register(ctx context.Context) (sentAt time.Time, granted time.Duration, rev int64, err error) {
	key := r.keys.realm(r.cfg.Name)
	for {
		if err := r.waitForName(ctx, key); err != nil {
			return sentAt, 0, 0, err
		}
		sentAt = r.cfg.Clock.Now()
		g, err := r.cli.Grant(ctx, int64(r.cfg.TTL/time.Second))
		if err != nil {
			return sentAt, 0, 0, fmt.Errorf("realm: lease: %w", err)
		}
		r.lease = g.ID
		resp, err := r.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(r.lease))).
			Commit()
		if err == nil && resp.Succeeded {
			return sentAt, time.Duration(g.TTL) * time.Second, resp.Header.Revision, nil
		}
		revokeQuietly(r.cli, g.ID) // another process took the name meanwhile: wait again
		if err != nil {
			return sentAt, 0, 0, fmt.Errorf("realm: register %q: %w", r.cfg.Name, err)
		}
	}
}

// waitForName waits until no process holds the realm's name key.
func (r *Realm) waitForName(ctx context.Context, key string) error {
	seen, err := r.cli.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("realm: register %q: %w", r.cfg.Name, err)
	}
	if len(seen.Kvs) == 0 {
		return nil
	}
	if err := waitGone(ctx, r.cli, key, seen.Kvs[0].CreateRevision); err != nil {
		return fmt.Errorf("realm: %q is up elsewhere: %w", r.cfg.Name, err)
	}
	return nil
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
	for resp := range w {
		if err := resp.Err(); err != nil {
			return err
		}
		if len(resp.Events) > 0 {
			return nil
		}
	}
	return watchErr(ctx, clientv3.WatchResponse{Canceled: true})
}

// watchErr is why a watch's response ends the wait: its error, the context's end, or
// a watch closed for no reason given.
func watchErr(ctx context.Context, resp clientv3.WatchResponse) error {
	if err := resp.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp.Canceled || (!resp.Created && len(resp.Events) == 0) {
		return errWatchClosed
	}
	return nil
}
