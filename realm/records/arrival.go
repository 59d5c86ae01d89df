package records

import (
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What another realm may have changed of a knight while it played there (its mailbox,
// its silence, a rename) is read with its claim here, in the claim's own transaction
// (realm.TakeOptions.Read): a realm far from etcd waits no round trip more for them.

// claimReads are the keys, under the prefix, a claim of knight id reads beside its
// sheet: its pending rename (Keeper.takeRename), its mailbox and its silence.
func claimReads(id string) []string {
	return []string{"rename/" + id, "letters/" + id, "silence/" + id}
}

// Arrival is what a knight's session brings the world as it opens here, besides the
// sheet: what other realms may have changed of the knight while it played elsewhere.
type Arrival struct {
	// Letters is the knight's mailbox. MailOK is false when it could not be read, or
	// while a write of this realm's own waits (it merges, and the world is handed the
	// result).
	Letters []world.Letter
	MailOK  bool
	// Silence is the knight's silence, when Silenced (it may have ended since);
	// SilenceOK is false when it could not be read.
	Silence   knights.Silence
	Silenced  bool
	SilenceOK bool
	// Renamed is the knight's name before a rename an admin of another realm made while
	// it played elsewhere, which its claim here applied; "" for none.
	Renamed string
}

// arrival is what a claim read for its session, until the session takes it (Arrived).
type arrival struct {
	f       *realm.Fenced
	renamed string
}

// Arrived is what knight id brings the world as a session of it opens here: what its
// claim here read, for the session that claimed it (once); for a session that joins a
// knight held here already, the same read now, in one transaction. An error says what
// could not be read; the rest stands.
func (k *Keeper) Arrived(id string) (Arrival, error) {
	k.mu.Lock()
	a, claimed := k.arrivals[id]
	delete(k.arrivals, id)
	k.mu.Unlock()
	read := func(key string) (realm.Value, bool) { return a.f.Read(key) }
	if !claimed {
		vals, err := k.readKeys("letters/"+id, "silence/"+id)
		if err != nil {
			return Arrival{}, fmt.Errorf("read the mailbox and the silence of %s: %w", id, err)
		}
		read = func(key string) (realm.Value, bool) { v, ok := vals[key]; return v, ok }
	}
	out := Arrival{Renamed: a.renamed}
	var errs []error
	box, rev := Mailbox{}, int64(0)
	if v, ok := read("letters/" + id); ok {
		var err error
		if box, err = decodeMailbox(k.prefix+"letters/"+id, v.Value); err != nil {
			errs = append(errs, err)
		}
		rev = v.Rev
	}
	if len(errs) == 0 {
		out.Letters, out.MailOK = box.Letters, k.sheets.sawMail(id, box, rev)
	}
	out.SilenceOK = true
	if v, ok := read("silence/" + id); ok {
		var sv silenceValue
		if err := decodeVersioned([]byte(k.silenceKey(id)), v.Value, &sv, &sv.V); err != nil {
			errs = append(errs, err)
			out.SilenceOK = false
		} else {
			out.Silence, out.Silenced = sv.Silence, true
		}
	}
	return out, errors.Join(errs...)
}

// forgetArrival drops what a claim of knight id read and no session took: it is the
// claim's, and must not reach a session of a later one.
func (k *Keeper) forgetArrival(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.arrivals, id)
}

// readKeys reads keys, under the prefix, in one transaction: the value of each that has
// one.
func (s *Store) readKeys(keys ...string) (map[string]realm.Value, error) {
	ops := make([]clientv3.Op, len(keys))
	for i, key := range keys {
		ops[i] = clientv3.OpGet(s.prefix + key)
	}
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, err
	}
	out := map[string]realm.Value{}
	for i, key := range keys {
		if kvs := resp.Responses[i].GetResponseRange().Kvs; len(kvs) > 0 {
			out[key] = realm.Value{Value: kvs[0].Value, Rev: kvs[0].ModRevision}
		}
	}
	return out, nil
}
