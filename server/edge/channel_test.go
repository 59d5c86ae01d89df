package edge

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// recordingWriter keeps what it was given, and the slice itself, last.
type recordingWriter struct {
	got     bytes.Buffer
	last    []byte
	longest int // the longest write
	n       int // when > 0, the count Write reports
	err     error
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.got.Write(p)
	w.last = p
	w.longest = max(w.longest, len(p))
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

// A whole screen goes to the channel in pieces of at most 1 KiB: x/crypto's channel and
// its cipher each keep a buffer the size of the largest write for the rest of the
// session, which a screen written whole left at 4 KB and more.
func TestFrameWriterHandsTheChannelSmallPieces(t *testing.T) {
	for _, frame := range [][]byte{
		bytes.Repeat([]byte("\x1b[38;5;94m#\x1b[m"), 700), // a screen in colours, 9.8 KB
		bytes.Repeat([]byte("A line of the log.\n"), 300), // lines, translated
	} {
		var rec recordingWriter
		w := &frameWriter{ch: &rec}
		n, err := w.Write(frame)
		if err != nil || n != len(frame) {
			t.Fatalf("Write of %d bytes = %d, %v", len(frame), n, err)
		}
		if rec.longest > 1<<10 {
			t.Errorf("a write of %d bytes reached the channel as a write of %d", len(frame), rec.longest)
		}
		want := strings.ReplaceAll(string(frame), "\n", "\r\n")
		if rec.got.String() != want {
			t.Errorf("the pieces of a write of %d bytes are not the frame", len(frame))
		}
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

// A program that starts watching the terminal's size after the client changed it (the
// change came between the shell and the program) is told the latest size at once; later
// changes reach it in turn, and none after it stops watching.
func TestWatchWindowTellsAChangeBeforeTheWatch(t *testing.T) {
	cc := &channelContext{}
	cc.setWindow(80, 24) // the PTY request's
	cc.setWindow(100, 30)
	got := make(chan [2]int, 4)
	told := func(want [2]int) {
		t.Helper()
		select {
		case size := <-got:
			if size != want {
				t.Fatalf("told %v, want %v", size, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("not told %v in 5 s", want)
		}
	}
	stop := WatchWindow(cc, 80, 24, func(w, h int) { got <- [2]int{w, h} })
	told([2]int{100, 30})
	cc.setWindow(120, 40)
	cc.sendWindow()
	told([2]int{120, 40})
	stop()
	cc.setWindow(60, 20)
	cc.sendWindow() // on this goroutine: had it called resize, got would hold the size now
	select {
	case size := <-got:
		t.Fatalf("told %v after the watch stopped", size)
	default:
	}
}
