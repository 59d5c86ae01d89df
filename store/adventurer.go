package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// ValueVersion is the version of the encoding of a stored value, the "v" in
// {"v":1,"adventurer":{...}}.
const ValueVersion = 1

// errNoFingerprint is returned for a record that cannot be keyed: a knight without its
// id (held in the record's Fingerprint field), a key without a fingerprint or knight.
var errNoFingerprint = errors.New("no id or fingerprint")

// adventurerValue is the stored form of an adventurer.
type adventurerValue struct {
	V          int               `json:"v"`
	Adventurer *world.Adventurer `json:"adventurer"`
}

// rawAdventurerValue reads the version before the body, so a value of an
// unknown version is refused rather than half-read.
type rawAdventurerValue struct {
	V          int             `json:"v"`
	Adventurer json.RawMessage `json:"adventurer"`
}

// encodeAdventurer is a's stored form in bytes of its own, for a record written alone.
func encodeAdventurer(a *world.Adventurer) ([]byte, error) {
	v, err := newValueEncoder().adventurer(a)
	return bytes.Clone(v), err
}

// valueEncoder encodes the records of a checkpoint one after another in one buffer (the
// bytes json.Marshal makes, HTML escaped), so that a record's JSON is made once and
// sealed into its value, not first copied out of the encoder's buffer into a slice of its
// own: that copy was a quarter of a checkpoint's bytes allocated.
type valueEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newValueEncoder() *valueEncoder {
	e := &valueEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}

// adventurer returns a's stored form, valid until the next call.
func (e *valueEncoder) adventurer(a *world.Adventurer) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(adventurerValue{V: ValueVersion, Adventurer: a}); err != nil {
		return nil, fmt.Errorf("encode adventurer %s: %w", a.ID, err)
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'}), nil // Encode ends a value with a newline; Marshal does not
}

// decodeAdventurer decodes the value stored under knight id fp (in schema 1, a key
// fingerprint). Fields it does not know are ignored, so a value written with added
// fields still reads.
func decodeAdventurer(fp string, data []byte) (world.Adventurer, error) {
	var raw rawAdventurerValue
	if err := json.Unmarshal(data, &raw); err != nil {
		return world.Adventurer{}, fmt.Errorf("decode adventurer %s: %w", fp, err)
	}
	if err := checkValueVersion(fp, raw.V); err != nil {
		return world.Adventurer{}, err
	}
	if len(raw.Adventurer) == 0 || bytes.Equal(raw.Adventurer, []byte("null")) {
		return world.Adventurer{}, errNoAdventurer(fp)
	}
	var a world.Adventurer
	if err := json.Unmarshal(raw.Adventurer, &a); err != nil {
		return world.Adventurer{}, fmt.Errorf("decode adventurer %s: %w", fp, err)
	}
	return a, ownID(fp, &a)
}

// checkValueVersion refuses a value of knight fp written in a version this program does not
// know, rather than half-read it.
func checkValueVersion(fp string, v int) error {
	if v != ValueVersion {
		return fmt.Errorf("decode adventurer %s: value version %d, this program knows %d: %w",
			fp, v, ValueVersion, ErrUnknownVersion)
	}
	return nil
}

func errNoAdventurer(fp string) error {
	return fmt.Errorf("decode adventurer %s: value has no adventurer", fp)
}

// ownID gives a record of knight fp its id: one from before ids were kept takes fp, and
// one that names another knight is refused.
func ownID(fp string, a *world.Adventurer) error {
	switch a.ID {
	case fp:
	case "":
		a.ID = fp
	default:
		return fmt.Errorf("decode adventurer %s: record says fingerprint %s", fp, a.ID)
	}
	return nil
}

// LoadAdventurer returns the knight stored under id fp, or an error wrapping
// ErrNotFound if there is none. The result shares no memory with the database.
func (s *Store) LoadAdventurer(fp string) (world.Adventurer, error) {
	var data []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		// Bytes from Get are only valid inside the transaction: copy them out.
		v, err := open(tx, bucketKnights).get([]byte(fp))
		data = bytes.Clone(v)
		return err
	})
	if err != nil {
		return world.Adventurer{}, fmt.Errorf("load adventurer %s: %w", fp, err)
	}
	if data == nil {
		return world.Adventurer{}, fmt.Errorf("load adventurer %s: %w", fp, ErrNotFound)
	}
	return decodeAdventurer(fp, data)
}

