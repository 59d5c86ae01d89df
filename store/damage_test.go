package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Regression (issue 17): refusing a damaged file used to commit a write first (a new
// meta page and free list, the transaction id rising on every refused start); an empty
// file was taken as a new database; one damage ended in a raw bbolt panic.

// seededFile writes a store with n knights (enough for branch pages), saved twice so the
// file has a free list, and returns its path.
func seededFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orthanc.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		recs := make([]world.Adventurer, n)
		for i := range recs {
			recs[i] = fullAdventurer(fmt.Sprintf("SHA256:knight%05d", i), uint64(round))
		}
		if err := st.SaveAdventurers(recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	return sha256.Sum256(readFile(t, path))
}

// pagesOfType lists the pages of the file that bbolt gives type typ ("leaf", "branch",
// "meta", "freelist"), with the page size.
func pagesOfType(t *testing.T, path, typ string) (ids []int, pageSize int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		for id := 0; ; {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			if info.Type == typ {
				ids = append(ids, id)
			}
			if info.Type == "free" {
				id++
			} else {
				id += 1 + info.OverflowCount
			}
		}
	})
	return ids, db.Info().PageSize
}

// highWater is the length of the file's pages as its header gives it.
func highWater(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	_ = db.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return int(n)
}

// An empty orthanc.db (a restore that failed) is refused, not taken as a new world.
func TestEmptyFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orthanc.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of an empty file: %v", err)
	}
	if len(readFile(t, path)) != 0 {
		t.Fatal("the empty file was written")
	}
}

// Opening a sound file and closing it writes nothing: a start changes the file only when
// the game saves.
func TestOpeningASoundFileWritesNothing(t *testing.T) {
	path := seededFile(t, 20)
	before := fileSum(t, path)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, path) != before {
		t.Fatal("Open and Close changed a sound file")
	}
}

// A page of no known type, a page that points to itself, and a free list page claiming
// billions of overflow pages are refused by checkPages before bbolt reads them (bbolt
// would panic, descend for ever, and loop for hours on a goroutine of its own).
func TestStructureCheckedBeforeBbolt(t *testing.T) {
	pristine := seededFile(t, 300)
	leaves, ps := pagesOfType(t, pristine, "leaf")
	branches, _ := pagesOfType(t, pristine, "branch")
	freelists, _ := pagesOfType(t, pristine, "freelist")
	for _, tc := range []struct {
		name   string
		damage func(data []byte)
	}{
		{"unknown page type", func(data []byte) { binary.LittleEndian.PutUint16(data[leaves[0]*ps+8:], 0x40) }},
		{"branch to itself", func(data []byte) {
			b := branches[0] * ps
			binary.LittleEndian.PutUint64(data[b+16+8:], uint64(branches[0])) // the first child's page id
		}},
		{"endless overflow", func(data []byte) { binary.LittleEndian.PutUint32(data[freelists[0]*ps+12:], 0xFFFFFFF0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := readFile(t, pristine)
			tc.damage(data)
			path := filepath.Join(t.TempDir(), "orthanc.db")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path, Options{})
			if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(readFile(t, path), data) {
				t.Fatal("the refused file was written")
			}
		})
	}
}

// Damage bbolt's own check does not see (bytes of a stored value flipped) is found by
// the read-only pass, and the file is left byte for byte as it was.
func TestDamagedValueRefusedWithoutWriting(t *testing.T) {
	path := seededFile(t, 300)
	leaves, ps := pagesOfType(t, path, "leaf")
	data := readFile(t, path)
	// The middle of a knight's value on a leaf page (a leaf element is flags, pos,
	// ksize, vsize, each 4 bytes, after the 16-byte page header; pos counts from the
	// element): its JSON, not bbolt's structure.
	page := leaves[len(leaves)/2] * ps
	elem := page + 16 + 16*int(binary.LittleEndian.Uint16(data[page+10:])/2)
	pos, ksize, vsize := binary.LittleEndian.Uint32(data[elem+4:]), binary.LittleEndian.Uint32(data[elem+8:]), binary.LittleEndian.Uint32(data[elem+12:])
	off := elem + int(pos+ksize+vsize/2) - 32
	for i := range 64 {
		data[off+i] ^= 0x5a
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileSum(t, path)
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("Open of a file with a damaged value: %v", err)
	}
	if fileSum(t, path) != before {
		t.Fatal("the refused file was written")
	}
}

// A page whose type bbolt does not know is found by checkPages; past it, it makes bbolt
// panic while reading, and the panic comes back as ErrNotDatabase naming the file, with
// the file not written.
func TestPanicWhileReadingIsRecovered(t *testing.T) {
	defer func(f func(string, int64, int, uint64) error) { checkStructure = f }(checkStructure)
	checkStructure = func(string, int64, int, uint64) error { return nil }
	path := seededFile(t, 300)
	leaves, ps := pagesOfType(t, path, "leaf")
	data := readFile(t, path)
	binary.LittleEndian.PutUint16(data[leaves[0]*ps+8:], 0x40) // the page's flags
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileSum(t, path)
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a file with a page of no known type: %v", err)
	}
	if fileSum(t, path) != before {
		t.Fatal("the refused file was written")
	}
}

// A file cut short of the length its header gives is refused before any page past its
// end is read. (bbolt grows a file ahead of its pages; cutting that off is no damage.)
func TestTruncatedFileRefused(t *testing.T) {
	path := seededFile(t, 300)
	data := readFile(t, path)
	hwm := highWater(t, path)
	for _, n := range []int{hwm - 1, hwm - 4096, hwm / 2, 3 * 4096, 4096 + 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "orthanc.db")
			if err := os.WriteFile(p, data[:n], 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(p, Options{}); !errors.Is(err, ErrNotDatabase) {
				t.Fatalf("Open of a file cut to %d bytes: %v", n, err)
			}
			if !bytes.Equal(readFile(t, p), data[:n]) {
				t.Fatal("the refused file was written")
			}
		})
	}
}

// A damaged value in a bucket the game can live without (a report) does not stop the
// file from opening: Open takes it out and says which; the rest is kept. A damaged
// knight still stops it (TestDamagedValueRefusedWithoutWriting), as does -check's read.
func TestADamagedReportIsTakenOutAndTheStoreOpens(t *testing.T) {
	path := seededFile(t, 3)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	reports := []Report{{From: "Kay", About: "Bors", Reason: "XYZZY-DAMAGED-REASON", Filed: at}, {From: "Kay", About: "Lot", Reason: "spam", Filed: at}}
	if err := st.Save(Batch{Reports: reports}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	i := bytes.Index(data, []byte("XYZZY-DAMAGED-REASON"))
	if i < 0 {
		t.Fatal("the report's reason is not in the file")
	}
	data[i] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckFile(path, Options{}); !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("-check of the damaged report: %v, want ErrNotDatabase", err)
	}
	st, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("a damaged report stopped the store from opening: %v", err)
	}
	defer st.Close()
	q := st.Quarantined()
	if len(q) != 1 || q[0].Bucket != "reports" || !errors.Is(q[0].Err, ErrNotDatabase) {
		t.Fatalf("quarantined %+v, want the one report", q)
	}
	left, err := st.Reports()
	if err != nil || len(left) != 1 || left[0].About != "Lot" {
		t.Fatalf("reports after: %+v, %v", left, err)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("the store after taking it out: %v", err)
	}
}
