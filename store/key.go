package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

type keyValue struct {
	V   int         `json:"v"`
	Key knights.Key `json:"key"`
}

func encodeKey(k knights.Key) ([]byte, error) {
	if k.Fingerprint == "" || k.Knight == "" {
		return nil, fmt.Errorf("encode key %q of knight %q: %w", k.Fingerprint, k.Knight, errNoFingerprint)
	}
	data, err := json.Marshal(keyValue{V: ValueVersion, Key: k})
	if err != nil {
		return nil, fmt.Errorf("encode key %s: %w", k.Fingerprint, err)
	}
	return data, nil
}

func decodeKey(k, v []byte) (knights.Key, error) {
	var kv keyValue
	if err := json.Unmarshal(v, &kv); err != nil {
		return knights.Key{}, fmt.Errorf("decode key %s: %w", k, err)
	}
	if kv.V != ValueVersion {
		return knights.Key{}, fmt.Errorf("decode key %s: value version %d, this program knows %d: %w", k, kv.V, ValueVersion, ErrUnknownVersion)
	}
	if kv.Key.Fingerprint != string(k) || kv.Key.Knight == "" {
		return knights.Key{}, fmt.Errorf("decode key %s: value says key %q of knight %q", k, kv.Key.Fingerprint, kv.Key.Knight)
	}
	return kv.Key, nil
}

// KeyOf returns the entry of the key with fingerprint fp, or an error wrapping
// ErrNotFound for a key that plays no knight.
func (s *Store) KeyOf(fp string) (knights.Key, error) {
	var k knights.Key
	err := s.db.View(func(tx *bolt.Tx) error {
		v, err := open(tx, bucketKeys).get([]byte(fp))
		if err != nil {
			return err
		}
		if v == nil {
			return ErrNotFound
		}
		k, err = decodeKey([]byte(fp), v)
		return err
	})
	if err != nil {
		return knights.Key{}, fmt.Errorf("find the knight of key %s: %w", fp, err)
	}
	return k, nil
}

// KeysOf returns the keys of the knight with id knight, the first added first. A
// knight's keys are found by reading the whole bucket: it is asked for by a player's
// command, never on a tick.
func (s *Store) KeysOf(knight string) ([]knights.Key, error) {
	var out []knights.Key
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = keysOf(tx, knight)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the keys of knight %s: %w", knight, err)
	}
	return out, nil
}

// AllKeys is every key's entry, in fingerprint order: what an import into etcd copies.
func (s *Store) AllKeys() ([]knights.Key, error) {
	var out []knights.Key
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketKeys).forEach(func(k, v []byte) error {
			key, err := decodeKey(k, v)
			out = append(out, key)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list keys in %s: %w", s.path, err)
	}
	return out, nil
}

func keysOf(tx *bolt.Tx, knight string) ([]knights.Key, error) {
	var out []knights.Key
	err := open(tx, bucketKeys).forEach(func(k, v []byte) error {
		key, err := decodeKey(k, v)
		if err != nil {
			return err
		}
		if key.Knight == knight {
			out = append(out, key)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b knights.Key) int { return a.Added.Compare(b.Added) })
	return out, err
}

// TouchKey records that the key fp was used at time at, from addr (kept as it was when
// empty). A key that plays no knight is left alone.
func (s *Store) TouchKey(fp string, at time.Time, addr string) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := open(tx, bucketKeys)
		v, err := b.get([]byte(fp))
		if v == nil {
			return err
		}
		k, err := decodeKey([]byte(fp), v)
		if err != nil {
			return err
		}
		k.LastUsed = at.UTC()
		if addr != "" {
			k.LastAddr = addr
		}
		data, err := encodeKey(k)
		if err != nil {
			return err
		}
		return b.put([]byte(fp), data)
	})
	if err != nil {
		return fmt.Errorf("touch key %s: %w", fp, err)
	}
	return nil
}

