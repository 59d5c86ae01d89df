package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Letters are kept by recipient: the knight's id, so a letter waits for the knight
// whichever of its keys plays it, and a knight that takes a name freed since reads none of
// the letters of the knight that had it. A knight taken out of knights (Attach) loses its
// mailbox with it. Guests are never written to: they are not stored.

type lettersValue struct {
	V       int            `json:"v"`
	Letters []world.Letter `json:"letters"`
}

// Mail returns every mailbox, by the recipient knight's id, for the world to load at start.
func (s *Store) Mail() (map[string][]world.Letter, error) {
	out := map[string][]world.Letter{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketLetters).forEach(func(k, v []byte) error {
			ls, err := decodeLetters(k, v)
			if err != nil {
				return err
			}
			out[string(bytes.Clone(k))] = ls
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read letters from %s: %w", s.path, err)
	}
	return out, nil
}

// putMail replaces each mailbox of mail; an empty one is deleted.
func putMail(tx *bolt.Tx, mail map[string][]world.Letter) error {
	b := open(tx, bucketLetters)
	for to, ls := range mail {
		if len(ls) == 0 {
			if err := b.delete([]byte(to)); err != nil {
				return fmt.Errorf("delete letters of %q: %w", to, err)
			}
			continue
		}
		data, err := json.Marshal(lettersValue{V: ValueVersion, Letters: ls})
		if err != nil {
			return fmt.Errorf("encode letters of %q: %w", to, err)
		}
		if err := b.put([]byte(to), data); err != nil {
			return fmt.Errorf("put letters of %q: %w", to, err)
		}
	}
	return nil
}

func decodeLetters(k, v []byte) ([]world.Letter, error) {
	var lv lettersValue
	if err := json.Unmarshal(v, &lv); err != nil {
		return nil, fmt.Errorf("decode letters %q: %w", k, err)
	}
	if lv.V != ValueVersion {
		return nil, fmt.Errorf("decode letters %q: value version %d, this program knows %d: %w", k, lv.V, ValueVersion, ErrUnknownVersion)
	}
	return lv.Letters, nil
}
