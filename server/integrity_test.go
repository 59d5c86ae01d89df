package server

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Regression (issue 30): bbolt checks its pages, not values: one flipped byte inside a
// stored record changed its text and passed every check at start. An admin's check
// verifies a live database; -check a stopped one, without writing to it; a flipped bit
// is named by bucket and key, and the server refuses to start on it, the file as it was.
func TestCheckALiveAndAStoppedDatabase(t *testing.T) {
	ts, admin := startAdminServer(t)
	motd := "a message of the day that stands once in the file"
	mustRun(t, ts.addr, admin, "motd set "+motd)
	if out, errOut, code := runCmd(t, ts.addr, admin, "check"); code != 0 || !strings.Contains(out, "is sound") {
		t.Fatalf("check of a live, sound database: %q %q %d", out, errOut, code)
	}
	if out := mustRun(t, ts.addr, admin, "check --json"); !strings.Contains(out, `"sound":true`) {
		t.Errorf("check --json: %s", out)
	}
	if _, errOut, code := runCmd(t, ts.addr, newKey(t), "check"); code != 1 || !strings.Contains(errOut, command.PermissionDenied) {
		t.Errorf("check by a player: %q %d", errOut, code)
	}
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}

	check := func() (int, string) { return runBinary(t, "-check", "-data", ts.dir) }
	if code, log := check(); code != 0 || !strings.Contains(log, "sound") {
		t.Fatalf("-check of a sound database: %d\n%s", code, log)
	}

	path := filepath.Join(ts.dir, "orthanc.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every copy of it: a page bbolt freed may hold an older one.
	if !bytes.Contains(data, []byte(motd)) {
		t.Fatal("the message of the day is not in the file as said")
	}
	for at := 0; ; {
		j := bytes.Index(data[at:], []byte(motd))
		if j < 0 {
			break
		}
		data[at+j+2] ^= 0x01 // "message" becomes "lessage": still JSON, still a message
		at += j + 1
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256(data)
	code, log := check()
	if code != 1 || !strings.Contains(log, "bucket meta") || !strings.Contains(log, `key \"motd\"`) || !strings.Contains(log, "checksum mismatch") {
		t.Errorf("-check of a flipped bit: %d\n%s", code, log)
	}
	if _, err := New(testConfig(ts.dir, defaultSeed), slog.New(slog.NewTextHandler(io.Discard, nil))); !errors.Is(err, store.ErrChecksum) {
		t.Errorf("the server started on a flipped bit: %v", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(after) != before {
		t.Error("the damaged file was written")
	}
}

// An operator checks a backup where the backup command wrote it: -check with -data
// naming that file reads it, without a folder made for it; a damaged copy is refused
// with the advice to take another, not to restore one.
func TestCheckABackupFile(t *testing.T) {
	ts, admin := startAdminServer(t)
	motd := "a message of the day to flip a bit of"
	mustRun(t, ts.addr, admin, "motd set "+motd)
	path := filepath.Join(t.TempDir(), "orthanc-2026-06-01.db")
	if err := os.WriteFile(path, []byte(mustRun(t, ts.addr, admin, "backup")), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func() (int, string) { return runBinary(t, "-check", "-data", path) }
	if code, log := check(); code != 0 || !strings.Contains(log, "the database is sound") || !strings.Contains(log, "db="+path) {
		t.Fatalf("-check of a sound backup file: %d\n%s", code, log)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(motd)) {
		t.Fatal("the message of the day is not in the backup")
	}
	for at := 0; ; { // every copy: a page bbolt freed may hold an older one
		j := bytes.Index(data[at:], []byte(motd))
		if j < 0 {
			break
		}
		data[at+j+2] ^= 0x01
		at += j + 1
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, log := check(); code != 1 || !strings.Contains(log, "checksum mismatch") || !strings.Contains(log, "do not restore this copy") {
		t.Errorf("-check of a damaged backup file: %d\n%s", code, log)
	}
}

// A flipped byte in a record the game can live without (a report) does not stop the
// server: it starts, and says what it took out and that there is nothing to do.
func TestADamagedReportDoesNotStopTheServer(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orthanc.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reason := "a reason that stands once in the file"
	if err := st.Save(store.Batch{Reports: []store.Report{{Filed: time.Now(), From: "Kay", About: "Mordred", Reason: reason}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(reason))
	if i < 0 {
		t.Fatal("the reason is not in the file")
	}
	data[i] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	srv, err := New(testConfig(dir, defaultSeed), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatalf("a damaged report stopped the server: %v", err)
	}
	srv.Close()
	if !strings.Contains(log.String(), `level=WARN msg="took a damaged value out of the database" bucket=reports key=0000000001`) ||
		!strings.Contains(log.String(), "fix=\"nothing to do") {
		t.Fatalf("the log does not say what was taken out:\n%s", log.String())
	}
}