// Attach gives a key to a knight, in one transaction: the key's entry now names a.Key.Knight (a
// new key is added). The knight the key played before loses it; a knight left with no
// key goes from knights (its name and its letters with it): a dead or retired one has its
// tombstone or fame entry already, a living one is refused with ErrHasKnight unless
// a.Replace, and is then written into tombstones. A key that already plays the knight is ErrSameKnight.
// The knight must be stored (or given in a.Knight); the caller has flushed its Saver,
// and keeps the knights concerned out of the world meanwhile.
func (s *Store) Attach(a knights.Give) (knights.Given, error) {
	var done knights.Given
	fp := []byte(a.Key.Fingerprint)
	var newRec []byte
	if a.Knight != nil {
		if a.Knight.ID != a.Key.Knight {
			return done, fmt.Errorf("attach key %s: the knight given is %q, not %q", fp, a.Knight.ID, a.Key.Knight)
		}
		var err error
		if newRec, err = encodeAdventurer(a.Knight); err != nil {
			return done, err
		}
	}
	err := s.update(func(tx *bolt.Tx) error {
		if err := putAttachedKnight(tx, a.Key.Knight, newRec); err != nil {
			return err
		}
		left, err := moveKey(tx, a)
		if err != nil || left == "" {
			return err
		}
		done.Left = left
		done.Gone, done.Entombed, err = leaveKnight(tx, left, a)
		return err
	})
	if err != nil {
		return knights.Given{}, fmt.Errorf("give key %s to knight %s: %w", fp, a.Key.Knight, err)
	}
	return done, nil
}

// putAttachedKnight stores rec as the new knight id, which must not be stored yet; with
// no rec, the knight id must be stored already.
func putAttachedKnight(tx *bolt.Tx, id string, rec []byte) error {
	kb := open(tx, bucketKnights)
	switch {
	case rec != nil && kb.has([]byte(id)):
		return fmt.Errorf("knight %s is stored already", id)
	case rec != nil:
		return kb.put([]byte(id), rec)
	case !kb.has([]byte(id)):
		return fmt.Errorf("knight %s: %w", id, ErrNotFound)
	}
	return nil
}

// moveKey writes a.Key's entry (keeping the date an existing key was added) and removes
// a.Remove; it returns the knight the key played before, "" when it is new.
func moveKey(tx *bolt.Tx, a knights.Give) (left string, err error) {
	keys := open(tx, bucketKeys)
	fp := []byte(a.Key.Fingerprint)
	if v, err := keys.get(fp); err != nil {
		return "", err
	} else if v != nil {
		old, err := decodeKey(fp, v)
		if err != nil {
			return "", err
		}
		if old.Knight == a.Key.Knight {
			return "", knights.ErrSameKnight
		}
		left = old.Knight
		if a.Key.Added.IsZero() {
			a.Key.Added = old.Added
		}
	}
	data, err := encodeKey(a.Key)
	if err != nil {
		return "", err
	}
	if err := keys.put(fp, data); err != nil {
		return "", err
	}
	if a.Remove != "" {
		if err := keys.delete([]byte(a.Remove)); err != nil {
			return "", err
		}
	}
	return left, nil
}

// leaveKnight takes the knight id, which a key has just left, out of knights (its letters
// with it) when it has no key left: a living one is refused with ErrHasKnight unless
// a.Replace, and is then written into tombstones with a.Death.
func leaveKnight(tx *bolt.Tx, id string, a knights.Give) (gone, entombed bool, err error) {
	rest, err := keysOf(tx, id)
	if err != nil || len(rest) > 0 {
		return false, false, err // the knight left behind keeps its other keys
	}
	kb := open(tx, bucketKnights)
	v, err := kb.get([]byte(id))
	if v == nil {
		return false, false, err
	}
	rec, err := decodeAdventurer(id, bytes.Clone(v))
	if err != nil {
		return false, false, err
	}
	if rec.Death == nil && rec.Retirement == nil {
		if !a.Replace {
			return false, false, knights.ErrHasKnight
		}
		d := a.Death
		d.Depth, d.Level, d.Experience, d.Turn = rec.Depth, rec.Level, rec.Experience, rec.Turn
		rec.Death = &d
		if err := putTombstones(tx, []knights.Tombstone{{Died: a.At, Adventurer: rec}}); err != nil {
			return false, false, err
		}
		entombed = true
	}
	if err := tx.Bucket(bucketLetters).Delete([]byte(id)); err != nil {
		return false, entombed, err
	}
	return true, entombed, kb.delete([]byte(id))
}

// RemoveKey takes the key fp from its knight; the knight's last key is refused with
// ErrLastKey, and a key that plays no knight is ErrNotFound.
func (s *Store) RemoveKey(fp string) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := open(tx, bucketKeys)
		v, err := b.get([]byte(fp))
		if err != nil {
			return err
		}
		if v == nil {
			return ErrNotFound
		}
		k, err := decodeKey([]byte(fp), v)
		if err != nil {
			return err
		}
		all, err := keysOf(tx, k.Knight)
		if err != nil {
			return err
		}
		if len(all) <= 1 {
			return knights.ErrLastKey
		}
		return b.delete([]byte(fp))
	})
	if err != nil {
		return fmt.Errorf("remove key %s: %w", fp, err)
	}
	return nil
}
