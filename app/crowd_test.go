package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What a walking knight costs is mostly its frames in a crowd (docs/PERFORMANCE.md,
// "Where the memory goes"): every other knight's step and every line said near it is a
// view, read for its calls (alert.go) and drawn. crowdViews makes such views by hand, so
// that a benchmark or an allocation count measures the session alone.

// crowdSize is how many other knights the crowd's views show in sight.
const crowdSize = 24

// crowdLog is a knight's message log in a crowd: most lines others saying things (one in
// four naming the knight), some arriving and leaving.
func crowdLog(n int, self string) []string {
	log := make([]string, n)
	for i := range log {
		name := crowdName(i % crowdSize)
		switch i % 8 {
		case 0:
			log[i] = name + " says: " + self + ", over here, the stairs are east"
		case 1:
			log[i] = name + " arrives."
		case 2:
			log[i] = name + " says: has anyone seen the troll on level two?"
		case 3:
			log[i] = name + " shouts: Gold in the north room! Come quickly, friends"
		case 4:
			log[i] = "[newbie] " + name + ": how do I open a locked door?"
		case 5:
			log[i] = name + " says: okay, " + self + "s are everywhere today"
		case 6:
			log[i] = name + " leaves."
		default:
			log[i] = name + " says: Ça va, " + self + "?"
		}
	}
	return log
}

// crowdName is the name of the crowd's knight i.
func crowdName(i int) string {
	names := [...]string{"Gawain", "Percival", "Lancelot", "Tristan", "Galahad", "Gareth", "Lamorak", "Bors", "Ywain", "Dagonet", "Ector", "Pelleas"}
	return fmt.Sprintf("%s %d", names[i%len(names)], i)
}

// crowdViews are frames views of a knight named self in the largest room of level 1 of
// e, crowdSize others around it (several to a square in a small room): in each the
// others step, a line is said (the log is the newest 200 lines, one more each view), and
// every other one the knight itself steps east or back west.
func crowdViews(tb testing.TB, e *world.Engine, self string, frames int) []world.View {
	tb.Helper()
	return crowdViewsOf(tb, e, self, frames, crowdSize)
}

// crowdViewsOf is crowdViews with n others.
func crowdViewsOf(tb testing.TB, e *world.Engine, self string, frames, n int) []world.View {
	tb.Helper()
	l := e.Level(1)
	room := largestRoom(l)
	if len(room) < 4 {
		tb.Fatalf("largest room of level 1 has %d squares", len(room))
	}
	const logLen = 200
	log := crowdLog(logLen+frames, self)
	kinds := make([]world.MsgKind, len(log))
	for i, line := range log {
		if line[0] == '[' {
			kinds[i] = world.MsgChannel
		}
	}
	known := allSquares(l)
	here := room[len(room)/2]
	// Each frame's log is the logLen lines up to its own, written as the world writes
	// them: the views share the writer's chunks.
	lw := world.LogWriter{Max: logLen}
	for i := range logLen - 1 {
		lw.Add(log[i], kinds[i])
	}
	views := make([]world.View, frames)
	for f := range views {
		lw.Add(log[f+logLen-1], kinds[f+logLen-1])
		others := make([]world.Other, n)
		for i := range others {
			others[i] = world.Other{Name: crowdName(i), Pos: room[(i+f)%len(room)]}
		}
		me := here
		if f%4 >= 2 {
			me.X++
		}
		views[f] = world.View{
			Turn: uint64(f),
			Self: world.Self{Name: self, Level: 3, Hits: 12, MaxHits: 15, SpellUnits: 8,
				Str: 14, Int: 12, Con: 11, Dex: 15, Depth: 1, Pos: me},
			Level: l, Visible: known, Known: known,
			Others: others,
			Log:    lw.Log(),
			Said:   uint64(logLen + f),
		}
	}
	return views
}

// crowdModel is a session of Bedivere's on the dungeon screen at w×h, writing its frames
// to out, with the first of views drawn.
func crowdModel(tb testing.TB, views []world.View, w, h int, out io.Writer) *Model {
	tb.Helper()
	m := playModel(tb, nil, "SHA256:bedivere", Params{Width: w, Height: h, Out: out})
	m.bt.to = &recorder{}
	m.screen, m.synced = screenPlay, true
	m.term.bce = erasesInColour("xterm-256color")
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	crowdFrame(m, views[0])
	return m
}

// crowdFrame takes v as the session's loop does (the view slot, then its message) and
// draws it.
func crowdFrame(m *Model, v world.View) {
	m.views.Deliver(v)
	m.Update(viewReadyMsg{})
	m.View()
}

// crowdFrames is how many views the crowd benchmark cycles through.
const crowdFrames = 64

// BenchmarkCrowdFrame measures a walking knight's frame in a crowd at 80×24: a view
// taken, its new line read for calls, the dungeon screen drawn and its changes written.
func BenchmarkCrowdFrame(b *testing.B) {
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	views := crowdViews(b, e, "Bedivere", crowdFrames)
	out := &countWriter{}
	m := crowdModel(b, views, 80, 24, out)
	said := views[len(views)-1].Said
	b.ReportAllocs()
	*out = countWriter{}
	i := 0
	for b.Loop() {
		// The views come round again with their count going on, as a log's does.
		v := views[i%len(views)]
		v.Said = said + uint64(i)
		m.alert.lastKey = m.now() // the knight walks: its keys keep the calls seen
		crowdFrame(m, v)
		i++
	}
	b.ReportMetric(float64(out.n)/float64(max(out.writes, 1)), "bytes/frame")
}

// frameCost is what frame makes a call: its allocations, its bytes, and its blocks of
// bigBlock bytes or more (a canvas's cells, a screen's bytes). The bytes and the blocks
// are the fewest of five tries (another test's goroutine allocating meanwhile only adds
// to them), with no collection while measured (one empties the frames' pools, and the
// next frame's cells are made anew: the collector's cost, not the frame's).
func frameCost(runs int, frame func()) (allocs, bytes, big float64) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	frame()
	bytes, big = fewestAllocated(runs, frame)
	return testing.AllocsPerRun(runs, frame), bytes, big
}

