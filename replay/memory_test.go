package replay

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What recording costs a walking knight in a crowd (docs/PERFORMANCE.md, "Where the memory
// goes"): the bytes allocated a view recorded, and the bytes each knight keeps in the
// recorder between views, its recording handle and its open chunk.

// crowdWalk is a walking knight's views in a crowd: Kay in level 1's largest room with
// others, each of whom steps (or fights, in a battle) every 20 turns (2 keys a second at
// 25 ms) and says a line every 100 turns, new ones arriving every 40 turns. Kay steps,
// or fights, every 20 turns too; every knight lives through its fights. Two chunk spans
// of play, made once: the tests and the benchmarks share it.
var crowdWalk = sync.OnceValue(func() []world.View {
	const crowd, turns = 40, 2 * int(ChunkSpan/(25*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	ticks, ran := make(chan time.Time), make(chan struct{})
	go func() { e.Run(ctx, ticks); close(ran) }()
	defer func() { cancel(); <-ran }() // gone before anything measures the heap
	room := largestRoom(e.Level(1))
	stats := world.Stats{Str: 14, Int: 11, Con: 14, Dex: 12}
	type walker struct {
		p *world.Player
		w *fightWatch
	}
	join := func(i int, sub world.Subscriber) walker {
		rec := world.NewAdventurer("K-"+strconv.Itoa(i), "Knight "+strconv.Itoa(i), stats, 40)
		rec.X, rec.Y = room[i%len(room)].X, room[i%len(room)].Y
		rec.Hits, rec.MaxHits = 500, 500
		w := &fightWatch{}
		p, err := e.Join(ctx, rec, tee{w, sub})
		if err != nil {
			panic(err)
		}
		return walker{p, w}
	}
	kayViews := &views{}
	walkers := []walker{join(0, kayViews)}
	for i := range crowd {
		walkers = append(walkers, join(i+1, discard{}))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for turn := range turns {
		for i, k := range walkers {
			switch {
			case (turn+i)%20 == 0 && k.w.fighting.Load():
				_ = k.p.Do(ctx, world.Fight{})
			case (turn+i)%20 == 0:
				_ = k.p.Do(ctx, world.Move{Dir: world.Dir(rng.IntN(4))})
			case i > 0 && (turn+3*i)%100 == 0:
				_ = k.p.Chat(ctx, world.Chat{Kind: world.ChatSay, Text: "well met, " + strconv.Itoa(turn) + " turns in"})
			}
		}
		if turn%40 == 0 {
			walkers = append(walkers, join(len(walkers), discard{}))
		}
		if _, err := e.Who(ctx); err != nil { // the turn's commands are in before its tick: the same walk each time
			panic(err)
		}
		ticks <- time.Time{}
	}
	if _, err := e.Who(ctx); err != nil {
		panic(err)
	}
	return kayViews.list()
})

// fightWatch says whether a knight's last view was in a battle.
type fightWatch struct{ fighting atomic.Bool }

func (w *fightWatch) Deliver(v world.View) { w.fighting.Store(v.Fight != nil) }

// gated are the views of vs a knight's gate queues (gate.go), in order.
func gated(vs []world.View, tick time.Duration) []world.View {
	var g gate
	var out []world.View
	for i := range vs {
		if g.pass(&vs[i], tick) {
			g.passed(&vs[i])
			out = append(out, vs[i])
		}
	}
	return out
}

// BenchmarkRecordWalkingKnight is the recorder's goroutine's work for one view of a
// knight walking in a crowd, a view its gate queued: the frame encoded, and its chunk
// compressed and handed over when it fills or its span ends (every view of the walk
// once an iteration of the walk, then the chunk cut). It reports the chunks' bytes a
// view.
func BenchmarkRecordWalkingKnight(b *testing.B) {
	const tick = 25 * time.Millisecond
	vs := gated(crowdWalk(), tick)
	sink := &nullSink{}
	l := newLoop(NewRecorder(sink, tick, nil, nil))
	b.Logf("%d views of %d queued", len(vs), len(crowdWalk()))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(vs) {
			l.done("K-0") // the walk begins again: its turns go back
			i = 0
		}
		l.take(item{knight: "K-0", view: vs[i]})
		i++
	}
	b.ReportMetric(float64(sink.bytes)/float64(b.N), "chunkB/view")
}

// keptPerKnight is the heap n knights walking in a crowd keep in a running recorder,
// a knight, in bytes: each knight's recording handle has delivered it the views of the
// walk up to a point spread evenly from a quarter of a chunk span to a whole one, so
// their open chunks are as far in as they are on average. The views are shared by all:
// what is measured is the recorder's, not the world's.
func keptPerKnight(tb testing.TB, n int) float64 {
	tb.Helper()
	const tick = 25 * time.Millisecond
	vs := crowdWalk()
	at := func(d time.Duration) int {
		i := 0
		for i < len(vs) && time.Duration(vs[i].Turn-vs[0].Turn)*tick < d {
			i++
		}
		return i
	}
	from, to := at(ChunkSpan/4), at(ChunkSpan)
	ctx, cancel := context.WithCancel(context.Background())
	r := NewRecorder(&nullSink{}, tick, nil, nil)
	go r.Run(ctx)
	defer func() { cancel(); <-r.stopped }() // its chunks gone before the next measure
	subs := make([]world.Subscriber, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range subs {
		subs[i] = r.For("K-" + strconv.Itoa(i))
		for j := range vs[:from+i*(to-from)/n] {
			subs[i].Deliver(vs[j])
		}
		r.Cut("nobody") // every view queued is taken: the queue holds none
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(subs)
	if st := r.Stats(); st.Dropped > 0 {
		tb.Fatalf("%d views dropped", st.Dropped)
	}
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// A knight walking in a crowd keeps in the recorder its recording handle (and the view
// it holds), its open chunk's frames and what its next frame is written against. Measured
// over 1000 knights: 9287 B a knight with a whole view kept as the last frame's and the
// knights in sight as world.Others, 10148 with writers used again keeping their lists'
// largest room, 8033 now (of which the open chunks' frames about 5 KB, the handle 1 KB).
func TestAWalkingKnightKeepsLittleInTheRecorder(t *testing.T) {
	const most = 8400
	if kept := keptPerKnight(t, 1000); kept > most {
		t.Errorf("a knight walking in a crowd keeps %.0f B in the recorder, more than %d", kept, most)
	} else {
		t.Logf("a knight walking in a crowd keeps %.0f B in the recorder", kept)
	}
}

// BenchmarkKeptPerWalkingKnight reports what keptPerKnight measures, for the record
// (one iteration is enough: it is a measure, not a speed).
func BenchmarkKeptPerWalkingKnight(b *testing.B) {
	var kept float64
	for b.Loop() {
		kept = keptPerKnight(b, 1000)
	}
	b.ReportMetric(kept, "keptB/knight")
}

// Recording a walk allocates the chunks it hands over and little else: a writer, its
// lists, its blocks and a chunk's bytes before the copy handed over are used again, and
// the parts put as JSON (a battle's panel at every view of it) are encoded into room
// used again. A crowd's chunks fill in seconds: each was a writer, its lists grown anew,
// and its bytes made twice, 850 B a view in all.
func TestRecordingAWalkAllocatesOnlyItsChunks(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops encoding/json's buffers at random")
	}
	const tick = 25 * time.Millisecond
	vs := gated(crowdWalk(), tick)
	sink := &nullSink{}
	l := newLoop(NewRecorder(sink, tick, nil, nil))
	walk := func() {
		for i := range vs {
			l.take(item{knight: "K-0", view: vs[i]})
		}
		l.done("K-0")
	}
	walk() // the room grown once
	before := sink.chunks
	allocs := testing.AllocsPerRun(4, walk) // and once more before the runs counted
	chunks := float64(sink.chunks-before) / 5
	if chunks < 5 {
		t.Fatalf("a walk of %d views made %.0f chunks: not a crowd's", len(vs), chunks)
	}
	// Besides each chunk's bytes, a few times a walk room for a list made anew (the
	// crowd in sight grew past it, or shrank far below it; a battle began): 16 for 12
	// chunks here, where a writer and its lists made anew for each chunk were 193.
	if allocs > chunks*3/2 {
		t.Errorf("a walk of %d views allocates %.1f times, for its %.0f chunks' bytes", len(vs), allocs, chunks)
	}
}

// keepSink keeps the chunks' bytes.
type keepSink struct{ data [][]byte }

func (s *keepSink) PutChunk(_ string, c Chunk) { s.data = append(s.data, c.Data) }
func (s *keepSink) Keep(Keep)                  {}

// A writer used again for chunk after chunk writes each as a writer made for it does,
// byte for byte: nothing of the chunk before is left in it.
func TestAWriterUsedAgainWritesAsANewOne(t *testing.T) {
	const tick = 25 * time.Millisecond
	vs := gated(crowdWalk(), tick)
	record := func(fresh bool) [][]byte {
		sink := &keepSink{}
		l := newLoop(NewRecorder(sink, tick, nil, nil))
		for range 3 {
			for i := range vs {
				l.take(item{knight: "K-0", view: vs[i]})
				if fresh {
					l.sc.spare = nil // the next chunk's writer is made anew
				}
			}
			l.done("K-0")
		}
		return sink.data
	}
	again, anew := record(false), record(true)
	if len(again) != len(anew) || len(anew) < 10 {
		t.Fatalf("%d chunks from writers used again, %d from new ones", len(again), len(anew))
	}
	for i := range anew {
		if !bytes.Equal(again[i], anew[i]) {
			t.Fatalf("chunk %d: %d bytes from a writer used again, %d from a new one", i, len(again[i]), len(anew[i]))
		}
	}
}
