package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// chunkAt is a made-up chunk of n bytes begun at t.
func chunkAt(t time.Time, n int) ReplayChunk {
	return ReplayChunk{Start: t, Data: bytes.Repeat([]byte{byte(t.Second())}, n)}
}

// A knight's rolling record keeps its last ten minutes; a death keeps the five minutes
// before it (with the chunk they begin in) under the knight's name, and both survive a
// restart.
func TestReplaysRollAndKeepADeath(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	for i := range 72 { // 12 minutes of 10-second chunks
		w.PutChunk("K-KAY", chunkAt(t0.Add(time.Duration(i)*10*time.Second), 100))
	}
	w.PutChunk("K-BORS", chunkAt(t0, 100))
	death := t0.Add(12 * time.Minute)
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "death", At: death, Window: 5 * time.Minute, Private: true})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live, err := st.LiveReplay("K-KAY")
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 61 || !live[0].Start.Equal(t0.Add(110*time.Second)) {
		t.Fatalf("rolling record: %d chunks from %v, want 61 from 14:01:50", len(live), live[0].Start)
	}
	kept, err := st.KeptReplays(func(r Replay) bool { return r.Knight == "K-KAY" })
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Name != "Kay" || kept[0].Kind != "death" || !kept[0].Private || len(kept[0].Chunks) != 0 {
		t.Fatalf("kept: %+v", kept)
	}
	r, err := st.KeptReplay(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	// 14:07:00 is where the window begins: its chunk and the 29 after it.
	if len(r.Chunks) != 30 || !r.Chunks[0].Start.Equal(death.Add(-5*time.Minute)) || len(r.Chunks[0].Data) != 100 {
		t.Fatalf("kept record: %d chunks from %v", len(r.Chunks), r.Chunks[0].Start)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// The bucket stays within its bound: past it, the oldest go first, kept records and
// chunks alike.
func TestReplaysStayWithinTheirBound(t *testing.T) {
	st := openTemp(t)
	const limit = 64 << 10
	w := NewReplayWriter(st, limit, 10*time.Minute, nil)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	for i := range 200 {
		knight := fmt.Sprintf("K-%03d", i%20)
		w.PutChunk(knight, chunkAt(t0.Add(time.Duration(i)*time.Second), 1000))
		if i == 30 {
			w.Keep(Replay{Knight: knight, Name: "Kay", Kind: "death", At: t0.Add(31 * time.Second), Window: time.Minute})
		}
		if i%10 == 9 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := st.ReplayBytes()
	if err != nil {
		t.Fatal(err)
	}
	if n > limit || n != w.Bytes() {
		t.Fatalf("replays take %d bytes (the writer counts %d), bound %d", n, w.Bytes(), limit)
	}
	// Each knight's chunks are 20 s apart: the first knight's oldest went, its newest stayed.
	if live, _ := st.LiveReplay("K-000"); len(live) == 0 || live[0].Start.Equal(t0) || !live[len(live)-1].Start.Equal(t0.Add(180*time.Second)) {
		t.Fatalf("the first knight's record: %d chunks", len(live))
	}
	if kept, err := st.KeptReplays(func(Replay) bool { return true }); err != nil || len(kept) != 0 {
		t.Fatalf("the old kept record stayed: %+v, %v", kept, err)
	}
}

// A file of the first layout (rolling records keyed by knight, L/<knight>/<start>) opens,
// keeps its kept records, and drops those rolling records at the bucket's first use.
func TestReplaysOfTheFirstLayoutAreDropped(t *testing.T) {
	st := openTemp(t)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	w.PutChunk("K-KAY", chunkAt(t0, 100))
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "death", At: t0.Add(time.Second), Window: 5 * time.Minute})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path := st.Path()
	err := st.db.Update(func(tx *bolt.Tx) error {
		tb := open(tx, bucketReplays)
		if err := tb.delete(liveChunk{t0.UnixMilli(), t0.UnixMilli(), 0}.key("K-KAY")); err != nil {
			return err
		}
		return tb.put([]byte("L/K-KAY/"+stamp(t0)), []byte("old"))
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if live, err := st.LiveReplay("K-KAY"); err != nil || len(live) != 0 {
		t.Fatalf("the first layout's record: %d chunks, %v", len(live), err)
	}
	kept, err := st.KeptReplays(func(Replay) bool { return true })
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept: %+v, %v", kept, err)
	}
	if r, err := st.KeptReplay(kept[0]); err != nil || len(r.Chunks) != 1 {
		t.Fatalf("kept record: %+v, %v", r, err)
	}
	w = NewReplayWriter(st, 0, 10*time.Minute, nil)
	w.PutChunk("K-KAY", chunkAt(t0.Add(time.Minute), 100))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n, err := st.ReplayBytes(); err != nil || n != w.Bytes() {
		t.Fatalf("replays take %d bytes (%v), the writer counts %d", n, err, w.Bytes())
	}
	if err := st.Check(); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// A key's later knights share an id: what is kept of one life holds only that life's
// chunks, even the chunk before its window; a report's keep (no life named) is of the
// newest life; the rolling record holds both lives in order, each chunk telling its life,
// across a restart.
func TestAKeptRecordIsOneLifes(t *testing.T) {
	st := openTemp(t)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	cador, cadoc := t0.Add(-time.Hour), t0.Add(40*time.Second)
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	for i := range 4 { // Cador: 0 s to 30 s, dying at 35 s
		c := chunkAt(t0.Add(time.Duration(i)*10*time.Second), 100)
		c.Born = cador
		w.PutChunk("K-CAD", c)
	}
	w.Keep(Replay{Knight: "K-CAD", Born: cador, Name: "Cador", Kind: "death", At: t0.Add(35 * time.Second), Window: 5 * time.Minute})
	for i := 4; i < 7; i++ { // Cadoc: 40 s to 60 s, retiring at 65 s
		c := chunkAt(t0.Add(time.Duration(i)*10*time.Second), 100)
		c.Born = cadoc
		w.PutChunk("K-CAD", c)
	}
	w.Keep(Replay{Knight: "K-CAD", Born: cadoc, Name: "Cadoc", Kind: "retired", At: t0.Add(65 * time.Second), Window: 5 * time.Minute})
	w.Keep(Replay{Knight: "K-CAD", Name: "Cadoc", Kind: "report", Report: 1, At: t0.Add(66 * time.Second), Window: 2 * time.Minute})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	kept, err := st.KeptReplays(func(Replay) bool { return true })
	if err != nil || len(kept) != 3 {
		t.Fatalf("kept %+v, %v", kept, err)
	}
	for _, tc := range []struct {
		r      Replay
		born   time.Time
		starts []int
	}{{kept[0], cador, []int{0, 10, 20, 30}}, {kept[1], cadoc, []int{40, 50, 60}}, {kept[2], cadoc, []int{40, 50, 60}}} {
		whole, err := st.KeptReplay(tc.r)
		if err != nil {
			t.Fatal(err)
		}
		var starts []int
		for _, c := range whole.Chunks {
			starts = append(starts, int(c.Start.Sub(t0)/time.Second))
		}
		if !whole.Born.Equal(tc.born) || !slices.Equal(starts, tc.starts) {
			t.Errorf("%s's %s: born %v, chunks at %v s; want born %v, chunks at %v s", whole.Name, whole.Kind, whole.Born, starts, tc.born, tc.starts)
		}
	}
	path := st.Path()
	st.Close()
	if st, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live, err := st.LiveReplay("K-CAD")
	if err != nil || len(live) != 7 {
		t.Fatalf("the rolling record after a restart: %d chunks, %v", len(live), err)
	}
	for i, c := range live {
		if want := map[bool]time.Time{true: cador, false: cadoc}[i < 4]; !c.Born.Equal(want) {
			t.Errorf("chunk %d after a restart is of the life born %v, want %v", i, c.Born, want)
		}
	}
}

// A knight named before lives were told apart has no life told: what is kept of its death
// is of the chunks of no life, even when its key's next knight (a life told) has a chunk
// in the same batch, written before the keep. Only a report's keep, which names no life,
// is of the newest life.
func TestAKeptRecordOfALifeNotToldIsNotTheNextLifes(t *testing.T) {
	st := openTemp(t)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	next := t0.Add(40 * time.Second)
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	for i := range 4 { // Elder, named before lives were told: 0 s to 30 s, dying at 35 s
		w.PutChunk("K-OLD", chunkAt(t0.Add(time.Duration(i)*10*time.Second), 100))
	}
	w.Keep(Replay{Knight: "K-OLD", Name: "Elder", Kind: "death", At: t0.Add(35 * time.Second), Window: 5 * time.Minute})
	c := chunkAt(next, 100) // its key's next knight, named at 40 s
	c.Born = next
	w.PutChunk("K-OLD", c)
	w.Keep(Replay{Knight: "K-OLD", Name: "Young", Kind: "report", At: t0.Add(45 * time.Second), Window: 2 * time.Minute})
	if err := w.Flush(); err != nil { // one batch: its chunks are written before its keeps
		t.Fatal(err)
	}
	kept, err := st.KeptReplays(func(Replay) bool { return true })
	if err != nil || len(kept) != 2 {
		t.Fatalf("kept %+v, %v", kept, err)
	}
	for _, tc := range []struct {
		r      Replay
		born   time.Time
		starts []int
	}{{kept[0], time.Time{}, []int{0, 10, 20, 30}}, {kept[1], next, []int{40}}} {
		whole, err := st.KeptReplay(tc.r)
		if err != nil {
			t.Fatal(err)
		}
		var starts []int
		for _, c := range whole.Chunks {
			starts = append(starts, int(c.Start.Sub(t0)/time.Second))
		}
		if !whole.Born.Equal(tc.born) || !slices.Equal(starts, tc.starts) {
			t.Errorf("%s's %s: born %v, chunks at %v s; want born %v, chunks at %v s", whole.Name, whole.Kind, whole.Born, starts, tc.born, tc.starts)
		}
	}
}

// With ages set, a rolling record goes once its chunks are older than the rolling window,
// though its knight wrote nothing since (it left), and a kept record once older than its
// age; a write with nothing filed still ages them. Without ages only the bound counts.
func TestReplaysExpireByAge(t *testing.T) {
	st := openTemp(t)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	now := t0
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	w.Expire(30*24*time.Hour, func() time.Time { return now })
	w.PutChunk("K-KAY", chunkAt(t0, 100))
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "death", At: t0, Window: 5 * time.Minute})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	count := func() (live, kept int) {
		t.Helper()
		l, err := st.LiveReplay("K-KAY")
		if err != nil {
			t.Fatal(err)
		}
		k, err := st.KeptReplays(func(Replay) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		return len(l), len(k)
	}
	now = t0.Add(9 * time.Minute)
	if err := w.write(true); err != nil {
		t.Fatal(err)
	}
	if l, k := count(); l != 1 || k != 1 {
		t.Fatalf("after 9 minutes: %d chunks, %d kept; want 1 and 1", l, k)
	}
	now = t0.Add(11 * time.Minute)
	if err := w.write(true); err != nil {
		t.Fatal(err)
	}
	if l, k := count(); l != 0 || k != 1 {
		t.Fatalf("after 11 minutes: %d chunks, %d kept; want 0 and 1", l, k)
	}
	now = t0.Add(30*24*time.Hour - time.Second)
	if err := w.write(true); err != nil {
		t.Fatal(err)
	}
	if _, k := count(); k != 1 {
		t.Fatalf("a kept record went before its 30 days")
	}
	now = t0.Add(30*24*time.Hour + time.Second)
	if err := w.write(true); err != nil {
		t.Fatal(err)
	}
	if _, k := count(); k != 0 {
		t.Fatalf("a kept record stays past its 30 days")
	}
	if n, err := st.ReplayBytes(); err != nil || n != 0 || w.Bytes() != 0 {
		t.Fatalf("the bucket holds %d bytes (%d counted), %v", n, w.Bytes(), err)
	}
}

// An admin removes a kept record: it is gone from the list and its bytes from the count;
// removing it again says it is gone.
func TestRemoveKeptReplay(t *testing.T) {
	st := openTemp(t)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	w.PutChunk("K-KAY", chunkAt(t0, 100))
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "death", At: t0, Window: 5 * time.Minute})
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "report", Report: 3, At: t0, Window: 2 * time.Minute})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	before := w.Bytes()
	kept, err := st.KeptReplays(func(r Replay) bool { return r.Kind == "death" })
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept %v, %v", kept, err)
	}
	if err := st.RemoveKept(kept[0]); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveKept(kept[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removing it again: %v, want ErrNotFound", err)
	}
	left, err := st.KeptReplays(func(Replay) bool { return true })
	if err != nil || len(left) != 1 || left[0].Kind != "report" {
		t.Fatalf("left %+v, %v", left, err)
	}
	if n, _ := st.ReplayBytes(); n != w.Bytes() || n >= before {
		t.Fatalf("the bucket holds %d bytes, counted %d, %d before", n, w.Bytes(), before)
	}
}

