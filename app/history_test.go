package app

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A line input sends no blinks: the screens draw the line and its cursor themselves, and
// each blink was a message that drew the whole screen again for nothing (an eighth of a
// busy server's frames, the chat line's keys each starting one).
func TestLineInputsSendNoBlinks(t *testing.T) {
	m, _ := viewModel(t, crowdedView(t), 80, 24)
	for _, k := range append([]tea.KeyPressMsg{namedKeys["enter"]}, textMsgs("hello")...) {
		if _, cmd := m.Update(k); cmd != nil {
			t.Fatalf("%s on the chat line sends %T", k, cmd())
		}
	}
	if got := m.chat.input.value(); got != "hello" {
		t.Fatalf("the input holds %q, want hello", got)
	}
}
