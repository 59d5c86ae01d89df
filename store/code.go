package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

type codeValue struct {
	V    int          `json:"v"`
	Code knights.Code `json:"code"`
}

// bucketCodes holds the codes waiting, by code.
var bucketCodes = []byte("codes")

// PutCode keeps c under its code.
func (s *Store) PutCode(c knights.Code) error {
	data, err := marshal(codeValue{V: ValueVersion, Code: c})
	if err != nil {
		return fmt.Errorf("encode code: %w", err)
	}
	err = s.update(func(tx *bolt.Tx) error { return open(tx, bucketCodes).put([]byte(c.Code), data) })
	if err != nil {
		return fmt.Errorf("keep a code in %s: %w", s.path, err)
	}
	return nil
}

// TakeCode returns the code of kind and forgets it, in one transaction: a code is good
// once. A code not kept, or expired by now (then forgotten), wraps ErrNotFound; one of
// the other kind is ErrCodeKind, and kept.
func (s *Store) TakeCode(code, kind string, now time.Time) (knights.Code, error) {
	var c knights.Code
	err := s.update(func(tx *bolt.Tx) error {
		b := open(tx, bucketCodes)
		v, err := b.get([]byte(code))
		if err != nil || v == nil {
			return errors.Join(err, ErrNotFound)
		}
		if c, err = decodeCode([]byte(code), v); err != nil {
			return err
		}
		if c.Kind != kind && now.Before(c.Expires) {
			return knights.ErrCodeKind
		}
		return b.delete([]byte(code)) // an expired one too, whose taking fails below
	})
	if err == nil && !now.Before(c.Expires) {
		err = ErrNotFound
	}
	if err != nil {
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, err)
	}
	return c, nil
}

// DeleteCode forgets a code, used or replaced.
func (s *Store) DeleteCode(code string) error {
	err := s.update(func(tx *bolt.Tx) error { return open(tx, bucketCodes).delete([]byte(code)) })
	if err != nil {
		return fmt.Errorf("forget a code in %s: %w", s.path, err)
	}
	return nil
}

// Codes returns the codes that have not expired by now, and deletes the others.
func (s *Store) Codes(now time.Time) ([]knights.Code, error) {
	var out []knights.Code
	err := s.update(func(tx *bolt.Tx) error {
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

func decodeCode(k, v []byte) (knights.Code, error) {
	var cv codeValue
	if err := json.Unmarshal(v, &cv); err != nil {
		return knights.Code{}, fmt.Errorf("decode code %s: %w", k, err)
	}
	if cv.V != ValueVersion {
		return knights.Code{}, fmt.Errorf("decode code %s: value version %d, this program knows %d: %w", k, cv.V, ValueVersion, ErrUnknownVersion)
	}
	if cv.Code.Code != string(k) {
		return knights.Code{}, fmt.Errorf("decode code %s: value says code %q", k, cv.Code.Code)
	}
	return cv.Code, nil
}
