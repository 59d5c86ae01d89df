package edge

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"charm.land/ssh"
)

// observations is a histogram that keeps what it is given.
type observations []float64

func (o *observations) Observe(v float64) { *o = append(*o, v) }

// typing is a session whose input is r and nothing else.
type typing struct {
	ssh.Session
	r io.Reader
}

func (s typing) Read(p []byte) (int, error) { return s.r.Read(p) }

// Each key is timed to the next frame written: a frame with no key before it is not
// counted; keys read before one frame count once, from the first of them; a key whose
// next frame comes later than keyFrameMax is not counted.
func TestKeysAreTimedToTheirFrame(t *testing.T) {
	var got observations
	g := &Guard{sess: typing{r: strings.NewReader("abc")}, out: io.Discard, stall: time.Minute, onStall: func() {},
		keyFrame: func(d time.Duration) { got.Observe(d.Seconds()) }}
	frame := func() {
		if _, err := g.Write([]byte("frame")); err != nil {
			t.Fatal(err)
		}
	}
	key := func() {
		if _, err := g.Read(make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
	}
	frame()
	if len(got) != 0 {
		t.Fatalf("a frame no key asked for was timed: %v", got)
	}
	key()
	first := g.keyAt.Load()
	key()
	if g.keyAt.Load() != first {
		t.Error("a second key before the frame moved the start")
	}
	frame()
	frame()
	if len(got) != 1 || got[0] < 0 || got[0] > keyFrameMax.Seconds() {
		t.Fatalf("two keys and two frames: %v, want one time", got)
	}
	key()
	g.keyAt.Store(time.Now().Add(-keyFrameMax - time.Second).UnixNano()) // a key the game ignored, long ago
	frame()
	if len(got) != 1 {
		t.Errorf("a key answered after more than %v was timed: %v", keyFrameMax, got)
	}
}

// A frame the client does not take in within the stall timeout closes the session.
func TestStallTimeoutClosesTheSession(t *testing.T) {
	w, r := net.Pipe() // nobody reads r: a write blocks, as to a client that stopped reading
	defer r.Close()
	fired := make(chan time.Duration, 1)
	start := time.Now()
	g := &Guard{stall: 200 * time.Millisecond, onStall: func() { fired <- time.Since(start); w.Close() }}
	g.sess = nil
	done := make(chan error, 1)
	go func() { _, err := g.writeTo(w, []byte("frame")); done <- err }()
	select {
	case d := <-fired:
		if d < 200*time.Millisecond || d > 2*time.Second {
			t.Fatalf("stall fired after %v, want 200ms", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a blocked write never fired the stall timeout")
	}
	if err := <-done; err == nil {
		t.Fatal("the blocked write did not fail once the session was closed")
	}
	// The watch is the same timer, set again for each write: a write taken in at once
	// fires nothing, and a write that stalls again fires again.
	w2, r2 := net.Pipe()
	defer r2.Close()
	go func() { _, _ = io.Copy(io.Discard, r2) }()
	if _, err := g.writeTo(w2, []byte("frame")); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-fired:
		t.Fatalf("a write taken in at once fired the stall watch after %v", d)
	case <-time.After(400 * time.Millisecond): // twice the stall timeout: nothing fired
	}
	w3, r3 := net.Pipe()
	defer r3.Close()
	start = time.Now()
	go func() { _, err := g.writeTo(w3, []byte("frame")); done <- err }()
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("a second blocked write never fired the stall timeout")
	}
	_ = w3.Close()
	<-done
}
