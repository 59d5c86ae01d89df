package edge

import (
	"context"
	"net"
	"testing"
	"time"
)

// shortConn is a client's connection whose reads return n bytes each: a packet of a key.
type shortConn struct {
	net.Conn
	n     int
	reads int
}

func (c *shortConn) Read(b []byte) (int, error) {
	c.reads++
	return min(c.n, len(b)), nil
}

// A paced connection (PaceReads) is read at most once a ReadGap while what it sends
// comes in less than the buffer holds: a read less than the gap after a short one waits
// for the rest of the gap, one after the gap does not wait, nor one after a read that
// filled its buffer (a paste streams in). Unpaced (the handshake, the login, a command),
// no read waits.
func TestReadsArePacedForAGame(t *testing.T) {
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var waited []time.Duration
	slot := &Slot{}
	slot.listening.Store(true)
	slot.spoke.Store(true)
	slot.pace.now = func() time.Time { return now }
	slot.pace.sleep = func(d time.Duration) { waited = append(waited, d); now = now.Add(d) }
	fake := &shortConn{n: 1}
	c := &limitedConn{Conn: fake, slot: slot}
	buf := make([]byte, 4096)
	read := func(after time.Duration) {
		t.Helper()
		now = now.Add(after)
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
	}

	PaceReads(context.Background()) // a connection with no place (none here) is not paced
	read(0)
	read(time.Millisecond)
	if len(waited) != 0 {
		t.Fatalf("unpaced, reads waited %v", waited)
	}
	slot.pace.on.Store(true)
	if !slot.Paced() {
		t.Fatal("not paced")
	}
	read(time.Millisecond) // after a short read 1 ms ago
	if len(waited) != 1 || waited[0] != ReadGap-time.Millisecond {
		t.Fatalf("a read 1 ms after a short one waited %v, want %v", waited, ReadGap-time.Millisecond)
	}
	read(ReadGap) // a pause of a gap: at once
	read(3 * ReadGap)
	if len(waited) != 1 {
		t.Fatalf("a read after a pause of a gap waited %v", waited[1:])
	}
	fake.n = len(buf) // the buffer filled: the next read at once
	read(ReadGap)
	read(0)
	if len(waited) != 1 {
		t.Fatalf("a read after a full one waited %v", waited[1:])
	}
	fake.n = 1 // the last read was full: this one at once, the next waits
	read(0)
	read(0)
	if len(waited) != 2 || waited[1] != ReadGap {
		t.Fatalf("a read just after a short one waited %v, want %v", waited[1:], ReadGap)
	}
	if fake.reads != 9 {
		t.Fatalf("%d reads of the connection, want 9", fake.reads)
	}
}
