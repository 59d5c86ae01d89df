package edge

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
)

// Limits are the SSH edge's protections against too many, too idle or too greedy
// connections. Each has a flag (the server's config) and its default in DefaultLimits.
type Limits struct {
	MaxSessions      int           // connections with a session open (a game or a command)
	MaxHandshakes    int           // connections not in a session: in the handshake, logging in, or yet to open one
	MaxPerIP         int           // connections from one address (an IPv6 /64), in a session or not
	MaxShakesPerIP   int           // connections from one address in the handshake, not logged in yet
	MaxPerKey        int           // sessions of one key, and session channels of one connection
	EarlyDropAt      int           // connections in the handshake from which places are scarce: early drop, the banner deadline (admission.go)
	HandshakeTimeout time.Duration // to finish the SSH handshake
	BannerTimeout    time.Duration // to send the first byte (an SSH client's version line); with places scarce, to get through the key exchange
	ChannelTimeout   time.Duration // a connection with no session open for this long is closed
	IdleTimeout      time.Duration // since the last keystroke (not output) in the game
	MaxLifetime      time.Duration // of one connection
	StallTimeout     time.Duration // a frame the client does not take in closes the session
}

// DefaultLimits are the limits' defaults. What they mean for a 2-core server:
//
//	limit             default  effect
//	max-sessions      500      about what a 2-core box serves (p99 352 ms with 50 of 500 walking; docs/PERFORMANCE.md)
//	max-handshakes    1000     connections not yet in a session never take a player's place; more are closed at once
//	early-drop-at     500      from 500 connections in the handshake, new ones from addresses with some there are dropped (past their share, else 30 % rising to all at max-handshakes)
//	max-per-ip        20       a household or a classroom behind one address still fits
//	max-handshakes-per-ip 8    handshakes at once from one address: 60 addresses hold fewer than early-drop-at
//	max-per-key       4        a game, a watcher and commands at once; a fifth is refused
//	handshake         10s      a client that never finishes the handshake is dropped
//	banner            3s       a client that sends nothing is dropped, its address charged a penalty; with handshake places scarce, one not through the key exchange
//	channel           20s      a connection that logs in and opens no session is dropped
//	idle              30m      an AFK knight is saved and its session closed
//	lifetime          12h      no connection lives forever
//	stall             30s      a client that stops reading its screen is closed, knight saved
var DefaultLimits = Limits{
	MaxSessions: 500, MaxHandshakes: 1000, EarlyDropAt: 500, MaxPerIP: 20, MaxShakesPerIP: 8, MaxPerKey: 4,
	HandshakeTimeout: 10 * time.Second, BannerTimeout: 3 * time.Second, ChannelTimeout: 20 * time.Second, IdleTimeout: 30 * time.Minute,
	MaxLifetime: 12 * time.Hour, StallTimeout: 30 * time.Second,
}

// What a refused client is told. ServerFullMsg and tooManyMsg come in the SSH login
// banner, which OpenSSH and other clients show (and ServerFullMsg on a session's stderr,
// when the server filled up during its login); busyMsg, for a server with every
// handshake place taken, is a line written before SSH begins (most clients show only
// that the connection closed).
const (
	ServerFullMsg = "orthanc: the server is full; try again later\r\n"
	tooManyMsg    = "orthanc: too many connections from your address; try again later\r\n"
	busyMsg       = "orthanc: the server is busy; try again in a moment\r\n"
)

// RefusalsPerAddr is how many connections from an address already at its limit may go
// through the handshake at once to be told why they are refused; more are closed at once.
const RefusalsPerAddr = 4

// Reasons a connection is refused, as the log and orthanc_connections_refused_total
// name them: every player's place taken, the address at its limit, every handshake
// place taken, the address penalised for failed connections (admission.go), and an early
// drop with the handshakes nearly full (admission.go).
const (
	RefusedFull    = "server_full"
	RefusedPerAddr = "per_address"
	RefusedBusy    = "handshakes_full"
	RefusedPenalty = "penalised"
	RefusedEarly   = "early_drop"
)

// Listener admits connections within the limits, and into the handshake as admission.go
// says. It counts each connection in one of two pools: waiting (not in a session: in the
// handshake, logging in, or yet to open a session, at most the channel timeout) and
// playing (a session open), so connections that are not playing can never take the
// places of those that are. A connection past the per-address limit, or arriving when
// every player's place is taken, is still let through the handshake (a few per address)
// so that its login banner can say why it is refused.
type Listener struct {
	net.Listener
	lim      Limits
	onRefuse func(reason string, addr net.Addr) // counts and logs a refusal; may be nil

	mu        sync.Mutex
	waiting   int
	playing   int
	perAddr   map[string]int
	shakes    map[string]int       // connections in the handshake, not logged in yet, by address
	shaking   int                  // the same, in all (admission.go's early drop)
	byRemote  map[string]*Slot     // connections by remote address, for the handshake's failure callback
	penalties map[string]time.Time // by address: until when it is charged (admission.go)
}

