package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Code is a one-time code waiting to be used (issue 30: kept in memory only, a restart
// lost them, and a guest whose claim code was lost lost its knight): a link code of keys
// add gives Knight to the key that links with it; a guest's claim code gives Guest, the
// guest's knight as it left, to the key that claims with it. Addr is the address that
// made it, which the server counts codes by. The server keeps the book and its limits;
// the store keeps the codes across a restart until they expire.
type Code struct {
	Code    string            `json:"code"`
	Kind    string            `json:"kind"` // "link" or "claim"
	Knight  string            `json:"knight,omitempty"`
	Guest   *world.Adventurer `json:"guest,omitempty"`
	Addr    string            `json:"addr,omitempty"`
	Expires time.Time         `json:"expires"`
}

type codeValue struct {
	V    int  `json:"v"`
	Code Code `json:"code"`
}

// bucketCodes holds the codes waiting, by code.
var bucketCodes = []byte("codes")

// PutCode keeps c under its code.
func (s *Store) PutCode(c Code) error {
	data, err := marshal(codeValue{V: ValueVersion, Code: c})
	if err != nil {
		return fmt.Errorf("encode code: %w", err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error { return open(tx, bucketCodes).put([]byte(c.Code), data) })
	if err != nil {
		return fmt.Errorf("keep a code in %s: %w", s.path, err)
	}
	return nil
}

// ErrCodeKind is a code taken as one kind ("link", "claim") that is of the other: it is
// kept, for its own kind.
var ErrCodeKind = errors.New("a code of another kind")

// TakeCode returns the code of kind and forgets it, in one transaction: a code is good
// once. A code not kept, or expired by now (then forgotten), wraps ErrNotFound; one of
// the other kind is ErrCodeKind, and kept.
func (s *Store) TakeCode(code, kind string, now time.Time) (Code, error) {
	var c Code
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := open(tx, bucketCodes)
		v, err := b.get([]byte(code))
		if err != nil || v == nil {
			return errors.Join(err, ErrNotFound)
		}
		if c, err = decodeCode([]byte(code), v); err != nil {
			return err
		}
		if c.Kind != kind && now.Before(c.Expires) {
			return ErrCodeKind
		}
		return b.delete([]byte(code)) // an expired one too, whose taking fails below
	})
	if err == nil && !now.Before(c.Expires) {
		err = ErrNotFound
	}
	if err != nil {
		return Code{}, fmt.Errorf("take code %s: %w", code, err)
	}
	return c, nil
}

// DeleteCode forgets a code, used or replaced.
func (s *Store) DeleteCode(code string) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return open(tx, bucketCodes).delete([]byte(code)) })
	if err != nil {
		return fmt.Errorf("forget a code in %s: %w", s.path, err)
	}
	return nil
}

// Codes returns the codes that have not expired by now, and deletes the others.
func (s *Store) Codes(now time.Time) ([]Code, error) {
	var out []Code
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := open(tx, bucketCodes)
		var expired [][]byte
		err := b.forEach(func(k, v []byte) error {
			c, err := decodeCode(k, v)
			if err != nil {
				return err
			}
			if now.Before(c.Expires) {
				out = append(out, c)
			} else {
				expired = append(expired, []byte(c.Code))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range expired {
			if err := b.delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read codes from %s: %w", s.path, err)
	}
	return out, nil
}

func decodeCode(k, v []byte) (Code, error) {
	var cv codeValue
	if err := json.Unmarshal(v, &cv); err != nil {
		return Code{}, fmt.Errorf("decode code %s: %w", k, err)
	}
	if cv.V != ValueVersion {
		return Code{}, fmt.Errorf("decode code %s: value version %d, this program knows %d: %w", k, cv.V, ValueVersion, ErrUnknownVersion)
	}
	if cv.Code.Code != string(k) {
		return Code{}, fmt.Errorf("decode code %s: value says code %q", k, cv.Code.Code)
	}
	return cv.Code, nil
}
