package app

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// typingField is a text field of the game on its screen: how to open it, the field, and
// where its line is drawn (from column x, in the width less cut columns; the
// screen-reader line is printed, not drawn).
type typingField struct {
	name  string
	open  func(t *testing.T, w, h int) *Model
	field func(m *Model) *lineInput
	lead  string // typed before the line's text (a letter's command)
	x     int
	cut   int
	end   func(m *Model) string
	plain bool
}

// onDungeon is a knight on the dungeon screen, w×h, with keys pressed.
func onDungeon(ks ...string) func(t *testing.T, w, h int) *Model {
	return func(t *testing.T, w, h int) *Model {
		m, _ := viewModel(t, crowdedView(t), w, h)
		m.p.Admin = func(string) (string, bool) { return "", true }
		keys(m, ks...)
		return m
	}
}

func underscore(*Model) string { return "_" }

// typingFields are every text field of the game.
var typingFields = []typingField{
	{name: "chat line", open: onDungeon("enter"), field: func(m *Model) *lineInput { return &m.chat.input }, end: underscore},
	{name: "letter", open: func(t *testing.T, w, h int) *Model {
		m := onDungeon()(t, w, h)
		m.openChatWith("/mail Gawain ")
		return m
	}, field: func(m *Model) *lineInput { return &m.chat.input }, lead: "/mail Gawain ", end: underscore},
	{name: "console", open: onDungeon(":"), field: func(m *Model) *lineInput { return &m.console.input }, end: func(m *Model) string {
		if m.console.busy {
			return "_  (running...)"
		}
		return "_"
	}},
	{name: "name prompt", open: func(t *testing.T, w, h int) *Model {
		m := playModel(t, nil, "SHA256:namer", Params{Width: w, Height: h})
		m.screen = screenRoll
		keys(m, "enter")
		return m
	}, field: func(m *Model) *lineInput { return &m.rolled.name }, x: 4, cut: 6, end: underscore},
	{name: "mute list", open: onDungeon("o", "f"), field: func(m *Model) *lineInput { return &m.optScreen.mute }, x: 4, cut: 6, end: underscore},
	{name: "screen-reader line", open: func(t *testing.T, w, h int) *Model {
		m := onDungeon()(t, w, h)
		m.pl.active = true
		return m
	}, field: func(m *Model) *lineInput { return &m.pl.line }, plain: true},
}

// fill makes the field's line lead and text, its limit lifted.
func (f typingField) fill(m *Model, text string) {
	l := f.field(m)
	l.limit = 0
	l.set(f.lead + text)
}

// typingCost is what typing a letter and erasing it costs on m, drawing the frame after
// each key as a session does: the runes the field measured, moved or copied, the
// allocations and the bytes allocated, each a pair of keys.
func typingCost(m *Model, l *lineInput) (work, allocs, bytes float64) {
	// No collection while measuring: one empties the frames' pools (sync.Pool), and the
	// next frame's cells are allocated anew, which is the collector's cost, not the key's.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	x, back := tea.KeyPressMsg{Code: 'x', Text: "x"}, namedKeys["backspace"]
	pair := func() {
		m.Update(x)
		m.View()
		m.Update(back)
		m.View()
	}
	pair()
	const runs = 10
	w0 := l.work
	for range runs {
		pair()
	}
	work = float64(l.work-w0) / runs
	bytes, _ = fewestAllocated(runs, pair) // the process's bytes: the fewest of a few tries
	return work, testing.AllocsPerRun(runs, pair), bytes
}

// A key costs the same on a line of 10,000 runes as on one of 200 (both longer than the
// screen is wide): on every text field, typing a letter and erasing it, each with its
// frame, measures and copies as many runes and allocates as often and as much. Drawing
// the whole line again for each key (its tail cut a rune at a time) had one client
// typing at the key rate take a core; this holds the work to the screen's width.
func TestTypingCostsTheSameOnAnyLine(t *testing.T) {
	for _, f := range typingFields {
		var cost [2][3]float64
		for i, n := range []int{200, 10000} {
			m := f.open(t, 80, 24)
			m.term.out, m.term.bce = &countWriter{}, true
			m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
			f.fill(m, strings.Repeat("abcdefghij", n/10))
			m.View()
			cost[i][0], cost[i][1], cost[i][2] = typingCost(m, f.field(m))
		}
		short, long := cost[0], cost[1]
		t.Logf("%s: a letter and a backspace at 200 runes: %v runes of work, %v allocations, %v bytes; at 10,000: %v, %v, %v",
			f.name, short[0], short[1], short[2], long[0], long[1], long[2])
		if long[0] != short[0] || long[0] > 2*(80+20) {
			t.Errorf("%s: a letter and a backspace take %v runes of work at 10,000 runes, %v at 200: the work grows with the line", f.name, long[0], short[0])
		}
		if raceDetector {
			// The race detector's sync.Pool drops fmt's buffers at random, so the
			// allocations counted vary run to run; the runes of work above do not.
			continue
		}
		if long[1] != short[1] {
			t.Errorf("%s: a letter and a backspace allocate %v times at 10,000 runes, %v at 200", f.name, long[1], short[1])
		}
		if long[2] > short[2]+512 {
			t.Errorf("%s: a letter and a backspace allocate %v bytes at 10,000 runes, %v at 200", f.name, long[2], short[2])
		}
	}
}

