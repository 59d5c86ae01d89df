package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// schema1Backup is added to the path of a schema 1 file for the copy Open writes before
// it migrates it.
const schema1Backup = ".schema1-backup"

// buildSchema1 writes a database in the layout of schema 1, as the release before
// issue 18 wrote it (adventurers by key fingerprint), with bbolt directly: two knights,
// a level, a fame entry, a tombstone and a ban.
func buildSchema1(t *testing.T, path string, advs []world.Adventurer, at time.Time) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(tx *bolt.Tx, bucket, key string, v any) {
		b, err := tx.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Put([]byte(key), data); err != nil {
			t.Fatal(err)
		}
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range []string{"adventurers", "levels", "fame", "tombstones", "bans", "meta"} {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		for _, a := range advs {
			put(tx, "adventurers", a.ID, map[string]any{"v": 1, "adventurer": a})
		}
		put(tx, "levels", string(levelKey(3)), map[string]any{"v": 1, "level": world.LevelState{Depth: 3, Seed: 99}})
		retired := advs[0]
		retired.Retirement = &world.Retirement{Turn: 5}
		put(tx, "fame", retired.ID+"/"+at.Format(time.RFC3339Nano), map[string]any{"v": 1, "retired": at, "adventurer": retired})
		dead := advs[1]
		dead.Death = &world.Death{Killer: "a Balrog", Depth: 9}
		put(tx, "tombstones", dead.ID+"/"+at.Format(time.RFC3339Nano), map[string]any{"v": 1, "died": at, "adventurer": dead})
		put(tx, "bans", "SHA256:banned", map[string]any{"v": 1, "ban": knights.Ban{Fingerprint: "SHA256:banned", Name: "Mordred", By: "SHA256:admin", At: at}})
		return tx.Bucket([]byte("meta")).Put([]byte("version"), []byte("1"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A database written by the release before issue 18 (schema 1: adventurers by key) is
// migrated in place at Open, after a copy of it is written beside it: every knight is
// still there, under its key's fingerprint as its id, with that key leading to it, and
// every level, fame entry, tombstone and ban is as it was. A second Open has nothing to
// migrate and writes no second copy.
func TestSchema1IsMigratedInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orthanc.db")
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := fullAdventurer("SHA256:migrate1migrate1migrate1migrate1migrate1mi", 7)
	b := fullAdventurer("SHA256:migrate2migrate2migrate2migrate2migrate2mi", 8)
	buildSchema1(t, path, []world.Adventurer{a, b}, at)
	before := readFile(t, path)

	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := st.Migrated(); !ok || m != (Migration{From: 1, To: SchemaVersion, Backup: path + schema1Backup}) {
		t.Errorf("Migrated() = %+v, %v; want from 1 to %d, backup %s", m, ok, SchemaVersion, path+schema1Backup)
	}
	if err := st.Check(); err != nil {
		t.Errorf("Check after the migration: %v", err)
	}
	checkMigratedKnights(t, st, a, b)
	checkMigratedRecords(t, st, a, at)
	checkCommunityBuckets(t, st, a, b, at)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	checkSchema1Backup(t, path+schema1Backup, a)
	if len(before) == 0 {
		t.Fatal("no file built")
	}
	checkMigrated(t, path)
	checkOneBackupAfterReopen(t, dir, path)
}

// checkMigratedKnights checks that each knight is stored under its key's fingerprint as
// its id, and that its one key leads to it.
func checkMigratedKnights(t *testing.T, st *Store, knights ...world.Adventurer) {
	t.Helper()
	for _, want := range knights {
		got, err := st.LoadAdventurer(want.ID)
		if err != nil {
			t.Fatalf("knight %s after the migration: %v", want.ID, err)
		}
		sameAdventurer(t, got, want)
		k, err := st.KeyOf(want.ID)
		if err != nil || k.Knight != want.ID || k.Added.IsZero() {
			t.Errorf("KeyOf(%s) = %+v, %v; want the key leading to its knight", want.ID, k, err)
		}
		if keys, err := st.KeysOf(want.ID); err != nil || len(keys) != 1 {
			t.Errorf("KeysOf(%s) = %v, %v; want its one key", want.ID, keys, err)
		}
	}
	if n, err := st.CountKnights(); n != len(knights) || err != nil {
		t.Errorf("CountKnights = %d, %v; want %d", n, err, len(knights))
	}
}

// checkMigratedRecords checks that buildSchema1's level, fame entry (retired, the knight
// retired at at), tombstone, ban and the two knights' names are as they were.
func checkMigratedRecords(t *testing.T, st *Store, retired world.Adventurer, at time.Time) {
	t.Helper()
	if levels, err := st.Levels(); err != nil || len(levels) != 1 || levels[0].Depth != 3 || levels[0].Seed != 99 {
		t.Errorf("Levels = %+v, %v", levels, err)
	}
	if fame, err := st.Fame(); err != nil || len(fame) != 1 || fame[0].Adventurer.Name != retired.Name || !fame[0].Retired.Equal(at) {
		t.Errorf("Fame = %+v, %v", fame, err)
	}
	if tombs, err := st.Tombstones(); err != nil || len(tombs) != 1 || tombs[0].Adventurer.Death.Killer != "a Balrog" {
		t.Errorf("Tombstones = %+v, %v", tombs, err)
	}
	if banned, err := st.IsBanned("SHA256:banned", time.Now()); !banned || err != nil {
		t.Errorf("IsBanned after the migration = %v, %v", banned, err)
	}
	if names, err := st.KnightNames(); err != nil || len(names) != 2 {
		t.Errorf("KnightNames = %v, %v", names, err)
	}
}

// checkCommunityBuckets checks that the community's buckets, which schema 1 never had,
// are there to use: a silence of a and a letter from a to b are kept by the migrated
// knights' ids (their keys' fingerprints), and there are no reports.
func checkCommunityBuckets(t *testing.T, st *Store, a, b world.Adventurer, at time.Time) {
	t.Helper()
	if err := st.Silence(knights.Silence{Knight: a.ID, By: "SHA256:admin", At: at, Until: at.Add(time.Hour)}); err != nil {
		t.Errorf("a silence after the migration: %v", err)
	}
	if err := st.Save(Batch{Mail: map[string][]world.Letter{b.ID: {{From: a.Name, To: b.Name, Text: "hello"}}}}); err != nil {
		t.Errorf("a letter after the migration: %v", err)
	}
	if mail, err := st.Mail(); err != nil || len(mail[b.ID]) != 1 {
		t.Errorf("Mail after the migration = %v, %v", mail, err)
	}
	if rs, err := st.Reports(); err != nil || len(rs) != 0 {
		t.Errorf("Reports after the migration = %v, %v", rs, err)
	}
}

// checkSchema1Backup checks that the copy at backup is the file as it was, byte for
// byte in content: schema 1, with the adventurer a, readable by its owner alone.
func checkSchema1Backup(t *testing.T, backup string, a world.Adventurer) {
	t.Helper()
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %s: %v, %v", backup, fi, err)
	}
	viewReadOnly(t, backup, func(tx *bolt.Tx) {
		if v := string(tx.Bucket([]byte("meta")).Get([]byte("version"))); v != "1" {
			t.Errorf("backup's schema version %q, want 1", v)
		}
		if tx.Bucket([]byte("adventurers")).Get([]byte(a.ID)) == nil {
			t.Error("backup lacks an adventurer")
		}
	})
}

// checkMigrated checks that the file at path is schema 3 now, without the old bucket.
func checkMigrated(t *testing.T, path string) {
	t.Helper()
	viewReadOnly(t, path, func(tx *bolt.Tx) {
		if v := string(tx.Bucket([]byte("meta")).Get([]byte("version"))); v != "3" {
			t.Errorf("schema version %q after the migration, want 3", v)
		}
		if tx.Bucket([]byte("adventurers")) != nil {
			t.Error("the bucket adventurers is still there")
		}
	})
}

// viewReadOnly opens the bbolt file at path read-only, with bbolt directly, and runs
// check in a read transaction.
func viewReadOnly(t *testing.T, path string, check func(tx *bolt.Tx)) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		check(tx)
		return nil
	})
}

