package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Kept replays for the web page's casts (seed -kept K): K deaths kept with their last 5
// minutes, each its own knight's, all of one walk recorded at the real tick: a knight of
// level 1 of the dungeon walking from its first room, a step or a blow every 20 turns,
// fighting what it meets, its way changing every 20 steps and at each wall (as
// webpage.TestCastBudget's walker). No knight record is written for them, so each is public
// (entombed, as a knight gone with its key) and none is linked from the page: they are
// what /replay/ID.cast draws, by the ids in the casts file.

// castsFileName lists the seeded casts' ids, one a line.
const castsFileName = "load-casts"

// keptWalk is how much of the walk is recorded: a death keeps 5 minutes.
const keptWalk = replay.DeathWindow

// recordWalk records keptWalk of the walker at the engine's default tick, the turns as
// fast as the engine takes them, and returns its chunks (each Start on a clock from t0).
func recordWalk(dungeonSeed uint64, t0 time.Time) ([]replay.Chunk, error) {
	const tick = world.DefaultTick
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var turn atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(turn.Load()) * tick) }
	sink := &chunkSink{}
	rec := replay.NewRecorder(sink, tick, now, nil)
	go rec.Run(ctx)
	e := world.New(world.Config{Seed: dungeonSeed})
	ticks := make(chan time.Time)
	go e.Run(ctx, ticks)
	r := e.Level(1).Rooms[0]
	a := world.NewAdventurer("K-cast-walker", "Walker", world.Stats{Str: 14, Int: 11, Con: 14, Dex: 12}, 40)
	a.X, a.Y = r.X+r.W/2, r.Y+r.H/2
	a.Hits, a.MaxHits = 500, 500 // it lives the 5 minutes through its fights
	w := &walkWatch{}
	p, err := e.Join(ctx, a, teeSub{rec.For(a.ID), w})
	if err != nil {
		return nil, fmt.Errorf("the walker: %w", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var dir world.Dir
	var was int64
	for i := range int(keptWalk / tick) {
		if i%20 == 0 {
			if i%400 == 0 || w.pos.Load() == was {
				dir = world.Dir(rng.IntN(4))
			}
			was = w.pos.Load()
			if w.fighting.Load() {
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
	rec.Flush(ctx)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	return sink.chunks, nil
}

// seedKept writes k kept deaths of the walk into the store at dbPath, each its own
// knight's and ending a second apart up to a minute ago, and their ids to castsPath.
func seedKept(dbPath, castsPath string, dungeonSeed uint64, k int) error {
	end := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	t0 := end.Add(-keptWalk - time.Duration(k)*time.Second)
	chunks, err := recordWalk(dungeonSeed, t0)
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return fmt.Errorf("the walk recorded nothing")
	}
	st, err := store.Open(dbPath, store.Options{})
	if err != nil {
		return err
	}
	w := store.NewReplayWriter(st, 1<<40, replay.Rolling, nil)
	var ids []string
	for i := range k {
		shift := time.Duration(i) * time.Second
		knight := fmt.Sprintf("K-cast%06d", i)
		for _, c := range chunks {
			w.PutChunk(knight, store.ReplayChunk{Start: c.Start.Add(shift), Born: c.Born, Data: c.Data})
		}
		r := store.Replay{Knight: knight, Born: chunks[0].Born, Name: fmt.Sprintf("Walker %d", i), Kind: string(replay.KindDeath),
			At: t0.Add(keptWalk + shift), Window: replay.DeathWindow}
		w.Keep(r)
		ids = append(ids, r.ID())
	}
	err = w.Flush()
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the kept replays: %w", err)
	}
	return os.WriteFile(castsPath, []byte(strings.Join(ids, "\n")+"\n"), 0o600)
}

// chunkSink keeps the walker's chunks.
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

// walkWatch says whether the walker's last view was in a fight, and where it stood.
type walkWatch struct {
	fighting atomic.Bool
	pos      atomic.Int64
}

func (w *walkWatch) Deliver(v world.View) {
	w.fighting.Store(v.Fight != nil)
	w.pos.Store(int64(v.Self.Pos.X)<<16 | int64(v.Self.Pos.Y))
}

// teeSub gives each view to both.
type teeSub struct{ a, b world.Subscriber }

func (t teeSub) Deliver(v world.View) { t.a.Deliver(v); t.b.Deliver(v) }