// tailBefore is how the line's end was cut before a key's cost was bounded: runes taken
// off its start, one at a time, until the rest fits in w columns.
func tailBefore(in string, w int) string {
	r := []rune(in)
	for len(r) > 0 && textWidth(string(r)) > w {
		r = r[1:]
	}
	return string(r)
}

// promptLineBefore is how screen-reader mode's line was shown on a terminal w wide.
func promptLineBefore(line string, w int) string {
	if r := []rune(line); w > 0 && len(r) >= w {
		return string(r[len(r)-w+1:])
	}
	return line
}

// A line of 10,000 runes, wide ones and combining marks among them, is drawn as it was
// before, on every field at 40, 80 and 160 columns: the end of the line that fits, the
// cursor after it, and nothing drawn off the screen.
func TestALongLineDrawsTheTailItDrewBefore(t *testing.T) {
	text := typedText(10000)
	// tailBefore takes a second a line of 10,000 runes. It cuts at the same rune in the
	// line's last 2,000, which are wider than any screen here: it is given those.
	last := string([]rune(text)[10000-2000:])
	if textWidth(last) <= 160 {
		t.Fatalf("the line's last 2,000 runes are %d columns", textWidth(last))
	}
	for _, f := range typingFields {
		for _, sz := range [][2]int{{40, 20}, {80, 24}, {160, 50}} {
			w, h := sz[0], sz[1]
			what := fmt.Sprintf("%s at %d×%d", f.name, w, h)
			m := f.open(t, w, h)
			f.fill(m, text)
			if f.plain {
				if got, want := m.promptLine(), promptLineBefore(plainPrompt+text, w); got != want {
					t.Errorf("%s: the line shows\n%q, want\n%q", what, got, want)
				}
				continue
			}
			cols := w - f.cut
			row := newCanvas(cols, 1)
			row.text(0, 0, tailBefore(last+f.end(m), cols), clsSelf)
			want := strings.Repeat(" ", f.x) + strings.TrimRight(row.render(m.theme, true), " ")
			s := frameOf(t, f.name, m)
			found := false
			for _, l := range strings.Split(s, "\n") {
				found = found || strings.TrimRight(l, " ") == want
			}
			if !found {
				t.Errorf("%s: no row is the line's tail\n%q; the screen:\n%s", what, want, s)
			}
		}
	}
}

// The field edits as bubbles' textinput did, which the fields used before: moving by a
// rune and by a word, erasing a rune, a word and to either end, typing in the middle,
// pasted text cleaned, and the limit.
func TestLineInputEdits(t *testing.T) {
	type step struct {
		key  string // a key's name, or text to type
		want string // the line after it, "|" at the cursor
	}
	k := func(s string) tea.KeyPressMsg {
		if msg, ok := namedKeys[s]; ok {
			return msg
		}
		mods := map[string]tea.KeyMod{"ctrl": tea.ModCtrl, "alt": tea.ModAlt}
		if mod, key, ok := strings.Cut(s, "+"); ok && mods[mod] != 0 {
			codes := map[string]rune{"left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete}
			code, named := codes[key]
			if !named {
				code = rune(key[0])
			}
			return tea.KeyPressMsg{Code: code, Mod: mods[mod]}
		}
		return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
	}
	shown := func(l *lineInput) string {
		b := make([]rune, 0, l.size()+1)
		b = append(b, l.before.r...)
		b = append(b, '|')
		for i := len(l.after.r) - 1; i >= 0; i-- {
			b = append(b, l.after.r[i])
		}
		return string(b)
	}
	l := lineInput{limit: 20}
	l.insert("go north\tnow\x07")
	if got := shown(&l); got != "go north now|" {
		t.Fatalf("typed: %q", got)
	}
	for _, s := range []step{
		{"alt+b", "go north |now"}, {"ctrl+left", "go |north now"}, {"left", "go| north now"},
		{"ctrl+f", "go |north now"}, {"alt+f", "go north| now"}, {"right", "go north |now"},
		{"home", "|go north now"}, {"end", "go north now|"}, {"ctrl+a", "|go north now"},
		{"alt+d", "| north now"}, {"ctrl+e", " north now|"}, {"ctrl+w", " north |"},
		{"ctrl+w", "|"}, {"a", "a|"}, {"b", "ab|"}, {"left", "a|b"}, {"alt+d", "a|"},
		{"c", "ac|"}, {"left", "a|c"}, {"x", "ax|c"}, {"backspace", "a|c"}, {"delete", "a|"},
		{"ctrl+b", "|a"}, {"ctrl+d", "|"}, {"ctrl+h", "|"},
	} {
		l.key(k(s.key))
		if got := shown(&l); got != s.want {
			t.Fatalf("after %s: %q, want %q", s.key, got, s.want)
		}
	}
	l.insert("one two three four five six")
	if got := shown(&l); got != "one two three four f|" {
		t.Fatalf("typed past the limit: %q", got)
	}
	l.key(k("ctrl+a"))
	l.key(k("alt+f"))
	l.key(k("ctrl+k"))
	if got := shown(&l); got != "one|" {
		t.Fatalf("ctrl+k: %q", got)
	}
	l.key(k("left"))
	l.key(k("ctrl+u"))
	if got := shown(&l); got != "|e" || l.value() != "e" {
		t.Fatalf("ctrl+u: %q", got)
	}
}
