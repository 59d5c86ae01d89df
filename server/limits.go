package server

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// limits are the server's protections against too many, too idle or too greedy clients.
// Each has a flag (config.go) and its default below.
type limits struct {
	maxSessions       int           // connections with a session open (a game or a command)
	maxHandshakes     int           // connections not in a session: in the handshake, logging in, or yet to open one
	maxPerIP          int           // connections from one address (an IPv6 /64), in a session or not
	maxShakesPerIP    int           // connections from one address in the handshake, not logged in yet
	maxPerKey         int           // sessions of one key, and session channels of one connection
	maxGuestsPerIP    int           // guest sessions from one address (an IPv6 /64)
	maxGuests         int           // guest sessions on the server
	newKnightsPerHour int           // new knights made from one address (an IPv6 /64) in an hour
	earlyDropAt       int           // connections waiting from which new ones are dropped at random (admission.go)
	handshakeTimeout  time.Duration // to finish the SSH handshake
	bannerTimeout     time.Duration // to send the first byte (an SSH client's version line)
	channelTimeout    time.Duration // a connection with no session open for this long is closed
	idleTimeout       time.Duration // since the last keystroke (not output) in the game
	maxLifetime       time.Duration // of one connection
	stallTimeout      time.Duration // a frame the client does not take in closes the session
}

// Defaults, and what they mean for a 2-core server:
//
//	limit             default  effect
//	max-sessions      500      about what a 2-core box serves (p99 352 ms with 50 of 500 walking; docs/PERFORMANCE.md)
//	max-handshakes    1000     connections not yet in a session never take a player's place; more are closed at once
//	early-drop-at     500      from 500 connections in the handshake, new ones are dropped at random (30 %, rising to all at max-handshakes)
//	max-per-ip        20       a household or a classroom behind one address still fits
//	max-handshakes-per-ip 8    handshakes at once from one address: 60 addresses hold fewer than early-drop-at
//	max-per-key       4        a game, a watcher and commands at once; a fifth is refused
//	max-guests-per-ip 2        guests (no key) from one address: a second device, not a crowd
//	max-guests        50       guests on the server: a tenth of the players' places
//	new-knights-per-hour 5     knights made from one address in an hour: a family's, not a script's
//	handshake         10s      a client that never finishes the handshake is dropped
//	banner            3s       a client that sends nothing is dropped, its address charged a penalty
//	channel           20s      a connection that logs in and opens no session is dropped
//	idle              30m      an AFK knight is saved and its session closed
//	lifetime          12h      no connection lives forever
//	stall             30s      a client that stops reading its screen is closed, knight saved
var defaultLimits = limits{
	maxSessions: 500, maxHandshakes: 1000, earlyDropAt: 500, maxPerIP: 20, maxShakesPerIP: 8, maxPerKey: 4, maxGuestsPerIP: 2, maxGuests: 50, newKnightsPerHour: 5,
	handshakeTimeout: 10 * time.Second, bannerTimeout: 3 * time.Second, channelTimeout: 20 * time.Second, idleTimeout: 30 * time.Minute,
	maxLifetime: 12 * time.Hour, stallTimeout: 30 * time.Second,
}

// Per-session request bounds: env variables a client may set, their size, and requests of
// any kind on one session.
const (
	maxEnvVars      = 32
	maxEnvBytes     = 1024
	maxSessionReqs  = 10000
	tooManyPerKey   = "Too many sessions with this key are open; close one and try again."
	tooManyGuests   = "Too many guests are playing from your address (or on the server); make a key (ssh-keygen -t ed25519) and connect again."
	stalledLogLabel = "session stalled: closing"
)

// What a refused client is told. The first three come in the SSH login banner, which
// OpenSSH and other clients show; busyMsg, for a server with every handshake place
// taken, is a line written before SSH begins (most clients show only that the
// connection closed).
const (
	serverFullMsg = "orthanc: the server is full; try again later\r\n"
	tooManyMsg    = "orthanc: too many connections from your address; try again later\r\n"
	bannedMsg     = "orthanc: " + bannedMessage + "\r\n"
	bannedAddrMsg = "orthanc: " + bannedAddrMessage + "\r\n"
	noGuestsMsg   = "orthanc: this server takes no guests: make a key (ssh-keygen -t ed25519) and connect again.\r\n"
	busyMsg       = "orthanc: the server is busy; try again in a moment\r\n"
)

// refusalsPerAddr is how many connections from an address already at its limit may go
// through the handshake at once to be told why they are refused; more are closed at once.
const refusalsPerAddr = 4

// Reasons a connection is refused, as the log and orthanc_connections_refused_total
// name them.
const (
	refusedFull    = "server_full"
	refusedPerAddr = "per_address"
	refusedBusy    = "handshakes_full"
)

