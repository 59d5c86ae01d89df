package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// Issue 42: one client typing at the key rate, a key an SSH packet, cost the server a
// frame a key, written and encrypted, and a wake-up of its threads a packet: a thousand
// of each a second. Keys that come faster than anyone types are drawn together, a frame a
// gap (app.KeyFrameGap), and the last one always; a key that acts (Esc, Enter, the y that
// leaves) is never held; and a game session's connection is read at most once a
// edge.ReadGap while its packets come faster than that.

// chatRow is the row (from 0) of the open chat line on screen s, or -1.
func chatRow(s string) int {
	for y, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Say: ") {
			return y
		}
	}
	return -1
}

// Keys sent in one burst (60 letters in one write, so in one SSH packet) are drawn
// together: the output moves the cursor to the chat line a few times, not once a key; the
// screen ends showing the whole line. Letters and Esc in one burst close the line, and q
// and y in one burst end the session with its goodbye.
func TestABurstOfKeysIsDrawnTogether(t *testing.T) {
	t.Parallel()
	ts := startServer(t, t.TempDir())
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Kay")
	tm.press(keyEnter)
	s := tm.waitFor("Enter sends", "Say: _")
	row := chatRow(s)
	if row < 0 {
		t.Fatalf("no chat line on the screen:\n%s", s)
	}
	const burst = 60
	line := strings.Repeat("abcdefghij", burst/10)
	for range 3 {
		mark := len(tm.rawOutput())
		tm.press(line)
		tm.waitFor("Say: " + line + "_")
		moves := regexp.MustCompile(fmt.Sprintf(`\x1b\[%d;\d+H`, row+1))
		drawn := len(moves.FindAllString(tm.rawOutput()[mark:], -1))
		t.Logf("%d keys in one write: the chat line drawn %d times", burst, drawn)
		if drawn > burst/4 {
			t.Fatalf("%d keys in one write drew the chat line %d times: not together", burst, drawn)
		}
		tm.press(strings.Repeat("\x7f", burst)) // Backspace, as many, in one write
		tm.waitFor("Say: _")
	}

	tm.press("xyz\x1b")
	tm.waitScreen("the chat line closed", func(s string) bool { return !strings.Contains(s, "Enter sends") })
	tm.press("qy")
	if !tm.ended(10 * time.Second) {
		t.Fatalf("q and y in one write did not end the session:\n%s", tm.screen())
	}
	if !strings.Contains(tm.rawOutput(), "Farewell") {
		t.Fatalf("q and y in one write left no goodbye:\n%s", tm.rawOutput())
	}
}

// A typist's keys, each an SSH packet of its own a millisecond apart (faster than the
// read gap), all reach the line, in order; the game session's connection is paced.
func TestKeysAPacketEachAreAllRead(t *testing.T) {
	t.Parallel()
	ts, srv := startConfigured(t, testConfig(t.TempDir(), defaultSeed))
	key := newKey(t)
	tm := openTerminal(t, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Kay")
	paced := func() []bool {
		srv.games.mu.Lock()
		defer srv.games.mu.Unlock()
		var out []bool
		for sess := range srv.games.m {
			out = append(out, edge.SlotOf(sess.Context()).Paced())
		}
		return out
	}
	if p := paced(); len(p) != 1 || !p[0] {
		t.Fatalf("the game session's connection paced: %v, want [true]", p)
	}
	tm.press(keyEnter)
	tm.waitFor("Say: _")
	const keys = 200
	var typed strings.Builder
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for i := range keys {
		<-tick.C // the typist's pace: faster than the read gap
		k := string(rune('a' + i%26))
		typed.WriteString(k)
		tm.press(k) // a write, and so a packet, a key
	}
	line := typed.String()
	tm.waitFor(line[len(line)-70:] + "_") // the line's end: it is wider than the screen
	tm.press(strings.Repeat("\x7f", keys-5))
	tm.waitFor("Say: " + line[:5] + "_")
}
