package server

import (
	"io"
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
	g := &ioGuard{sess: typing{r: strings.NewReader("abc")}, out: io.Discard, stall: time.Minute, onStall: func() {}, keyFrame: &got}
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