// limitListener admits connections within the limits (and admission.go's). It counts each connection in one of
// two pools: waiting (not in a session: in the handshake, logging in, or yet to open a
// session, at most the channel timeout) and playing (a session open), so connections
// that are not playing can never take the places of those that are. A connection past
// the per-address limit, or arriving when every player's place is taken, is still let
// through the handshake (a few per address) so that its login banner can say why it is
// refused.
type limitListener struct {
	net.Listener
	lim      limits
	onRefuse func(reason string, addr net.Addr) // counts and logs a refusal; may be nil

	mu        sync.Mutex
	waiting   int
	playing   int
	perAddr   map[string]int
	shakes    map[string]int       // connections in the handshake, not logged in yet, by address
	shaking   int                  // the same, in all (admission.go's early drop)
	byRemote  map[string]*connSlot // connections by remote address, for the handshake's failure callback
	penalties map[string]time.Time // by address: until when it is charged (admission.go)
}

func newLimitListener(ln net.Listener, lim limits, onRefuse func(string, net.Addr)) *limitListener {
	return &limitListener{Listener: ln, lim: lim, onRefuse: onRefuse, perAddr: map[string]int{}, shakes: map[string]int{}, byRemote: map[string]*connSlot{},
		penalties: map[string]time.Time{}}
}

// Accept hands on the next connection within the limits, closing the rest.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := edge.AddrKey(c.RemoteAddr())
		l.mu.Lock()
		refuse, msg := l.admission(addr, time.Now())
		var slot *connSlot
		if refuse == "" {
			slot = &connSlot{l: l, addr: addr, remote: c.RemoteAddr().String(), conn: c, overAddr: l.perAddr[addr] >= l.lim.maxPerIP}
			l.waiting++
			l.shakes[addr]++
			l.shaking++
			slot.shaking = true
			l.perAddr[addr]++
			l.byRemote[slot.remote] = slot
			slot.timer = time.AfterFunc(l.lim.channelTimeout, slot.noSession)
			slot.banner = time.AfterFunc(time.Hour, slot.silent)
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
func (c *connSlot) shaken() {
	if !c.shaking {
		return
	}
	c.shaking = false
	c.l.shaking--
	if c.l.shakes[c.addr]--; c.l.shakes[c.addr] <= 0 {
		delete(c.l.shakes, c.addr)
	}
}

// loggedIn counts the connection out of its address's handshakes: a key was let in, or a
// guest.
func (c *connSlot) loggedIn() {
	c.l.mu.Lock()
	c.shaken()
	c.l.mu.Unlock()
}

// slot returns the open connection from the remote address (host and port), or nil.
func (l *limitListener) slot(remote string) *connSlot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byRemote[remote]
}

// counts returns the connections waiting and playing, for tests and stats.
func (l *limitListener) counts() (waiting, playing int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting, l.playing
}

// connSlot is one admitted connection's place in the limits. Its counts are guarded by
// the listener's mutex; auth is used only by the connection's handshake goroutine.
type connSlot struct {
	l        *limitListener
	addr     string // addrKey of the client
	remote   string // the client's host and port
	conn     net.Conn
	overAddr bool // admitted past the per-address limit, to be refused at login
	timer    *time.Timer
	banner   *time.Timer // the banner deadline, stopped by the client's first byte (admission.go)

	listening     atomic.Bool // the server has begun to read the client: the banner deadline runs
	spoke         atomic.Bool // the client has sent a byte
	droppedSilent atomic.Bool // dropped at the banner deadline, its address charged already

	shaking  bool   // counted in its address's handshakes (admission.go): not logged in yet
	sessions int    // sessions running on the connection
	channels int    // session channels open on the connection
	refused  string // why the login was refused ("" while it is not)
	closed   bool

	auth authState
}

// authState is what the login has seen so far, for the auth failure log.
type authState struct {
	offered     bool   // a key was offered and would be let in if signed for
	reason      string // why the last attempt was refused, when the server refused it
	fingerprint string // the key of that attempt
	// offeredBanned is set once the connection offered a banned key: it is never let in
	// as a guest. addrBanned once it was found to come from a banned address.
	offeredBanned bool
	addrBanned    bool
}

// refusal decides at the start of the login whether the connection is refused, and why;
// the decision is kept for the rest of the login.
func (c *connSlot) refusal() (reason, msg string) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.refused == "" {
		switch {
		case c.overAddr:
			c.refused = refusedPerAddr
		case c.l.playing >= c.l.lim.maxSessions:
			c.refused = refusedFull
		}
	}
	switch c.refused {
	case refusedPerAddr:
		return c.refused, tooManyMsg
	case refusedFull:
		return c.refused, serverFullMsg
	}
	return "", ""
}

// isRefused reports whether the login has been refused.
func (c *connSlot) isRefused() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	return c.refused != ""
}

// startSession moves the connection into the playing pool with its first session; it is
// false when every player's place is taken (the server filled up during the login) or
// the connection is closing.
func (c *connSlot) startSession() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.closed {
		return false
	}
	if c.sessions == 0 {
		if c.l.playing >= c.l.lim.maxSessions {
			return false
		}
		c.timer.Stop()
		c.l.waiting--
		c.l.playing++
	}
	c.sessions++
	return true
}

// endSession ends a session; with the last one the connection waits again, for at most
// the channel timeout.
func (c *connSlot) endSession() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.sessions--; c.sessions > 0 || c.closed {
		return
	}
	c.l.playing--
	c.l.waiting++
	c.timer.Reset(c.l.lim.channelTimeout)
}

