package replay

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// crowdViews are the views n knights in level 1's largest room get while each steps
// every 20 turns (2 keys a second at 25 ms) for turns turns: the crowded case, where
// every view sees others move. They come in the order the world sent them.
func crowdViews(tb testing.TB, n, turns int) []item {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	ticks := make(chan time.Time)
	go e.Run(ctx, ticks)
	room := largestRoom(e.Level(1))
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	got := &itemList{}
	players := make([]*world.Player, n)
	for i := range players {
		rec := world.NewAdventurer("K-"+strconv.Itoa(i), "Knight "+strconv.Itoa(i), stats, 10)
		rec.X, rec.Y = room[i%len(room)].X, room[i%len(room)].Y
		p, err := e.Join(ctx, rec, itemSub{got, rec.ID})
		if err != nil {
			tb.Fatal(err)
		}
		players[i] = p
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for turn := range turns {
		for i, p := range players {
			if (turn+i)%20 == 0 {
				_ = p.Do(ctx, world.Move{Dir: world.Dir(rng.IntN(4))})
			}
		}
		ticks <- time.Time{}
	}
	if _, err := e.Who(ctx); err != nil {
		tb.Fatal(err)
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	return got.all
}

type itemList struct {
	mu  sync.Mutex
	all []item
}

type itemSub struct {
	l      *itemList
	knight string
}

func (s itemSub) Deliver(v world.View) {
	s.l.mu.Lock()
	s.l.all = append(s.l.all, item{knight: s.knight, view: v})
	s.l.mu.Unlock()
}

// nullSink counts what it is handed.
type nullSink struct{ bytes, chunks int }

func (s *nullSink) PutChunk(_ string, c Chunk) { s.bytes += len(c.Data); s.chunks++ }
func (s *nullSink) Keep(Keep)                  {}

// BenchmarkRecordView is the recorder's cost of one view in the crowded room (1000
// knights, 10 s of game), its chunks cut and compressed as they fill: each knight's gate
// (gate.go), then the recorder's goroutine's work, without the queue.
func BenchmarkRecordView(b *testing.B) {
	its := crowdViews(b, 1000, 400)
	sink := &nullSink{}
	r := NewRecorder(sink, 25*time.Millisecond, nil, nil)
	l := newLoop(r)
	b.Logf("%d views", len(its))
	gates := map[string]*gate{}
	for _, it := range its {
		gates[it.knight] = &gate{}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		it := its[i%len(its)]
		if g := gates[it.knight]; g.pass(&it.view, r.tick) {
			g.passed(&it.view)
			l.take(it)
		}
	}
	b.StopTimer()
	l.doneAll()
	b.ReportMetric(float64(sink.bytes)/float64(b.N), "B/view")
}

// BenchmarkFinishWalkingChunk compresses a walking knight's chunk (22 views: ten steps
// east and west), the recorder's work once a chunk (the views' encoding not counted).
func BenchmarkFinishWalkingChunk(b *testing.B) {
	w := newTestWorld(b, nil)
	for range 10 {
		w.walk(world.East, world.West)
	}
	vs := w.kayViews.list()
	sc := &scratch{}
	size := 0
	for b.Loop() {
		b.StopTimer()
		wr := &writer{sc: sc}
		for j := range vs {
			wr.add(&vs[j])
		}
		b.StartTimer()
		c := wr.finish(25 * time.Millisecond)
		size = len(c.Data)
	}
	b.ReportMetric(float64(size), "B/chunk")
}
