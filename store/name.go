package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// KnightName is the name of a stored knight and its id.
type KnightName struct {
	Knight string
	Name   string
}

// KnightNames lists the name of every stored knight with its id, in id order: the
// server keeps names unique from it, and finds a knight by name. A dead or retired
// knight's record stays (and so does its name) until its keys roll a new knight.
func (s *Store) KnightNames() ([]KnightName, error) {
	var out []KnightName
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKnights).ForEach(func(k, v []byte) error {
			// Only the name is needed: skip decoding the rest of the record.
			var rec struct {
				Adventurer struct {
					Name string `json:"name"`
				} `json:"adventurer"`
			}
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode adventurer %s: %w", k, err)
			}
			out = append(out, KnightName{string(bytes.Clone(k)), rec.Adventurer.Name})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read knights' names in %s: %w", s.path, err)
	}
	return out, nil
}
