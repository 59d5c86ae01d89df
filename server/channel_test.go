package server

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// recordingWriter keeps what it was given, and the slice itself, last.
type recordingWriter struct {
	got  bytes.Buffer
	last []byte
	n    int // when > 0, the count Write reports
	err  error
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.got.Write(p)
	w.last = p
	if w.n > 0 {
		return w.n, w.err
	}
	return len(p), w.err
}

// A frame writer sends what the SSH library's terminal writer sends: every newline as
// CR LF, and a CR LF as it is.
func TestFrameWriterSendsNewlinesAsCRLF(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"\x1b[2;3Hframe", "\x1b[2;3Hframe"},
		{"\n", "\r\n"},
		{"a\nb\n", "a\r\nb\r\n"},
		{"a\r\nb", "a\r\nb"},
		{"a\r\nb\nc", "a\r\nb\r\nc"},
		{"\n\n", "\r\n\r\n"},
		{"\r\n\n", "\r\n\r\n"},
		{"\r", "\r"},
		{"line\r\n", "line\r\n"},
	} {
		var rec recordingWriter
		w := &frameWriter{ch: &rec}
		n, err := w.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) || rec.got.String() != tc.want {
			t.Errorf("Write(%q) = %d, %v, sent %q; want %d, nil, sent %q", tc.in, n, err, rec.got.String(), len(tc.in), tc.want)
		}
	}
	// Any mix of text, CRs and LFs: the CRs are the input's plus one before each bare LF.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var in []byte
		for range rng.IntN(20) {
			in = append(in, "ab\r\n"[rng.IntN(4)])
		}
		var rec recordingWriter
		w := &frameWriter{ch: &rec}
		if _, err := w.Write(in); err != nil {
			t.Fatal(err)
		}
		out := rec.got.Bytes()
		for i, b := range out {
			if b == '\n' && (i == 0 || out[i-1] != '\r') {
				t.Fatalf("Write(%q) sent %q: a bare newline at %d", in, out, i)
			}
		}
		want := strings.ReplaceAll(string(in), "\r\n", "\n")
		if got := strings.ReplaceAll(string(out), "\r\n", "\n"); got != want {
			t.Fatalf("Write(%q) sent %q: more changed than the newlines", in, out)
		}
	}
}

// A frame without a bare newline goes out as it is, not copied; one with newlines is
// translated in a buffer the writer keeps, so neither allocates once under way.
func TestFrameWriterCopiesNothingItNeedNot(t *testing.T) {
	var rec recordingWriter
	w := &frameWriter{ch: &rec}
	frame := []byte("\x1b[5;10H\x1b[33mK \x1b[m\r\n")
	if _, err := w.Write(frame); err != nil {
		t.Fatal(err)
	}
	if &rec.last[0] != &frame[0] {
		t.Fatal("a frame with no bare newline was copied")
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = w.Write(frame) }); a != 0 {
		t.Errorf("a frame with no bare newline: %v allocations a write", a)
	}
	lines := []byte("You hear a door.\nA knight arrives.\n")
	if a := testing.AllocsPerRun(100, func() { _, _ = w.Write(lines) }); a != 0 {
		t.Errorf("lines with newlines: %v allocations a write", a)
	}
	big := bytes.Repeat([]byte("x\n"), frameWriterKeeps)
	if _, err := w.Write(big); err != nil {
		t.Fatal(err)
	}
	if w.buf != nil {
		t.Errorf("the writer kept a %d-byte copy after one long write", cap(w.buf))
	}
}

// What the channel reports comes back, never more bytes than were given.
func TestFrameWriterReportsWhatItWasGiven(t *testing.T) {
	boom := errors.New("closed")
	rec := &recordingWriter{n: 7, err: boom} // "ab\r\ncd\r\n" is 8 bytes for 6 given
	w := &frameWriter{ch: rec}
	n, err := w.Write([]byte("ab\ncd\n"))
	if n != 6 || !errors.Is(err, boom) {
		t.Fatalf("Write = %d, %v; want 6, %v", n, err, boom)
	}
}

// A game and a watch on one connection, as a multiplexing client opens them, each draw
// on their own screen: a session's frames go to the channel found through the session's
// own context, not through its connection's, which the two share.
func TestAGameAndAWatchOnOneConnectionDrawApart(t *testing.T) {
	srv := startServer(t, t.TempDir())
	a := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	a.enterDungeon("Gareth")

	c := dial(t, srv.addr, newKey(t))
	// Both channels are open before either starts: a value kept in the connection's
	// context would be the watch's when the game's program starts.
	var chans [2]*gossh.Session
	for i := range chans {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		chans[i] = s
	}
	start := func(s *gossh.Session, w, h int, cmd string) *terminal {
		tm, err := startTerminalIn(t, c, s, w, h, nil, cmd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tm.close)
		return tm
	}
	game := start(chans[0], 80, 24, "")
	game.enterDungeon("Lynette")
	watch := start(chans[1], 120, 40, "watch gareth")
	watch.waitFor("WATCHING Gareth", "Gareth │ Level 1")
	_, k := openDir(t)
	game.press(k) // the game's frames come on, on its own screen
	a.press(k)
	waitUntil(t, "both screens to show their own knight's step", func() bool {
		g, w := game.screen(), watch.screen()
		return strings.Contains(g, "Lynette │ Level 1") && !strings.Contains(g, "On the exit") &&
			strings.Contains(w, "Gareth │ Level 1") && !strings.Contains(w, "On the exit")
	})
	if g := game.screen(); strings.Contains(g, "WATCHING") || strings.Contains(g, "Gareth │") {
		t.Fatalf("the watch's frames showed on the game's screen:\n%s", g)
	}
	if w := watch.screen(); strings.Contains(w, "Lynette │") {
		t.Fatalf("the game's frames showed on the watch's screen:\n%s", w)
	}
	if lines := strings.Split(strings.TrimRight(watch.screen(), "\n"), "\n"); len(lines) < 30 {
		t.Fatalf("the watch's 120×40 screen drew %d lines", len(lines))
	}
}
