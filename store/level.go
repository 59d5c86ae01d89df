package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

type levelValue struct {
	V     int              `json:"v"`
	Level world.LevelState `json:"level"`
}

func levelKey(depth int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(depth)) }

func putLevels(tx *bolt.Tx, levels []world.LevelState) error {
	b := open(tx, bucketLevels)
	for i := range levels {
		data, err := json.Marshal(levelValue{V: ValueVersion, Level: levels[i]})
		if err != nil {
			return fmt.Errorf("encode level %d: %w", levels[i].Depth, err)
		}
		if err := b.put(levelKey(levels[i].Depth), data); err != nil {
			return fmt.Errorf("put level %d: %w", levels[i].Depth, err)
		}
	}
	return nil
}

// Levels returns the saved state of every level, shallowest first.
func (s *Store) Levels() ([]world.LevelState, error) {
	var out []world.LevelState
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketLevels).forEach(func(k, v []byte) error {
			var lv levelValue
			if err := json.Unmarshal(v, &lv); err != nil {
				return fmt.Errorf("level %x: %w", k, err)
			}
			if lv.V != ValueVersion {
				return fmt.Errorf("level %x: value version %d, want %d: %w", k, lv.V, ValueVersion, ErrUnknownVersion)
			}
			out = append(out, lv.Level)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read levels from %s: %w", s.path, err)
	}
	return out, nil
}
