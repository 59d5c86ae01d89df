package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Regression (issue 17): with 64 bytes flipped mid-file (bbolt's check still passing) the
// server refused to start, but only after committing a write to the file (its meta page
// and a new free list), on every start; one damage ended in a raw bbolt panic and exit 2.

// damageSeed seeds TestDamagedFilesAreNeverWritten's damages; ORTHANC_DAMAGE_SEEDS=N
// runs N more seeds after it, for a longer soak.
const damageSeed = 17

func damageSeeds() []uint64 {
	seeds := []uint64{damageSeed}
	if n, err := strconv.Atoi(os.Getenv("ORTHANC_DAMAGE_SEEDS")); err == nil {
		for i := range n {
			seeds = append(seeds, damageSeed+1+uint64(i))
		}
	}
	return seeds
}

// startOnce runs the server on data until it either refuses to start or is listening
// (then it is stopped), and returns its exit code and log.
func startOnce(t *testing.T, data string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data", data}, func(string) string { return "" }, &log)
	}()
	code := -1
	if !poll(20*time.Second, 10*time.Millisecond, func() bool {
		select {
		case code = <-done:
			return true
		default:
		}
		if strings.Contains(log.String(), "msg=listening") {
			cancel()
		}
		return false
	}) {
		t.Fatalf("the server neither refused nor started:\n%s", log.String())
	}
	return code, log.String()
}

