package app

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// keyFor turns one fuzzed byte into a key a terminal could send: printable characters as
// themselves, and a handful of values as the special keys the game listens for.
func keyFor(b byte) tea.KeyPressMsg {
	switch b {
	case 0:
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case 1:
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case 2:
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case 3:
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case 4:
		return tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModShift}
	case 5:
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case 6:
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case 7:
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := rune(b)
	if b >= 0x80 {
		r = rune(0x400 + int(b)) // letters from another script
	}
	return tea.KeyPressMsg{Code: r, Text: string(r)}
}

// FuzzKeys types arbitrary keys (and resizes the terminal now and then) into a session
// that is playing in a running world: nothing may panic, every screen must fit the
// terminal, and the world must keep answering.
func FuzzKeys(f *testing.F) {
	f.Add([]byte("\x00\x00\x00lllljjjj"))                               // Enter through the start, walk
	f.Add([]byte("\x00r\x00Kay\x00?\x07\x07\x05i\x05m\x05q"))           // roll, name, help, inventory, map, quit?
	f.Add([]byte("\x00\x00\x00d\x011a2f3\x014\x05fffrrs:<>R"))          // doors, spells, fight keys
	f.Add([]byte("\x00\x00\xff\xfe\x80\x00\x06\x06\x06\x00"))           // foreign letters in the name
	f.Add([]byte("\x00\x00\x00\x00hi\x1b[2J\x00'/w x y\x00wao"))        // chat, who, options
	f.Add([]byte("y\x00\x00Kay\x00look\x00map grid\x00\x01\x02st\x00")) // screen-reader mode
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	n := 0
	f.Fuzz(func(t *testing.T, keys []byte) {
		if len(keys) > 400 {
			keys = keys[:400]
		}
		n++
		m := playModel(t, e, "SHA256:fuzz"+string(rune('a'+n%26)), Params{Rand: rand.New(rand.NewPCG(uint64(n), 1))})
		defer m.Leave(context.Background())
		for i, b := range keys {
			if b == 0xfd && i+2 < len(keys) { // a resize, to sizes from 0×0 up to huge
				w, h := int(keys[i+1])*40, int(keys[i+2])*20
				m.Update(tea.WindowSizeMsg{Width: w % 10001, Height: h % 10001})
				continue
			}
			msg := keyFor(b)
			if msg.String() == "ctrl+c" {
				continue
			}
			_, cmd := m.Update(msg)
			if cmd != nil && m.screen == screenJoining {
				joinNow(t, m, cmd) // other commands (the name field's cursor blink) are dropped
			}
			select {
			case tick <- time.Time{}:
			default:
			}
			out := m.Text()
			if m.pl.active {
				continue // a transcript, not a screen
			}
			if m.width >= MinWidth && m.height >= MinHeight && m.width <= 400 && m.height <= 200 {
				if lines := strings.Count(out, "\n") + 1; lines != m.height {
					t.Fatalf("screen %dx%d drew %d lines", m.width, m.height, lines)
				}
			}
		}
		if _, err := e.Who(context.Background()); err != nil {
			t.Fatalf("the world stopped answering: %v", err)
		}
	})
}

// FuzzPlainCommands types arbitrary command lines into a screen-reader session that has
// walked into the dungeon: every line gets an answer or is ignored, nothing panics, and no
// line the game says contains a control character a terminal would act on.
func FuzzPlainCommands(f *testing.F) {
	for _, s := range []string{
		"north", "open w", "cast 1 e", "cast light", "cast 9 z", "use a", "use 99", "say hi \x1b]52;c;aGk=\x07",
		"shout \x9b2J", "whisper", "whisper nobody hi", "watch", "map grid", "messages 1000000", "set theme nope",
		"set plain off", "set plain on", "retire", "fame", ": regen all", "inventory", "fight", "status", "look",
		"\xff\xfe", strings.Repeat("n ", 200),
	} {
		f.Add(s)
	}
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	n := 0
	f.Fuzz(func(t *testing.T, line string) {
		n++
		m := playModel(t, e, "SHA256:plain"+string(rune('a'+n%26)), Params{Plain: true, Rand: rand.New(rand.NewPCG(uint64(n), 2))})
		defer m.Leave(context.Background())
		for _, k := range []tea.KeyPressMsg{{Code: tea.KeyEnter}, {Code: tea.KeyEnter}, {Code: tea.KeyEnter}} {
			_, cmd := m.Update(k)
			if cmd != nil && m.screen == screenJoining {
				joinNow(t, m, cmd)
			}
		}
		for _, line := range strings.Split(line, "\n") {
			for _, r := range line {
				m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
			if cmd != nil && m.screen == screenJoining {
				joinNow(t, m, cmd)
			}
		}
		for _, r := range m.plainText() {
			if r == 0x1b || r == 0x7f || (r < 0x20 && r != '\n') || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("the transcript carries control character %U after %q", r, line)
			}
		}
	})
}
