package records

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
)

// endKey is a fame entry's or a tombstone's key: kind, the knight's id, the time; so a
// knight's entries sort by time, as in the store.
func endKey(kind, id string, at time.Time) string {
	return kind + "/" + id + "/" + at.UTC().Format(time.RFC3339Nano)
}

type fameValue struct {
	V int `json:"v"`
	knights.FameEntry
}

type tombstoneValue struct {
	V int `json:"v"`
	knights.Tombstone
}

// FameWrite is e's hall-of-fame entry as a fenced write, for a transaction that writes
// it with the knight's sheet.
func FameWrite(e knights.FameEntry) (realm.Write, error) {
	return encodeEnd(endKey("fame", e.Adventurer.ID, e.Retired), fameValue{V: valueVersion, FameEntry: e})
}

// TombstoneWrite is t as a fenced write, for a transaction that writes it with the
// knight's sheet.
func TombstoneWrite(t knights.Tombstone) (realm.Write, error) {
	return encodeEnd(endKey("tombstone", t.Adventurer.ID, t.Died), tombstoneValue{V: valueVersion, Tombstone: t})
}

func encodeEnd(key string, value any) (realm.Write, error) {
	data, err := json.Marshal(value)
	if err != nil {
		return realm.Write{}, fmt.Errorf("encode %s: %w", key, err)
	}
	return realm.Write{Key: key, Value: data}, nil
}

// Fame is every retired knight, most experienced first (earlier retirements first
// among equals).
func (s *Store) Fame() ([]knights.FameEntry, error) {
	var out []knights.FameEntry
	err := s.each("fame/", func(k, v []byte) error {
		var f fameValue
		if err := decodeVersioned(k, v, &f, &f.V); err != nil {
			return err
		}
		out = append(out, f.FameEntry)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read hall of fame: %w", err)
	}
	slices.SortStableFunc(out, func(a, b knights.FameEntry) int {
		if c := cmp.Compare(b.Adventurer.Experience, a.Adventurer.Experience); c != 0 {
			return c
		}
		return a.Retired.Compare(b.Retired)
	})
	return out, nil
}

// Tombstones is every tombstone, by knight id then time of death.
func (s *Store) Tombstones() ([]knights.Tombstone, error) {
	var out []knights.Tombstone
	err := s.each("tombstone/", func(k, v []byte) error {
		var t tombstoneValue
		if err := decodeVersioned(k, v, &t, &t.V); err != nil {
			return err
		}
		out = append(out, t.Tombstone)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	return out, nil
}

// each calls fn on every key under prefix (after the store's), in key order.
func (s *Store) each(prefix string, fn func(k, v []byte) error) error {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+prefix, clientv3.WithPrefix())
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		if err := fn(kv.Key, kv.Value); err != nil {
			return err
		}
	}
	return nil
}

// decodeVersioned decodes v into dst, whose version field is version, refusing a
// version this program does not know.
func decodeVersioned(k, v []byte, dst any, version *int) error {
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("%s: %w", k, err)
	}
	if *version != valueVersion {
		return fmt.Errorf("%s: value version %d, want %d: %w", k, *version, valueVersion, knights.ErrUnknownVersion)
	}
	return nil
}
