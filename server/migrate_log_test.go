package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Regression (issue 32): the schema migration at start logged nothing. A database of
// schema 2 (an empty one will do: the version is all that matters here) is migrated, and
// the server logs from which schema to which, and where the copy of the old file went.
func TestTheMigrationIsLogged(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "orthanc.db")
	b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return meta.Put([]byte("version"), []byte("2"))
	})
	if cerr := b.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	var log lockedBuffer
	startLogging(t, testConfig(dir, defaultSeed), &log)
	want := fmt.Sprintf(`msg="migrated the database" from_schema=2 to_schema=%d backup=%s`, store.SchemaVersion, db+".schema2-backup")
	if !strings.Contains(log.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, log.String())
	}
}
