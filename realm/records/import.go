package records

import (
	"bytes"
	"encoding/json"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The import (orthanc-ssh -import) moves one standalone server's records into etcd, each
// with one transaction that writes it only where etcd has none: what etcd has stands, so
// an import run twice changes nothing the second time, and a knight a realm has claimed
// or written since is never overwritten.

// Outcome is what an import did with one record.
type Outcome int

const (
	// Written is a record etcd did not have: the import wrote it.
	Written Outcome = iota
	// Same is a record etcd has already, the same (an earlier import's).
	Same
	// Kept is a record etcd has otherwise, which stands: a knight a realm claims or has
	// written since, a ban or a mailbox changed since.
	Kept
	// Refused is a clear conflict: the name or the key is another knight's in etcd.
	Refused
)

// Imported is what an import did with one record; By names the other party of a Kept
// knight (the realm that claims it, empty when etcd's sheet is another) or of a
// Refused name or key (the knight that has it).
type Imported struct {
	Outcome Outcome
	By      string
}

// create puts value at key (after the prefix) unless key exists, or unless busy (when
// given) exists; otherwise it reads what they hold (nil for what does not exist).
func (s *Store) create(key string, value []byte, busy string) (ok bool, have, holder []byte, err error) {
	key = s.prefix + key
	conds := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(key), "=", 0)}
	reads := []clientv3.Op{clientv3.OpGet(key)}
	if busy != "" {
		busy = s.prefix + busy
		conds = append(conds, clientv3.Compare(clientv3.CreateRevision(busy), "=", 0))
		reads = append(reads, clientv3.OpGet(busy))
	}
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Txn(ctx).If(conds...).Then(clientv3.OpPut(key, string(value))).Else(reads...).Commit()
	if err != nil || resp.Succeeded {
		return resp != nil && resp.Succeeded, nil, nil, err
	}
	got := make([][]byte, 2)
	for i, r := range resp.Responses {
		if kvs := r.GetResponseRange().Kvs; len(kvs) > 0 {
			got[i] = kvs[0].Value
		}
	}
	return false, got[0], got[1], nil
}

// ImportSheet writes a's sheet as realm realmName's, unless etcd has one or a realm
// claims the knight: etcd's sheet is the knight's from its first import on.
func (s *Store) ImportSheet(a *world.Adventurer, realmName string) (Imported, error) {
	data, err := encodeSheet(a, realmName)
	if err != nil {
		return Imported{}, err
	}
	ok, have, holder, err := s.create("knight/"+a.ID, data, "claim/"+a.ID)
	switch {
	case err != nil:
		return Imported{}, fmt.Errorf("import knight %s: %w", a.ID, err)
	case ok:
		return Imported{Outcome: Written}, nil
	case bytes.Equal(have, data):
		return Imported{Outcome: Same}, nil
	}
	return Imported{Outcome: Kept, By: string(holder)}, nil
}

// ImportName gives name to knight unless etcd has it already; another knight's is
// Refused.
func (s *Store) ImportName(name, knight string) (Imported, error) {
	data, err := json.Marshal(nameValue{V: valueVersion, Knight: knight, Name: name})
	if err != nil {
		return Imported{}, fmt.Errorf("encode name %q: %w", name, err)
	}
	ok, have, _, err := s.create("name/"+world.NameKey(name), data, "")
	if err != nil || ok {
		return Imported{Outcome: Written}, wrap("import name "+name, err)
	}
	var held nameValue
	if err := decodeVersioned([]byte(name), have, &held, &held.V); err != nil {
		return Imported{}, err
	}
	if held.Knight != knight {
		return Imported{Outcome: Refused, By: held.Knight}, nil
	}
	return Imported{Outcome: Same}, nil
}

// ImportKey writes k unless etcd has the key already; another knight's is Refused.
// One of the same knight is Same, however its last use differs.
func (s *Store) ImportKey(k knights.Key) (Imported, error) {
	w, err := KeyWrite(k)
	if err != nil {
		return Imported{}, err
	}
	ok, have, _, err := s.create(w.Key, w.Value, "")
	if err != nil || ok {
		return Imported{Outcome: Written}, wrap("import key "+k.Fingerprint, err)
	}
	held, err := decodeKey(k.Fingerprint, have)
	if err != nil {
		return Imported{}, err
	}
	if held.Knight != k.Knight {
		return Imported{Outcome: Refused, By: held.Knight}, nil
	}
	return Imported{Outcome: Same}, nil
}

// ImportBan writes b unless etcd has a ban of the same key or prefix.
func (s *Store) ImportBan(b knights.Ban) (Imported, error) {
	id, data, err := banEntry(b)
	if err != nil {
		return Imported{}, err
	}
	return s.importValue("ban/"+id, data)
}

// ImportSilence writes sl unless etcd has a silence of the knight.
func (s *Store) ImportSilence(sl knights.Silence) (Imported, error) {
	if sl.Knight == "" {
		return Imported{}, fmt.Errorf("import silence: %w", errNoKey)
	}
	data, err := json.Marshal(silenceValue{V: valueVersion, Silence: sl})
	if err != nil {
		return Imported{}, fmt.Errorf("encode silence %s: %w", sl.Knight, err)
	}
	return s.importValue("silence/"+sl.Knight, data)
}

// ImportFame writes e unless etcd has it.
func (s *Store) ImportFame(e knights.FameEntry) (Imported, error) {
	w, err := FameWrite(e)
	if err != nil {
		return Imported{}, err
	}
	return s.importValue(w.Key, w.Value)
}

// ImportTombstone writes t unless etcd has it.
func (s *Store) ImportTombstone(t knights.Tombstone) (Imported, error) {
	w, err := TombstoneWrite(t)
	if err != nil {
		return Imported{}, err
	}
	return s.importValue(w.Key, w.Value)
}

// ImportMail writes the mailbox of knight to unless etcd has one for it.
func (s *Store) ImportMail(to string, letters []world.Letter) (Imported, error) {
	data, err := json.Marshal(lettersValue{V: valueVersion, Letters: letters})
	if err != nil {
		return Imported{}, fmt.Errorf("encode letters of %q: %w", to, err)
	}
	return s.importValue("letters/"+to, data)
}

// importValue writes data at key unless etcd has a value there: the same is Same,
// another Kept.
func (s *Store) importValue(key string, data []byte) (Imported, error) {
	ok, have, _, err := s.create(key, data, "")
	switch {
	case err != nil:
		return Imported{}, fmt.Errorf("import %s: %w", key, err)
	case ok:
		return Imported{Outcome: Written}, nil
	case bytes.Equal(have, data):
		return Imported{Outcome: Same}, nil
	}
	return Imported{Outcome: Kept}, nil
}

// wrap is err with what was being done, nil for nil.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
