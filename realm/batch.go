package realm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Several knights' writes in one transaction. A realm's saver writes hundreds of knights
// each checkpoint; one transaction a knight costs each a round trip and etcd a raft entry
// each, which a member with its disk takes a few hundred of a second. In one transaction,
// every knight's claim is a condition of the whole, so one lost claim refuses it all: its
// Else reads back every claim and every key to create, in the revision the conditions
// were judged in, which tells exactly which knights failed; the rest are sent again.

// The bounds of one transaction, well under etcd's defaults so that a member run as
// shipped takes it: --max-txn-ops (128) bounds the conditions, the operations of Then
// and those of Else, each; --max-request-bytes (1.5 MiB) the request. A knight that needs
// more than a bound alone is sent alone, as Commit would.
const (
	batchOps   = 64
	batchBytes = 512 << 10
	// batchInFlight is how many transactions of one CommitAll are in flight at once, which
	// etcd commits in one raft entry and one fsync. Before batches a realm wrote a knight
	// to a transaction, 32 at once, which fell behind at 1000 knights (docs/PERFORMANCE.md).
	batchInFlight = 8
)

// Entry is one knight's writes in CommitAll: what its Fenced.Commit would write.
type Entry struct {
	Knight *Fenced
	Writes []Write
	// LetGo lets the knight go in the same transaction, as CheckIn does: its claim is
	// deleted, and once written the realm holds it no more.
	LetGo bool
}

// writes is all e writes: its Writes, then its claim's delete when it lets go.
func (e Entry) writes() []Write {
	if !e.LetGo {
		return e.Writes
	}
	return append(slices.Clip(e.Writes), Write{Key: "claim/" + e.Knight.knight, Delete: true})
}

// CommitAll writes each entry as its knight's Commit would, several knights to a
// transaction, and returns each entry's error: nil when written; ErrFenced for a knight
// whose claim is gone (forgotten, as Commit does; the others are written all the same);
// ErrTaken for one with a key to create that has a value; the realm's reason when it has
// stopped; or the call's error for each entry of a transaction that failed (written or
// not: try again). Entries may be of several realms.
func CommitAll(ctx context.Context, entries []Entry) []error {
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	sem := make(chan struct{}, batchInFlight)
	for _, group := range groups(entries) {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			commitGroup(ctx, entries, group, errs)
		})
	}
	wg.Wait()
	return errs
}

