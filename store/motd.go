package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// MOTD is the server's message of the day, as an admin set it.
type MOTD struct {
	Text string    `json:"text"`
	By   string    `json:"by"` // the admin's key fingerprint
	At   time.Time `json:"at"`
}

type motdValue struct {
	V    int  `json:"v"`
	MOTD MOTD `json:"motd"`
}

// SetMOTD stores the message of the day; an empty text clears it.
func (s *Store) SetMOTD(m MOTD) error {
	err := s.update(func(tx *bolt.Tx) error {
		b := open(tx, bucketMeta)
		if m.Text == "" {
			return b.delete(keyMOTD)
		}
		data, err := json.Marshal(motdValue{V: ValueVersion, MOTD: m})
		if err != nil {
			return err
		}
		return b.put(keyMOTD, data)
	})
	if err != nil {
		return fmt.Errorf("set the message of the day in %s: %w", s.path, err)
	}
	return nil
}

// LoadMOTD returns the message of the day; its Text is empty when none is set.
func (s *Store) LoadMOTD() (MOTD, error) {
	var m motdValue
	err := s.db.View(func(tx *bolt.Tx) error {
		v, err := open(tx, bucketMeta).get(keyMOTD)
		if v == nil {
			return err
		}
		if err := json.Unmarshal(v, &m); err != nil {
			return err
		}
		if m.V != ValueVersion {
			return fmt.Errorf("value version %d, this program knows %d: %w", m.V, ValueVersion, ErrUnknownVersion)
		}
		return nil
	})
	if err != nil {
		return MOTD{}, fmt.Errorf("read the message of the day from %s: %w", s.path, err)
	}
	return m.MOTD, nil
}
