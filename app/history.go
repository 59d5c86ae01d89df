package app

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// lineHistory is what the chat line, the admin console and the screen-reader command line
// recall with up and down: the last maxConsoleHistory lines typed, without repeats in a row.
type lineHistory struct {
	lines []string
	at    int // index into lines while recalling; len(lines) when not
}

// add keeps a typed line and stops recalling.
func (h *lineHistory) add(line string) {
	if n := len(h.lines); n == 0 || h.lines[n-1] != line {
		h.lines = append(h.lines, line)
	}
	if over := len(h.lines) - maxConsoleHistory; over > 0 {
		h.lines = h.lines[over:]
	}
	h.reset()
}

// reset stops recalling: the next up brings back the newest line.
func (h *lineHistory) reset() { h.at = len(h.lines) }

// prev is the line before the one recalled; ok is false at the oldest.
func (h *lineHistory) prev() (line string, ok bool) {
	if h.at == 0 {
		return "", false
	}
	h.at--
	return h.lines[h.at], true
}

// next is the line after the one recalled, or "" past the newest; ok is false when not
// recalling.
func (h *lineHistory) next() (line string, ok bool) {
	if h.at >= len(h.lines) {
		return "", false
	}
	h.at++
	if h.at < len(h.lines) {
		return h.lines[h.at], true
	}
	return "", true
}

// recall puts the line before (up) or after (down) the one recalled into a text field, if
// there is one: the chat line's and the console's up and down.
func (h *lineHistory) recall(up bool, in *textinput.Model) {
	next := h.next
	if up {
		next = h.prev
	}
	if line, ok := next(); ok {
		in.SetValue(line)
		in.CursorEnd()
	}
}

// lineInput is a one-line text input, made when first used: a textinput.Model is 8 KB,
// and of the four a session has (the name, the chat line, the console, the mute list)
// most sessions type in one or none.
type lineInput struct {
	prompt string
	limit  int // most characters
	m      *textinput.Model
}

// in is the input, made now if it was not yet.
func (l *lineInput) in() *textinput.Model {
	if l.m == nil {
		ti := textinput.New()
		ti.CharLimit, ti.Prompt = l.limit, l.prompt
		// The screens draw the line and its cursor themselves ("_"): the input's own
		// cursor, hidden, sends no blinks. Its blinks, each a message that drew the
		// screen again for nothing, were an eighth of a busy server's frames.
		ti.SetVirtualCursor(false)
		l.m = &ti
	}
	return l.m
}

// open starts a line afresh, empty and at the end of its history h, and focuses it.
func (l *lineInput) open(h *lineHistory) tea.Cmd {
	h.reset()
	l.in().Reset()
	return l.in().Focus()
}

// close lets the input go, once its line is closed: it is made again when next typed in.
func (l *lineInput) close() { l.m = nil }
