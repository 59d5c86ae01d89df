package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Regression (issue 30): bbolt checks its pages, not the values on them: one byte
// flipped inside a stored report changed its text and passed every check at start.

// fileWithAReport writes a store with a knight and a report, closed, and returns its
// path and the report's reason, a text that stands once in the file.
func fileWithAReport(t *testing.T) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orthanc.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	reason := "a reason that stands once in the file"
	err = st.Save(Batch{
		Adventurers: []world.Adventurer{fullAdventurer("K-SEALED", 3)},
		Reports:     []Report{{Filed: at, From: "Kay", FromKnight: "K-KAY", About: "Mordred", Reason: reason}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path, reason
}

// One bit flipped inside a stored value fails its checksum: the check (-check; Open's
// read of a knight's bucket is the same) refuses the file naming the bucket and the key,
// as damage, and leaves it byte for byte as it was. (Open takes a damaged report out:
// TestADamagedReportIsTakenOutAndTheStoreOpens.)
func TestAFlippedBitInAValueIsRefused(t *testing.T) {
	path, reason := fileWithAReport(t)
	data := readFile(t, path)
	i := bytes.Index(data, []byte(reason))
	if i < 0 || bytes.Count(data, []byte(reason)) != 1 {
		t.Fatalf("the reason is %d times in the file", bytes.Count(data, []byte(reason)))
	}
	data[i] ^= 0x01 // "a" becomes "`": still JSON, still a report
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileSum(t, path)
	_, err := CheckFile(path, Options{})
	if !errors.Is(err, ErrNotDatabase) || !errors.Is(err, ErrChecksum) {
		t.Fatalf("the check of a file with a flipped bit: %v, want ErrNotDatabase and ErrChecksum", err)
	}
	for _, want := range []string{"bucket reports", `key "0000000001"`, path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if fileSum(t, path) != before {
		t.Fatal("the refused file was written")
	}
}

// Check finds a bad value in a live database, naming it, and a read of it is refused
// rather than returned changed.
func TestCheckFindsABadValueInALiveStore(t *testing.T) {
	path, _ := fileWithAReport(t)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatalf("Check of a sound store: %v", err)
	}
	// A value written under the table's back, with another's checksum: what a flipped
	// bit on the disk looks like to the reader.
	err = st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketKnights)
		v := bytes.Clone(b.Get([]byte("K-SEALED")))
		v[len(v)-3] ^= 0x04
		return b.Put([]byte("K-SEALED"), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Check()
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "bucket knights") || !strings.Contains(err.Error(), "K-SEALED") {
		t.Errorf("Check = %v, want the knight's checksum named", err)
	}
	if _, err := st.LoadAdventurer("K-SEALED"); !errors.Is(err, ErrChecksum) {
		t.Errorf("LoadAdventurer of a bad value = %v, want ErrChecksum", err)
	}
	if rs, err := st.Reports(); err != nil || len(rs) != 1 {
		t.Errorf("Reports beside the bad knight = %v, %v", rs, err)
	}
}

// A value moved to another key fails too: the checksum covers the bucket and the key.
func TestAValueUnderAnotherKeyIsRefused(t *testing.T) {
	v := seal(bucketKnights, []byte("K-ONE"), []byte(`{"v":1}`))
	if _, err := unseal(bucketKnights, []byte("K-TWO"), v); !errors.Is(err, ErrChecksum) {
		t.Errorf("another key: %v", err)
	}
	if _, err := unseal(bucketFame, []byte("K-ONE"), v); !errors.Is(err, ErrChecksum) {
		t.Errorf("another bucket: %v", err)
	}
	if _, err := unseal(bucketKnights, []byte("K-ONE"), v[:3]); !errors.Is(err, ErrChecksum) {
		t.Errorf("a value shorter than its checksum: %v", err)
	}
	if got, err := unseal(bucketKnights, []byte("K-ONE"), v); err != nil || string(got) != `{"v":1}` {
		t.Errorf("unseal = %q, %v", got, err)
	}
}

// toSchema2 takes the checksums off every value of a closed store's file, puts the
// reports back as schema 2 kept them (by the time filed and the reporter, their lines in
// them, without reportlines) and writes schema version 2: the file as the release before
// issue 30 wrote it.
func toSchema2(t *testing.T, path string) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		reports, err := reportsIn(tx).list()
		if err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketReports); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketReportLines); err != nil {
			return err
		}
		old, err := tx.CreateBucket(bucketReports)
		if err != nil {
			return err
		}
		for _, r := range reports {
			r.ID = 0
			data, err := json.Marshal(schema2Report{V: 1, Report: r})
			if err != nil {
				return err
			}
			if err := old.Put([]byte(r.Filed.Format(time.RFC3339Nano)+"/"+r.FromKnight), data); err != nil {
				return err
			}
		}
		for _, name := range allBuckets {
			if bytes.Equal(name, bucketReportLines) || bytes.Equal(name, bucketReports) {
				continue
			}
			b := tx.Bucket(name)
			var keys, vals [][]byte
			err := b.ForEach(func(k, v []byte) error {
				if isSealed(name, k) {
					raw, err := unseal(name, k, v)
					if err != nil {
						return err
					}
					keys, vals = append(keys, bytes.Clone(k)), append(vals, bytes.Clone(raw))
				}
				return nil
			})
			if err != nil {
				return err
			}
			for i := range keys {
				if err := b.Put(keys[i], vals[i]); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, []byte("2"))
	})
}

