package main

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Screen-reader mode over SSH, read from the raw bytes (issue 29).

// noEscape fails the test if screen-reader mode's bytes hold an escape sequence.
func noEscape(t *testing.T, raw string) {
	t.Helper()
	if i := strings.IndexByte(raw, 0x1b); i >= 0 {
		t.Fatalf("screen-reader mode sent an escape sequence at byte %d: %q", i, raw[max(0, i-80):min(len(raw), i+40)])
	}
}

// A session in screen-reader mode that walks, asks for help, talks and steps on a trap
// until it goes off is sent not one escape sequence: no colours, no cursor moves, no line
// erased and written again, no bracketed paste. Every line ends with the prompt after it.
func TestScreenReaderModeWritesNoEscape(t *testing.T) {
	var trap world.TrapKind
	var keys []string
	var squares []world.Pos
	seed := uint64(1)
	for ; seed < 500; seed++ {
		var ok bool
		keys, squares, ok = findPath(seed, func(_ *world.Engine, l *world.Level, q world.Pos) bool {
			trap = l.Trap(q)
			return trap != world.TrapNone && trap != world.TrapTeleport // the knight stays by it
		})
		if ok && len(squares) >= 2 {
			break
		}
	}
	dir := t.TempDir()
	key := newKey(t)
	by := squares[len(squares)-2]
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits = "Percival", 300, 300
		a.X, a.Y = by.X, by.Y
		a.Options.Plain = true
	})
	srv := startServerSeed(t, dir, seed)
	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Screen-reader mode is on", "Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")

	p.press("help", keyEnter)
	p.waitRaw("> help\r\n", "Type help and a topic")
	p.press("help fighting", keyEnter)
	p.waitRaw("rolls over 6")
	p.press("say well met", keyEnter)
	p.waitRaw("well met")
	on, back := keys[len(keys)-1], opposite(keys[len(keys)-1])
	want := trapMessages[trap]
	step := on
	if !poll(30*time.Second, 150*time.Millisecond, func() bool {
		if strings.Contains(p.rawOutput(), want) {
			return true
		}
		p.press(step)
		step = map[bool]string{true: back, false: on}[step == on]
		return false
	}) {
		t.Fatalf("the %v never went off:\n%s", trap, p.rawOutput())
	}
	p.press("look", keyEnter)
	p.press("map", keyEnter)
	raw := p.waitRaw("Your map of level 1")
	noEscape(t, raw)
	// The prompt is the last thing said: once the session is still, it ends the bytes.
	waitUntil(t, "the prompt after the map", func() bool { return strings.HasSuffix(p.rawOutput(), "\r\n> ") })
	noEscape(t, p.rawOutput())
}
