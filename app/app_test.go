package app

import (
	"bytes"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestEnterAtEveryPromptReachesTheDungeon(t *testing.T) {
	e, _ := runWorld(t)
	m := playModel(t, e, "SHA256:test", Params{})
	d := newDriver(t, m)
	if s := m.Text(); !strings.Contains(s, "Press Enter to begin") {
		t.Fatalf("title:\n%s", s)
	}
	d.key("enter")
	first := m.Text()
	if !strings.Contains(first, "Strength") || !strings.Contains(first, "Press r to roll again") {
		t.Fatalf("roll screen:\n%s", first)
	}
	for range 5 {
		d.key("r")
		if m.Text() != first {
			break
		}
	}
	if m.Text() == first {
		t.Fatal("r did not roll a new knight in five tries")
	}
	d.key("enter")
	if s := m.Text(); !strings.Contains(s, "press Enter to be "+m.rolled.suggested) {
		t.Fatalf("name prompt:\n%s", s)
	}
	d.key("enter")
	s := m.Text()
	for _, want := range []string{m.rolled.suggested + " │ Level 1 │ Hits", "Spells 4", "Exp 0", "Depth 1", "()", "level 1 of the dungeon"} {
		if !strings.Contains(s, want) {
			t.Fatalf("dungeon screen lacks %q:\n%s", want, s)
		}
	}
	if lines := strings.Split(s, "\n"); len(lines) != 24 {
		t.Fatalf("screen has %d lines, want 24", len(lines))
	}
}

func TestABadNameIsRefusedWithAReason(t *testing.T) {
	e, _ := runWorld(t)
	m := playModel(t, e, "SHA256:test", Params{})
	newDriver(t, m).key("enter", "enter", "9", "enter")
	if s := m.Text(); !strings.Contains(s, "starting with a letter") || m.screen != screenName {
		t.Fatalf("a name starting with a digit was not refused:\n%s", s)
	}
}

func TestSavedKnightIsWelcomedBack(t *testing.T) {
	e, _ := runWorld(t)
	rec := world.NewAdventurer("SHA256:test", "Bedivere", world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}, 11)
	m := playModel(t, e, "SHA256:test", Params{Saved: &rec})
	d := newDriver(t, m)
	if s := m.Text(); !strings.Contains(s, "Welcome back, Bedivere.") {
		t.Fatalf("title for a saved knight:\n%s", s)
	}
	d.key("enter")
	if s := m.Text(); !strings.Contains(s, "Bedivere │ Level 1 │ Hits 11/11") || !strings.Contains(s, "Str 12  Int 11  Con 10  Dex 9") {
		t.Fatalf("dungeon screen:\n%s", s)
	}
	d.key("m")
	if s := m.Text(); !strings.Contains(s, "Map of level 1") || !strings.Contains(s, "()") {
		t.Fatalf("map screen:\n%s", s)
	}
	d.key("x", "?")
	if s := m.Text(); !strings.Contains(s, "HELP") || !strings.Contains(s, "shift+arrow") {
		t.Fatalf("help screen:\n%s", s)
	}
	// Seed 000's lesson showed the monster tables; so does ours, further down.
	var seen strings.Builder
	for range 30 {
		d.key(" ")
		seen.WriteString(m.Text())
	}
	if s := seen.String(); !strings.Contains(s, "Programmer") || !strings.Contains(s, "Where are the monsters?") {
		t.Fatalf("the help has no monster tables:\n%s", s)
	}
	d.key("x", "q")
	if s := m.Text(); !strings.Contains(s, "(y/n)") {
		t.Fatalf("q does not ask:\n%s", s)
	}
	d.key("n")
	if m.screen != screenPlay {
		t.Fatal("n did not go back to the game")
	}
}

// Every screen has its row in the table of screens, and draws: a screen added without
// one would draw nothing and take no keys.
func TestEveryScreenHasARow(t *testing.T) {
	for s := range numScreens {
		r := screens[s]
		if r.draw == nil {
			t.Errorf("screen %d has no draw function", s)
		}
		if r.key == nil && r.typed == nil {
			t.Errorf("screen %d takes neither keys nor typed lines", s)
		}
		m, _ := viewModel(t, twoOnTwo(t), 80, 24)
		m.screen, m.tomb = s, &world.Death{Killer: "a Troll", Depth: 2} // the tombstone has a death to show
		checkFrame(t, m.Text(), 80, 24)
	}
}

func TestSmallTerminalGetsAClearMessage(t *testing.T) {
	m := playModel(t, nil, "SHA256:test", Params{})
	for _, size := range [][2]int{{39, 24}, {80, 17}, {0, 0}, {1, 1}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if s := words(m.Text()); !strings.Contains(s, "Please enlarge your terminal to at least 40×18") {
			t.Fatalf("%v: %q", size, s)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 10000, Height: 10000})
	if lines := strings.Split(m.Text(), "\n"); len(lines) != MaxHeight || len([]rune(lines[0])) != MaxWidth {
		t.Fatalf("a 10000×10000 terminal got a %d-line frame of %d columns, want %d×%d", len(lines), len([]rune(lines[0])), MaxWidth, MaxHeight)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	if lines := strings.Split(m.Text(), "\n"); len(lines) != 50 || len([]rune(lines[0])) != 160 {
		t.Fatalf("160×50 screen is %d lines of %d", len(lines), len([]rune(lines[0])))
	}
}

// Issue 28: behind the too-small message, Up and Enter moved the knight and opened the
// chat line, and f struck a blow the player never saw. Keys now change nothing while it
// shows, and what was on the screen (a half-typed chat line) is there when it grows. The
// message names the command that plays in plain mode, which fits any terminal.
func TestKeysChangeNothingBehindTheTooSmallMessage(t *testing.T) {
	m, rec := viewModel(t, twoOnTwo(t), 80, 24)
	m.p.PlainCommand = "ssh -t -p 2222 play.example play --plain"
	keys(m, "enter", "hel")
	before := m.Text()
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 12})
	small := m.Text()
	for _, want := range []string{"Please enlarge your terminal to at least", "(it is 50×12 now)", "play.example play --plain"} {
		if !strings.Contains(words(small), want) {
			t.Errorf("the message does not say %q:\n%s", want, small)
		}
	}
	keys(m, "lo", "enter", "up", "f", "esc", "q", "m", "backspace", "x", "enter")
	m.Update(tea.PasteMsg{Content: "pasted"})
	if cmds := rec.take(); len(cmds) > 0 {
		t.Errorf("keys behind the message sent %v", cmds)
	}
	if m.Text() != small {
		t.Errorf("keys behind the message changed it:\n%s", m.Text())
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if after := m.Text(); after != before || m.screen != screenPlay || !m.chat.open || m.chat.input.value() != "hel" {
		t.Errorf("the screen after growing again is not the one before:\n%s\nwant:\n%s", after, before)
	}
}

