package world

import (
	"fmt"
	"testing"
)

// BenchmarkStepOneLevelCrowd is a turn of n knights all on level 1, each stepping every
// other round (about 2 steps a second, as the load tool's walkers), with the refresh
// lengthened under the crowd as the server sets it on two cores (CrowdRefresh 1000) or
// not at all: what one world goroutine spends a turn as the crowd grows, and the views a
// turn hands out.
func BenchmarkStepOneLevelCrowd(b *testing.B) {
	for _, crowd := range []int{0, 1000} {
		for _, n := range []int{1000, 2000, 4000} {
			b.Run(fmt.Sprintf("crowd=%d/n=%d", crowd, n), func(b *testing.B) {
				w := newBenchWorld(b, n, 1, nil)
				w.e.cfg.CrowdRefresh = crowd
				walk := func() {
					for i, p := range w.e.order {
						// Each knight asks for a step once every two rounds, at its own turn.
						if (w.e.turn+uint64(i))%(2*TurnsPerRound) == 0 && len(p.queue) == 0 {
							w.e.enqueue(p.rec.ID, p.session, Move{Dir: Dirs[w.rng.IntN(len(Dirs))]})
							w.e.stir(p)
						}
					}
					w.e.Step()
				}
				for range 200 {
					walk()
				}
				views := w.delivered()
				b.ReportAllocs()
				for b.Loop() {
					walk()
				}
				b.ReportMetric(float64(w.delivered()-views)/float64(b.N), "views/step")
			})
		}
	}
}
