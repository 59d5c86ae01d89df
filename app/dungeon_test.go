package app

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A crowd in sight would take more lines than the view can spare: the first knights are
// named, whole, and the rest counted, in at most four lines at 80×24.
func TestACrowdInSightIsCounted(t *testing.T) {
	v := crowdedView(t)
	v.Self.Effects, v.Watchers = nil, nil
	for i := range 40 {
		v.Others = append(v.Others, world.Other{Name: fmt.Sprintf("Knight %d the Tall", i), Pos: world.Pos{X: 10, Y: 1}})
	}
	l := layoutPlay(v, v.InSight(), 80, 24, "", "", nil, nil)
	if len(l.under) != underMax(24) {
		t.Fatalf("the lines under the view take %d rows, want %d: %q", len(l.under), underMax(24), l.under)
	}
	m, _ := viewModel(t, v, 80, 24)
	s := m.Text()
	text := area(s, 0, 80)
	shown := regexp.MustCompile(`In sight: (.*) and (\d+) more \(w lists everyone\)\.`).FindStringSubmatch(text)
	if shown == nil {
		t.Fatalf("the crowd is not counted:\n%s", s)
	}
	names := strings.Split(shown[1], ", ")
	if n, _ := strconv.Atoi(shown[2]); len(names)+n != 41 || len(names) < 2 {
		t.Fatalf("%d named and %s counted of 41:\n%s", len(names), shown[2], s)
	}
	for i, n := range names {
		if want := v.Others[1+i].Name; i > 0 && n != want {
			t.Errorf("knight %d in sight is named %q, want %q", i, n, want)
		}
	}
}

// The lines under the view are wrapped once for the same text at the same size, and again
// when either changes: a knight more in sight, a narrower screen.
func TestTheLinesUnderTheViewAreWrappedOnceForTheSameText(t *testing.T) {
	v := crowdedView(t)
	for i := range 40 {
		v.Others = append(v.Others, world.Other{Name: fmt.Sprintf("Knight %d the Tall", i), Pos: world.Pos{X: 10, Y: 1}})
	}
	var memo underMemo
	first := underLines(v, 80, 4, &memo)
	again := underLines(v, 80, 4, &memo)
	if len(first) == 0 || &first[0] != &again[0] {
		t.Fatal("the same text at the same size was wrapped again")
	}
	first = keptLines(first) // the memo's lines are good until it makes new ones
	for what, got := range map[string][]string{
		"a knight more": keptLines(underLines(func() world.View {
			w := v
			w.Others = append(slices.Clone(v.Others), world.Other{Name: "Gawain", Pos: world.Pos{X: 10, Y: 1}})
			return w
		}(), 80, 4, &memo)),
		"a narrower screen": keptLines(underLines(v, 60, 4, &memo)),
		"fewer rows":        keptLines(underLines(v, 80, 2, &memo)),
	} {
		if slices.Equal(got, first) {
			t.Errorf("%s: the lines are the old ones: %q", what, got)
		}
	}
	if got, want := underLines(v, 60, 4, &memo), underLines(v, 60, 4, nil); !slices.Equal(got, want) {
		t.Fatalf("with the memo %q, without %q", got, want)
	}
}

// A crowd whose knights change places among those counted, not named, has the same
// lines under the view: they are not made again (the text alone is built, in the memo's
// buffer, and compared), as a crowd walking by past the names shown does on most frames.
func TestTheSameLinesUnderACrowdAreNotMadeAgain(t *testing.T) {
	v := crowdedView(t)
	v.Self.Effects, v.Watchers = nil, nil
	for i := range 40 {
		v.Others = append(v.Others, world.Other{Name: fmt.Sprintf("Knight %d the Tall", i), Pos: world.Pos{X: 10, Y: 1}})
	}
	var memo underMemo
	first := keptLines(underLines(v, 80, 4, &memo))
	if !strings.Contains(strings.Join(first, " "), "more (w lists everyone)") {
		t.Fatalf("the crowd is named whole: %q", first)
	}
	// The last two knights (counted, not named) swap places, over and over.
	n := len(v.Others)
	swap := func() {
		v.Others[n-1], v.Others[n-2] = v.Others[n-2], v.Others[n-1]
		if got := underLines(v, 80, 4, &memo); !slices.Equal(got, first) {
			t.Fatalf("the lines changed: %q, were %q", got, first)
		}
	}
	if allocs := testing.AllocsPerRun(20, swap); allocs != 0 {
		t.Errorf("the same lines under the view for a crowd in another order make %.1f allocations, want none", allocs)
	}
}

// keptLines copies lines the memo made, their text too: the memo's lines are views of
// its own buffers, good until its next call but one.
func keptLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Clone(l)
	}
	return out
}

