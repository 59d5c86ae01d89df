package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// encode writes views into chunks of per views each, as the recorder does.
func encode(t testing.TB, vs []world.View, per int) []Chunk {
	t.Helper()
	var out []Chunk
	start := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	for i := 0; i < len(vs); i += per {
		w := &writer{start: start.Add(time.Duration(vs[i].Turn) * 25 * time.Millisecond)}
		for _, v := range vs[i:min(i+per, len(vs))] {
			w.add(&v)
		}
		c := w.finish(25 * time.Millisecond)
		out = append(out, c)
	}
	return out
}

// The views a replay reads back show what the knight's own did: its place, its sight,
// its map, the monsters and knights in sight, the level, and its log.
func TestTimelineGivesBackTheViews(t *testing.T) {
	w := newTestWorld(t, nil)
	w.walk(world.East, world.South, world.West, world.North, world.East)
	if err := w.bors.Chat(w.ctx, world.Chat{Kind: world.ChatSay, Text: "well met"}); err != nil {
		t.Fatal(err)
	}
	w.walk(world.South, world.East)
	vs := w.kayViews.list()
	for _, per := range []int{1, 3, 100} {
		ms := Timeline(encode(t, vs, per), false)
		if len(ms) == 0 {
			t.Fatalf("chunks of %d: no moments", per)
		}
		got, want := ms[len(ms)-1].View, vs[len(vs)-1]
		if got.Self.Pos != want.Self.Pos || got.Self.Hits != want.Self.Hits || got.Self.Name != "Kay" {
			t.Errorf("chunks of %d: self %+v, want %+v", per, got.Self, want.Self)
		}
		if string(got.Visible) != string(want.Visible) || string(got.Known) != string(want.Known) {
			t.Errorf("chunks of %d: sight or map differ", per)
		}
		if got.Level == nil || got.Level.ASCII() != want.Level.ASCII() {
			t.Errorf("chunks of %d: the level differs", per)
		}
		if !slices.Equal(got.InSight(), want.InSight()) {
			t.Errorf("chunks of %d: in sight %v, want %v", per, got.InSight(), want.InSight())
		}
		if !slices.Equal(got.Log.Lines(), want.Log.Lines()) {
			t.Errorf("chunks of %d: log\n%q\nwant\n%q", per, got.Log.Lines(), want.Log.Lines())
		}
		if ms[len(ms)-1].At <= ms[0].At {
			t.Errorf("chunks of %d: times %v..%v", per, ms[0].At, ms[len(ms)-1].At)
		}
	}
}

// A public replay leaves out what was whispered to the knight and what it said to its
// party, and its options; its own replay keeps them.
func TestPublicTimelineDropsWhispers(t *testing.T) {
	w := newTestWorld(t, nil)
	w.walk(world.East)
	if err := w.bors.Chat(w.ctx, world.Chat{Kind: world.ChatWhisper, To: "Kay", Text: "the secret door is north"}); err != nil {
		t.Fatal(err)
	}
	if err := w.bors.Chat(w.ctx, world.Chat{Kind: world.ChatSay, Text: "hello all"}); err != nil {
		t.Fatal(err)
	}
	w.walk(world.West)
	chunks := encode(t, w.kayViews.list(), 2)
	own := Timeline(chunks, false)
	pub := Timeline(chunks, true)
	ownLog := strings.Join(own[len(own)-1].View.Log.Lines(), "\n")
	pubLog := strings.Join(pub[len(pub)-1].View.Log.Lines(), "\n")
	if !strings.Contains(ownLog, "Bors whispers: the secret door is north") {
		t.Errorf("own replay lacks the whisper:\n%s", ownLog)
	}
	if strings.Contains(pubLog, "secret door") {
		t.Errorf("public replay shows the whisper:\n%s", pubLog)
	}
	if !strings.Contains(pubLog, "Bors says: hello all") {
		t.Errorf("public replay lacks what was said aloud:\n%s", pubLog)
	}
}

// Last keeps the end of a timeline, starting it at 0.
func TestLastKeepsTheEnd(t *testing.T) {
	ms := []Moment{{At: 0}, {At: 5 * time.Second}, {At: 50 * time.Second}, {At: 70 * time.Second}}
	got := Last(ms, 30*time.Second)
	if len(got) != 2 || got[0].At != 0 || got[1].At != 20*time.Second {
		t.Fatalf("Last = %v", got)
	}
}

