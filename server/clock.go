package server

import (
	"context"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The world's clock: the server steps the engine on a ticker and times each step, so the
// engine itself never reads the clock (DESIGN §1, "Time is injected").

// Tuning of the clock loop:
//
//	constant     value   effect
//	maxCatchUp   4       turns one tick may run when the loop woke late, to keep wall time
//	maxBehind    400     turns behind (10 s at 25 ms) after which the world forgets them
const (
	maxCatchUp = 4
	maxBehind  = 400
)

// runTicks steps the world on every tick until ctx ends or the world stops, timing each
// step. The engine's Run gets no ticker of its own: the clock is read here, at the edge.
func (s *Server) runTicks(ctx context.Context) {
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	start, done := time.Now(), 0
	week := world.WeekOf(s.now()) // the engine's, from its Config
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
		var n int
		n, done = turnsDue(now.Sub(start), s.cfg.Tick, done)
		if n == 0 {
			continue
		}
		var steps [maxCatchUp]time.Duration
		err := s.engine.Tick(ctx, func(step func()) {
			if s.hooks.step != nil {
				s.hooks.step()
			}
			for i := range n {
				t0 := time.Now()
				step()
				steps[i] = time.Since(t0)
			}
		})
		if err != nil {
			return // the world has stopped
		}
		for _, d := range steps[:n] {
			s.obs.tick(d)
		}
		// The week of the boards turns by the edge's clock (a test's moves it).
		if w := world.WeekOf(s.now()); w != week {
			if s.engine.SetWeek(ctx, w) != nil {
				return
			}
			week = w
		}
		s.obs.sampleSaver(s.saver.Stats())
	}
}

// turnsDue is how many turns to step now, elapsed after the loop started with done turns
// stepped so far, and the new count of turns done. The world keeps wall time: a busy box
// that wakes the loop late (a ticker drops the ticks nobody took) gets the turns it
// missed, at most maxCatchUp at a time, in one visit to the engine. Far behind (more than
// maxBehind: the process was stopped), it forgets them.
func turnsDue(elapsed, tick time.Duration, done int) (n, nowDone int) {
	due := int(elapsed / tick)
	if due-done > maxBehind {
		done = due - 1
	}
	n = max(0, min(due-done, maxCatchUp))
	return n, done + n
}