// A crowd walking through sight changes the knights the lines under the view name on
// most frames: the text is wrapped again each time, in the memo's own buffers, making
// nothing, and the lines of the last call stay as they were through the next.
func TestLinesUnderACrowdWalkingThroughSightMakeNothing(t *testing.T) {
	v := crowdedView(t)
	v.Self.Effects, v.Watchers = nil, nil
	w := v
	for i := range 3 {
		v.Others = append(v.Others, world.Other{Name: fmt.Sprintf("Knight %d the Tall", i), Pos: world.Pos{X: 10, Y: 1}})
		w.Others = append(w.Others, world.Other{Name: fmt.Sprintf("Knight %d the Short", i), Pos: world.Pos{X: 10, Y: 1}})
	}
	want := [2][]string{keptLines(underLines(v, 40, 4, nil)), keptLines(underLines(w, 40, 4, nil))}
	var memo underMemo
	var last []string
	i := 0
	walk := func() {
		views := [2]world.View{v, w}
		got := underLines(views[i%2], 40, 4, &memo)
		if !slices.Equal(got, want[i%2]) {
			t.Fatalf("call %d: the lines are %q, want %q", i, got, want[i%2])
		}
		if last != nil && !slices.Equal(last, want[(i+1)%2]) {
			t.Fatalf("call %d: the last call's lines changed to %q", i, last)
		}
		last = append(last[:0], got...) // the strings, not their bytes: the memo reuses its slice
		i++
	}
	walk()
	walk()
	if allocs := testing.AllocsPerRun(20, walk); allocs != 0 {
		t.Errorf("lines under the view wrapped again make %.1f allocations, want none", allocs)
	}
}

// The status line and the newest messages are wrapped once for the same text at the same
// size, and again when anything they show changes.
func TestStatusAndMessagesAreWrappedOnceForTheSameText(t *testing.T) {
	v := crowdedView(t)
	v.Self.Status = []string{"stuck (5 tries)"}
	v.Log = world.LogOf([]string{"You hear a door creak somewhere below.", "A Rot Grub guards the treasure.", "You swing and miss."}, nil)
	var memo underMemo
	status, msgs := memo.statusLines(v.Self, "", 80), memo.messageLines(v.Log.Lines(), 80, msgLines, msgLines)
	if s, m := memo.statusLines(v.Self, "", 80), memo.messageLines(v.Log.Lines(), 80, msgLines, msgLines); &s[0] != &status[0] || &m[0] != &msgs[0] {
		t.Fatal("the same status and messages at the same size were wrapped again")
	}
	statusChanges := map[string]func(*world.Self){
		"name": func(s *world.Self) { s.Name += "x" }, "level": func(s *world.Self) { s.Level++ },
		"hits": func(s *world.Self) { s.Hits-- }, "max hits": func(s *world.Self) { s.MaxHits++ },
		"spells": func(s *world.Self) { s.SpellUnits++ }, "experience": func(s *world.Self) { s.Experience++ },
		"depth": func(s *world.Self) { s.Depth++ }, "letters": func(s *world.Self) { s.Unread++ },
		"feature": func(s *world.Self) { s.Feature = world.FeatStairsDown }, "away": func(s *world.Self) { s.Away = !s.Away },
		"condition": func(s *world.Self) { s.Status = []string{"stuck (4 tries)"} },
	}
	for what, change := range statusChanges {
		s := v.Self
		change(&s)
		if got, want := memo.statusLines(s, "", 80), statusLines(s, "", 80); !slices.Equal(got, want) {
			t.Errorf("%s changed: the status line is %q, want %q", what, got, want)
		}
	}
	for i, change := range []func(*world.Self){
		func(s *world.Self) { s.Str++ }, func(s *world.Self) { s.Int++ }, func(s *world.Self) { s.Con-- }, func(s *world.Self) { s.Dex += 2 },
	} {
		s := v.Self
		change(&s)
		if got, want := memo.statsLine(s), fmt.Sprintf("Str %d  Int %d  Con %d  Dex %d", s.Str, s.Int, s.Con, s.Dex); got != want {
			t.Errorf("stat %d changed: the header says %q, want %q", i, got, want)
		}
	}
	if got, want := memo.statusLines(v.Self, "", 30), statusLines(v.Self, "", 30); !slices.Equal(got, want) {
		t.Errorf("a narrower screen: the status line is %q, want %q", got, want)
	}
	for what, ms := range map[string][]string{
		"a new message":  append(slices.Clone(v.Log.Lines()), "You killed the Rot Grub."),
		"a line changed": {v.Log.Lines()[0], v.Log.Lines()[1], "You swing and hit."},
	} {
		if got, want := memo.messageLines(ms, 80, msgLines, msgLines), messageLines(world.LogOf(ms, nil), 80, msgLines); !slices.Equal(got, want) {
			t.Errorf("%s: the messages are %q, want %q", what, got, want)
		}
	}
	if got, want := memo.messageLines(v.Log.Lines(), 20, msgLines, msgLines), messageLines(v.Log, 20, msgLines); !slices.Equal(got, want) {
		t.Errorf("a narrower screen: the messages are %q, want %q", got, want)
	}
	if got, want := memo.messageLines(v.Log.Lines(), 20, 2, 2), messageLines(v.Log, 20, 2); !slices.Equal(got, want) {
		t.Errorf("fewer rows: the messages are %q, want %q", got, want)
	}
}