// fewestAllocated is the bytes f allocates a call, and its blocks of bigBlock bytes or
// more (blocks over the largest size class count as none: the bytes show them), each
// the fewest of five tries of runs calls: another test's goroutine allocating meanwhile
// only adds to them.
func fewestAllocated(runs int, f func()) (bytes, big float64) {
	bytes, big = math.MaxFloat64, math.MaxFloat64
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		bytes = min(bytes, float64(after.TotalAlloc-before.TotalAlloc)/float64(runs))
		n := uint64(0)
		for i, c := range after.BySize {
			if c.Size >= bigBlock {
				n += c.Mallocs - before.BySize[i].Mallocs
			}
		}
		big = min(big, float64(n)/float64(runs))
	}
	return bytes, big
}

// bigBlock is the least size frameCost counts as a big block.
const bigBlock = 4096

// crowdLoop is a frame function for m over views, the view's count going on, as the
// knight walks (its keys keep the calls seen).
func crowdLoop(m *Model, views []world.View) func() {
	i := 0
	return func() {
		v := views[i%len(views)]
		v.Said = 1000 + uint64(i)
		m.alert.lastKey = m.now()
		crowdFrame(m, v)
		i++
	}
}

// A walking knight's frame in a crowd that stands still makes nothing: the view's new
// line read for calls in place, the level's picture and the screen's cells from the
// pools and back, the bytes written in the terminal's own buffer. Each was made anew
// for every frame: the line lowered, the calls' slice, the pools' handles.
func TestACrowdFrameMakesNothing(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	views := crowdViews(t, e, "Bedivere", 8)
	for i := range views {
		views[i].Others = views[0].Others // the others stand; the knight walks and hears
	}
	m := crowdModel(t, views, 80, 24, io.Discard)
	frame := crowdLoop(m, views)
	for range views {
		frame()
	}
	if allocs, bytes, _ := frameCost(64, frame); allocs != 0 {
		t.Errorf("a frame in a crowd standing still makes %.1f allocations, %.0f bytes; want none", allocs, bytes)
	}
}

