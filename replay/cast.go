package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"
)

// A replay as an asciicast v2 file (the web page's, which asciinema and its web player
// play): a JSON header line, then a line [seconds, "o", "bytes"] for each frame, the bytes
// drawn by the caller. The file is made at a fixed size (80×24 for the page); idle
// stretches are cut to IdleLimit, as asciinema's idle_time_limit would, and said in the
// header too.

// CastHeader is what a cast's first line says.
type CastHeader struct {
	Width, Height int
	Title         string
	Timestamp     time.Time     // when the record was kept
	IdleLimit     time.Duration // gaps between frames longer than this are cut to it
	Term          string        // the terminal the bytes are for (TERM)
}

// castHeader is the header's JSON (asciicast v2).
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Idle      float64           `json:"idle_time_limit,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// ErrCastTooBig is a cast that would pass its bound.
var ErrCastTooBig = errors.New("the replay's cast is too big")

// Frame draws a moment: the bytes a terminal is written to show it, after the moment
// before. The slice is read before the next call.
type Frame func(i int, m Moment) []byte

// WriteCast writes ms as an asciicast, each moment drawn by draw, at most max bytes in
// all (ErrCastTooBig past it); ctx ending stops it. A moment that draws nothing is no
// event. end's bytes, if end is not nil, are written last, at the last moment's time.
func WriteCast(ctx context.Context, w io.Writer, h CastHeader, ms []Moment, draw Frame, end func() []byte, max int) error {
	cw := &capWriter{w: w, left: max}
	bw := bufio.NewWriter(cw)
	hd := castHeader{Version: 2, Width: h.Width, Height: h.Height, Idle: h.IdleLimit.Seconds(), Title: h.Title}
	if !h.Timestamp.IsZero() {
		hd.Timestamp = h.Timestamp.Unix()
	}
	if h.Term != "" {
		hd.Env = map[string]string{"TERM": h.Term}
	}
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(hd); err != nil {
		return err
	}
	// t is the cast's time: the record's, each stretch between two events that draw
	// something cut to the idle limit (moments that draw nothing make no stretch of
	// their own).
	var t, prev time.Duration
	for i, m := range ms {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		out := draw(i, m)
		if len(out) == 0 {
			continue
		}
		gap := m.At - prev
		if h.IdleLimit > 0 {
			gap = min(gap, h.IdleLimit)
		}
		t += gap
		prev = m.At
		if err := writeEvent(bw, t, out); err != nil {
			return err
		}
	}
	if end != nil {
		if err := writeEvent(bw, t, end()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeEvent writes one output event, if there is output.
func writeEvent(w *bufio.Writer, at time.Duration, out []byte) error {
	if len(out) == 0 {
		return nil
	}
	data, err := json.Marshal(string(out)) // invalid UTF-8 becomes U+FFFD, as JSON needs
	if err != nil {
		return err
	}
	w.WriteByte('[')
	w.WriteString(strconv.FormatFloat(at.Seconds(), 'f', 3, 64))
	w.WriteString(`, "o", `)
	w.Write(data)
	_, err = w.WriteString("]\n")
	return err
}

// capWriter writes at most left bytes more, then fails with ErrCastTooBig.
type capWriter struct {
	w    io.Writer
	left int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, ErrCastTooBig
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// Stand is a replay held at one moment, for drawing it frame by frame with no clock (a
// cast): it says where it stands as a Player does, and its controls do nothing.
type Stand struct {
	name    string
	At, End time.Duration
}

// NewStand is a replay of the knight named name, at its start, ms its timeline.
func NewStand(name string, ms []Moment) *Stand {
	s := &Stand{name: name}
	if len(ms) > 0 {
		s.End = ms[len(ms)-1].At
	}
	return s
}

// Name is the replayed knight's name.
func (s *Stand) Name() string { return s.name }

// Status says where the replay stands, as Player.Status does.
func (s *Stand) Status() string { return status(s.At, s.End, 1, false, s.Ended()) }

// Pause, Faster, Slower, SkipIdle and Back do nothing: a cast has no viewer's keys.
func (s *Stand) Pause()    {}
func (s *Stand) Faster()   {}
func (s *Stand) Slower()   {}
func (s *Stand) SkipIdle() {}
func (s *Stand) Back()     {}

// Ended reports whether the stand is at the replay's end.
func (s *Stand) Ended() bool { return s.At >= s.End }