// A crowd walking past changes the names in sight from frame to frame: the lines drawn
// with the memo (which tries last frame's number of names first) are those drawn afresh,
// frame after frame, as knights come, go and change places.
func TestTheLinesUnderAWalkingCrowdAreTheSameWithTheMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var memo underMemo
	var others []world.Other
	for frame := range 3000 {
		switch {
		case frame%50 == 0: // a new crowd
			others = nil
			for i := range r.IntN(150) {
				name := fmt.Sprintf("%s%d", []string{"Gawain", "Li", "世界王", "Percivale the Bold"}[r.IntN(4)], i)
				others = append(others, world.Other{Name: name, Pos: world.Pos{X: 1 + r.IntN(5), Y: r.IntN(5)}})
			}
		case len(others) > 0: // one knight of it steps away and another comes, or two come
			others = slices.Clone(others)
			others[r.IntN(len(others))].Name = fmt.Sprintf("Knight%d", r.IntN(1000))
			if r.IntN(2) == 0 {
				others = append(others, world.Other{Name: "Bors", Pos: world.Pos{X: 2}})
			}
		}
		v := world.View{Others: others}
		if r.IntN(3) == 0 {
			v.Watchers = []string{"Merlin", "Morgan"}
		}
		w, most := 80, 4
		if frame%50 == 0 {
			w, most = 20+r.IntN(140), 1+r.IntN(8)
		}
		if got, want := underLines(v, w, most, &memo), underLines(v, w, most, nil); !slices.Equal(got, want) {
			t.Fatalf("frame %d (%d in sight, %d columns, %d lines): with the memo %q, afresh %q", frame, len(others), w, most, got, want)
		}
	}
}

// The lines under the view name the most knights in sight that fit in their lines,
// whatever number was named last time: the search finds what trying every number finds.
func TestTheLinesUnderTheViewNameAllThatFit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		var others []string
		for i := range r.IntN(60) {
			others = append(others, fmt.Sprintf("%s%d", []string{"Gawain", "Li", "世界王", "Percivale the Bold"}[r.IntN(4)], i))
		}
		w, most := 20+r.IntN(100), 1+r.IntN(6)
		text := func(k int) []byte {
			s := "Watched by Merlin. "
			switch {
			case k > 0:
				s += "In sight: " + strings.Join(others[:k], ", ")
				if k < len(others) {
					s += fmt.Sprintf(" and %d more (w lists everyone)", len(others)-k)
				}
				s += "."
			case len(others) > 0:
				s += fmt.Sprintf("In sight: %d knights (w lists everyone).", len(others))
			}
			return []byte(strings.TrimRight(s, " "))
		}
		want := 0
		for k := len(others); k > 0; k-- {
			if _, ok := wrapUpTo(string(text(k)), w, 0, most); ok {
				want = k
				break
			}
		}
		if got := underWrap(text, others, w, most, r.IntN(len(others)+2)); got != want {
			t.Fatalf("%d in sight, %d columns, %d lines: named %d; trying every number names %d", len(others), w, most, got, want)
		}
	}
}

// The status line made again (a number on it changed) makes its fields and its line, and
// nothing for each field joined to the line (14 allocations and 448 bytes before, 9 and
// 248 now).
func TestAStatusLineMadeAgainMakesLittle(t *testing.T) {
	s := world.Self{Name: "Bedivere", Level: 3, Hits: 12, MaxHits: 15, SpellUnits: 8, Experience: 1234, Depth: 2}
	var memo underMemo
	i := 0
	change := func() {
		s.Hits = 10 + i%5
		i++
		if got := memo.statusLines(s, "", 80); len(got) != 1 || !strings.HasPrefix(got[0], "Bedivere │ Level 3 │ Hits 1") {
			t.Fatalf("the status line is %q", got)
		}
	}
	if allocs := testing.AllocsPerRun(20, change); allocs > 9 {
		t.Errorf("a status line made again makes %.0f allocations, want 9 at most", allocs)
	}
}
