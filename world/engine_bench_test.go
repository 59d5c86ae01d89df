package world

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// Sinks keep the compiler from dropping the work a benchmark measures.
var (
	benchViewSink   View
	benchLevelsSink []*Level
)

// countingSub is a Subscriber that only counts deliveries; it never blocks.
type countingSub struct{ n int }

func (c *countingSub) Deliver(View) { c.n++ }

// discardSaver is a Saver that only counts the records handed to it.
type discardSaver struct{ n int }

func (d *discardSaver) Put(recs ...Adventurer)     { d.n += len(recs) }
func (d *discardSaver) PutLevels(ls ...LevelState) { d.n += len(ls) }

// benchWorld is an engine with adventurers joined and a counting subscriber each.
type benchWorld struct {
	e    *Engine
	subs []*countingSub
	rng  *rand.Rand
	cmds int // Moves queued so far
}

// newBenchWorld builds the default 10-level dungeon of seed 1977 and joins n adventurers,
// adventurer i on level i%levels+1 at that level's up stairs.
func newBenchWorld(b *testing.B, n, levels int, saver Saver) *benchWorld {
	b.Helper()
	e := New(Config{Seed: 1977, Saver: saver})
	w := &benchWorld{e: e, rng: rand.New(rand.NewPCG(1977, 42))}
	for i := range n {
		rec := NewAdventurer(fmt.Sprintf("fp%d", i), fmt.Sprintf("Knight %d", i),
			Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10)
		rec.Depth = i%levels + 1
		rec.X, rec.Y = -1, -1
		sub := &countingSub{}
		w.subs = append(w.subs, sub)
		e.join(rec, sub)
	}
	if len(e.order) != n {
		b.Fatalf("%d players joined, want %d", len(e.order), n)
	}
	return w
}

// delivered is the number of views delivered so far to all subscribers.
func (w *benchWorld) delivered() int {
	n := 0
	for _, s := range w.subs {
		n += s.n
	}
	return n
}

// step gives every adventurer with an empty queue a Move in a random direction, as a
// session whose player holds an arrow key would, and steps one turn.
func (w *benchWorld) step() {
	for _, p := range w.e.order {
		if len(p.queue) == 0 {
			w.e.enqueue(p.rec.ID, p.session, Move{Dir: Dirs[w.rng.IntN(len(Dirs))]})
			w.cmds++
		}
	}
	w.e.Step()
}

// benchMoving measures Step with n adventurers all walking at random. A warm-up spreads
// them out from the stairs and fills their message logs before the timer starts.
//
// Adventurers that join in the same turn act in the same turn of every round from then
// on (a move costs a round; a bump into a wall costs nothing but banks no time either),
// so one turn in ten has all of them acting at once. With stagger set, each starts with a
// random part of a round to wait, as players who joined at different times would.
// Besides the mean, it reports the dearest turn seen and the most views one turn sent.
func benchMoving(b *testing.B, n int, saver Saver, stagger bool) {
	w := newBenchWorld(b, n, DefaultDepth, saver)
	if stagger {
		for _, p := range w.e.order {
			p.energy = Energy(TurnEnergy * float64(w.rng.IntN(TurnsPerRound)))
		}
	}
	for range 200 {
		w.step()
	}
	views, cmds := w.delivered(), w.cmds
	var worst time.Duration
	maxViews := 0
	b.ReportAllocs()
	for b.Loop() {
		before := w.delivered()
		start := time.Now()
		w.step()
		worst = max(worst, time.Since(start))
		maxViews = max(maxViews, w.delivered()-before)
	}
	b.ReportMetric(float64(w.delivered()-views)/float64(b.N), "views/step")
	b.ReportMetric(float64(w.cmds-cmds)/float64(b.N), "cmds/step")
	b.ReportMetric(float64(maxViews), "max-views/step")
	b.ReportMetric(float64(worst.Nanoseconds()), "max-ns/step")
}

// BenchmarkStep1000Moving is one turn of a full server: 1000 adventurers on 10 levels, all
// walking, all joined in the same turn (so they act in step).
func BenchmarkStep1000Moving(b *testing.B) { benchMoving(b, 1000, nil, false) }