// checkOneBackupAfterReopen opens the migrated file at path again, which migrates
// nothing, and checks that dir still holds one copy.
func checkOneBackupAfterReopen(t *testing.T, dir, path string) {
	t.Helper()
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := st.Migrated(); ok {
		t.Errorf("second Open: Migrated() = %+v, want nothing migrated", m)
	}
	st.Close()
	entries, _ := os.ReadDir(dir)
	var copies []string
	for _, e := range entries {
		if strings.Contains(e.Name(), schema1Backup) {
			copies = append(copies, e.Name())
		}
	}
	if len(copies) != 1 {
		t.Errorf("copies after two Opens: %v, want one", copies)
	}
}

// The backup is written even when an older copy is there already, under another name,
// never over it.
func TestMigrationKeepsAnOlderBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orthanc.db")
	buildSchema1(t, path, []world.Adventurer{fullAdventurer("SHA256:old1old1old1old1", 1), fullAdventurer("SHA256:old2old2old2old2", 2)}, time.Now().UTC())
	if err := os.WriteFile(path+schema1Backup, []byte("an older copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if string(readFile(t, path+schema1Backup)) != "an older copy" {
		t.Error("the older copy was written over")
	}
	matches, _ := filepath.Glob(path + schema1Backup + ".*")
	if len(matches) != 1 {
		t.Errorf("new copies: %v, want one", matches)
	}
}
