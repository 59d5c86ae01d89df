package realm

import (
	clientv3 "go.etcd.io/etcd/client/v3"
)

// watchRequests hands each request for a knight held here to OnRelease, from revision
// rev on, until the realm stops. A request for a knight whose claim is in flight waits
// for the claim's answer (Realm.end).
func (r *Realm) watchRequests(rev int64) {
	defer r.wg.Done()
	w := r.cli.Watch(clientv3.WithRequireLeader(r.ctx), r.keys.releases(),
		clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithFilterDelete())
	for resp := range w {
		if resp.Err() != nil {
			// A compacted or cancelled watch: a realm that can no longer hear
			// requests would keep its knights from their players, so it stops.
			r.stop(resp.Err())
			return
		}
		for _, ev := range resp.Events {
			r.asked(r.keys.knightOfRelease(string(ev.Kv.Key)), string(ev.Kv.Value))
		}
	}
}

// asked hands on a request for a knight from realm by.
func (r *Realm) asked(knight, by string) {
	if by == r.cfg.Name {
		return
	}
	r.mu.Lock()
	f, held := r.held[knight]
	if _, claiming := r.claiming[knight]; claiming && !held {
		r.early[knight] = by
	}
	r.mu.Unlock()
	if held {
		r.cfg.OnRelease(Request{Knight: f, By: by})
	}
}