// The screen of a knight standing at the start of a hand-made corridor, drawn without
// colour: edges sit between two-column squares.
func TestDrawingEdgesBetweenSquares(t *testing.T) {
	l, err := world.ParseASCII(1, `
+-+-+-+
|EL   |
+ +-+$+
|   S |
+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]byte, (l.W*l.H+7)/8)
	for i := range all {
		all[i] = 0xff
	}
	c := newCanvas(3*l.W+1, 2*l.H+1)
	(&levelPainter{l: l, shown: all, marks: []squareMark{{world.Pos{}, mark{"()", clsSelf}}}}).paint(c, world.Pos{})
	got := strings.Join(c.lines(nil, true), "\n")
	want := strings.Join([]string{
		"┌──┬─────┐",
		"│()║     │",
		"│  └──┬─□┤",
		"│     │  │",
		"└─────┴──┘",
	}, "\n")
	if got != want {
		t.Fatalf("drawn:\n%s\nwant:\n%s", got, want)
	}
}

// The escape sequences worked out once per class draw exactly what lipgloss draws for a
// run of text in that style (lipgloss restyles each character of an underlined run; the
// cells come out the same).
func TestThemeMatchesLipgloss(t *testing.T) {
	th := platoTheme()
	for cls := range numClasses {
		for _, text := range []string{"──┐", "()", "Sir Kay hits the Troll for 7.", " "} {
			if cls == clsMonster && strings.Contains(text, " ") {
				continue // lipgloss drops bold on the spaces of an underlined run; monsters are two letters
			}
			want := strings.ReplaceAll(th.styles[cls].Render(text), th.close[cls]+th.open[cls], "")
			if got := th.open[cls] + text + th.close[cls]; got != want {
				t.Fatalf("class %d, %q: %q, lipgloss writes %q", cls, text, got, want)
			}
		}
	}
}

// Up and down recall typed lines, newest first, without repeats in a row; past the newest,
// down gives an empty line.
func TestLineHistory(t *testing.T) {
	var h lineHistory
	for _, l := range []string{"a", "b", "b", "c"} {
		h.add(l)
	}
	var got []string
	for {
		l, ok := h.prev()
		if !ok {
			break
		}
		got = append(got, l)
	}
	if strings.Join(got, ",") != "c,b,a" {
		t.Fatalf("recalled %v", got)
	}
	if l, _ := h.next(); l != "b" {
		t.Fatalf("down after the oldest gave %q", l)
	}
	h.next()
	if l, ok := h.next(); !ok || l != "" {
		t.Fatalf("down past the newest: %q %v", l, ok)
	}
	if _, ok := h.next(); ok {
		t.Fatal("down when not recalling did something")
	}
}

// The screen is drawn again only after a message that may change it: a step sends the
// world a command and changes nothing until the world answers, so its frame is the last
// one; the world's answer, or a key that opens another screen, draws a new one.
func TestAStepKeepsTheFrameUntilTheWorldAnswers(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight = nil
	m, rec := viewModel(t, v, 80, 24)
	var out bytes.Buffer
	m.term.out = &out
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	m.View()
	drawn := func() bool {
		n := out.Len()
		m.View()
		return out.Len() > n
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if len(rec.cmds) != 1 {
		t.Fatalf("the step sent %v", rec.cmds)
	}
	if !m.frameOK || drawn() {
		t.Fatal("a step drew the screen again before the world answered")
	}
	moved := v
	moved.Self.Pos.X++
	moved.Log = world.LogOf(append(append([]string(nil), v.Log.Lines()...), "You walk east."), nil)
	moved.Said++
	m.Update(viewMsg(moved))
	if !drawn() {
		t.Fatal("the world's answer did not draw a new screen")
	}
	m.Update(tea.KeyPressMsg{Code: 'm', Text: "m"})
	if !drawn() {
		t.Fatal("opening the map kept the old frame")
	}
}

// Under the view: the knights on the player's own square are "with you", the others it
// sees are "in sight".
func TestWithYouAndInSight(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight = nil
	v.Others = append(v.Others, world.Other{Name: "Bors", Pos: world.Pos{X: v.Self.Pos.X + 1, Y: v.Self.Pos.Y}})
	m, _ := viewModel(t, v, 80, 24)
	if s := m.Text(); !strings.Contains(s, "With you: Gawain. In sight: Bors.") {
		t.Fatalf("the line under the view:\n%s", s)
	}
}
