package records

import (
	"encoding/json"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

type nameValue struct {
	V      int    `json:"v"`
	Knight string `json:"knight"`
	Name   string `json:"name"`
}

// nameKey is the key of a name, folded as world.NameKey folds it, so that two realms'
// knights cannot be told apart by case alone.
func (s *Store) nameKey(name string) string { return s.prefix + "name/" + world.NameKey(name) }

// ClaimName gives name to knight unless another knight has it, in one transaction, so
// that two realms' players who pick one name at one moment cannot both have it; the
// knight that has it already may claim it again (its name as typed is kept).
func (s *Store) ClaimName(name, knight string) (bool, error) {
	data, err := json.Marshal(nameValue{V: valueVersion, Knight: knight, Name: name})
	if err != nil {
		return false, fmt.Errorf("encode name %q: %w", name, err)
	}
	key := s.nameKey(name)
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(data))).Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return false, fmt.Errorf("claim name %q: %w", name, err)
	}
	if resp.Succeeded {
		return true, nil
	}
	kv := resp.Responses[0].GetResponseRange().Kvs[0]
	var held nameValue
	if err := decodeVersioned(kv.Key, kv.Value, &held, &held.V); err != nil || held.Knight != knight {
		return false, err
	}
	_, err = s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision)).
		Then(clientv3.OpPut(key, string(data))).Commit()
	return err == nil, err
}

// KnightNames is every name a knight has claimed, with its knight, in the order of the
// names' keys. Ended is never set: a name stays its knight's in every realm.
func (s *Store) KnightNames() ([]knights.KnightName, error) {
	var out []knights.KnightName
	err := s.each("name/", func(k, v []byte) error {
		var n nameValue
		if err := decodeVersioned(k, v, &n, &n.V); err != nil {
			return err
		}
		out = append(out, knights.KnightName{Knight: n.Knight, Name: n.Name})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read knights' names: %w", err)
	}
	return out, nil
}

// ReleaseName frees name if knight has it (a knight never written: another realm bound
// its key first), so the name is not left to a knight that does not exist.
func (s *Store) ReleaseName(name, knight string) error {
	key := s.nameKey(name)
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) == 0 {
		return wrap("release name "+name, err)
	}
	kv := resp.Kvs[0]
	var held nameValue
	if err := decodeVersioned(kv.Key, kv.Value, &held, &held.V); err != nil || held.Knight != knight {
		return err
	}
	_, err = s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision)).
		Then(clientv3.OpDelete(key)).Commit()
	return wrap("release name "+name, err)
}

// FindName is the knight of the first of names that a knight has claimed, read in one
// transaction; ok is false when none is. A realm asks it of a name its world does not
// know: a knight imported, or made on another realm, since the realm started.
func (s *Store) FindName(names ...string) (n knights.KnightName, ok bool, err error) {
	if len(names) == 0 {
		return n, false, nil
	}
	ops := make([]clientv3.Op, len(names))
	for i, name := range names {
		ops[i] = clientv3.OpGet(s.nameKey(name))
	}
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return n, false, fmt.Errorf("find a knight by name: %w", err)
	}
	for _, r := range resp.Responses {
		kvs := r.GetResponseRange().Kvs
		if len(kvs) == 0 {
			continue
		}
		var v nameValue
		if err := decodeVersioned(kvs[0].Key, kvs[0].Value, &v, &v.V); err != nil {
			return n, false, err
		}
		return knights.KnightName{Knight: v.Knight, Name: v.Name}, true, nil
	}
	return n, false, nil
}
