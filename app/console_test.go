package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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
