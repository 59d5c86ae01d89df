package replay

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The test harness: a world stepped by the test, knights whose every view is kept, and a
// sink that keeps what a recorder hands it.

// views keeps every view delivered to it.
type views struct {
	mu  sync.Mutex
	all []world.View
}

func (s *views) Deliver(v world.View) {
	s.mu.Lock()
	s.all = append(s.all, v)
	s.mu.Unlock()
}

func (s *views) list() []world.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]world.View(nil), s.all...)
}

// tee delivers to both.
type tee struct{ a, b world.Subscriber }

func (t tee) Deliver(v world.View) { t.a.Deliver(v); t.b.Deliver(v) }

// testWorld is a world the test steps (step), with two knights in the largest room of
// level 1: Kay, whose views are kept, and Bors, who whispers to it.
type testWorld struct {
	e         *world.Engine
	tick      chan time.Time
	kay, bors *world.Player
	kayViews  *views
	ctx       context.Context
	t         testing.TB
}

func newTestWorld(t testing.TB, kaySub world.Subscriber) *testWorld {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	w := &testWorld{e: e, tick: tick, ctx: ctx, t: t, kayViews: &views{}}
	room := largestRoom(e.Level(1))
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	kay := world.NewAdventurer("K-kay", "Kay", stats, 10)
	kay.X, kay.Y = room[0].X, room[0].Y
	var sub world.Subscriber = w.kayViews
	if kaySub != nil {
		sub = tee{w.kayViews, kaySub}
	}
	var err error
	if w.kay, err = e.Join(ctx, kay, sub); err != nil {
		t.Fatal(err)
	}
	bors := world.NewAdventurer("K-bors", "Bors", stats, 10)
	bors.X, bors.Y = room[1].X, room[1].Y
	if w.bors, err = e.Join(ctx, bors, &views{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// step runs n turns and waits until the world has done them.
func (w *testWorld) step(n int) {
	for range n {
		w.tick <- time.Time{}
	}
	if _, err := w.e.Who(w.ctx); err != nil {
		w.t.Fatal(err)
	}
}

// walk moves Kay one square each way in turn, a round each.
func (w *testWorld) walk(dirs ...world.Dir) {
	for _, d := range dirs {
		if err := w.kay.Do(w.ctx, world.Move{Dir: d}); err != nil {
			w.t.Fatal(err)
		}
		w.step(world.TurnsPerRound)
	}
}

// largestRoom lists the squares of the largest room of l.
func largestRoom(l *world.Level) []world.Pos {
	var best []world.Pos
	for i, r := range l.Rooms {
		var sq []world.Pos
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				if p := (world.Pos{X: x, Y: y}); l.RoomAt(p) == i {
					sq = append(sq, p)
				}
			}
		}
		if len(sq) > len(best) {
			best = sq
		}
	}
	return best
}

// sink keeps the chunks and keeps a recorder hands it.
type sink struct {
	mu     sync.Mutex
	chunks map[string][]Chunk
	keeps  []Keep
}

func (s *sink) PutChunk(knight string, c Chunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chunks == nil {
		s.chunks = map[string][]Chunk{}
	}
	s.chunks[knight] = append(s.chunks[knight], c)
}

func (s *sink) Keep(k Keep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keeps = append(s.keeps, k)
}

func (s *sink) of(knight string) []Chunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Chunk(nil), s.chunks[knight]...)
}
