package edge

import (
	"context"
	"sync/atomic"
	"time"
)

// Read pacing: a game session's connection is read at most once a ReadGap while its
// packets come faster than that. One client typing at the key rate, a key an SSH packet,
// woke the server a thousand times a second: each packet was read from the socket on its
// own, and passed by the SSH library's goroutines, the input pump's and the program's
// from one to the next, each hand-off waking a thread. On a shared 2-core box the
// wake-ups, not the work, were most of what that client cost (8.8 % of a core with its
// frames already drawn a frame a gap, app.KeyFrameGap; 3.8 % paced). Paced, the packets
// that come within the gap wait in the socket and are read together, in one read: the
// wake-ups are paid once for all of them.
//
//	ReadGap   reads a second, at most, while packets come faster   a packet waits, at most
//	0         one a packet (a thousand at the key rate)             nothing
//	10 ms     100                                                   10 ms
//
// A packet after a pause of a gap or more is read at once: a person's keys, 60 ms apart or
// more, and a held key's repeats (30 or 40 a second) are never held back. A read that
// filled the buffer it was given is followed by the next at once: a paste or a burst
// streams in at the socket's pace. The handshake and the login are never paced: a game
// session turns pacing on (PaceReads) for the rest of its connection.
const ReadGap = 10 * time.Millisecond

// readPace paces one connection's reads. on is set by any goroutine (PaceReads); the
// rest is used only by the SSH library's one goroutine reading the connection.
type readPace struct {
	on    atomic.Bool
	short time.Time // when the last read returned less than it could take; zero otherwise
	// now and sleep are the clock, time.Now and time.Sleep when nil (tests set them).
	now   func() time.Time
	sleep func(time.Duration)
}

// wait holds a read back until ReadGap after the last read that took all there was.
func (p *readPace) wait() {
	if !p.on.Load() || p.short.IsZero() {
		return
	}
	if d := ReadGap - p.clock().Sub(p.short); d > 0 {
		if p.sleep != nil {
			p.sleep(d)
		} else {
			time.Sleep(d)
		}
	}
}

// read notes a read of n bytes into a buffer of size: a short one took all there was.
func (p *readPace) read(n, size int) {
	if n < size {
		p.short = p.clock()
	} else {
		p.short = time.Time{}
	}
}

func (p *readPace) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// Paced reports whether the connection's reads are paced (PaceReads).
func (c *Slot) Paced() bool { return c.pace.on.Load() }

// PaceReads turns read pacing (ReadGap) on for the rest of the connection of a session
// whose context is ctx: the server calls it for the sessions that run the game's screen.
// A connection that did not come through a Listener is not paced.
func PaceReads(ctx context.Context) {
	if slot := SlotOf(ctx); slot != nil {
		slot.pace.on.Store(true)
	}
}
