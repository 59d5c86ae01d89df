package edge

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// An address is charged for each connection dropped at the banner deadline or failed, and
// refused once its charge is past penaltyGrace, until it runs down, never for more than
// penaltyMax; early drop takes none below early-drop-at, and all from an address with a
// handshake under way at max-handshakes.
func TestPenaltiesAndEarlyDrop(t *testing.T) {
	lim := DefaultLimits
	l := NewListener(nil, lim, nil)
	now := time.Now()
	l.penalise("192.0.2.1", penaltyLate, now)
	if reason, _ := l.admission("192.0.2.1", now); reason != "" {
		t.Errorf("one silent connection refuses its address: %s", reason)
	}
	l.penalise("192.0.2.1", penaltyLate, now)
	reason, msg := l.admission("192.0.2.1", now)
	if reason != RefusedPenalty || !strings.Contains(msg, "try again in 5s") {
		t.Errorf("two silent connections: %q %q", reason, msg)
	}
	if reason, _ := l.admission("192.0.2.2", now); reason != "" {
		t.Errorf("another address is refused: %s", reason)
	}
	if reason, _ := l.admission("192.0.2.1", now.Add(6*time.Second)); reason != "" {
		t.Errorf("a charge run down below the grace still refuses: %s", reason)
	}
	for range 1000 {
		l.penalise("192.0.2.3", penaltyLate, now)
	}
	if left := l.penalty("192.0.2.3", now); left != penaltyMax-penaltyGrace {
		t.Errorf("a thousand charges refuse for %s, want %s", left, penaltyMax-penaltyGrace)
	}
	l.shakes["192.0.2.4"] = 1
	drops := func(waiting int) int {
		l.shaking = waiting
		n := 0
		for range 1000 {
			if l.earlyDrop("192.0.2.4") {
				n++
			}
		}
		return n
	}
	if n := drops(lim.EarlyDropAt - 1); n != 0 {
		t.Errorf("%d of 1000 dropped below early-drop-at", n)
	}
	if n := drops(lim.EarlyDropAt); n < 200 || n > 400 {
		t.Errorf("%d of 1000 dropped at early-drop-at, want about 300", n)
	}
	if n := drops(lim.MaxHandshakes - 1); n != 1000 {
		t.Errorf("%d of 1000 dropped with one place left, want all", n)
	}
}

// With handshake places scarce, admission is fair across addresses: one with no handshake
// under way is let in while any place is left; one with some may hold its share, which
// falls from max-handshakes-per-ip at early-drop-at to one with the last places; below it,
// it is dropped at random.
func TestEarlyDropKeepsPlacesForAddressesWithNone(t *testing.T) {
	lim := DefaultLimits
	l := NewListener(nil, lim, nil)
	now := time.Now()
	const fresh, busy = "192.0.2.1", "192.0.2.2"
	for _, shaking := range []int{lim.EarlyDropAt, (lim.EarlyDropAt + lim.MaxHandshakes) / 2, lim.MaxHandshakes - 1} {
		l.shaking, l.waiting = shaking, shaking
		for range 1000 {
			if reason, _ := l.admission(fresh, now); reason != "" {
				t.Fatalf("%d in the handshake: an address with none there is refused: %s", shaking, reason)
			}
		}
	}
	l.shaking, l.waiting = lim.MaxHandshakes, lim.MaxHandshakes
	if reason, _ := l.admission(fresh, now); reason != RefusedBusy {
		t.Errorf("every place taken: an address with none there is %q, want %q", reason, RefusedBusy)
	}
	// The share at each bound: the most an address may hold and still be let in, at
	// random, and the fewest from which it is always dropped.
	half := lim.EarlyDropAt + (lim.MaxHandshakes-lim.EarlyDropAt)/2
	for _, c := range []struct{ shaking, share int }{
		{lim.EarlyDropAt, lim.MaxShakesPerIP},
		{half, lim.MaxShakesPerIP / 2},
		{lim.MaxHandshakes - 1, 1},
	} {
		l.shaking, l.waiting = c.shaking, c.shaking
		for held := 1; held <= lim.MaxShakesPerIP; held++ {
			l.shakes[busy] = held
			dropped := 0
			for range 1000 {
				if l.earlyDrop(busy) {
					dropped++
				}
			}
			switch {
			case held >= c.share && dropped != 1000:
				t.Errorf("%d in the handshake, %d of them an address's (its share %d): %d of 1000 dropped, want all", c.shaking, held, c.share, dropped)
			case held < c.share && (dropped == 0 || dropped == 1000):
				t.Errorf("%d in the handshake, %d of them an address's (its share %d): %d of 1000 dropped, want some at random", c.shaking, held, c.share, dropped)
			}
		}
	}
	l.shaking, l.waiting = lim.EarlyDropAt-1, lim.EarlyDropAt-1
	l.shakes[busy] = lim.MaxShakesPerIP - 1
	if l.earlyDrop(busy) {
		t.Errorf("below early-drop-at an address with %d in the handshake is dropped", lim.MaxShakesPerIP-1)
	}
}

// halfOpen is a connection the listener admitted from an address of its own, and the
// client's end of it.
type halfOpen struct {
	*limitedConn
	client net.Conn
}

// admit has l admit a connection from addr through f.
func admit(t *testing.T, f *fakeListener, l *Listener, addr string) halfOpen {
	t.Helper()
	server, client := net.Pipe()
	t.Cleanup(func() { client.Close() })
	f.conns <- fromConn{server, &net.TCPAddr{IP: net.ParseIP(addr), Port: 40000}}
	c, err := l.Accept()
	if err != nil {
		t.Fatalf("a connection from %s is refused", addr)
	}
	return halfOpen{c.(*limitedConn), client}
}