// Living is the last sheet of every living knight in the file (neither dead nor
// retired), by knight id, without its maps (knights.Hall); nil for none.
func (s *Store) Living() ([]world.Adventurer, error) {
	var out []world.Adventurer
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketKnights).forEach(func(k, v []byte) error {
			a, err := decodeLiving(string(k), v)
			if err != nil {
				return err
			}
			if a.Ranked() {
				out = append(out, a)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read the living knights from %s: %w", s.path, err)
	}
	return out, nil
}

// decodeLiving decodes the value of knight id fp as Living reads it, without its maps
// (knights.SheetWithoutMaps), refusing what decodeAdventurer refuses.
func decodeLiving(fp string, data []byte) (world.Adventurer, error) {
	var sheet knights.SheetWithoutMaps
	v := struct {
		V          int                       `json:"v"`
		Adventurer *knights.SheetWithoutMaps `json:"adventurer"`
	}{Adventurer: &sheet}
	if err := json.Unmarshal(data, &v); err != nil {
		return world.Adventurer{}, fmt.Errorf("decode adventurer %s: %w", fp, err)
	}
	if err := checkValueVersion(fp, v.V); err != nil {
		return world.Adventurer{}, err
	}
	if v.Adventurer == nil { // "adventurer": null
		return world.Adventurer{}, errNoAdventurer(fp)
	}
	a := sheet.Adventurer
	return a, ownID(fp, &a)
}

// SaveAdventurers stores each record under its knight id (its Fingerprint field),
// replacing what was there, all in one transaction: either every record is written or
// none is. A record without an id fails the whole call.
func (s *Store) SaveAdventurers(recs []world.Adventurer) error {
	return s.Save(Batch{Adventurers: recs})
}

// Batch is everything one write puts in the file, in one transaction.
type Batch struct {
	Adventurers []world.Adventurer
	Tombstones  []knights.Tombstone
	Fame        []knights.FameEntry
	Levels      []world.LevelState
	// Keys are keys given to their knights with it: a new key's first knight is written
	// with the key that leads to it.
	Keys []knights.Key
	// Mail are whole mailboxes by recipient; an empty one is deleted.
	Mail    map[string][]world.Letter
	Reports []Report
}

func (b *Batch) empty() bool {
	return len(b.Adventurers) == 0 && len(b.Tombstones) == 0 && len(b.Fame) == 0 && len(b.Levels) == 0 && len(b.Keys) == 0 &&
		len(b.Mail) == 0 && len(b.Reports) == 0
}

// Save writes a batch of knights, keys, tombstones, hall-of-fame entries, level states,
// mailboxes and reports in one transaction: all of it lands, or none.
func (s *Store) Save(batch Batch) error {
	if batch.empty() {
		return nil
	}
	recs := batch.Adventurers
	// Encode and seal before taking bbolt's write lock, to keep the transaction short.
	keys := make([][]byte, len(recs))
	sealed := make([][]byte, len(recs))
	enc := newValueEncoder()
	for i := range recs {
		if recs[i].ID == "" {
			return fmt.Errorf("save adventurers: record %d (%q): %w", i, recs[i].Name, errNoFingerprint)
		}
		v, err := enc.adventurer(&recs[i])
		if err != nil {
			return fmt.Errorf("save adventurers: %w", err)
		}
		keys[i] = []byte(recs[i].ID)
		sealed[i] = seal(bucketKnights, keys[i], v)
	}
	keyVals := make([][]byte, len(batch.Keys))
	for i, k := range batch.Keys {
		v, err := encodeKey(k)
		if err != nil {
			return fmt.Errorf("save keys: %w", err)
		}
		keyVals[i] = v
	}
	err := s.update(func(tx *bolt.Tx) error {
		b := open(tx, bucketKnights)
		for i := range keys {
			if err := b.putSealed(keys[i], sealed[i]); err != nil {
				return fmt.Errorf("put %s: %w", keys[i], err)
			}
		}
		kb := open(tx, bucketKeys)
		for i, k := range batch.Keys {
			if err := kb.put([]byte(k.Fingerprint), keyVals[i]); err != nil {
				return fmt.Errorf("put key %s: %w", k.Fingerprint, err)
			}
		}
		if err := putTombstones(tx, batch.Tombstones); err != nil {
			return err
		}
		if err := putFame(tx, batch.Fame); err != nil {
			return err
		}
		if err := putMail(tx, batch.Mail); err != nil {
			return err
		}
		if err := putReports(tx, batch.Reports); err != nil {
			return err
		}
		return putLevels(tx, batch.Levels)
	})
	if err != nil {
		return fmt.Errorf("save %d adventurers to %s: %w", len(recs), s.path, err)
	}
	return nil
}

// DeleteAdventurer removes the knight stored under id fp. Deleting one that is not
// there is not an error.
func (s *Store) DeleteAdventurer(fp string) error {
	err := s.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketKnights).Delete([]byte(fp))
	})
	if err != nil {
		return fmt.Errorf("delete adventurer %s: %w", fp, err)
	}
	return nil
}

// CountKnights returns how many knights are stored, living or not.
func (s *Store) CountKnights() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketKnights).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count adventurers in %s: %w", s.path, err)
	}
	return n, nil
}
