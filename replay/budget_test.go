package replay

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// countingSink counts the bytes of the chunks handed to it.
type countingSink struct{ bytes, chunks atomic.Int64 }

func (s *countingSink) PutChunk(_ string, c Chunk) { s.bytes.Add(int64(len(c.Data))); s.chunks.Add(1) }
func (s *countingSink) Keep(Keep)                  {}

// Recording's budgets (issue 33), in the world without SSH: ORTHANC_REPLAY_BUDGET=N
// knights (1000 for the measure) walk level 1, each a step every 20 turns (2 keys
// a second at the 25 ms tick), for 60 s of game time, every view recorded. It reports
// the recorder's time per view and its share of one core at the game's real pace, the
// compressed bytes a knight a second, and the memory a knight's open chunk holds.
//
//	ORTHANC_REPLAY_BUDGET=1000 go test -run TestRecordingBudgets -v ./replay
func TestRecordingBudgets(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ORTHANC_REPLAY_BUDGET"))
	if n <= 0 {
		t.Skip("set ORTHANC_REPLAY_BUDGET=1000 to measure")
	}
	const tick = 25 * time.Millisecond
	const gameTime = 60 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &countingSink{}
	r := NewRecorder(sink, tick, nil, nil)
	go r.Run(ctx)
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	ticks := make(chan time.Time)
	go e.Run(ctx, ticks)
	room := largestRoom(e.Level(1))
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	players := make([]*world.Player, n)
	for i := range n {
		rec := world.NewAdventurer("K-"+strconv.Itoa(i), "Knight "+strconv.Itoa(i), stats, 10)
		rec.X, rec.Y = room[i%len(room)].X, room[i%len(room)].Y
		p, err := e.Join(ctx, rec, r.For(rec.ID))
		if err != nil {
			t.Fatal(err)
		}
		players[i] = p
	}
	rng := rand.New(rand.NewPCG(1, 2))
	turns := int(gameTime / tick)
	for turn := range turns {
		for i, p := range players {
			if (turn+i)%20 == 0 {
				_ = p.Do(ctx, world.Move{Dir: world.Dir(rng.IntN(4))})
			}
		}
		ticks <- time.Time{}
	}
	if _, err := e.Who(ctx); err != nil {
		t.Fatal(err)
	}
	r.Flush(ctx) // waits for the queue: every view taken
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	st := r.Stats()
	share := float64(st.Busy) / float64(gameTime)
	t.Logf("%d knights, %v of game: %d views (%d dropped), %.1f µs a view, recorder busy %v = %.1f %% of one core at the real pace",
		n, gameTime, st.Views, st.Dropped, float64(st.Busy.Microseconds())/float64(st.Views), st.Busy, 100*share)
	t.Logf("disk: %d chunks, %d bytes = %.0f B/s a knight", sink.chunks.Load(), sink.bytes.Load(),
		float64(sink.bytes.Load())/float64(n)/gameTime.Seconds())
	chunkMemory(t, n)
}

// chunkMemory measures what n knights' open chunks hold at their largest: each fed a
// whole chunk span of a walking knight's views, the heap measured before and after.
func chunkMemory(t *testing.T, n int) {
	w := newTestWorld(t, nil)
	for range 10 { // ten steps: more than a chunk's 10 s at 2 keys a second
		w.walk(world.East, world.West)
	}
	vs := w.kayViews.list()
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	ws := make([]*writer, n)
	for i := range ws {
		ws[i] = &writer{}
		for j := range vs {
			ws[i].add(&vs[j])
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&b)
	t.Logf("memory: %d views in an open chunk, %.1f KB a knight", len(vs), float64(b.HeapAlloc-a.HeapAlloc)/float64(n)/1024)
	runtime.KeepAlive(ws)
}
