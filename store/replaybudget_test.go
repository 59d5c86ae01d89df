package store

import (
	"bufio"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestReplayDiskBudget writes what 1000 walking knights record (issue 33): each knight a
// chunk of about 4.7 KB every 10 s, begun 2 to 10 s before, so 100 chunks a second, in the writer's one-second
// batches, for 15 minutes of game time (past the rolling 10 minutes and the 200 MB
// bound), and reports the bytes the process wrote to the disk over the last 5 minutes
// against the chunks' bytes. It runs only with ORTHANC_REPLAY_DISK set (the knights'
// count); Linux only (/proc/self/io).
func TestReplayDiskBudget(t *testing.T) {
	knights, _ := strconv.Atoi(os.Getenv("ORTHANC_REPLAY_DISK"))
	if knights <= 0 {
		t.Skip("set ORTHANC_REPLAY_DISK=1000 to measure")
	}
	st := openTemp(t)
	w := NewReplayWriter(st, 200<<20, 10*time.Minute, nil)
	r := rand.New(rand.NewPCG(33, 6))
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	const seconds, measured = 900, 300
	var data, before int64
	start := time.Now()
	for s := range seconds {
		if s == seconds-measured {
			before, data, start = writeBytes(t), 0, time.Now()
		}
		for k := s % 10; k < knights; k += 10 {
			c := make([]byte, 3000+r.IntN(3400))
			for i := range c {
				c[i] = byte(r.Uint32())
			}
			data += int64(len(c))
			began := t0.Add(time.Duration(s-2-r.IntN(9)) * time.Second) // chunks end in any order
			w.PutChunk(fmt.Sprintf("K-%032x", k), ReplayChunk{Start: began.Add(time.Duration(k) * time.Millisecond), Data: c})
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	written := writeBytes(t) - before
	t.Logf("%d knights, the last %d s: chunks %d B/s a knight, written %d B/s a knight (%.1f×), %v a batch; bucket %d MB",
		knights, measured, data/measured/int64(knights), written/measured/int64(knights),
		float64(written)/float64(data), time.Since(start)/measured, w.Bytes()>>20)
}

// writeBytes is what the process has written to the disk (/proc/self/io write_bytes).
func writeBytes(t *testing.T) int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "write_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Skip("no write_bytes")
	return 0
}

// TestReplayDataRate reads a server's file after a run of cmd/orthanc-load/replaybudget.sh
// (ORTHANC_REPLAY_DB: its path; ORTHANC_REPLAY_KNIGHTS: the walkers, 1000) and reports
// the bytes of the chunks begun in the 40 s before the last 10 s of the record, a knight
// a second: the data recording makes, before bbolt's pages.
func TestReplayDataRate(t *testing.T) {
	path := os.Getenv("ORTHANC_REPLAY_DB")
	if path == "" {
		t.Skip("set ORTHANC_REPLAY_DB to a server's file")
	}
	knights, _ := strconv.Atoi(cmp.Or(os.Getenv("ORTHANC_REPLAY_KNIGHTS"), "1000"))
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type sized struct {
		start int64
		n     int
	}
	var chunks []sized
	err = st.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketReplays).ForEach(func(k, v []byte) error {
			if c, _, ok := parseChunkKey(k); ok {
				chunks = append(chunks, sized{c.start, len(v) - sumLen})
			}
			return nil
		})
	})
	if err != nil || len(chunks) == 0 {
		t.Fatalf("no chunks (%v)", err)
	}
	slices.SortFunc(chunks, func(a, b sized) int { return cmp.Compare(a.start, b.start) }) // keyed by when written
	end := chunks[len(chunks)-1].start - 10_000
	var n, count int64
	for _, c := range chunks {
		if c.start >= end-40_000 && c.start < end {
			n, count = n+int64(c.n), count+1
		}
	}
	t.Logf("%d chunks of %d B: %d B/s a knight of %d", count, n/max(count, 1), n/40/int64(max(knights, 1)), max(knights, 1))
}
