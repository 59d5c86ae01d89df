package realm

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// watchRequests hands each request for a knight held in the term to OnRelease, from
// revision rev on, until the term stops. A request for a knight whose claim is in
// flight waits for the claim's answer (term.end). A watch that ends (etcd restarted, a
// member without a leader, the revision compacted) is made again: the requests standing
// are read, and the watch goes on from that read's revision, so none is missed.
func (t *term) watchRequests(rev int64) {
	defer t.wg.Done()
	for t.ctx.Err() == nil {
		rev = t.watchFrom(rev)
		for rev == 0 && t.ctx.Err() == nil {
			select {
			case <-t.ctx.Done():
			case <-time.After(t.r.cfg.TTL / retryDivisor):
				rev = t.standing()
			}
		}
	}
}

// watchFrom watches for requests from rev until the watch ends, and returns the
// revision to go on from, or 0 if the requests standing must be read first (the watch
// failed, and what came between is not known).
func (t *term) watchFrom(rev int64) int64 {
	r := t.r
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(t.ctx))
	defer cancel()
	w := r.cli.Watch(ctx, r.keys.releases(),
		clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithFilterDelete())
	for resp := range w {
		if resp.Err() != nil || resp.Canceled {
			return 0
		}
		for _, ev := range resp.Events {
			t.asked(r.keys.knightOfRelease(string(ev.Kv.Key)), string(ev.Kv.Value))
		}
	}
	return 0
}

// standing hands on every request in etcd now and returns the revision after the read,
// or 0 if it failed.
func (t *term) standing() int64 {
	r := t.r
	ctx, cancel := context.WithTimeout(t.ctx, r.cfg.TTL/4)
	defer cancel()
	resp, err := r.cli.Get(ctx, r.keys.releases(), clientv3.WithPrefix())
	if err != nil {
		return 0
	}
	for _, kv := range resp.Kvs {
		t.asked(r.keys.knightOfRelease(string(kv.Key)), string(kv.Value))
	}
	return resp.Header.Revision + 1
}

// asked hands on a request for a knight from realm by.
func (t *term) asked(knight, by string) {
	if by == t.r.cfg.Name {
		return
	}
	t.r.mu.Lock()
	f, held := t.held[knight]
	if _, claiming := t.claiming[knight]; claiming && !held {
		t.early[knight] = by
	}
	t.r.mu.Unlock()
	if held {
		t.r.cfg.OnRelease(Request{Knight: f, By: by})
	}
}
