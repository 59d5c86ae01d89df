package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BackupSuffix is added to the database's path for the copy Open writes before it
// migrates a file of an older schema: orthanc.db.schema1-backup. A second copy is
// never written over the first: a later one has the time added.
const BackupSuffix = ".schema1-backup"

// migrateV1 turns a schema 1 file (adventurers by key fingerprint) into schema 2
// (knights by id, and keys leading to them), in place. First a consistent copy of the
// whole file is written beside it (a hot backup, in a read transaction) and synced;
// then one write transaction moves every adventurer to knights under its fingerprint,
// which becomes its knight id, gives it its key in keys, deletes adventurers and writes
// the new schema version. A failure anywhere leaves the file as it was: the copy is
// only a second way back. Levels, fame, tombstones and bans are the same in both; the
// community's buckets (silences, letters, reports) are created after it, by Open.
func migrateV1(db *bolt.DB, path string) error {
	backup := path + BackupSuffix
	if _, err := os.Stat(backup); err == nil {
		backup += "." + time.Now().UTC().Format("20060102T150405")
	}
	if err := writeBackup(db, backup); err != nil {
		return fmt.Errorf("migrate schema 1 to 2: back up to %s first: %w", backup, err)
	}
	now := time.Now().UTC()
	err := db.Update(func(tx *bolt.Tx) error {
		old := tx.Bucket(bucketAdventurers)
		knights, err := tx.CreateBucketIfNotExists(bucketKnights)
		if err != nil {
			return err
		}
		keysB, err := tx.CreateBucketIfNotExists(bucketKeys)
		if err != nil {
			return err
		}
		if old != nil {
			err = old.ForEach(func(k, v []byte) error {
				// The value is already schema 2's: the record's fingerprint is its id.
				if _, err := decodeAdventurer(string(k), v); err != nil {
					return err
				}
				if err := knights.Put(bytes.Clone(k), bytes.Clone(v)); err != nil {
					return err
				}
				data, err := json.Marshal(keyValue{V: ValueVersion, Key: Key{Fingerprint: string(k), Knight: string(k), Added: now}})
				if err != nil {
					return err
				}
				return keysB.Put(bytes.Clone(k), data)
			})
			if err != nil {
				return err
			}
			if err := tx.DeleteBucket(bucketAdventurers); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, []byte(strconv.Itoa(SchemaVersion)))
	})
	if err != nil {
		return fmt.Errorf("migrate schema 1 to 2 (the file is unchanged; a copy is in %s): %w", backup, err)
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
