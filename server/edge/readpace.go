package edge

import (
	"context"
	"sync/atomic"
	"time"
)

// Read pacing: a game session's connection is read at most once a ReadGap while its
// packets come faster than that. Unpaced, one client typing at the key rate, a key an SSH
// packet, wakes the server a thousand times a second: each packet is read from the
// socket on its own and handed from the SSH library's goroutines to the input pump's and
// the program's, each hand-off waking a thread, and on a shared 2-core box those
// wake-ups, not the work, are most of what the client costs (docs/PERFORMANCE.md
// "Typing"). Paced, the packets that come within the gap wait in the socket and are read
// together, in one read: the wake-ups are paid once for all of them.
//
//	ReadGap   reads a second, at most, while    a packet waits,   one typist at the key rate,
//	          packets come faster               at most           a key a packet (PERFORMANCE)
//	0         one a packet (1000 at the rate)   nothing           6.7–7.6 % of a core
//	10 ms     100                               10 ms             3.3–4.7 %
//	20 ms     50                                20 ms             3.0–3.9 % (3.8–4.1 % at 10 ms,
//	                                                              in turn), but a held key's
//	                                                              fastest repeats reach the gap
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
