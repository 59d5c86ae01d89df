package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

type silenceValue struct {
	V       int             `json:"v"`
	Silence knights.Silence `json:"silence"`
}

// Silence stores sl under its knight's id, replacing an earlier silence of the knight.
func (s *Store) Silence(sl knights.Silence) error {
	if sl.Knight == "" {
		return fmt.Errorf("silence: %w", errNoFingerprint)
	}
	data, err := json.Marshal(silenceValue{V: ValueVersion, Silence: sl})
	if err != nil {
		return fmt.Errorf("encode silence %s: %w", sl.Knight, err)
	}
	err = s.update(func(tx *bolt.Tx) error {
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
	err := s.update(func(tx *bolt.Tx) error {
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
func (s *Store) Silences(now time.Time) ([]knights.Silence, error) {
	out := []knights.Silence{}
	err := s.update(func(tx *bolt.Tx) error {
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

func decodeSilence(k, v []byte) (knights.Silence, error) {
	var sv silenceValue
	if err := json.Unmarshal(v, &sv); err != nil {
		return knights.Silence{}, fmt.Errorf("decode silence %s: %w", k, err)
	}
	if sv.V != ValueVersion {
		return knights.Silence{}, fmt.Errorf("decode silence %s: value version %d, this program knows %d: %w", k, sv.V, ValueVersion, ErrUnknownVersion)
	}
	return sv.Silence, nil
}