// runRecorder runs a recorder of 25 ms turns into a test sink until the test ends.
func runRecorder(t *testing.T) (*Recorder, *sink, context.Context) {
	s := &sink{}
	r := NewRecorder(s, 25*time.Millisecond, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go r.Run(ctx)
	return r, s, ctx
}

// The recorder hands a knight's views over in chunks, and on its death asks for the end
// of its record to be kept, with its name and privacy.
func TestRecorderChunksAndKeepsADeath(t *testing.T) {
	r, s, ctx := runRecorder(t)
	w := newTestWorld(t, r.For("K-kay"))
	w.walk(world.East, world.West)
	r.Flush(ctx)
	if n := len(s.of("K-kay")); n != 1 {
		t.Fatalf("%d chunks after a flush, want 1", n)
	}
	rec := r.For("K-kay")
	rec.Deliver(world.View{Turn: 900, Self: world.Self{Name: "Kay", Options: world.Options{PrivateReplays: true}}, Dead: &world.Death{Killer: "an Orc"}})
	r.Flush(ctx)
	s.mu.Lock()
	keeps := slices.Clone(s.keeps)
	s.mu.Unlock()
	if len(keeps) != 1 || keeps[0].Kind != KindDeath || keeps[0].Name != "Kay" || !keeps[0].Private || keeps[0].Window != DeathWindow {
		t.Fatalf("keeps = %+v", keeps)
	}
	if n := len(s.of("K-kay")); n != 2 {
		t.Fatalf("%d chunks after the death, want 2", n)
	}
	ms := Timeline(s.of("K-kay"), true)
	if last := ms[len(ms)-1].View; last.Dead == nil || last.Dead.Killer != "an Orc" {
		t.Fatalf("the last moment is not the death: %+v", last.Dead)
	}
}

// A key's next knight shares the id of the one before: its first view ends the last
// life's chunk, so every chunk is one life's (Born), and its death's keep names its life.
func TestRecorderCutsAChunkWhereALifeBegins(t *testing.T) {
	r, s, ctx := runRecorder(t)
	rec := r.For("K-cad")
	cador, cadoc := time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	rec.Deliver(world.View{Turn: 1, Self: world.Self{Name: "Cador", Born: cador}})
	rec.Deliver(world.View{Turn: 2, Self: world.Self{Name: "Cador", Born: cador}, Dead: &world.Death{Killer: "a Wolf"}})
	rec.Deliver(world.View{Turn: 3, Self: world.Self{Name: "Cador", Born: cador}, Dead: &world.Death{Killer: "a Wolf"}})
	rec.Deliver(world.View{Turn: 9, Self: world.Self{Name: "Cadoc", Born: cadoc}})
	rec.Deliver(world.View{Turn: 10, Self: world.Self{Name: "Cadoc", Born: cadoc}, Dead: &world.Death{Killer: "an Orc"}})
	r.Flush(ctx)
	var borns []time.Time
	for _, c := range s.of("K-cad") {
		borns = append(borns, c.Born)
		for _, m := range Timeline([]Chunk{c}, false) {
			if m.View.Self.Name != map[bool]string{true: "Cador", false: "Cadoc"}[c.Born.Equal(cador)] {
				t.Errorf("a chunk of the life born %v holds %s's view", c.Born, m.View.Self.Name)
			}
		}
	}
	if want := []time.Time{cador, cador, cadoc}; !slices.EqualFunc(borns, want, time.Time.Equal) {
		t.Fatalf("chunks of lives %v, want %v", borns, want)
	}
	s.mu.Lock()
	keeps := slices.Clone(s.keeps)
	s.mu.Unlock()
	if len(keeps) != 2 || !keeps[0].Born.Equal(cador) || !keeps[1].Born.Equal(cadoc) || keeps[1].Name != "Cadoc" {
		t.Fatalf("keeps = %+v", keeps)
	}
}

// A view that shows only others moving is left out within othersGap of the knight's last
// frame, but for the last one held, which ends the chunk; the knight's own steps are all
// kept, at their turns.
func TestRecorderLeavesOutOthersMovingBetweenFrames(t *testing.T) {
	r, s, ctx := runRecorder(t)
	rec := r.For("K-kay")
	self := world.Self{Name: "Kay", Pos: world.Pos{X: 3, Y: 3}}
	var sent []world.View
	for turn := range uint64(40) {
		v := world.View{Turn: turn, Self: self, Others: []world.Other{{Name: "Bors", Pos: world.Pos{X: int(turn % 9), Y: 1}}}}
		if turn%13 == 5 { // Kay steps
			self.Pos.X++
			v.Self = self
		}
		sent = append(sent, v)
		rec.Deliver(v)
	}
	r.Flush(ctx)
	ms := Timeline(s.of("K-kay"), false)
	gap := uint64(othersGap / (25 * time.Millisecond))
	var turns []uint64
	for i, m := range ms {
		turns = append(turns, m.View.Turn)
		if i > 0 && i < len(ms)-1 && m.View.Self.Pos == ms[i-1].View.Self.Pos && m.View.Turn-ms[i-1].View.Turn < gap {
			t.Errorf("turn %d: only Bors moved, %d turns after the frame before", m.View.Turn, m.View.Turn-ms[i-1].View.Turn)
		}
	}
	for _, v := range sent {
		if v.Turn%13 == 5 && !slices.Contains(turns, v.Turn) {
			t.Errorf("Kay's step at turn %d left out: frames at %v", v.Turn, turns)
		}
	}
	if len(ms) > 12 {
		t.Errorf("%d frames of 40 views: %v", len(ms), turns)
	}
	if last := ms[len(ms)-1].View.Turn; last != 39 {
		t.Errorf("the chunk ends at turn %d, not with the last view held (39)", last)
	}
}

// Lines others say in a crowd come a view a turn; the views between frames are held
// (gate.go), and their lines go with the next frame, or with the last view held when the
// recorder is flushed or the session leaves: every line is in the record, in order.
func TestRecorderKeepsEveryLineOfViewsLeftOut(t *testing.T) {
	r, s, ctx := runRecorder(t)
	rec := r.For("K-kay")
	self := world.Self{Name: "Kay", Pos: world.Pos{X: 3, Y: 3}}
	var log, kinds = []string{}, []world.MsgKind{}
	say := func(from, to uint64) {
		for turn := from; turn < to; turn++ {
			log = append(log, fmt.Sprintf("Bors says: line %d", turn))
			kinds = append(kinds, world.MsgGame)
			rec.Deliver(world.View{Turn: turn, Self: self, Log: world.LogOf(log, kinds), Said: uint64(len(log))})
		}
	}
	end := func(when string) {
		t.Helper()
		ms := Timeline(s.of("K-kay"), false)
		if max := len(log)/int(othersGap/(25*time.Millisecond)) + 3; len(ms) > max {
			t.Errorf("%s: %d frames for %d views of others' lines, want at most %d", when, len(ms), len(log), max)
		}
		if got := ms[len(ms)-1].View.Log.Lines(); !slices.Equal(got, log) {
			t.Fatalf("%s: the record's log ends with %q, want the %d lines said", when, got, len(log))
		}
	}
	say(0, 41)
	r.Flush(ctx)
	end("flushed")
	say(41, 60)
	r.Cut("K-kay")
	end("left")
}

// CutIdle cuts every stretch longer than its limit to the limit, bringing the later
// moments forward, and leaves the shorter ones; with no limit it cuts nothing.
func TestCutIdleCutsLongStretches(t *testing.T) {
	at := func(ds ...time.Duration) []Moment {
		ms := make([]Moment, len(ds))
		for i, d := range ds {
			ms[i].At = d
		}
		return ms
	}
	s := time.Second
	got := CutIdle(at(0, s, 61*s, 62*s, 200*s), IdleCut)
	want := at(0, s, 3*s, 4*s, 6*s)
	if !slices.EqualFunc(got, want, func(a, b Moment) bool { return a.At == b.At }) {
		t.Fatalf("cut: %v, want %v", got, want)
	}
	if got := CutIdle(at(0, 61*s), 0); got[1].At != 61*s {
		t.Fatalf("no limit cut %v", got[1].At)
	}
}
