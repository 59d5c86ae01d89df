package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// What writing the replays' batches allocates beyond bbolt's own: a second's chunks of
// many knights walking, each sealed and keyed as it is put.

// chunkBatch is a batch of n knights' chunks of size bytes each (compressed bytes: no
// two alike), begun at start.
func chunkBatch(n, size int, start time.Time) []pendingChunk {
	r := rand.New(rand.NewPCG(uint64(start.UnixMilli()), 46))
	out := make([]pendingChunk, n)
	for i := range out {
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		out[i] = pendingChunk{"K-" + strconv.Itoa(i), ReplayChunk{Start: start, Born: start.Add(-time.Hour), Data: data}}
	}
	return out
}

// chunkSeconds is seconds batches of knights' chunks of 2 KB, one a second from t0.
func chunkSeconds(seconds, knights int, t0 time.Time) [][]pendingChunk {
	batches := make([][]pendingChunk, seconds)
	for i := range batches {
		batches[i] = chunkBatch(knights, 2<<10, t0.Add(time.Duration(i)*time.Second))
	}
	return batches
}

// writeBatches writes batches to st, one a second of the clock from t0, each knight's
// rolling record held to a minute (as the store holds it to ten: chunks go as they come).
func writeBatches(tb testing.TB, st *Store, batches [][]pendingChunk, t0 time.Time) {
	tb.Helper()
	for i, chunks := range batches {
		now := t0.Add(time.Duration(i) * time.Second)
		if err := st.writeReplays(chunks, nil, replayBounds{rolling: time.Minute, rollingBefore: now.Add(-time.Minute)}); err != nil {
			tb.Fatal(err)
		}
	}
}