// groups splits entries, by their indexes, into transactions within the bounds, each of
// one realm's term and writing no key twice (etcd refuses a transaction that puts a key twice).
func groups(entries []Entry) [][]int {
	var out [][]int
	var cur []int
	var ops, bytes int
	var keys map[string]bool
	for i, e := range entries {
		eOps, eBytes := e.cost()
		if len(cur) > 0 && (ops+eOps > batchOps || bytes+eBytes > batchBytes ||
			e.Knight.term != entries[cur[0]].Knight.term || e.repeats(keys)) {
			out, cur = append(out, cur), nil
		}
		if len(cur) == 0 {
			ops, bytes, keys = 0, 0, map[string]bool{}
		}
		cur, ops, bytes = append(cur, i), ops+eOps, bytes+eBytes
		for _, w := range e.writes() {
			keys[w.Key] = true
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// cost is what e adds to a transaction: the most of its conditions, its operations and
// its reads (one each for the claim and for each key to create, besides its writes), and
// about its bytes.
func (e Entry) cost() (ops, bytes int) {
	claim := len(e.Knight.realm.keys.claim(e.Knight.knight))
	creates := 0
	bytes = 2*claim + 32
	writes := e.writes()
	for _, w := range writes {
		bytes += 3*(len(e.Knight.realm.keys)+len(w.Key)) + len(w.Value) + 48
		if w.Create {
			creates++
		}
	}
	return max(1+creates, len(writes)), bytes
}

// repeats tells whether e writes a key of keys.
func (e Entry) repeats(keys map[string]bool) bool {
	for _, w := range e.writes() {
		if keys[w.Key] {
			return true
		}
	}
	return false
}

// commitGroup writes the entries of idx, all of one realm's term, in one transaction;
// when a condition fails, it sets the errors of the knights it failed for and writes the
// rest again. Each round drops a knight at least, so it ends.
func commitGroup(ctx context.Context, entries []Entry, idx []int, errs []error) {
	r, t := entries[idx[0]].Knight.realm, entries[idx[0]].Knight.term
	ctx, cancel := t.bound(ctx)
	defer cancel()
	for len(idx) > 0 {
		if err := t.Err(); err != nil {
			setAll(errs, idx, err)
			return
		}
		var conds []clientv3.Cmp
		var ops, reads []clientv3.Op
		for _, i := range idx {
			c, o, rd := entries[i].Knight.txnOf(entries[i].writes())
			conds, ops, reads = append(conds, c...), append(ops, o...), append(reads, rd...)
		}
		resp, err := r.cli.Txn(ctx).If(conds...).Then(ops...).Else(reads...).Commit()
		if err != nil {
			setAll(errs, idx, fmt.Errorf("realm: write %d knights: %w", len(idx), err))
			return
		}
		if resp.Succeeded {
			forgetLetGo(entries, idx)
			return
		}
		idx = refused(entries, idx, resp.Responses, errs)
	}
}

// refused sets the errors of the knights of idx whose conditions failed, from the Else's
// reads, and returns the others.
func refused(entries []Entry, idx []int, resps []*pb.ResponseOp, errs []error) []int {
	var rest []int
	at := 0
	for _, i := range idx {
		f := entries[i].Knight
		var err error
		at, err = f.blame(entries[i].writes(), resps, at)
		switch {
		case err == nil:
			rest = append(rest, i)
		case errors.Is(err, ErrFenced):
			f.term.forget(f)
		}
		errs[i] = err
	}
	if len(rest) == len(idx) { // cannot be: a failed condition is someone's
		setAll(errs, idx, errors.New("realm: a batch refused with every condition holding"))
		return nil
	}
	return rest
}

// forgetLetGo forgets the knights of idx let go in a transaction written.
func forgetLetGo(entries []Entry, idx []int) {
	for _, i := range idx {
		if e := entries[i]; e.LetGo {
			e.Knight.term.forget(e.Knight)
		}
	}
}

func setAll(errs []error, idx []int, err error) {
	for _, i := range idx {
		errs[i] = err
	}
}

// txnOf is f's part of a transaction of writes: its conditions (its claim's token, and
// each key to create at its revision), its operations, and the reads of its Else that
// tell which condition failed (blame).
func (f *Fenced) txnOf(writes []Write) (conds []clientv3.Cmp, ops, reads []clientv3.Op) {
	r := f.realm
	claim := r.keys.claim(f.knight)
	conds = []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(claim), "=", f.token)}
	reads = []clientv3.Op{clientv3.OpGet(claim, clientv3.WithKeysOnly())}
	ops = make([]clientv3.Op, len(writes))
	for i, w := range writes {
		key := string(r.keys) + w.Key
		ops[i] = clientv3.OpPut(key, string(w.Value))
		if w.Delete {
			ops[i] = clientv3.OpDelete(key)
		}
		if w.Create {
			conds = append(conds, clientv3.Compare(clientv3.ModRevision(key), "=", w.Rev))
			reads = append(reads, clientv3.OpGet(key, clientv3.WithKeysOnly()))
		}
	}
	return conds, ops, reads
}

// blame is why f's part of a refused transaction of writes failed, from its reads (as
// txnOf made them) in resps from at: ErrFenced, ErrTaken, or nil if its conditions held.
// It returns the index past its reads too.
func (f *Fenced) blame(writes []Write, resps []*pb.ResponseOp, at int) (int, error) {
	kvs := resps[at].GetResponseRange().Kvs
	at++
	fenced := len(kvs) != 1 || kvs[0].CreateRevision != f.token
	var taken bool
	for _, w := range writes {
		if !w.Create {
			continue
		}
		var rev int64
		if kvs := resps[at].GetResponseRange().Kvs; len(kvs) == 1 {
			rev = kvs[0].ModRevision
		}
		taken = taken || rev != w.Rev
		at++
	}
	switch {
	case fenced:
		return at, ErrFenced
	case taken:
		return at, ErrTaken
	}
	return at, nil
}
