package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Ban is a key an admin has banned: its sessions are refused at login.
type Ban struct {
	Fingerprint string `json:"fingerprint"`
	// Name is the name of the key's knight when it was banned, if it had one, so an admin
	// can find the ban again by name.
	Name   string    `json:"name,omitempty"`
	Reason string    `json:"reason,omitempty"`
	By     string    `json:"by"` // the banning admin's key fingerprint
	At     time.Time `json:"at"`
}

type banValue struct {
	V   int `json:"v"`
	Ban Ban `json:"ban"`
}

// Ban stores b under its fingerprint, replacing an earlier ban of the same key.
func (s *Store) Ban(b Ban) error {
	if b.Fingerprint == "" {
		return fmt.Errorf("ban: %w", errNoFingerprint)
	}
	data, err := json.Marshal(banValue{V: ValueVersion, Ban: b})
	if err != nil {
		return fmt.Errorf("encode ban %s: %w", b.Fingerprint, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBans).Put([]byte(b.Fingerprint), data)
	})
	if err != nil {
		return fmt.Errorf("ban %s in %s: %w", b.Fingerprint, s.path, err)
	}
	return nil
}

// Unban lifts the ban on fp and reports whether there was one.
func (s *Store) Unban(fp string) (bool, error) {
	found := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBans)
		found = b.Get([]byte(fp)) != nil
		if !found {
			return nil
		}
		return b.Delete([]byte(fp))
	})
	if err != nil {
		return false, fmt.Errorf("unban %s in %s: %w", fp, s.path, err)
	}
	return found, nil
}

// IsBanned reports whether the key with fingerprint fp is banned.
func (s *Store) IsBanned(fp string) (bool, error) {
	banned := false
	err := s.db.View(func(tx *bolt.Tx) error {
		banned = tx.Bucket(bucketBans).Get([]byte(fp)) != nil
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("check ban of %s in %s: %w", fp, s.path, err)
	}
	return banned, nil
}

// Bans lists every ban, oldest first.
func (s *Store) Bans() ([]Ban, error) {
	out := []Ban{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBans).ForEach(func(k, v []byte) error {
			b, err := decodeBan(k, v)
			if err != nil {
				return err
			}
			out = append(out, b)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read bans from %s: %w", s.path, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

func decodeBan(k, v []byte) (Ban, error) {
	var bv banValue
	if err := json.Unmarshal(v, &bv); err != nil {
		return Ban{}, fmt.Errorf("decode ban %s: %w", k, err)
	}
	if bv.V != ValueVersion {
		return Ban{}, fmt.Errorf("decode ban %s: value version %d, this program knows %d: %w", k, bv.V, ValueVersion, ErrUnknownVersion)
	}
	return bv.Ban, nil
}

// FingerprintsByName returns the fingerprints of the stored adventurers named name,
// compared without regard to case (names are not unique, so there may be several),
// in fingerprint order.
func (s *Store) FingerprintsByName(name string) ([]string, error) {
	name = strings.TrimSpace(name)
	all, err := s.KnightNames()
	if err != nil {
		return nil, fmt.Errorf("find adventurers named %q: %w", name, err)
	}
	var out []string
	for _, k := range all {
		if strings.EqualFold(k.Name, name) {
			out = append(out, k.Fingerprint)
		}
	}
	return out, nil
}
