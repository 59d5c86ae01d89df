package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Silence is an admin's silencing of a knight until a time: it plays but cannot talk. It
// is kept by the knight's id, so it holds whichever of the knight's keys plays it, and a
// silenced player cannot escape it by rolling a new knight (its keys keep the id).
type Silence struct {
	Knight string    `json:"knight"`
	Name   string    `json:"name,omitempty"` // the knight's name when it was silenced
	Reason string    `json:"reason,omitempty"`
	By     string    `json:"by"` // the admin's key fingerprint
	At     time.Time `json:"at"`
	Until  time.Time `json:"until"`
}

type silenceValue struct {
	V       int     `json:"v"`
	Silence Silence `json:"silence"`
}

// Silence stores sl under its knight's id, replacing an earlier silence of the knight.
func (s *Store) Silence(sl Silence) error {
	if sl.Knight == "" {
		return fmt.Errorf("silence: %w", errNoFingerprint)
	}
	data, err := json.Marshal(silenceValue{V: ValueVersion, Silence: sl})
	if err != nil {
		return fmt.Errorf("encode silence %s: %w", sl.Knight, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		return open(tx, bucketSilences).put([]byte(sl.Knight), data)
	})
	if err != nil {
		return fmt.Errorf("silence %s in %s: %w", sl.Knight, s.path, err)
	}
	return nil
}

// Unsilence deletes the silence of the knight with id fp and reports whether there was
// one.
func (s *Store) Unsilence(fp string) (bool, error) {
	found := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSilences)
		if found = b.Get([]byte(fp)) != nil; !found {
			return nil
		}
		return b.Delete([]byte(fp))
	})
	if err != nil {
		return false, fmt.Errorf("unsilence %s in %s: %w", fp, s.path, err)
	}
	return found, nil
}

// Silences lists the silences that last beyond now, soonest to end first; the ones that
// have ended are deleted.
func (s *Store) Silences(now time.Time) ([]Silence, error) {
	out := []Silence{}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := open(tx, bucketSilences)
		var ended [][]byte
		err := b.forEach(func(k, v []byte) error {
			sl, err := decodeSilence(k, v)
			if err != nil {
				return err
			}
			if now.Before(sl.Until) {
				out = append(out, sl)
			} else {
				ended = append(ended, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range ended {
			if err := b.delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read silences from %s: %w", s.path, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Until.Before(out[j].Until) })
	return out, nil
}

func decodeSilence(k, v []byte) (Silence, error) {
	var sv silenceValue
	if err := json.Unmarshal(v, &sv); err != nil {
		return Silence{}, fmt.Errorf("decode silence %s: %w", k, err)
	}
	if sv.V != ValueVersion {
		return Silence{}, fmt.Errorf("decode silence %s: value version %d, this program knows %d: %w", k, sv.V, ValueVersion, ErrUnknownVersion)
	}
	return sv.Silence, nil
}