// seededData makes a data folder the server has run on, with 300 knights besides (so the
// file has branch pages) saved twice (so it has a free list).
func seededData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if code, log := startOnce(t, dir); code != 0 {
		t.Fatalf("the server did not start on a new folder: exit %d:\n%s", code, log)
	}
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		recs := make([]world.Adventurer, 300)
		for i := range recs {
			recs[i] = world.Adventurer{ID: fmt.Sprintf("SHA256:seeded%05d", i), Name: fmt.Sprintf("Seeded %d", i),
				Str: 10, Int: 10, Con: 10, Dex: 10, Hits: 9, MaxHits: 9, Level: 1, Depth: 1, X: round, Y: 1}
		}
		if err := st.SaveAdventurers(recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Ban(knights.Ban{Fingerprint: "SHA256:seeded00007", Reason: "test", By: "SHA256:admin", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pageMap is the type bbolt gives each page of a file, the page size and the pages'
// length (the header's high-water mark).
func pageMap(t *testing.T, path string) (types map[string][]int, pageSize, size int) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	types = map[string][]int{}
	_ = db.View(func(tx *bolt.Tx) error {
		size = int(tx.Size())
		for id := 0; ; {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			types[info.Type] = append(types[info.Type], id)
			if info.Type == "free" {
				id++
			} else {
				id += 1 + info.OverflowCount
			}
		}
	})
	return types, db.Info().PageSize, size
}

// A damage is a way to break a file: its kind, and whether the server must refuse it
// (damage bbolt repairs or cannot see, such as one of its two header pages or bytes in
// a page's unused end, may start).
type damage struct {
	kind       string
	mustRefuse bool
	apply      func(data []byte) []byte
}

// usedEnd is where the used part of page id ends: its elements, keys and values (branch
// and leaf pages) or its ids (the free list); bytes past it are unused.
func usedEnd(data []byte, id, pageSize int) int {
	page := data[id*pageSize:]
	flags, count := binary.LittleEndian.Uint16(page[8:]), int(binary.LittleEndian.Uint16(page[10:]))
	if flags&0x10 != 0 { // free list
		return 16 + 8*count
	}
	end := 16 + 16*count
	for i := range count {
		e := page[16+16*i:]
		if flags&0x01 != 0 { // branch: pos, ksize, pgid
			end = max(end, 16+16*i+int(binary.LittleEndian.Uint32(e[0:])+binary.LittleEndian.Uint32(e[4:])))
		} else { // leaf: flags, pos, ksize, vsize
			end = max(end, 16+16*i+int(binary.LittleEndian.Uint32(e[4:])+binary.LittleEndian.Uint32(e[8:])+binary.LittleEndian.Uint32(e[12:])))
		}
	}
	return end
}

// damages makes the seeded damages of a file: truncations, an empty file, and bytes
// flipped in its meta, free-list, branch and leaf pages (in a page's header, or in its
// used part).
func damages(r *rand.Rand, pristine []byte, types map[string][]int, pageSize, size int) []damage {
	flip := func(data []byte, page, within, n int) {
		off := page*pageSize + within
		for i := range n {
			if off+i < len(data) {
				data[off+i] ^= byte(1 + r.IntN(255))
			}
		}
	}
	var out []damage
	out = append(out, damage{"empty", true, func([]byte) []byte { return nil }})
	for range 10 {
		n := 1 + r.IntN(size-1)
		out = append(out, damage{"truncated", true, func(data []byte) []byte { return data[:n] }})
	}
	for range 6 {
		within, n := 16+r.IntN(64), 1+r.IntN(8) // inside the meta record and its checksum
		out = append(out, damage{"both meta pages", true, func(data []byte) []byte {
			flip(data, 0, within, n)
			flip(data, 1, within, n)
			return data
		}})
	}
	for range 4 {
		page, within := r.IntN(2), 16+r.IntN(64)
		out = append(out, damage{"one meta page", false, func(data []byte) []byte { flip(data, page, within, 4); return data }})
	}
	for _, k := range []struct {
		typ, kind string
		n         int
	}{{"freelist", "free list", 10}, {"branch", "branch page", 15}, {"leaf", "leaf page", 25}} {
		for i := range k.n {
			ids := types[k.typ]
			page := ids[r.IntN(len(ids))]
			var within, n int
			kind, header := k.kind+" header", i%3 == 0
			if header { // the page header: its id, type, count, overflow
				within, n = r.IntN(16), 1+r.IntN(4)
			} else {
				kind = k.kind
				used := usedEnd(pristine, page, pageSize)
				within, n = 16+r.IntN(max(1, used-16)), 1+r.IntN(64)
			}
			out = append(out, damage{kind, header, func(data []byte) []byte { flip(data, page, within, n); return data }})
		}
	}
	return out
}

// The server refuses a damaged file in a read-only pass and leaves it byte for byte as
// it was: over 71 seeded damages (seed damageSeed), every refusal is the clear message
// naming the file and the fix, with exit status 1 and no stack, and the file's sha256 is
// unchanged; a damage the server cannot see may start, on a file that then passes
// bbolt's check.
func TestDamagedFilesAreNeverWritten(t *testing.T) {
	dir := seededData(t)
	pristine, err := os.ReadFile(filepath.Join(dir, "orthanc.db"))
	if err != nil {
		t.Fatal(err)
	}
	types, pageSize, size := pageMap(t, filepath.Join(dir, "orthanc.db"))
	if len(types["branch"]) == 0 || len(types["freelist"]) == 0 {
		t.Fatalf("the seeded file has no branch page or free list: %v", types)
	}
	for _, seed := range damageSeeds() {
		refused, started := damageRound(t, seed, pristine, types, pageSize, size)
		t.Logf("%d damages (seed %d): %d refused without a write (%v), %d started on a sound file",
			started+sum(refused), seed, sum(refused), refused, started)
		if n := sum(refused); n < 50 {
			t.Errorf("seed %d: only %d damages were refused; the test wants at least 50", seed, n)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// damageRound applies the damages of one seed, one file each, and checks what the
// server makes of each (TestDamagedFilesAreNeverWritten).
func damageRound(t *testing.T, seed uint64, pristine []byte, types map[string][]int, pageSize, size int) (refused map[string]int, started int) {
	r := rand.New(rand.NewPCG(seed, 0))
	refused = map[string]int{}
	for i, d := range damages(r, pristine, types, pageSize, size) {
		dir := t.TempDir()
		db := filepath.Join(dir, "orthanc.db")
		if err := os.WriteFile(db, d.apply(bytes.Clone(pristine)), 0o600); err != nil {
			t.Fatal(err)
		}
		before := sha256.Sum256(mustRead(t, db))
		code, log := startOnce(t, dir)
		switch code {
		case 1:
			refused[d.kind]++
			for _, want := range []string{db, "left untouched", "restore it from a backup", "-data"} {
				if !strings.Contains(log, want) {
					t.Errorf("seed %d damage %d (%s): the refusal lacks %q:\n%s", seed, i, d.kind, want, log)
				}
			}
			if strings.Contains(log, "goroutine ") {
				t.Errorf("seed %d damage %d (%s): a stack in the refusal:\n%s", seed, i, d.kind, log)
			}
			if sha256.Sum256(mustRead(t, db)) != before {
				t.Errorf("seed %d damage %d (%s): the refused file was written", seed, i, d.kind)
			}
		case 0:
			started++
			if d.mustRefuse {
				t.Errorf("seed %d damage %d (%s) was not refused:\n%s", seed, i, d.kind, log)
				continue
			}
			st, err := store.Open(db, store.Options{})
			if err != nil {
				t.Errorf("seed %d damage %d (%s): the server started, then the file does not open: %v", seed, i, d.kind, err)
				continue
			}
			if err := st.Check(); err != nil {
				t.Errorf("seed %d damage %d (%s): the server started on a file that fails its check: %v", seed, i, d.kind, err)
			}
			_ = st.Close()
		default:
			t.Errorf("seed %d damage %d (%s): exit status %d:\n%s", seed, i, d.kind, code, log)
		}
	}
	return refused, started
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
