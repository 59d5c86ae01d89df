package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

type fameValue struct {
	V int `json:"v"`
	knights.FameEntry
}

// Fame returns every retired knight, most experienced first (earlier retirements first
// among equals).
func (s *Store) Fame() ([]knights.FameEntry, error) {
	var out []knights.FameEntry
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketFame).forEach(func(k, v []byte) error {
			var f fameValue
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("fame %s: %w", k, err)
			}
			if f.V != ValueVersion {
				return fmt.Errorf("fame %s: value version %d, want %d: %w", k, f.V, ValueVersion, ErrUnknownVersion)
			}
			out = append(out, f.FameEntry)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read hall of fame from %s: %w", s.path, err)
	}
	slices.SortStableFunc(out, func(a, b knights.FameEntry) int {
		if c := cmp.Compare(b.Adventurer.Experience, a.Adventurer.Experience); c != 0 {
			return c
		}
		return a.Retired.Compare(b.Retired)
	})
	return out, nil
}

func putFame(tx *bolt.Tx, entries []knights.FameEntry) error {
	b := open(tx, bucketFame)
	for i := range entries {
		data, err := json.Marshal(fameValue{V: ValueVersion, FameEntry: entries[i]})
		if err != nil {
			return fmt.Errorf("encode fame entry: %w", err)
		}
		key := []byte(entries[i].Adventurer.ID + "/" + entries[i].Retired.UTC().Format(time.RFC3339Nano))
		if err := b.put(key, data); err != nil {
			return fmt.Errorf("put fame entry: %w", err)
		}
	}
	return nil
}