// BenchmarkStep1000MovingStaggered is BenchmarkStep1000Moving with the adventurers acting
// in different turns of the round.
func BenchmarkStep1000MovingStaggered(b *testing.B) { benchMoving(b, 1000, nil, true) }

// BenchmarkStep1000MovingSaver is BenchmarkStep1000Moving with a Saver attached, so every
// 80th turn also takes a checkpoint of the changed adventurers.
func BenchmarkStep1000MovingSaver(b *testing.B) { benchMoving(b, 1000, &discardSaver{}, false) }

// BenchmarkStep1000MovingOneLevel is 1000 adventurers all walking on level 1, as the
// load tool's new knights do: one crowd of them all, made again each turn.
func BenchmarkStep1000MovingOneLevel(b *testing.B) {
	w := newBenchWorld(b, 1000, 1, nil)
	for range 200 {
		w.step()
	}
	views := w.delivered()
	b.ReportAllocs()
	for b.Loop() {
		w.step()
	}
	b.ReportMetric(float64(w.delivered()-views)/float64(b.N), "views/step")
}

// BenchmarkStepMovingPlayers shows how the cost of a busy turn grows with the number of
// players (one tenth of them per level), joined as in BenchmarkStep1000Moving.
func BenchmarkStepMovingPlayers(b *testing.B) {
	for _, n := range []int{100, 300, 1000, 2000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchMoving(b, n, nil, false) })
	}
}

// BenchmarkStepIdle1000 is a turn in which 1000 adventurers stand still: it should cost
// next to nothing and deliver no views.
func BenchmarkStepIdle1000(b *testing.B) {
	w := newBenchWorld(b, 1000, DefaultDepth, nil)
	w.e.Step() // the first turn after the joins
	views := w.delivered()
	b.ReportAllocs()
	for b.Loop() {
		w.e.Step()
	}
	b.ReportMetric(float64(w.delivered()-views)/float64(b.N), "views/step")
}

// BenchmarkView builds one player's view on a level shared with 100 other players, after
// they have walked about for a while.
func BenchmarkView(b *testing.B) {
	w := newBenchWorld(b, 101, 1, nil)
	for range 300 {
		w.step()
	}
	p := w.e.order[0]
	b.ReportAllocs()
	for b.Loop() {
		benchViewSink = w.e.view(p)
	}
	b.ReportMetric(float64(len(benchViewSink.InSight())), "others/view")
}

// BenchmarkInSight picks the knights in sight out of the level's crowd, as a session does
// for each frame it draws (the engine's share of that work is one crowd a level a turn).
func BenchmarkInSight(b *testing.B) {
	w := newBenchWorld(b, 101, 1, nil)
	for range 300 {
		w.step()
	}
	v := w.e.view(w.e.order[0])
	var n int
	b.ReportAllocs()
	for b.Loop() {
		n = len(v.InSight())
	}
	b.ReportMetric(float64(n), "others/view")
	b.ReportMetric(float64(len(v.crowd.knights)), "crowd")
}

// BenchmarkGenerateDungeon generates a whole 10-level dungeon, a new seed each time.
func BenchmarkGenerateDungeon(b *testing.B) {
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		seed++
		benchLevelsSink = GenerateDungeon(seed, DefaultDepth)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*DefaultDepth), "ns/level")
}

// BenchmarkRequest is the way in of a player's action: the Player method sends its
// request to the inbox, and the engine goroutine takes it and carries it out. do is a
// Move, queued for the knight's turn (the queue is full after two, so most are dropped,
// as keys typed faster than the knight walks are); back is Back from a knight that is not
// away, carried out at once (carryOut), which only stirs it and publishes.
func BenchmarkRequest(b *testing.B) {
	for _, bc := range []struct {
		name string
		send func(context.Context, *Player) error
	}{
		{"do", func(ctx context.Context, p *Player) error { return p.Do(ctx, Move{Dir: East}) }},
		{"back", func(ctx context.Context, p *Player) error { return p.Back(ctx) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := newBenchWorld(b, 1, 1, nil)
			p := &Player{w.e, from{w.e.order[0].rec.ID, w.e.order[0].session}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.send(ctx, p); err != nil {
					b.Fatal(err)
				}
				(<-w.e.inbox).handle(w.e)
			}
		})
	}
}
