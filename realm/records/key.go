package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
)

type keyValue struct {
	V   int         `json:"v"`
	Key knights.Key `json:"key"`
}

func (s *Store) keyKey(fp string) string { return s.prefix + "key/" + fp }

// KeyWrite is k's entry as a fenced write: a new key is written with its knight's first
// sheet, under the knight's claim, so etcd never has a key to a knight never saved; and
// only if etcd has no entry for it (realm.ErrTaken otherwise), so two realms that made a
// first knight for one key at once cannot both bind it: the second's knight is never
// written, rather than left with no key.
func KeyWrite(k knights.Key) (realm.Write, error) {
	if k.Fingerprint == "" || k.Knight == "" {
		return realm.Write{}, fmt.Errorf("key %q of knight %q: %w", k.Fingerprint, k.Knight, errNoKey)
	}
	data, err := json.Marshal(keyValue{V: valueVersion, Key: k})
	if err != nil {
		return realm.Write{}, fmt.Errorf("encode key %s: %w", k.Fingerprint, err)
	}
	return realm.Write{Key: "key/" + k.Fingerprint, Value: data, Create: true}, nil
}

// KeyOf is the entry of the key fp, or an error wrapping knights.ErrNotFound for a key
// that plays no knight.
func (s *Store) KeyOf(fp string) (knights.Key, error) {
	k, _, err := s.keyAt(fp)
	return k, err
}

// KeyAt is the key fp's entry and its mod revision, for a write conditioned on it
// (realm.Write's Create and Rev).
func (s *Store) KeyAt(fp string) (knights.Key, int64, error) { return s.keyAt(fp) }

// keyAt is the key fp's entry and its mod revision.
func (s *Store) keyAt(fp string) (knights.Key, int64, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.keyKey(fp))
	if err != nil {
		return knights.Key{}, 0, fmt.Errorf("find the knight of key %s: %w", fp, err)
	}
	if len(resp.Kvs) == 0 {
		return knights.Key{}, 0, fmt.Errorf("find the knight of key %s: %w", fp, knights.ErrNotFound)
	}
	k, err := decodeKey(fp, resp.Kvs[0].Value)
	return k, resp.Kvs[0].ModRevision, err
}

func decodeKey(fp string, v []byte) (knights.Key, error) {
	var kv keyValue
	if err := decodeVersioned([]byte("key/"+fp), v, &kv, &kv.V); err != nil {
		return knights.Key{}, err
	}
	if kv.Key.Fingerprint != fp || kv.Key.Knight == "" {
		return knights.Key{}, fmt.Errorf("decode key %s: value says key %q of knight %q", fp, kv.Key.Fingerprint, kv.Key.Knight)
	}
	return kv.Key, nil
}

// KeysOf is the keys of knight, the first added first. Like the store, it reads every
// key: it answers a player's command, never a tick.
func (s *Store) KeysOf(knight string) ([]knights.Key, error) {
	var out []knights.Key
	pre := s.prefix + "key/"
	err := s.each("key/", func(k, v []byte) error {
		key, err := decodeKey(string(k[len(pre):]), v)
		if err == nil && key.Knight == knight {
			out = append(out, key)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the keys of knight %s: %w", knight, err)
	}
	slices.SortStableFunc(out, func(a, b knights.Key) int { return a.Added.Compare(b.Added) })
	return out, nil
}

// errChanged is a key changed between its read and its write: read it again.
var errChanged = errors.New("changed meanwhile")

// TouchKey records that the key fp was used at time at, from addr (kept when empty).
// A key that plays no knight is left alone.
func (s *Store) TouchKey(fp string, at time.Time, addr string) error {
	for range 3 { // another realm's touch between the read and the write: read again
		k, rev, err := s.keyAt(fp)
		if errors.Is(err, knights.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		k.LastUsed = at.UTC()
		if addr != "" {
			k.LastAddr = addr
		}
		if err = s.putKeyIf(k, rev); !errors.Is(err, errChanged) {
			return err
		}
	}
	return fmt.Errorf("touch key %s: %w", fp, errChanged)
}

// putKeyIf writes k if its entry's mod revision is still rev.
func (s *Store) putKeyIf(k knights.Key, rev int64) error {
	w, err := KeyWrite(k)
	if err != nil {
		return err
	}
	ctx, cancel := s.call()
	defer cancel()
	key := s.prefix + w.Key
	resp, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpPut(key, string(w.Value))).Commit()
	switch {
	case err != nil:
		return fmt.Errorf("write key %s: %w", k.Fingerprint, err)
	case !resp.Succeeded:
		return errChanged
	}
	return nil
}

// RemoveKey takes the key fp from its knight: the knight's last key is refused with
// store.ErrLastKey, and a key that plays no knight is knights.ErrNotFound.
func (s *Store) RemoveKey(fp string) error {
	k, rev, err := s.keyAt(fp)
	if err != nil {
		return fmt.Errorf("remove key %s: %w", fp, err)
	}
	all, err := s.KeysOf(k.Knight)
	if err != nil {
		return err
	}
	if len(all) <= 1 {
		return fmt.Errorf("remove key %s: %w", fp, knights.ErrLastKey)
	}
	ctx, cancel := s.call()
	defer cancel()
	key := s.keyKey(fp)
	resp, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpDelete(key)).Commit()
	switch {
	case err != nil:
		return fmt.Errorf("remove key %s: %w", fp, err)
	case !resp.Succeeded:
		return fmt.Errorf("remove key %s: %w", fp, errChanged)
	}
	return nil
}