// A file of schema 2 (values without checksums) opens: a copy of it is written beside it,
// then every value is sealed in one transaction, and every record reads as it was.
func TestSchema2IsMigratedInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orthanc.db")
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	a := fullAdventurer("K-SCHEMA2", 4)
	buildSchema2(t, path, a, at)

	st, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open of a schema 2 file: %v", err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Errorf("Check after the migration: %v", err)
	}
	checkSchema2Records(t, st, a, at)
	checkSchema2Reports(t, st, a, at)
	checkSealed(t, st, a)
	checkSchema2Backup(t, path+".schema2-backup", a)
}

// buildSchema2 writes a store of every kind of record at path and turns it into a
// schema 2 file (toSchema2).
func buildSchema2(t *testing.T, path string, a world.Adventurer, at time.Time) {
	t.Helper()
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Save(Batch{
		Adventurers: []world.Adventurer{a},
		Keys:        []knights.Key{{Fingerprint: "SHA256:two", Knight: a.ID, Added: at}},
		Levels:      []world.LevelState{{Depth: 2, Seed: 7}},
		Reports: []Report{
			{Filed: at, From: "Kay", FromKnight: "K-KAY", About: a.Name, Reason: "rude",
				Lines: []ReportLine{{At: at, Where: "say", Line: a.Name + " says: <b>fools</b>"}}},
			{Filed: at.Add(time.Minute), From: "Bors", FromKnight: "K-BORS", About: a.Name, Reason: "rude too",
				Lines: []ReportLine{{At: at, Where: "say", Line: a.Name + " says: <b>fools</b>"}}},
		},
		Mail: map[string][]world.Letter{a.ID: {{From: "Kay", To: a.Name, Text: "hello"}}},
	})
	if err == nil {
		err = st.Ban(knights.Ban{Fingerprint: "SHA256:banned", By: "SHA256:admin", At: at})
	}
	if err == nil {
		err = st.SetMOTD(MOTD{Text: "welcome", By: "SHA256:admin", At: at})
	}
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	toSchema2(t, path)
}

