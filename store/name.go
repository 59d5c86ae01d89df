package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

// KnightNames lists the name of every stored knight with its id, in id order: the
// server keeps names unique from it, and finds a knight by name. A dead or retired
// knight's record stays (and so does its name) until its keys roll a new knight.
func (s *Store) KnightNames() ([]knights.KnightName, error) {
	var out []knights.KnightName
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketKnights).forEach(func(k, v []byte) error {
			// Only the name is needed: skip decoding the rest of the record.
			var rec struct {
				Adventurer struct {
					Name       string          `json:"name"`
					Death      json.RawMessage `json:"death"`
					Retirement json.RawMessage `json:"retirement"`
				} `json:"adventurer"`
			}
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode adventurer %s: %w", k, err)
			}
			a := rec.Adventurer
			ended := len(a.Death) > 0 && string(a.Death) != "null" || len(a.Retirement) > 0 && string(a.Retirement) != "null"
			out = append(out, knights.KnightName{Knight: string(bytes.Clone(k)), Name: a.Name, Ended: ended})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read knights' names in %s: %w", s.path, err)
	}
	return out, nil
}
