package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// FameEntry is a retired knight in the hall of fame: its last record (with
// world.Retirement set) and when it retired.
type FameEntry struct {
	Retired    time.Time        `json:"retired"`
	Adventurer world.Adventurer `json:"adventurer"`
}

type fameValue struct {
	V int `json:"v"`
	FameEntry
}

// Fame returns every retired knight, most experienced first (earlier retirements first
// among equals).
func (s *Store) Fame() ([]FameEntry, error) {
	var out []FameEntry
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
	slices.SortStableFunc(out, func(a, b FameEntry) int {
		if c := cmp.Compare(b.Adventurer.Experience, a.Adventurer.Experience); c != 0 {
			return c
		}
		return a.Retired.Compare(b.Retired)
	})
	return out, nil
}

func putFame(tx *bolt.Tx, entries []FameEntry) error {
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
