package realm

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// register puts the realm's name on its lease, waiting for an earlier holder of the
// name to go, and returns the revision it was put at.
func (r *Realm) register(ctx context.Context) (int64, error) {
	key := r.keys.realm(r.cfg.Name)
	for {
		resp, err := r.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, r.cfg.Name, clientv3.WithLease(r.lease))).
			Commit()
		if err != nil {
			return 0, fmt.Errorf("realm: register %q: %w", r.cfg.Name, err)
		}
		if resp.Succeeded {
			return resp.Header.Revision, nil
		}
		if err := waitGone(ctx, r.cli, key, resp.Header.Revision); err != nil {
			return 0, fmt.Errorf("realm: %q is up elsewhere: %w", r.cfg.Name, err)
		}
	}
}

var errWatchClosed = errors.New("realm: watch closed")

// waitGone waits until key is deleted after revision rev, or ctx ends.
func waitGone(ctx context.Context, cli *clientv3.Client, key string, rev int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range cli.Watch(ctx, key, clientv3.WithRev(rev+1), clientv3.WithFilterPut()) {
		if err := resp.Err(); err != nil {
			return err
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
