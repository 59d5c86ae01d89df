package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Sinks keep the compiler from dropping the work a benchmark measures.
var (
	benchTextSink string
)

// benchPlayModel returns a w×h model on the dungeon screen of a running world: a saved
// knight standing in the largest room of level 1 with five other knights, who has walked
// a few squares and got the newest view of the world.
func benchPlayModel(b *testing.B, w, h int) *Model {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	tick := make(chan time.Time)
	go e.Run(ctx, tick)

	room := largestRoom(e.Level(1))
	if len(room) < 6 {
		b.Fatalf("largest room of level 1 has %d squares", len(room))
	}
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	for i, name := range []string{"Gawain", "Percival", "Lancelot", "Tristan", "Galahad"} {
		rec := world.NewAdventurer(fmt.Sprintf("SHA256:other%d", i), name, stats, 10)
		rec.X, rec.Y = room[i].X, room[i].Y
		if _, err := e.Join(ctx, rec, NewViewSlot()); err != nil {
			b.Fatal(err)
		}
	}
	rec := world.NewAdventurer("SHA256:bench", "Bedivere", stats, 11)
	rec.X, rec.Y = room[len(room)-1].X, room[len(room)-1].Y
	m := playModel(b, e, rec.ID, Params{Saved: &rec, Width: w, Height: h})

	// Enter on the title screen joins the world; the join's answer starts the wait for views.
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	joinNow(b, m, cmd)

	// Walk a little (a step costs a round of ten turns), then take the newest view.
	pl := m.player.Load()
	for _, d := range []world.Dir{world.West, world.North, world.East, world.South, world.West} {
		if err := pl.Do(ctx, world.Move{Dir: d}); err != nil {
			b.Fatal(err)
		}
		for range world.TurnsPerRound {
			tick <- time.Time{}
		}
	}
	if _, err := e.Who(ctx); err != nil { // waits until the engine has handled every tick
		b.Fatal(err)
	}
	m.Update(runNow(b, m.waitView()))
	if m.screen != screenPlay || !m.haveView || m.view.Level == nil {
		b.Fatalf("model is not in the dungeon (screen %d):\n%s", m.screen, m.Text())
	}
	return m
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

// countWriter counts what a frame writes to the terminal.
type countWriter struct{ n, writes int }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.writes++
	return len(p), nil
}

// benchRender measures a session's screen at w×h: a frame written whole (the first, and
// after a resize), the frame after a step (the world's answer drawn as the cells it
// changed, what a walking player costs), and the text without colour (tests, NO_COLOR).
func benchRender(b *testing.B, w, h int) {
	m := benchPlayModel(b, w, h)
	out := &countWriter{}
	m.term.out, m.term.bce = out, erasesInColour("xterm-256color") // as most players' terminals
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		*out = countWriter{}
		for b.Loop() {
			m.term.redraw()
			m.frameOK = false
			m.View()
		}
		b.ReportMetric(float64(out.n)/float64(out.writes), "bytes/frame")
	})
	b.Run("step", func(b *testing.B) {
		// Two views a square apart, as a knight walking east and back sees them.
		here := m.view
		there := here
		there.Self.Pos.X++
		views := [2]world.View{here, there}
		m.Update(viewMsg(here))
		m.View()
		b.ReportAllocs()
		*out = countWriter{}
		i := 0
		for b.Loop() {
			i++
			m.Update(viewMsg(views[i%2]))
			m.View()
		}
		b.ReportMetric(float64(out.n)/float64(out.writes), "bytes/frame")
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchTextSink = m.Text()
		}
		b.ReportMetric(float64(len(benchTextSink)), "bytes/frame")
	})
}

// BenchmarkRenderFrame80x24 draws the dungeon screen on the smallest terminal allowed.
func BenchmarkRenderFrame80x24(b *testing.B) { benchRender(b, 80, 24) }

// BenchmarkRenderFrame160x50 draws the dungeon screen on a large terminal.
func BenchmarkRenderFrame160x50(b *testing.B) { benchRender(b, 160, 50) }

// BenchmarkMapMemo measures the dungeon's map drawn from the level picture kept from the
// frame before (a frame of others' steps: the knight's square, sight and memory the
// same), and drawn afresh and kept (a frame of the knight's own step), at 80×17.
func BenchmarkMapMemo(b *testing.B) {
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	l := e.Level(1)
	room := largestRoom(l)
	all := allSquares(l)
	var memo mapMemo
	lp := levelPainter{l: l, shown: all, bright: all, dim: true, follow: true, memo: &memo}
	var c canvas
	c.blank(80, 17)
	lp.paint(&c, room[0])
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lp.paint(&c, room[0])
		}
	})
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			lp.paint(&c, room[i%len(room)])
		}
	})
}