// openChannel counts a session channel; it is false past max-per-key channels, which
// bounds what one connection holds (each channel may buffer the client's unread input).
func (c *connSlot) openChannel() bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.channels >= c.l.lim.maxPerKey {
		return false
	}
	c.channels++
	return true
}

func (c *connSlot) closeChannel() {
	c.l.mu.Lock()
	c.channels--
	c.l.mu.Unlock()
}

// noSession closes a connection that has had no session for the channel timeout.
func (c *connSlot) noSession() {
	c.l.mu.Lock()
	idle := c.sessions == 0 && !c.closed
	c.l.mu.Unlock()
	if idle {
		_ = c.conn.Close()
	}
}

// release gives the connection's place back, once, when it closes.
func (c *connSlot) release() {
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
	// byRemote keeps the slot until the SSH server is done with the connection (forget):
	// the SSH library closes a connection whose handshake failed before it reports why.
}

// forget drops the connection from the remote address once the SSH server is done
// with it.
func (l *limitListener) forget(remote string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byRemote, remote)
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	net.Conn
	slot *connSlot
}

// Read notes the client's first byte, which ends the banner deadline.
func (c *limitedConn) Read(b []byte) (int, error) {
	if !c.slot.listening.Load() {
		c.slot.listen()
	}
	n, err := c.Conn.Read(b)
	if n > 0 && !c.slot.spoke.Load() {
		c.slot.heard()
	}
	return n, err
}

func (c *limitedConn) Close() error {
	c.slot.release()
	return c.Conn.Close()
}

// slotOf returns the place of a session's or a login's connection, or nil (a connection
// that did not come through a limitListener, as in unit tests).
func slotOf(ctx context.Context) *connSlot {
	slot, _ := ctx.Value(slotKey).(*connSlot)
	return slot
}

// sessionChannel is the SSH "session" channel handler: the library's own, behind a filter
// of the requests a client sends on the channel.
// A connection may have at most max-per-key session channels open.
func (s *server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	if slot := slotOf(ctx); slot != nil {
		if !slot.openChannel() {
			_ = newChan.Reject(gossh.ResourceShortage, "too many sessions on this connection")
			return
		}
		defer slot.closeChannel()
	}
	cc := &channelContext{Context: ctx} // the session's own (channel.go)
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{NewChannel: newChan, ctx: cc}, cc)
}

// filteredChannel accepts the channel, keeps it in the session's context, and filters
// its requests.
type filteredChannel struct {
	gossh.NewChannel
	ctx *channelContext
}

// Accept accepts the channel; its requests pass through filterRequests.
func (f filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	f.ctx.ch = ch
	out := make(chan *gossh.Request)
	go filterRequests(reqs, out)
	return ch, out, nil
}

// filterRequests passes a session's requests on, except:
//   - env beyond maxEnvVars variables or maxEnvBytes each, and any request past
//     maxSessionReqs, are refused, so a client cannot grow a session without bound;
//   - agent and X11 forwarding requests are refused (only plain sessions are served);
//   - the PTY request is answered here and held, with any window-changes after it, until
//     the shell or command: then it is passed on carrying the latest window size. The SSH
//     library keeps one pending window size between the PTY request and the shell; a
//     window-change in between blocked its request loop before the shell started, and the
//     session hung (and passing the change on later races with the handler reading it).
func filterRequests(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	env, n := 0, 0
	started := false
	var pty *ptyRequest
	for req := range in {
		n++
		if n > maxSessionReqs {
			_ = req.Reply(false, nil)
			continue
		}
		switch req.Type {
		case "env":
			env++
			if env > maxEnvVars || len(req.Payload) > maxEnvBytes {
				_ = req.Reply(false, nil)
				continue
			}
		case "auth-agent-req@openssh.com", "x11-req":
			_ = req.Reply(false, nil)
			continue
		case "pty-req":
			if started || pty != nil {
				break // the library refuses a second one
			}
			var p ptyRequest
			if gossh.Unmarshal(req.Payload, &p) != nil {
				break // the library refuses a malformed one
			}
			pty = &p
			_ = req.Reply(true, nil)
			continue
		case "window-change":
			if started || pty == nil {
				break
			}
			var w windowChange
			if gossh.Unmarshal(req.Payload, &w) == nil {
				pty.Columns, pty.Rows, pty.Width, pty.Height = w.Columns, w.Rows, w.Width, w.Height
			}
			_ = req.Reply(true, nil)
			continue
		case "shell", "exec", "subsystem":
			if pty != nil && !started {
				out <- &gossh.Request{Type: "pty-req", Payload: gossh.Marshal(pty)}
			}
			started = true
		}
		out <- req
	}
}

// ptyRequest and windowChange are the payloads of RFC 4254's "pty-req" and
// "window-change" requests.
type ptyRequest struct {
	Term                         string
	Columns, Rows, Width, Height uint32
	Modes                        string
}

type windowChange struct {
	Columns, Rows, Width, Height uint32
}
