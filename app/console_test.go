package app

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

func TestAdminConsoleRunsALineAndShowsCleanOutput(t *testing.T) {
	e, _ := runWorld(t)
	var got []string
	m := playModel(t, e, "SHA256:admin", Params{
		Admin: func(line string) (string, bool) {
			got = append(got, line)
			return "players online  1\n\x1b[31mred\x1b[0m\tand \u202egood\n", true
		}})
	d := newDriver(t, m)
	d.key("enter", "enter", "enter")
	m.Update(tea.KeyPressMsg{Code: ':', Text: ":"})
	if s := m.Text(); !strings.Contains(s, "── console") || !strings.Contains(s, ": _") {
		t.Fatalf("':' did not open the console:\n%s", s)
	}
	keys(m, "stats --json")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("Enter ran nothing")
	}
	m.Update(cmd())
	if len(got) != 1 || got[0] != "stats --json" {
		t.Fatalf("the hook got %q", got)
	}
	s := m.Text()
	for _, want := range []string{": stats --json", "players online  1", "red and good"} {
		if !strings.Contains(s, want) {
			t.Fatalf("console lacks %q:\n%s", want, s)
		}
	}
	if strings.ContainsAny(s, "\x1b\u202e\t") {
		t.Fatalf("console output was not cleaned: %q", s)
	}
	// Up recalls the line; Esc closes the console and the game has its keys back.
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	if !strings.Contains(m.Text(), ": stats --json_") {
		t.Fatalf("up did not recall the last line:\n%s", m.Text())
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if s := m.Text(); strings.Contains(s, "── console") {
		t.Fatalf("Esc did not close the console:\n%s", s)
	}
	d.key("m")
	if m.screen != screenMap {
		t.Fatal("after the console closed, m did not open the map")
	}
}

func TestConsoleIsForAdmins(t *testing.T) {
	e, _ := runWorld(t)
	m := playModel(t, e, "SHA256:test", Params{}) // no Admin hook
	d := newDriver(t, m)
	d.key("enter", "enter", "enter", ":")
	if s := m.Text(); !strings.Contains(s, consoleForAdmins) || strings.Contains(s, "── console") {
		t.Fatalf("a player who is not an admin pressed ':':\n%s", s)
	}
	d.key("x")
	if strings.Contains(m.Text(), consoleForAdmins) {
		t.Fatal("the note stays after the next key")
	}
}

// A key on the console costs the same with its panel full (the 500 lines it keeps) as
// with it empty: the output is wrapped again when it grows or the width changes, not for
// every frame (500 lines wrapped each key made a key cost a millisecond). What the
// panel shows follows the output and the width all the same.
func TestConsoleKeyCostsTheSameWithItsPanelFull(t *testing.T) {
	var allocs [2]float64
	for i, lines := range []int{0, maxConsoleLines} {
		m := onDungeon(":")(t, 80, 24)
		m.term.out, m.term.bce = &countWriter{}, true
		m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
		for n := range lines {
			m.console.add(fmt.Sprintf("line %d of what a command printed, long enough to wrap on a phone's screen", n), clsText)
		}
		m.console.anchor = max(0, lines-1) // the panel follows from its last line on
		m.View()
		allocs[i] = testing.AllocsPerRun(20, func() {
			keys(m, "x")
			m.View()
			keys(m, "backspace")
			m.View()
		})
		if lines == 0 {
			continue
		}
		last := fmt.Sprintf("line %d of what a command printed, long enough to wrap on a phone's screen", lines-1)
		checkWhole(t, "a full panel", m.Text(), 0, 80, last)
		m.console.add("one more line", clsText)
		checkWhole(t, "a line added", m.Text(), 0, 80, last, "one more line")
		m.Update(tea.WindowSizeMsg{Width: 40, Height: 20})
		s := frameOf(t, "a full panel at 40×20", m)
		checkWhole(t, "a full panel at 40×20", s, 0, 40, "one more line")
	}
	if allocs[1] > allocs[0]+1 {
		t.Errorf("a key on the console allocates %v times with the panel full, %v with it empty", allocs[1], allocs[0])
	}
}
