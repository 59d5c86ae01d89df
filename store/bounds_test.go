package store

import (
	"bytes"
	"errors"
	"fmt"

	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// A stored value says what it is of, and Open holds it to its key: a code whose value
// names another code, a key whose value names another key or no knight, sealed as this
// package seals (so its checksum passes), refuse the file as damage, untouched.
func TestAValueMustBeOfItsOwnKey(t *testing.T) {
	for _, c := range []struct {
		name   string
		bucket []byte
		key    string
		value  any
	}{
		{"a code naming another code", bucketCodes, "AAAA-BBBB",
			codeValue{V: ValueVersion, Code: knights.Code{Code: "CCCC-DDDD", Kind: "link", Knight: "K-KAY", Expires: time.Now().Add(time.Hour)}}},
		{"a key naming another key", bucketKeys, "SHA256:a",
			keyValue{V: ValueVersion, Key: knights.Key{Fingerprint: "SHA256:b", Knight: "K-KAY"}}},
		{"a key of no knight", bucketKeys, "SHA256:a",
			keyValue{V: ValueVersion, Key: knights.Key{Fingerprint: "SHA256:a"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "orthanc.db")
			st, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := marshal(c.value)
			if err != nil {
				t.Fatal(err)
			}
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				return tx.Bucket(c.bucket).Put([]byte(c.key), seal(c.bucket, []byte(c.key), data))
			})
			before := readFile(t, path)
			if st, err := Open(path, Options{}); !errors.Is(err, ErrNotDatabase) {
				if err == nil {
					st.Close()
				}
				t.Fatalf("Open: %v, want ErrNotDatabase", err)
			}
			if !bytes.Equal(readFile(t, path), before) {
				t.Error("the refused file was written")
			}
		})
	}
}

// A damaged replay's value (a chunk of a rolling record) is taken out at Open as a
// damaged report is, the rest of the replays kept: replays are a bucket the game can
// live without.
func TestADamagedReplayIsTakenOutAndTheStoreOpens(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	w.PutChunk("K-KAY", chunkAt(t0, 100))
	w.PutChunk("K-BORS", chunkAt(t0, 100))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var damagedKey []byte
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReplays)
		return b.ForEach(func(k, v []byte) error {
			if bytes.Contains(k, []byte("K-KAY")) {
				damagedKey = bytes.Clone(k)
				bad := bytes.Clone(v)
				bad[len(bad)-1] ^= 0x01
				return b.Put(damagedKey, bad)
			}
			return nil
		})
	})
	if damagedKey == nil {
		t.Fatal("no chunk of K-KAY in the file")
	}
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("a damaged replay stopped the store from opening: %v", err)
	}
	defer st.Close()
	if q := st.Quarantined(); len(q) != 1 || q[0].Bucket != "replays" || q[0].Key != string(damagedKey) {
		t.Fatalf("quarantined %+v, want the one chunk %q", q, damagedKey)
	}
	if live, err := st.LiveReplay("K-BORS"); err != nil || len(live) != 1 {
		t.Fatalf("the other knight's replay: %d chunks, %v", len(live), err)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("the store after taking it out: %v", err)
	}
}

// Reports and their lines take at most 256 KiB, and a report updated by newer ones keeps
// its newest 100 lines; the numbers are docs/DESIGN.md's, written out here.
func TestReportsTake256KiBAndAHundredLines(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	size := func() int {
		n := 0
		_ = st.db.View(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{bucketReports, bucketReportLines} {
				_ = tx.Bucket(name).ForEach(func(k, v []byte) error { n += len(k) + len(v); return nil })
			}
			return nil
		})
		return n
	}
	most := 0
	for i := range 60 { // about 11 KB each
		r := reportAbout(fmt.Sprintf("Flooder%d", i), fmt.Sprintf("Victim%d", i), at.Add(time.Duration(i)*time.Minute), 100)
		if err := st.Save(Batch{Reports: []Report{r}}); err != nil {
			t.Fatal(err)
		}
		most = max(most, size())
	}
	if most > 256<<10 || most < 256<<10-16<<10 {
		t.Errorf("the reports took at most %d bytes, want just under 256 KiB", most)
	}

	first := reportAbout("Kay", "Mordred", at.Add(2*time.Hour), 80)
	second := reportAbout("Kay", "Mordred", at.Add(3*time.Hour), 80)
	if err := st.Save(Batch{Reports: []Report{first}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Save(Batch{Reports: []Report{second}}); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Reports()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.From == "Kay" {
			if len(r.Lines) != 100 || !r.Lines[99].At.Equal(second.Lines[79].At) {
				t.Errorf("a report updated with 80 lines over 80 keeps %d, want the newest 100", len(r.Lines))
			}
			return
		}
	}
	t.Fatal("Kay's report is gone")
}

// A slow disk holds at most 8 MiB of replay chunks waiting; past it new chunks are
// dropped.
func TestReplayChunksWaitingAreBounded(t *testing.T) {
	w := NewReplayWriter(openTemp(t), 0, 10*time.Minute, nil) // not run: nothing is written
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	for i := range 9 {
		w.PutChunk("K-KAY", ReplayChunk{Start: t0.Add(time.Duration(i) * time.Second), Data: make([]byte, 1<<20)})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.chunks) != 8 || w.dropped != 1 {
		t.Errorf("of nine 1 MiB chunks %d wait and %d were dropped, want 8 and 1", len(w.chunks), w.dropped)
	}
}
