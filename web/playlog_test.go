package web

import (
	"slices"
	"testing"
)

// The log reads screen-reader mode's transcript as a terminal's line shows it: lines end
// at CR LF, typed characters and their backspaces (BS SP BS) leave the line as typed, a
// line written over the prompt from a CR replaces it (its spaces trimmed), a line is
// whole across writes, and blank lines and the prompt still being typed are not sent.
func TestTheLogReadsTheTranscriptAsLines(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   []string
	}{
		{"lines", []string{"Welcome.\r\nYou see 1 square north.\r\n> "}, []string{"Welcome.", "You see 1 square north."}},
		{"typed and erased", []string{"> ", "e", "a", "x", "\b \b", "st", "\r\n"}, []string{"> east"}},
		{"news over the prompt", []string{"> ", "\rA voice says hi.\r\n> "}, []string{"A voice says hi."}},
		{"a longer prompt written over", []string{"> look aro", "\rHi.       \r\n"}, []string{"Hi."}},
		{"across writes", []string{"A wall blo", "cks the way east.\r", "\n"}, []string{"A wall blocks the way east."}},
		{"blank lines", []string{"\r\n  \r\nA.\r\n"}, []string{"A."}},
		{"other controls", []string{"a\ab\tc\x7f\r\n"}, []string{"abc"}},
	} {
		var l lineLog
		var got []string
		for _, w := range c.writes {
			got = append(got, l.take(w)...)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q gave %q, want %q", c.name, c.writes, got, c.want)
		}
	}
}