// checkSchema2Records checks that buildSchema2's knight, key, level, letter, ban and
// message of the day read as they were written.
func checkSchema2Records(t *testing.T, st *Store, a world.Adventurer, at time.Time) {
	t.Helper()
	got, err := st.LoadAdventurer(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameAdventurer(t, got, a)
	if k, err := st.KeyOf("SHA256:two"); err != nil || k.Knight != a.ID {
		t.Errorf("KeyOf = %+v, %v", k, err)
	}
	if levels, err := st.Levels(); err != nil || len(levels) != 1 || levels[0].Seed != 7 {
		t.Errorf("Levels = %+v, %v", levels, err)
	}
	if mail, err := st.Mail(); err != nil || len(mail[a.ID]) != 1 {
		t.Errorf("Mail = %v, %v", mail, err)
	}
	if banned, err := st.IsBanned("SHA256:banned", at); !banned || err != nil {
		t.Errorf("IsBanned = %v, %v", banned, err)
	}
	if m, err := st.LoadMOTD(); err != nil || m.Text != "welcome" {
		t.Errorf("LoadMOTD = %+v, %v", m, err)
	}
}

// checkSchema2Reports checks that the reports are numbered in the order filed, and
// their one line is stored once.
func checkSchema2Reports(t *testing.T, st *Store, a world.Adventurer, at time.Time) {
	t.Helper()
	rs, err := st.Reports()
	if err != nil || len(rs) != 2 || rs[0].Reason != "rude" || rs[0].ID != 1 || rs[1].ID != 2 || !rs[0].Open() ||
		len(rs[1].Lines) != 1 || rs[1].Lines[0].Line != a.Name+" says: <b>fools</b>" || !rs[1].Lines[0].At.Equal(at) {
		t.Errorf("Reports = %+v, %v", rs, err)
	}
	_ = st.db.View(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketReportLines).Stats().KeyN; n != 1 {
			t.Errorf("%d lines in reportlines, want the one line once", n)
		}
		return nil
	})
}

// checkSealed checks that the file is schema 3 and the knight's value carries its
// checksum.
func checkSealed(t *testing.T, st *Store, a world.Adventurer) {
	t.Helper()
	err := st.db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket(bucketMeta).Get(keyVersion)); v != "3" {
			t.Errorf("schema version %q after the migration, want 3", v)
		}
		_, err := unseal(bucketKnights, []byte(a.ID), tx.Bucket(bucketKnights).Get([]byte(a.ID)))
		return err
	})
	if err != nil {
		t.Errorf("the knight's stored value: %v", err)
	}
}

// checkSchema2Backup checks that the copy is the file as it was: schema 2, its values
// without checksums.
func checkSchema2Backup(t *testing.T, path string, a world.Adventurer) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket(bucketMeta).Get(keyVersion)); v != "2" {
			t.Errorf("the copy's schema version %q, want 2", v)
		}
		if _, err := decodeAdventurer(a.ID, tx.Bucket(bucketKnights).Get([]byte(a.ID))); err != nil {
			t.Errorf("the copy's knight: %v", err)
		}
		return nil
	})
}

// CheckFile checks a stopped database without writing to it: a sound one passes, one with
// a flipped bit is named, and neither is written.
func TestCheckFileReadsWithoutWriting(t *testing.T) {
	path, reason := fileWithAReport(t)
	before := fileSum(t, path)
	if v, err := CheckFile(path, Options{}); err != nil || v != SchemaVersion {
		t.Fatalf("CheckFile of a sound file = %d, %v", v, err)
	}
	if fileSum(t, path) != before {
		t.Fatal("CheckFile wrote to a sound file")
	}
	data := readFile(t, path)
	data[bytes.Index(data, []byte(reason))+5] ^= 0x02
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before = fileSum(t, path)
	if _, err := CheckFile(path, Options{}); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "bucket reports") {
		t.Errorf("CheckFile of a flipped bit = %v", err)
	}
	if fileSum(t, path) != before {
		t.Fatal("CheckFile wrote to a damaged file")
	}
}

// Check beside writers: bbolt's own check, in a read-only transaction, read the free
// list while a writer released pages into it (a race the detector saw when an admin ran
// check as the replays were written). Under -race this fails if Check reads unguarded.
func TestCheckRunsBesideWriters(t *testing.T) {
	path, _ := fileWithAReport(t)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stop := make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		// Writes that free pages, so every next writer releases them into the free list.
		big := bytes.Repeat([]byte{'x'}, 8<<10)
		for i := 0; ; i++ {
			select {
			case <-stop:
				wrote <- nil
				return
			default:
			}
			err := st.db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists([]byte("churn"))
				if err != nil {
					return err
				}
				if i%2 == 1 {
					return b.Delete([]byte("k"))
				}
				return b.Put([]byte("k"), big)
			})
			if err != nil {
				wrote <- err
				return
			}
		}
	}()
	for range 20 {
		if err := st.Check(); err != nil && !strings.Contains(err.Error(), "churn") {
			t.Errorf("Check beside a writer: %v", err)
		}
	}
	close(stop)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
}
