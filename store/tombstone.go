package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

type tombstoneValue struct {
	V int `json:"v"`
	knights.Tombstone
}

// tombstoneKey orders a key's tombstones by time: fingerprint, a slash, the death time.
func tombstoneKey(t *knights.Tombstone) []byte {
	return []byte(t.Adventurer.ID + "/" + t.Died.UTC().Format(time.RFC3339Nano))
}

// Tombstones returns every tombstone, oldest key first.
func (s *Store) Tombstones() ([]knights.Tombstone, error) {
	var out []knights.Tombstone
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketTombstones).forEach(func(k, v []byte) error {
			var t tombstoneValue
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("tombstone %s: %w", k, err)
			}
			if t.V != ValueVersion {
				return fmt.Errorf("tombstone %s: value version %d, want %d: %w", k, t.V, ValueVersion, ErrUnknownVersion)
			}
			out = append(out, t.Tombstone)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read tombstones from %s: %w", s.path, err)
	}
	return out, nil
}

// putTombstones writes tombstones inside an update transaction.
func putTombstones(tx *bolt.Tx, tombs []knights.Tombstone) error {
	b := open(tx, bucketTombstones)
	for i := range tombs {
		data, err := json.Marshal(tombstoneValue{V: ValueVersion, Tombstone: tombs[i]})
		if err != nil {
			return fmt.Errorf("encode tombstone: %w", err)
		}
		if err := b.put(tombstoneKey(&tombs[i]), data); err != nil {
			return fmt.Errorf("put tombstone: %w", err)
		}
	}
	return nil
}