// NewListener admits the connections ln accepts within lim. onRefuse, when not nil, is
// told of each connection closed before the handshake, and why (a Refused reason).
func NewListener(ln net.Listener, lim Limits, onRefuse func(reason string, addr net.Addr)) *Listener {
	return &Listener{Listener: ln, lim: lim, onRefuse: onRefuse, perAddr: map[string]int{}, shakes: map[string]int{}, byRemote: map[string]*Slot{},
		penalties: map[string]time.Time{}}
}

// Accept hands on the next connection within the limits, closing the rest.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := AddrKey(c.RemoteAddr())
		l.mu.Lock()
		refuse, msg := l.admission(addr, time.Now())
		var slot *Slot
		if refuse == "" {
			slot = &Slot{l: l, addr: addr, remote: c.RemoteAddr().String(), conn: c, overAddr: l.perAddr[addr] >= l.lim.MaxPerIP}
			l.waiting++
			l.shakes[addr]++
			l.shaking++
			slot.shaking = true
			l.perAddr[addr]++
			l.byRemote[slot.remote] = slot
			slot.timer = time.AfterFunc(l.lim.ChannelTimeout, slot.noSession)
			slot.banner = time.AfterFunc(time.Hour, slot.bannerDeadline)
			slot.banner.Stop() // armed by the server's first read (admission.go)
		}
		l.mu.Unlock()
		if refuse != "" {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = io.WriteString(c, msg)
			_ = c.Close()
			if l.onRefuse != nil {
				l.onRefuse(refuse, c.RemoteAddr())
			}
			continue
		}
		return &limitedConn{Conn: c, slot: slot}, nil
	}
}

// shaken counts the connection out of its address's handshakes, once; the caller holds
// mu.
func (c *Slot) shaken() {
	if !c.shaking {
		return
	}
	c.shaking = false
	c.l.shaking--
	if c.l.shakes[c.addr]--; c.l.shakes[c.addr] <= 0 {
		delete(c.l.shakes, c.addr)
	}
}

// LoggedIn counts the connection out of its address's handshakes: a key was let in, or a
// guest.
func (c *Slot) LoggedIn() {
	c.l.mu.Lock()
	c.shaken()
	c.l.mu.Unlock()
}

// Slot returns the place of the open connection from the remote address (host and port),
// or nil.
func (l *Listener) Slot(remote string) *Slot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byRemote[remote]
}

// Counts returns the connections waiting and playing, for tests and stats.
func (l *Listener) Counts() (waiting, playing int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting, l.playing
}

// ExpireWaiting runs out, now, the channel timeout of every connection with no session
// open, as if it had passed: for tests, which cannot wait the real one out.
func (l *Listener) ExpireWaiting() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, slot := range l.byRemote {
		if slot.sessions == 0 {
			slot.timer.Reset(0)
		}
	}
}

// Slot is one admitted connection's place in the limits. Its counts are guarded by
// the listener's mutex; Auth is used only by the connection's handshake goroutine.
type Slot struct {
	l        *Listener
	addr     string // AddrKey of the client
	remote   string // the client's host and port
	conn     net.Conn
	overAddr bool // admitted past the per-address limit, to be refused at login
	timer    *time.Timer
	banner   *time.Timer // the banner deadline, stopped by the end of the key exchange (admission.go)

	listening   atomic.Bool // the server has begun to read the client: the banner deadline runs
	spoke       atomic.Bool // the client has sent a byte
	exchanged   atomic.Bool // the client has got through the key exchange: the banner deadline is over
	droppedLate atomic.Bool // dropped at the banner deadline, its address charged already
	pace        readPace    // a game session's reads, paced (readpace.go)

	shaking  bool   // counted in its address's handshakes (admission.go): not logged in yet
	sessions int    // sessions running on the connection
	channels int    // session channels open on the connection
	refused  string // why the login was refused ("" while it is not)
	closed   bool

	// Auth is what the server's login callbacks have seen of the connection so far.
	Auth AuthState
}

