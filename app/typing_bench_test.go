package app

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// typingLengths are the lines the typing benchmarks type at the end of: a short one, one
// as long as the chat line holds, and one far longer than any field holds (its limit
// lifted), so that a cost that grows with the line shows.
var typingLengths = []int{10, chatInputLimit, 10000}

// typedText is n runes of typing: words, a wide rune and a combining mark now and then,
// as a line in any language may have.
func typedText(n int) string {
	const words = "the dragon sleeps 竜 below the stairs cafe\u0301 "
	r := []rune(strings.Repeat(words, n/len([]rune(words))+1))
	return string(r[:n])
}

// benchTyping measures one key typed at the end of a line of each of typingLengths, and
// the frame it draws: the key (a letter, then a backspace, so the line keeps its length)
// goes through Update, and View writes the cells that changed, as a session does for
// every key. fill puts n runes in the field, its limit lifted.
func benchTyping(b *testing.B, m *Model, fill func(m *Model, n int)) {
	out := &countWriter{}
	m.term.out, m.term.bce = out, erasesInColour("xterm-256color")
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	press := [2]tea.KeyPressMsg{{Code: 'x', Text: "x"}, namedKeys["backspace"]}
	for _, n := range typingLengths {
		b.Run(fmt.Sprintf("runes=%d", n), func(b *testing.B) {
			fill(m, n)
			m.View()
			b.ReportAllocs()
			*out = countWriter{}
			i := 0
			for b.Loop() {
				m.Update(press[i%2])
				m.View()
				i++
			}
			b.ReportMetric(float64(out.n)/float64(max(out.writes, 1)), "bytes/frame")
		})
	}
}

// fillInput puts n runes of typing in l, its limit lifted.
func fillInput(l *lineInput, n int) {
	l.limit = 0
	l.set(typedText(n))
}

// BenchmarkChatLineKey types on the chat line over the dungeon screen at 80×24.
func BenchmarkChatLineKey(b *testing.B) {
	m := benchPlayModel(b, 80, 24)
	keys(m, "enter")
	benchTyping(b, m, func(m *Model, n int) { fillInput(&m.chat.input, n) })
}

// BenchmarkLetterKey types a letter: a reply started from the letters screen, on the chat
// line.
func BenchmarkLetterKey(b *testing.B) {
	m := benchPlayModel(b, 80, 24)
	m.openChatWith("/mail Gawain ")
	benchTyping(b, m, func(m *Model, n int) {
		m.chat.input.limit = 0
		m.chat.input.set("/mail Gawain " + typedText(n))
	})
}

// BenchmarkConsoleKey types in an admin's console, its panel full of output (the lines it
// keeps).
func BenchmarkConsoleKey(b *testing.B) {
	m := benchPlayModel(b, 80, 24)
	m.p.Admin = func(string) (string, bool) { return "", true }
	keys(m, ":")
	for i := range maxConsoleLines {
		m.console.add(fmt.Sprintf("line %d of what an admin command printed, long enough to wrap at the width of a phone", i), clsText)
	}
	benchTyping(b, m, func(m *Model, n int) { fillInput(&m.console.input, n) })
}

// BenchmarkNamePromptKey types a knight's name.
func BenchmarkNamePromptKey(b *testing.B) {
	m := playModel(b, nil, "SHA256:namer", Params{})
	m.screen = screenRoll
	keys(m, "enter")
	if m.screen != screenName {
		b.Fatalf("not at the name prompt:\n%s", m.Text())
	}
	benchTyping(b, m, func(m *Model, n int) { fillInput(&m.rolled.name, n) })
}

// BenchmarkMuteListKey types a name to mute on the options screen.
func BenchmarkMuteListKey(b *testing.B) {
	m := benchPlayModel(b, 80, 24)
	keys(m, "o", "f")
	if !m.optScreen.muting {
		b.Fatalf("not typing a name to mute:\n%s", m.Text())
	}
	benchTyping(b, m, func(m *Model, n int) { fillInput(&m.optScreen.mute, n) })
}

// BenchmarkPlainLineKey types a command in screen-reader mode.
func BenchmarkPlainLineKey(b *testing.B) {
	m := benchPlayModel(b, 80, 24)
	m.pl.active = true
	benchTyping(b, m, func(m *Model, n int) { fillInput(&m.pl.line, n) })
}