// openUnsynced opens a fresh store in a temporary folder that writes without fsync (the
// allocations are measured, not the disk), closed at the end of the test.
func openUnsynced(tb testing.TB) *Store {
	tb.Helper()
	st, err := Open(filepath.Join(tb.TempDir(), "orthanc.db"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	st.db.NoSync = true
	return st
}

// BenchmarkWriteReplayBatch writes a second's batch of 200 knights' chunks of 2 KB, in
// one transaction (no fsync), a minute of them written before.
func BenchmarkWriteReplayBatch(b *testing.B) {
	st := openUnsynced(b)
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	batches := chunkSeconds(120, 200, t0)
	writeBatches(b, st, batches[:60], t0)
	b.ReportAllocs()
	i := 60
	for b.Loop() {
		writeBatches(b, st, batches[i:i+1], t0.Add(time.Duration(i)*time.Second))
		if i++; i == len(batches) {
			i = 60 // the same starts again: put over the chunks of the same starts
		}
	}
}

// A batch's chunks are sealed, and keyed, in room the next batch uses again, not each in
// a value made for it: bbolt holds them only until the commit. What is left is bbolt's
// own (its cursors, nodes and pages), 6 allocations a chunk here; the copies, the keys'
// formatting and the checksum's separator were 6 more.
func TestAReplayBatchSealsItsChunksInRoomUsedAgain(t *testing.T) {
	st := openUnsynced(t)
	const knights = 100
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	batches := chunkSeconds(40, knights, t0)
	writeBatches(t, st, batches[:30], t0)
	i := 30
	allocs := testing.AllocsPerRun(9, func() {
		writeBatches(t, st, batches[i:i+1], t0.Add(time.Duration(i)*time.Second))
		i++
	})
	t.Logf("%.1f allocations a chunk", allocs/knights)
	if allocs/knights > 8 && !raceDetector { // its sync.Pool drops bbolt's pages at random
		t.Errorf("a batch allocates %.1f times a chunk, more than bbolt's own", allocs/knights)
	}
	// Each batch's values are as they were put, though the next wrote over the room.
	for k := range knights {
		got, err := st.LiveReplay("K-" + strconv.Itoa(k))
		if err != nil || len(got) != 40 {
			t.Fatalf("knight %d: %d chunks back (%v)", k, len(got), err)
		}
		for i, c := range got {
			if want := batches[i][k].c.Data; !bytes.Equal(c.Data, want) {
				t.Fatalf("knight %d, chunk %d: its bytes changed", k, i)
			}
		}
	}
}

// A busy server's batch (a second's chunks at 4000 walkers, about 7 MB) is sealed in one
// room made for it and kept for the next, not grown by append and dropped after each
// batch: that made twice its bytes a second for the collector.
func TestABusyServersBatchesShareOneRoom(t *testing.T) {
	st := openUnsynced(t)
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	batches := chunkSeconds(3, 3000, t0)
	writeBatches(t, st, batches[:2], t0)
	if cap(st.replays.room) == 0 {
		t.Fatal("no room was kept after a busy batch")
	}
	room := st.replays.room[:1]
	writeBatches(t, st, batches[2:], t0.Add(2*time.Second))
	if again := st.replays.room[:1]; &again[0] != &room[0] {
		t.Fatalf("the third batch made a room of its own (cap %d, was %d)", cap(st.replays.room), cap(room))
	}
	if got, err := st.LiveReplay("K-2999"); err != nil || len(got) != 3 || !bytes.Equal(got[2].Data, batches[2][2999].c.Data) {
		t.Fatalf("the last knight's chunks: %d back (%v)", len(got), err)
	}
}

// A chunk's key is written as fmt wrote it: the bucket's keys of before are found.
func TestAChunksKeyIsAsItWas(t *testing.T) {
	for _, c := range []liveChunk{{0, 0, 0}, {1765130400000, 1765130399000, 1765126800000}, {1<<63 - 1, 15, 0}, {-1, -1765130399000, -2}} {
		want := fmt.Sprintf("T/%016x/K-kay", c.at)
		if c.born != 0 {
			want += fmt.Sprintf("~%016x", c.born)
		}
		want += fmt.Sprintf("/%016x", c.start)
		if got := c.key("K-kay"); string(got) != want {
			t.Errorf("%+v: key %q, want %q", c, got, want)
		}
	}
}

// Filing a second's chunks allocates nothing once batches have been written: the next
// batch is filed in the list the last one was written from.
func TestFilingReplayChunksAllocatesNothing(t *testing.T) {
	st := openUnsynced(t)
	w := NewReplayWriter(st, 0, time.Minute, nil)
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	file := func(chunks []pendingChunk) {
		for _, c := range chunks {
			w.PutChunk(c.knight, c.c)
		}
	}
	for i := range 2 { // both lists grown
		file(chunkBatch(400, 64, t0.Add(time.Duration(i)*time.Second)))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	next := chunkBatch(400, 64, t0.Add(2*time.Second))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	file(next)
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n != 0 {
		t.Errorf("filing 400 chunks allocated %d times", n)
	}
}

// A writer given HandBack hands each chunk's bytes back once its batch is written, and a
// chunk dropped for a full queue at once; what it wrote reads back whole though the bytes
// handed back are written over (bbolt took copies).
func TestTheReplayWriterHandsBackWhatItWrote(t *testing.T) {
	st := openUnsynced(t)
	w := NewReplayWriter(st, 0, time.Minute, nil)
	var back [][]byte
	w.HandBack(func(data []byte) { back = append(back, data) })
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	batch := chunkBatch(3, 2<<10, t0)
	want := make([][]byte, len(batch))
	for i, c := range batch {
		want[i] = bytes.Clone(c.c.Data)
		w.PutChunk(c.knight, c.c)
	}
	if len(back) != 0 {
		t.Fatalf("%d chunks handed back before they were written", len(back))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(batch) {
		t.Fatalf("%d chunks handed back after the write, want %d", len(back), len(batch))
	}
	for i, b := range back {
		if &b[0] != &batch[i].c.Data[0] {
			t.Fatalf("chunk %d: other bytes were handed back", i)
		}
		clear(b) // the producer's again: finished into anew
	}
	for i, c := range batch {
		got, err := st.LiveReplay(c.knight)
		if err != nil || len(got) != 1 || !bytes.Equal(got[0].Data, want[i]) {
			t.Fatalf("knight %s: its chunk did not read back whole (%v)", c.knight, err)
		}
	}

	big := ReplayChunk{Start: t0.Add(time.Second), Data: make([]byte, maxPendingReplay+1)}
	w.PutChunk("K-big", big)
	if len(back) != len(batch)+1 || &back[len(back)-1][0] != &big.Data[0] {
		t.Fatal("a chunk dropped for a full queue was not handed back")
	}
}
