package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

// backupPath is where Open writes its copy of a file of an older schema before it
// migrates it: orthanc.db.schema1-backup, orthanc.db.schema2-backup. A second copy is
// never written over the first: a later one has the time added.
func backupPath(path string, from int) string {
	backup := fmt.Sprintf("%s.schema%d-backup", path, from)
	if _, err := os.Stat(backup); err == nil {
		backup += "." + time.Now().UTC().Format("20060102T150405")
	}
	return backup
}

// migrate turns a file of schema 1 or 2 into schema 3, in place. First a consistent copy
// of the whole file is written beside it (a hot backup, in a read transaction) and
// synced; then one write transaction makes each step: from schema 1, every adventurer
// moves to knights under its fingerprint, which becomes its knight id, with its key in
// keys (migrateV1); from schema 2, every value of the layout's buckets is sealed with its
// checksum (sealAll), and the reports are numbered with their lines apart
// (rekeyReports); then the new schema version is written. A failure anywhere leaves
// the file as it was: the copy is only a second way back. The community's buckets a
// schema 1 file lacks are created after it, by Open.
func migrate(db *bolt.DB, path string, from int) (backup string, err error) {
	backup = backupPath(path, from)
	if err := writeBackup(db, backup); err != nil {
		return "", fmt.Errorf("migrate schema %d to %d: back up to %s first: %w", from, SchemaVersion, backup, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if from == schemaV1 {
			if err := migrateV1(tx, time.Now().UTC()); err != nil {
				return err
			}
		}
		if err := sealAll(tx); err != nil {
			return err
		}
		if err := rekeyReports(tx); err != nil {
			return fmt.Errorf("number the reports: %w", err)
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, []byte(strconv.Itoa(SchemaVersion)))
	})
	if err != nil {
		return "", fmt.Errorf("migrate schema %d to %d (the file is unchanged; a copy is in %s): %w", from, SchemaVersion, backup, err)
	}
	return backup, nil
}

// migrateV1 moves schema 1's adventurers to knights and keys, and deletes adventurers.
// Levels, fame, tombstones and bans are the same in schemas 1 and 2.
func migrateV1(tx *bolt.Tx, now time.Time) error {
	old := tx.Bucket(bucketAdventurers)
	kb, err := tx.CreateBucketIfNotExists(bucketKnights)
	if err != nil {
		return err
	}
	keysB, err := tx.CreateBucketIfNotExists(bucketKeys)
	if err != nil {
		return err
	}
	if old == nil {
		return nil
	}
	err = old.ForEach(func(k, v []byte) error {
		// The value is already schema 2's: the record's fingerprint is its id.
		if _, err := decodeAdventurer(string(k), v); err != nil {
			return err
		}
		if err := kb.Put(bytes.Clone(k), bytes.Clone(v)); err != nil {
			return err
		}
		data, err := json.Marshal(keyValue{V: ValueVersion, Key: knights.Key{Fingerprint: string(k), Knight: string(k), Added: now}})
		if err != nil {
			return err
		}
		return keysB.Put(bytes.Clone(k), data)
	})
	if err != nil {
		return err
	}
	return tx.DeleteBucket(bucketAdventurers)
}

// sealAll puts every value of the layout's buckets back with its checksum (schema 2 to 3).
// The values are gathered first: bbolt does not allow a bucket to change under ForEach.
func sealAll(tx *bolt.Tx) error {
	for _, name := range allBuckets {
		b := tx.Bucket(name)
		if b == nil {
			continue
		}
		var keys, vals [][]byte
		err := b.ForEach(func(k, v []byte) error {
			if v != nil && isSealed(name, k) {
				keys, vals = append(keys, bytes.Clone(k)), append(vals, seal(name, k, v))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for i := range keys {
			if err := b.Put(keys[i], vals[i]); err != nil {
				return fmt.Errorf("seal bucket %s, key %q: %w", name, keys[i], err)
			}
		}
	}
	return nil
}

// writeBackup writes a consistent copy of db to a new file at path, mode 0600, and
// syncs it, so that the copy is on disk before the migration writes anything.
func writeBackup(db *bolt.DB, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = db.View(func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(f)
		return err
	})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}