// With the crowd walking too, a frame makes only the text of the lines under the view,
// when the names in sight change.
func TestACrowdWalkingFrameMakesOnlyTheLinesUnderTheView(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	views := crowdViews(t, e, "Bedivere", crowdFrames)
	m := crowdModel(t, views, 80, 24, io.Discard)
	frame := crowdLoop(m, views)
	for range views {
		frame()
	}
	allocs, bytes, _ := frameCost(len(views), frame)
	text := len(m.dun.under.wrapped)
	if allocs > 1 || bytes > float64(text+text/4) {
		t.Errorf("a frame in a walking crowd makes %.2f allocations, %.0f bytes; want 1 at most, and the lines' text (%d bytes)", allocs, bytes, text)
	}
}

// worldCrowdViews are the views the world sends a knight named self standing among
// crowdSize others in the largest room of level 1 of a running world: the others walk
// and say its name in turn, and it steps now and then. Their knights in sight come from
// the level's crowd, shared by the views of a turn, as the server's do.
func worldCrowdViews(t *testing.T, self string) []world.View {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// Level 1 restored with no monster on it, and none wandering in: no battle comes to
	// the room.
	seed := world.New(world.Config{Seed: 1977, Depth: 3}).Level(1).Seed
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1,
		Levels: []world.LevelState{{Depth: 1, Seed: seed, Guards: 1 << 10}}})
	room := largestRoom(e.Level(1))
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	stats := world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}
	others := make([]*world.Player, crowdSize)
	for i := range others {
		rec := world.NewAdventurer(fmt.Sprintf("SHA256:crowd%d", i), crowdName(i), stats, 10)
		rec.X, rec.Y = room[i%len(room)].X, room[i%len(room)].Y
		p, err := e.Join(ctx, rec, NewViewSlot())
		if err != nil {
			t.Fatal(err)
		}
		others[i] = p
	}
	slot := NewViewSlot()
	rec := world.NewAdventurer("SHA256:"+self, self, stats, 11)
	rec.X, rec.Y = room[0].X, room[0].Y
	me, err := e.Join(ctx, rec, slot)
	if err != nil {
		t.Fatal(err)
	}
	var views []world.View
	ways := []world.Dir{world.West, world.East, world.North, world.South}
	for f := range 200 {
		o := others[f%len(others)]
		if f%3 == 0 {
			err = o.Chat(ctx, world.Chat{Kind: world.ChatSay, Text: self + ", over here"})
		} else {
			err = o.Do(ctx, world.Move{Dir: ways[f%4]})
		}
		if err == nil && f%5 == 0 {
			err = me.Do(ctx, world.Move{Dir: ways[(f/5)%2]})
		}
		if err != nil {
			t.Fatal(err)
		}
		tick <- time.Time{}
		if _, err := e.Who(ctx); err != nil { // the turn is done
			t.Fatal(err)
		}
		if v, ok := slot.Take(); ok {
			if v.Fight != nil || len(v.LastFight) > 0 {
				t.Fatalf("a battle in the crowd's room, view %d", len(views))
			}
			views = append(views, v)
		}
	}
	if len(views) < 20 || len(views[len(views)-1].InSight()) < crowdSize/2 {
		t.Fatalf("%d views, the last with %d knights in sight", len(views), len(views[len(views)-1].InSight()))
	}
	return views
}

// The world's own views of a walking crowd, talking, make nothing in the session that
// draws them (5 allocations and 281 bytes a frame before the calls were read in place
// and the pools' handles kept).
func TestAFrameOfTheWorldsWalkingCrowdMakesNothing(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	views := worldCrowdViews(t, "Bedivere")
	m := crowdModel(t, views, 80, 24, io.Discard)
	i := 0
	frame := func() { // the views come round again, their count going on
		v := views[i%len(views)]
		v.Said += uint64(i/len(views)) * 1000
		m.alert.lastKey = m.now()
		crowdFrame(m, v)
		i++
	}
	for range views {
		frame()
	}
	if allocs, bytes, _ := frameCost(len(views), frame); allocs != 0 {
		t.Errorf("a frame of the world's walking crowd makes %.1f allocations, %.0f bytes; want none", allocs, bytes)
	}
}
