package realm

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrFenced is a write refused because the realm no longer holds the knight's claim.
var ErrFenced = errors.New("realm: the knight's claim is gone")

// ErrTaken is a write refused, the claim held, because a key it was to create has a value
// already, or another than the one read (Write.Create): another realm wrote it first.
var ErrTaken = errors.New("realm: a key to create has a value already")

// Fenced is a realm's hold on one knight, and the only way to write it: each write is
// one transaction conditioned on the claim key still having the create revision it had
// when claimed (the token), so no realm writes a knight it no longer holds.
type Fenced struct {
	realm  *Realm
	term   *term // the lease's life it was claimed in: it is written only in it
	knight string
	token  int64
	sheet  []byte
	read   map[string]Value // TakeOptions.Read, as the claim read them
}

// Value is a key's value as a claim read it, and the revision it was last changed at.
type Value struct {
	Value []byte
	Rev   int64
}

// Knight is the knight's id.
func (f *Fenced) Knight() string { return f.knight }

// Token is the claim's create revision, the fencing token.
func (f *Fenced) Token() int64 { return f.token }

// Sheet is the knight's checkpoint read with the claim; nil for a knight never saved.
func (f *Fenced) Sheet() []byte { return f.sheet }

// Read is a key of TakeOptions.Read as the claim read it, at the claim's revision; ok
// is false for a key that had no value then (or was not asked for).
func (f *Fenced) Read(key string) (v Value, ok bool) {
	v, ok = f.read[key]
	return v, ok
}

// Err is why the claim can write no more (the realm's term it was made in stopped), or
// nil while its term runs. A claim of a stopped term is never written again, even once
// the realm runs a new term.
func (f *Fenced) Err() error { return f.term.Err() }

// Write is one key's change in a fenced transaction; Key is under the realm's prefix.
type Write struct {
	Key    string
	Value  []byte
	Delete bool
	// Create writes only if Key's mod revision is Rev (0: Key has no value): the whole
	// transaction is ErrTaken otherwise (a new key bound to a knight, which two realms may
	// bind to two knights at once; a key moved, which another may have moved meanwhile).
	Create bool
	Rev    int64
}

// Checkpoint saves the knight's sheet.
func (f *Fenced) Checkpoint(ctx context.Context, sheet []byte) error {
	_, err := f.Commit(ctx, Write{Key: "knight/" + f.knight, Value: sheet})
	return err
}

// CheckIn saves the knight's sheet and lets the knight go, in one transaction: what a
// realm does when its player leaves or another realm asks for the knight. If it fails
// for another reason than ErrFenced the knight may still be held here: try again, or
// Release it (the lease's end lets it go at the latest).
func (f *Fenced) CheckIn(ctx context.Context, sheet []byte) error {
	return f.letGo(ctx, Write{Key: "knight/" + f.knight, Value: sheet})
}

// Release lets the knight go without saving it; its last checkpoint stands.
func (f *Fenced) Release(ctx context.Context) error {
	return f.letGo(ctx)
}

func (f *Fenced) letGo(ctx context.Context, writes ...Write) error {
	_, err := f.Commit(ctx, append(writes, Write{Key: "claim/" + f.knight, Delete: true})...)
	if err == nil {
		f.term.forget(f)
	}
	return err
}

// Commit writes all of writes in one transaction if the claim holds, and returns the
// revision written. A stopped realm writes nothing; a lost claim gives ErrFenced.
func (f *Fenced) Commit(ctx context.Context, writes ...Write) (int64, error) {
	return f.commit(ctx, []*Fenced{f}, writes)
}

// CommitWith is Commit under two claims of this realm, f's and also's: what changes two
// knights at once (a key that leaves one for the other, which is entombed) is written
// only while this realm holds both. Either claim lost gives ErrFenced.
func (f *Fenced) CommitWith(ctx context.Context, also *Fenced, writes ...Write) (int64, error) {
	if also.term != f.term {
		return 0, fmt.Errorf("realm: write %s with %s: claims of two realms", f.knight, also.knight)
	}
	return f.commit(ctx, []*Fenced{f, also}, writes)
}

func (f *Fenced) commit(ctx context.Context, fences []*Fenced, writes []Write) (int64, error) {
	r, t := f.realm, f.term
	if err := t.Err(); err != nil {
		return 0, err
	}
	conds, ops, reads := f.txnOf(writes)
	for _, g := range fences[1:] { // the other claims: conditions too, read back after f's reads
		claim := r.keys.claim(g.knight)
		conds = append(conds, clientv3.Compare(clientv3.CreateRevision(claim), "=", g.token))
		reads = append(reads, clientv3.OpGet(claim, clientv3.WithKeysOnly()))
	}
	ctx, cancel := t.bound(ctx)
	defer cancel()
	resp, err := r.cli.Txn(ctx).If(conds...).Then(ops...).Else(reads...).Commit()
	if err != nil {
		return 0, fmt.Errorf("realm: write %s: %w", f.knight, err)
	}
	if !resp.Succeeded {
		return 0, f.refused(fences, writes, resp)
	}
	return resp.Header.Revision, nil
}

// refused is why a transaction under fences of writes failed: a claim lost (forgotten
// here), or, every claim held, a key to create that had a value.
func (f *Fenced) refused(fences []*Fenced, writes []Write, resp *clientv3.TxnResponse) error {
	at, err := f.blame(writes, resp.Responses, 0) // f's claim and keys to create
	fenced := errors.Is(err, ErrFenced)
	if fenced {
		f.term.forget(f)
	}
	for _, g := range fences[1:] {
		if kvs := resp.Responses[at].GetResponseRange().Kvs; len(kvs) != 1 || kvs[0].CreateRevision != g.token {
			g.term.forget(g)
			fenced = true
		}
		at++
	}
	if fenced {
		return ErrFenced
	}
	return ErrTaken
}

// forget drops a knight the term no longer holds.
func (t *term) forget(f *Fenced) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.held[f.knight] == f {
		delete(t.held, f.knight)
	}
}