// A Flush returns once what was filed before it is on disk, though another write took it:
// the death screen's replay flushes while the writer's own batch may be mid-commit, and
// then reads the death's keep.
func TestAFlushWaitsForTheBatchAnotherWriteTook(t *testing.T) {
	st := openTemp(t)
	w := NewReplayWriter(st, 0, 10*time.Minute, nil)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	w.PutChunk("K-KAY", chunkAt(t0, 100))
	w.Keep(Replay{Knight: "K-KAY", Name: "Kay", Kind: "death", At: t0.Add(time.Second), Window: 5 * time.Minute})
	hold, err := st.db.Begin(true) // the disk busy: the first write waits for bbolt's writer
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hold.Rollback() }) // before the store closes, on a failure too
	first := make(chan error, 1)
	go func() { first <- w.Flush() }()
	deadline := time.Now().Add(10 * time.Second)
	for { // until the first write has taken the batch
		w.mu.Lock()
		taken := len(w.keeps) == 0
		w.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first flush never took the batch")
		}
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() { second <- w.Flush() }()
	select {
	case <-second:
		t.Fatal("a flush returned while the batch filed before it was still being written")
	case <-time.After(100 * time.Millisecond):
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []chan error{first, second} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	kept, err := st.KeptReplays(func(r Replay) bool { return r.Knight == "K-KAY" })
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept %+v, %v; want the death", kept, err)
	}
}
