package webpage

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// defaultDungeon is the seed of the dungeon a server makes with no -seed.
const defaultDungeon = 1977

// chunkSink keeps one knight's chunks.
type chunkSink struct {
	mu     sync.Mutex
	chunks []replay.Chunk
}

func (s *chunkSink) PutChunk(_ string, c replay.Chunk) {
	s.mu.Lock()
	s.chunks = append(s.chunks, c)
	s.mu.Unlock()
}
func (s *chunkSink) Keep(replay.Keep) {}

// fightWatch says whether the last view was in a fight.
// and where the knight stood.
type fightWatch struct {
	in  atomic.Bool
	pos atomic.Int64
}

func (f *fightWatch) Deliver(v world.View) {
	f.in.Store(v.Fight != nil)
	f.pos.Store(int64(v.Self.Pos.X)<<16 | int64(v.Self.Pos.Y))
}

// teeSub gives each view to both.
type teeSub struct{ a, b world.Subscriber }

func (t teeSub) Deliver(v world.View) { t.a.Deliver(v); t.b.Deliver(v) }

// What a cast of the web page costs (issue 33): a knight walks level 1 of the default
// dungeon for 5 minutes of game time at the real 25 ms tick, a step or a blow every 20 turns (2
// a second), fighting what it meets, its way changing every 20 steps and at
// each wall, monsters wandering, every view recorded; the public timeline of its record is
// then drawn as the page's cast. It reports the moments, the cast's bytes and the time
// to make it.
//
// ORTHANC_CAST_ROOM=N starts it in room N of the level (0 by default); ORTHANC_CAST_DIR
// keeps the cast there, as walker.cast.
//
//	ORTHANC_CAST_BUDGET=1 go test -run TestCastBudget -v ./server/webpage
func TestCastBudget(t *testing.T) {
	if os.Getenv("ORTHANC_CAST_BUDGET") == "" {
		t.Skip("set ORTHANC_CAST_BUDGET=1 to measure")
	}
	const tick = world.DefaultTick
	const gameTime = 5 * time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var turn atomic.Int64
	now := func() time.Time { return start.Add(time.Duration(turn.Load()) * tick) }
	sink := &chunkSink{}
	rec := replay.NewRecorder(sink, tick, now, nil)
	go rec.Run(ctx)
	e := world.New(world.Config{Seed: defaultDungeon})
	ticks := make(chan time.Time)
	go e.Run(ctx, ticks)
	room, _ := strconv.Atoi(os.Getenv("ORTHANC_CAST_ROOM"))
	r := e.Level(1).Rooms[room]
	a := world.NewAdventurer("K-walker", "Walker", world.Stats{Str: 14, Int: 11, Con: 14, Dex: 12}, 40)
	a.X, a.Y = r.X+r.W/2, r.Y+r.H/2
	a.Hits, a.MaxHits = 500, 500 // it lives the 5 minutes through its fights
	fighting := &fightWatch{}
	p, err := e.Join(ctx, a, teeSub{rec.For(a.ID), fighting})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var dir world.Dir
	var was int64
	for i := range int(gameTime / tick) {
		if i%20 == 0 {
			if i%400 == 0 || fighting.pos.Load() == was { // a new way every 20 steps, or at a wall
				dir = world.Dir(rng.IntN(4))
			}
			was = fighting.pos.Load()
			if fighting.in.Load() {
				_ = p.Do(ctx, world.Fight{})
			} else {
				_ = p.Do(ctx, world.Move{Dir: dir})
			}
		}
		ticks <- time.Time{}
		turn.Add(1)
		if i%200 == 0 {
			rec.Flush(ctx) // the recorder keeps up, as at the real pace
		}
	}
	rec.Cut(a.ID)
	began := time.Now()
	ms := replay.Last(replay.Timeline(sink.chunks, true), replay.DeathWindow)
	read := time.Since(began)
	kept := store.Replay{Knight: a.ID, Name: a.Name, Kind: string(replay.KindDeath), At: now(), Window: replay.DeathWindow}
	began = time.Now()
	cast, err := castOf(ctx, kept, ms, tick)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	last := ms[len(ms)-1].View
	fights := 0
	for _, m := range ms {
		if m.View.Fight != nil {
			fights++
		}
	}
	t.Logf("the walker ends at %d,%d, hits %d, %d log lines, in a fight in %d moments", last.Self.Pos.X, last.Self.Pos.Y, last.Self.Hits, len(last.Log.Lines()), fights)
	if d := os.Getenv("ORTHANC_CAST_DIR"); d != "" { // to play it: asciinema play DIR/walker.cast
		if err := os.WriteFile(filepath.Join(d, "walker.cast"), cast, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%v of play: %d moments (views that changed), %d chunks read in %v; the cast: %d bytes (%.0f a moment), drawn in %v",
		ms[len(ms)-1].At.Round(time.Second), len(ms), len(sink.chunks), read.Round(time.Millisecond), len(cast),
		float64(len(cast))/float64(len(ms)), took.Round(time.Millisecond))
}