// AuthState is what the login has seen so far, for the auth failure log.
type AuthState struct {
	Offered     bool   // a key was offered and would be let in if signed for
	Reason      string // why the last attempt was refused, when the server refused it
	Fingerprint string // the key of that attempt
	// OfferedBanned is set once the connection offered a banned key: it is never let in
	// as a guest. AddrBanned once it was found to come from a banned address.
	OfferedBanned bool
	AddrBanned    bool
	// Closed is set once the connection was refused because the server takes no one in
	// (Login.Closed): it is told and logged once. ClosedLogged once it is logged.
	Closed, ClosedLogged bool
}

// Refusal decides at the start of the login whether the connection is refused, and why
// (a Refused reason, and the line it is told in the login banner); the decision is kept
// for the rest of the login.
func (c *Slot) Refusal() (reason, msg string) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.refused == "" {
		switch {
		case c.overAddr:
			c.refused = RefusedPerAddr
		case c.l.playing >= c.l.lim.MaxSessions:
			c.refused = RefusedFull
		}
	}
	switch c.refused {
	case RefusedPerAddr:
		return c.refused, tooManyMsg
	case RefusedFull:
		return c.refused, ServerFullMsg
	}
	return "", ""
}

// IsRefused reports whether the login has been refused.
func (c *Slot) IsRefused() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	return c.refused != ""
}

// StartSession moves the connection into the playing pool with its first session; it is
// false when every player's place is taken (the server filled up during the login) or
// the connection is closing.
func (c *Slot) StartSession() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.closed {
		return false
	}
	if c.sessions == 0 {
		if c.l.playing >= c.l.lim.MaxSessions {
			return false
		}
		c.timer.Stop()
		c.l.waiting--
		c.l.playing++
	}
	c.sessions++
	return true
}

// EndSession ends a session; with the last one the connection waits again, for at most
// the channel timeout.
func (c *Slot) EndSession() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.sessions--; c.sessions > 0 || c.closed {
		return
	}
	c.l.playing--
	c.l.waiting++
	c.timer.Reset(c.l.lim.ChannelTimeout)
}

// openChannel counts a session channel; it is false past max-per-key channels, which
// bounds what one connection holds (each channel may buffer the client's unread input).
func (c *Slot) openChannel() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.channels >= c.l.lim.MaxPerKey {
		return false
	}
	c.channels++
	return true
}

func (c *Slot) closeChannel() {
	c.l.mu.Lock()
	c.channels--
	c.l.mu.Unlock()
}

// noSession closes a connection that has had no session for the channel timeout.
func (c *Slot) noSession() {
	c.l.mu.Lock()
	idle := c.sessions == 0 && !c.closed
	c.l.mu.Unlock()
	if idle {
		_ = c.conn.Close()
	}
}

// release gives the connection's place back, once, when it closes.
func (c *Slot) release() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.timer.Stop()
	c.banner.Stop()
	if c.sessions > 0 {
		c.l.playing--
	} else {
		c.l.waiting--
	}
	c.shaken()
	if c.l.perAddr[c.addr]--; c.l.perAddr[c.addr] <= 0 {
		delete(c.l.perAddr, c.addr)
	}
	// byRemote keeps the slot until the SSH server is done with the connection (Forget):
	// the SSH library closes a connection whose handshake failed before it reports why.
}

// Forget drops the connection from the remote address once the SSH server is done
// with it (its ConnectionCloseCallback).
func (l *Listener) Forget(remote string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byRemote, remote)
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	net.Conn
	slot *Slot
}

// Read starts the banner deadline, notes the client's first byte, and paces a game
// session's reads (readpace.go).
func (c *limitedConn) Read(b []byte) (int, error) {
	if !c.slot.listening.Load() {
		c.slot.listen()
	}
	c.slot.pace.wait()
	n, err := c.Conn.Read(b)
	c.slot.pace.read(n, len(b))
	if n > 0 && !c.slot.spoke.Load() {
		c.slot.heard()
	}
	return n, err
}

func (c *limitedConn) Close() error {
	c.slot.release()
	return c.Conn.Close()
}

// slotKey is the connection context's key of the connection's place.
type slotKey struct{}

// KeepSlot keeps the place of c, a connection the Listener admitted, in the connection's
// context, where SlotOf finds it: the SSH server's ConnCallback calls it. A connection
// that did not come through a Listener has no place.
func KeepSlot(ctx ssh.Context, c net.Conn) {
	if lc, ok := c.(*limitedConn); ok {
		ctx.SetValue(slotKey{}, lc.slot)
	}
}

// SlotOf returns the place of a session's or a login's connection, or nil (a connection
// that did not come through a Listener, as in unit tests).
func SlotOf(ctx context.Context) *Slot {
	slot, _ := ctx.Value(slotKey{}).(*Slot)
	return slot
}
