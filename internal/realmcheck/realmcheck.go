// Package realmcheck replays etcd's history of the realms' keys for the chaos tests (the
// realm package's and the server's): every claim made and every write of a knight, in
// the order etcd applied them, each write with the claim that stood when it was made, so
// a test can check that no knight was written but under the claim that held it. Only
// tests import it.
package realmcheck

import (
	"context"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Claim is a knight's claim as the history has it.
type Claim struct {
	// Token is the claim's create revision, the fencing token; 0 when no claim stood.
	Token int64
	// Holder is the claim's value, the holding realm's name.
	Holder string
	// Lease is the holder's lease.
	Lease int64
}

// Write is one change of a key of a knight's (knight/ID, fame/ID/..., tombstone/ID/...).
type Write struct {
	// Kind is the key's first part (knight, fame, tombstone); Knight its second.
	Kind, Knight string
	Rev          int64
	Delete       bool
	Value        []byte
	// Claim is the knight's claim when the write was applied: the claim deleted in the
	// same transaction (a check-in) still stands for the writes before it.
	Claim Claim
}

// Claimed is a claim made, with the knight's sheet as it stood then, which the claim read.
type Claimed struct {
	Knight string
	Rev    int64
	Claim  Claim
	Sheet  []byte // nil: none yet
}

// Judge is what a test checks, told of each write and each claim in order.
type Judge struct {
	Wrote   func(Write)
	Claimed func(Claimed)
}

// Kinds of keys written under a knight's claim; others are not the knight's.
var underClaim = map[string]bool{"knight": true, "fame": true, "tombstone": true}

// Replay hands j every claim and every write of a knight under prefix from revision
// from to now (etcd keeps them all unless compacted: the tests' etcd never is), and
// returns each knight's last sheet. It marks now with a key of its own, prefix+"end".
func Replay(ctx context.Context, cli *clientv3.Client, prefix string, from int64, j Judge) (map[string][]byte, error) {
	end := prefix + "end"
	if _, err := cli.Put(ctx, end, ""); err != nil {
		return nil, err
	}
	r := replay{prefix: prefix, j: j, claims: map[string]Claim{}, sheets: map[string][]byte{}}
	for resp := range cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(from)) {
		if err := resp.Err(); err != nil {
			return nil, err
		}
		for _, ev := range resp.Events {
			if string(ev.Kv.Key) == end {
				return r.sheets, nil
			}
			r.event(ev)
		}
	}
	return nil, fmt.Errorf("realmcheck: the history's end never came: %w", ctx.Err())
}

// replay is the state of the knights as the history goes.
type replay struct {
	prefix string
	j      Judge
	claims map[string]Claim
	sheets map[string][]byte
}

func (r *replay) event(ev *clientv3.Event) {
	kind, rest, _ := strings.Cut(strings.TrimPrefix(string(ev.Kv.Key), r.prefix), "/")
	knight, _, _ := strings.Cut(rest, "/")
	del := ev.Type == mvccpb.DELETE
	switch {
	case kind == "claim" && del:
		delete(r.claims, knight)
	case kind == "claim":
		c := Claim{Token: ev.Kv.CreateRevision, Holder: string(ev.Kv.Value), Lease: ev.Kv.Lease}
		r.claims[knight] = c
		if r.j.Claimed != nil && ev.Kv.Version == 1 {
			r.j.Claimed(Claimed{Knight: knight, Rev: ev.Kv.ModRevision, Claim: c, Sheet: r.sheets[knight]})
		}
	case underClaim[kind]:
		w := Write{Kind: kind, Knight: knight, Rev: ev.Kv.ModRevision, Delete: del, Value: ev.Kv.Value, Claim: r.claims[knight]}
		if kind == "knight" {
			r.sheets[knight] = ev.Kv.Value
			if del {
				r.sheets[knight] = nil
			}
		}
		if r.j.Wrote != nil {
			r.j.Wrote(w)
		}
	}
}
