package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Mailboxes handed to the saver are written with the next batch, the newest per
// recipient; an empty one deletes the mailbox; they read back after the file is closed
// and opened again (a restart).
func TestMailSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orthanc.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sv := NewSaver(st, nil)
	sent := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	first := world.Letter{ID: 7, From: "Kay", To: "Bors", Text: "meet me", Sent: sent}
	sv.PutMail("bors", []world.Letter{first})
	sv.PutMail("bors", []world.Letter{first, {From: "Gawain", To: "bors", Text: "and me", Sent: sent, Read: true}})
	sv.PutMail("cai", []world.Letter{{From: "Kay", To: "Cai", Text: "gone soon"}})
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	sv.PutMail("cai", nil)
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mail, err := st.Mail()
	if err != nil {
		t.Fatal(err)
	}
	got := mail["bors"]
	if len(mail) != 1 || len(got) != 2 || got[0].Text != "meet me" || !got[0].Sent.Equal(sent) || got[0].ID != 0 ||
		got[1].From != "Gawain" || !got[1].Read {
		t.Fatalf("mail after a restart: %+v", mail)
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// A damaged record of the community's buckets (a silence, a mailbox) is refused at Open
// like a damaged knight, naming it, the file left as it was; a record of a newer version
// is no damage (it is refused when read). A damaged report is taken out instead
// (TestADamagedReportIsTakenOutAndTheStoreOpens).
func TestADamagedCommunityRecordIsRefused(t *testing.T) {
	for _, bucket := range []string{"silences", "letters"} {
		t.Run(bucket, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "orthanc.db")
			st, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				b := open(tx, []byte(bucket))
				if err := b.put([]byte("K-NEWER"), []byte(`{"v":99,"whatever":true}`)); err != nil {
					return err
				}
				return b.put([]byte("K-DAMAGED"), []byte(`{"v":1,"`+bucket[:len(bucket)-1]+`":{"text":`))
			})
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			before := readFile(t, path)
			if _, err := Open(path, Options{}); !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "K-DAMAGED") {
				t.Fatalf("Open of a damaged %s record: %v", bucket, err)
			}
			if !bytes.Equal(readFile(t, path), before) {
				t.Fatal("the refused file was written")
			}
		})
	}
}
