//go:build unix

package replay

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// countingSink counts the bytes of the chunks handed to it.
type countingSink struct{ bytes, chunks atomic.Int64 }

func (s *countingSink) PutChunk(_ string, c Chunk) { s.bytes.Add(int64(len(c.Data))); s.chunks.Add(1) }
func (s *countingSink) Keep(Keep)                  {}

// Recording's budgets (issue 33), in the world without SSH: ORTHANC_REPLAY_BUDGET=N
// knights (1000 for the measure) in level 1's largest room (the crowded case:
// each sees many others move), each stepping every 20 turns (2 keys a second at the
// 25 ms tick), at the game's real pace for ORTHANC_REPLAY_SECONDS (60) of wall time,
// twice: once without recording, once with every view recorded. It reports the
// process's CPU each time, the recorder's time per view and its share of one core, the
// views dropped on a full queue (it fails if any), the compressed bytes a knight a
// second, and the memory a walking knight's open chunk holds.
//
//	ORTHANC_REPLAY_BUDGET=1000 go test -run TestRecordingBudgets -v ./replay
func TestRecordingBudgets(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ORTHANC_REPLAY_BUDGET"))
	if n <= 0 {
		t.Skip("set ORTHANC_REPLAY_BUDGET=1000 to measure")
	}
	secs, _ := strconv.Atoi(os.Getenv("ORTHANC_REPLAY_SECONDS"))
	wall := time.Duration(max(secs, 1)) * time.Second
	if secs <= 0 {
		wall = time.Minute
	}
	off := walkCrowd(t, n, wall, nil)
	t.Logf("without recording: %d turns in %v, the process %.1f %% of one core, heap %d MB", off.turns, wall, 100*off.cpu.Seconds()/wall.Seconds(), off.heap>>20)
	sink := &countingSink{}
	r := NewRecorder(sink, 25*time.Millisecond, nil, nil)
	on := walkCrowd(t, n, wall, r)
	st := r.Stats()
	t.Logf("with recording: %d turns in %v, the process %.1f %% of one core, heap %d MB: %.1f KB a knight more",
		on.turns, wall, 100*on.cpu.Seconds()/wall.Seconds(), on.heap>>20, float64(on.heap-off.heap)/1024/float64(n))
	t.Logf("recorder: %d views (%.0f a second), %d dropped, %.2f µs a view, busy %v = %.1f %% of one core",
		st.Views, float64(st.Views)/wall.Seconds(), st.Dropped, float64(st.Busy.Nanoseconds())/1000/float64(max(st.Views, 1)),
		st.Busy.Round(time.Millisecond), 100*st.Busy.Seconds()/wall.Seconds())
	t.Logf("disk: %d chunks, %d bytes = %.0f B/s a knight", sink.chunks.Load(), sink.bytes.Load(),
		float64(sink.bytes.Load())/float64(n)/wall.Seconds())
	if st.Dropped > 0 {
		t.Errorf("%d views dropped: the figures are for fewer views than the world sent", st.Dropped)
	}
	chunkMemory(t, n)
}

// walked is what a walk of the crowd measured: the turns the world made, the
// process's CPU time and its heap in use at the end (after a collection).
type walked struct {
	turns int
	cpu   time.Duration
	heap  int64
}

// walkCrowd has n knights walk in level 1's largest room at the game's pace for wall,
// every view recorded by r (nil: none), and measures the process's CPU meanwhile.
func walkCrowd(t *testing.T, n int, wall time.Duration, r *Recorder) walked {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if r != nil {
		go r.Run(ctx)
	}
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	ticks := make(chan time.Time)
	go e.Run(ctx, ticks)
	room := largestRoom(e.Level(1))
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	players := make([]*world.Player, n)
	for i := range n {
		rec := world.NewAdventurer("K-"+strconv.Itoa(i), "Knight "+strconv.Itoa(i), stats, 10)
		rec.X, rec.Y = room[i%len(room)].X, room[i%len(room)].Y
		var sub world.Subscriber = discard{}
		if r != nil {
			sub = r.For(rec.ID)
		}
		p, err := e.Join(ctx, rec, sub)
		if err != nil {
			t.Fatal(err)
		}
		players[i] = p
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pace := time.NewTicker(25 * time.Millisecond)
	defer pace.Stop()
	cpu0, end := cpuTime(), time.Now().Add(wall)
	turn := 0
	for now := range pace.C {
		if now.After(end) {
			break
		}
		for i, p := range players {
			if (turn+i)%20 == 0 {
				_ = p.Do(ctx, world.Move{Dir: world.Dir(rng.IntN(4))})
			}
		}
		ticks <- now
		turn++
	}
	if _, err := e.Who(ctx); err != nil {
		t.Fatal(err)
	}
	cpu := cpuTime() - cpu0
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if f, err := os.Create(os.Getenv("ORTHANC_REPLAY_HEAP")); err == nil && r != nil {
		_ = pprof.WriteHeapProfile(f) // what the heap holds with the recorder at work
		f.Close()
	}
	if r != nil {
		r.Flush(ctx) // waits for the queue: every view taken
	}
	return walked{turn, cpu, int64(m.HeapAlloc)}
}

type discard struct{}

func (discard) Deliver(world.View) {}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
	ws, sc := make([]*writer, n), &scratch{} // a recorder's writers share its scratch
	for i := range ws {
		ws[i] = &writer{sc: sc}
		for j := range vs {
			ws[i].add(&vs[j])
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&b)
	t.Logf("memory: %d views in an open chunk, %.1f KB a knight", len(vs), float64(int64(b.HeapAlloc)-int64(a.HeapAlloc))/float64(n)/1024)
	runtime.KeepAlive(ws)
}
