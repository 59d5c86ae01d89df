package app

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A line input's cursor sends no blinks: the screens draw the line and its cursor
// themselves, and each blink was a message that drew the whole screen again for
// nothing (an eighth of a busy server's frames, the chat line's keys each starting one).
func TestLineInputsSendNoBlinks(t *testing.T) {
	l := lineInput{prompt: "Say: ", limit: 40}
	if cmd := l.in().Focus(); cmd != nil {
		t.Fatalf("focusing the input sends %T", cmd())
	}
	for _, r := range "hello" {
		var cmd tea.Cmd
		*l.in(), cmd = l.in().Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		if cmd != nil {
			t.Fatalf("typing %q sends %T", r, cmd())
		}
	}
	if got := l.in().Value(); got != "hello" {
		t.Fatalf("the input holds %q, want hello", got)
	}
}