// send has the client send b, and the server read it as the SSH library would.
func (h halfOpen) send(t *testing.T, b string) {
	t.Helper()
	go func() { _, _ = io.WriteString(h.client, b) }()
	buf := make([]byte, len(b))
	if _, err := io.ReadFull(h, buf); err != nil {
		t.Fatal(err)
	}
}

// closed reports whether the server dropped the connection.
func (h halfOpen) closed() bool {
	_ = h.client.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err := h.client.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)
}

// charged returns how long the address is charged for from now, or zero.
func (l *Listener) charged(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, time.Until(l.penalties[addr]))
}

// scarce sets early-drop-at to the connections in the handshake (places scarce), or one
// above (a place to spare): the bound of the banner deadline's rule.
func (l *Listener) scarceNow(scarce bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lim.EarlyDropAt = l.shaking
	if !scarce {
		l.lim.EarlyDropAt++
	}
}

// At the banner deadline a connection that is not through its key exchange is dropped and
// its address charged as a silent one is, whatever it sent (nothing, a version line, part
// of a key exchange), while handshake places are scarce (early-drop-at in the handshake);
// a silent one always. One through its key exchange, or logged in, is not; nor, with a
// place to spare, one that sent something: a new player may be reading OpenSSH's host key
// prompt, in the middle of the key exchange. Two such connections put their address past
// the grace, as two silent ones do; the failed handshake that follows a drop is not
// charged again.
func TestTheBannerDeadlineChargesEveryHalfOpenConnection(t *testing.T) {
	const (
		version = "SSH-2.0-OpenSSH_9.2\r\n"
		kexinit = "\x00\x00\x01\x0c\x0a\x14" // the start of a key exchange init packet
	)
	for _, c := range []struct {
		name     string
		sent     string
		scarce   bool
		through  bool // through its key exchange before the deadline
		loggedIn bool
		dropped  bool
	}{
		{"silent, a place to spare", "", false, false, false, true},
		{"silent, places scarce", "", true, false, false, true},
		{"a version line, a place to spare", version, false, false, false, false},
		{"a version line, places scarce", version, true, false, false, true},
		{"part of a key exchange, a place to spare", version + kexinit, false, false, false, false},
		{"part of a key exchange, places scarce", version + kexinit, true, false, false, true},
		{"through the key exchange, places scarce", version + kexinit, true, true, false, false},
		{"logged in, places scarce", version + kexinit, true, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeListener{conns: make(chan net.Conn, 1)}
			lim := DefaultLimits
			lim.BannerTimeout = time.Hour // the deadline is run by hand
			l := NewListener(f, lim, nil)
			const addr = "192.0.2.1"
			halfOpen := func() halfOpen {
				l.scarceNow(false) // admitted whatever the address holds
				h := admit(t, f, l, addr)
				h.slot.listen()
				if c.sent != "" {
					h.send(t, c.sent)
				}
				if c.through {
					h.slot.KeyExchanged()
				}
				if c.loggedIn {
					h.slot.LoggedIn()
				}
				l.scarceNow(c.scarce)
				h.slot.bannerDeadline()
				return h
			}
			h := halfOpen()
			dropped, charge := h.closed(), l.charged(addr)
			if dropped != c.dropped || (charge > 0) != c.dropped {
				t.Fatalf("dropped %v, its address charged %v; want dropped and charged %v", dropped, charge, c.dropped)
			}
			if !c.dropped {
				return
			}
			if charge <= penaltyLate-time.Second || charge > penaltyLate {
				t.Errorf("charged %v, want %v as a silent one", charge, penaltyLate)
			}
			h.slot.HandshakeFailed()
			if again := l.charged(addr); again > penaltyLate {
				t.Errorf("the failed handshake after the drop charged again: %v", again)
			}
			if !halfOpen().closed() {
				t.Fatal("a second such connection is not dropped")
			}
			l.mu.Lock()
			reason, _ := l.admission(addr, time.Now())
			l.mu.Unlock()
			if reason != RefusedPenalty {
				t.Errorf("after two such connections the address is %q, want %q", reason, RefusedPenalty)
			}
		})
	}
}

// The deadline runs on its own from the server's first read: a connection that sent a
// version line and nothing more is dropped at it with places scarce, and its address
// charged, while one that got through its key exchange is kept. Regression (issue 42): the
// client's first byte stopped the deadline, and such a connection held its place until
// the handshake timeout, charged 1 s.
func TestAVersionLineDoesNotStopTheBannerDeadline(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 2)}
	lim := DefaultLimits
	lim.BannerTimeout = 50 * time.Millisecond
	lim.EarlyDropAt = 2 // places scarce with both connections in the handshake
	l := NewListener(f, lim, nil)
	// The connection through its key exchange is read first: its deadline runs out first.
	through, stalled := admit(t, f, l, "192.0.2.2"), admit(t, f, l, "192.0.2.1")
	through.send(t, "SSH-2.0-OpenSSH_9.2\r\n")
	through.slot.KeyExchanged()
	stalled.send(t, "SSH-2.0-OpenSSH_9.2\r\n")
	waitUntil(t, "the version-only connection to be dropped", stalled.closed)
	if charge := l.charged("192.0.2.1"); charge <= penaltyLate-time.Second {
		t.Errorf("the version-only connection's address is charged %v, want %v", charge, penaltyLate)
	}
	if through.closed() || l.charged("192.0.2.2") > 0 {
		t.Error("the connection through its key exchange was dropped or charged")
	}
}
