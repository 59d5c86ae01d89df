package webpage

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// Config is the web page's caps and its trusted proxies (flags -http-*).
//
// The page's connections have a share of their own, so that a flood of them can hold
// neither the heap nor the descriptors SSH logins need: it serves at most MaxConns, and
// holds one more while it frees a place for it. A connection past its address's cap is
// closed as soon as it is accepted. With every place taken, a new connection takes the
// place of the slowest (Listener.Accept), so clients that begin requests and never finish
// them cannot keep everyone else out; when none is slow, it waits in the kernel's queue,
// holding no descriptor and costing no work. A trusted proxy carries many visitors on its
// connections, so it has no cap of its own, only the share of all; the rate cap counts
// its requests by the client each is for (web.ClientAddr).
type Config struct {
	// MaxConns is the connections to the page at once, from everyone (default 256).
	MaxConns int
	// MaxPerAddr is the connections to the page at once from one address, an IPv6 /64
	// (default 8: a browser opens 6).
	MaxPerAddr int
	// Rate is the requests a second one client address may make, on average (default 2).
	Rate int
	// Burst is the requests one client address may make at once (default 20).
	Burst int
	// Trusted are the reverse proxies in front of the page, from which the client's
	// address is read from X-Forwarded-For; never from anyone else.
	Trusted []netip.Prefix
	// Origins are the host patterns of pages, besides the request's own host, that may
	// open the play page's socket (web.Options.PlayOrigins): the public host behind a
	// proxy that rewrites the Host header.
	Origins []string
	// PlayGrace is how long a browser's game whose socket dropped is held for its page
	// to come back (web.Options.PlayGrace; zero is web.PlayResumeGrace): -http-play-grace.
	PlayGrace time.Duration
}

// DefaultConfig is the page's caps when no flag says otherwise.
var DefaultConfig = Config{MaxConns: 256, MaxPerAddr: 8, Rate: web.DefaultRatePerSecond, Burst: web.DefaultRateBurst,
	PlayGrace: web.PlayResumeGrace}

// Who gives up its place when every one is taken: one that has waited on its client
// (a request begun and not whole, or idle between requests) at least waitingGrace; else
// one that has been answered (the handler running, or its answer written to a slow
// reader) at least answeringGrace. Of those, one of the address holding the most
// connections that wait on it, the longest in its state first. The graces keep a place
// from changing hands faster than a client could use it.
//
// And an address that holds a connection waiting on it gets nobody else's place: its new
// one is closed at once, as one past its cap. Clients that hold places with requests they
// never finish cannot take more by coming back as soon as they are dropped, and the places
// do not keep changing hands among them; an address with none waiting, as a visitor's,
// gets one.
const (
	waitingGrace   = 250 * time.Millisecond
	answeringGrace = 2 * time.Second
)

// Listen opens the page's listener on addr, within c's caps on connections (a
// *Listener), so a bad address fails at the server's start.
func Listen(addr string, c Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("web page listen %s: %w", addr, err)
	}
	return &Listener{Listener: ln, perAddr: map[string]int{}, waitingBy: map[string]int{}, maxPerAddr: c.MaxPerAddr,
		trusted: c.Trusted, places: make(chan struct{}, c.MaxConns), changed: make(chan struct{}, 1),
		closed: make(chan struct{}), now: time.Now}, nil
}

// Listener caps the page's connections, per address and in all. Its ConnState is the
// http.Server's, so it knows which connections are being answered and which wait on
// their client.
type Listener struct {
	net.Listener
	maxPerAddr int
	trusted    []netip.Prefix // proxies: no cap per address
	now        func() time.Time
	mu         sync.Mutex
	all        int
	perAddr    map[string]int
	waitingBy  map[string]int // connections waiting on their client, by address
	held       []*conn        // every connection held, each at its index
	refused    atomic.Int64   // connections closed at once, past their address's caps
	evicted    atomic.Int64   // connections closed to give their place to a new one
	places     chan struct{}  // a token for each connection held: maxConns places
	changed    chan struct{}  // a connection began to wait on its client: it may give up its place
	closed     chan struct{}  // closed with the listener: Accept waits no more
	once       sync.Once
}

// Held is the connections the listener holds now: in all, and by address (a copy), so
// a test can watch the caps hold under a flood.
func (l *Listener) Held() (all int, perAddr map[string]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all, maps.Clone(l.perAddr)
}

// Refused is how many connections were closed as soon as accepted, past their
// address's caps.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Evicted is how many connections were closed to give their place to a new one.
func (l *Listener) Evicted() int64 { return l.evicted.Load() }

// Close closes the listener and ends an Accept waiting for a place.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Accept hands on the next connection within the caps, closing the rest. With every
// place taken it waits for one to free, or for a connection to be slow enough to give up
// its place (victim); while one is, it accepts the next connection and closes that one
// for it. A connection past its address's caps is closed before it takes anyone's place.
func (l *Listener) Accept() (net.Conn, error) {
	have := false // a place taken for the next connection
	for {
		if !have {
			var err error
			if have, err = l.room(); err != nil {
				return nil, err
			}
		}
		c, err := l.Listener.Accept()
		if err != nil {
			if have {
				<-l.places
			}
			return nil, err
		}
		addr := edge.AddrKey(c.RemoteAddr())
		if !l.fits(addr, c.RemoteAddr(), !have) {
			l.refused.Add(1)
			_ = c.Close()
			continue
		}
		if !have && !l.place(c) {
			return nil, net.ErrClosed
		}
		return l.hold(c, addr), nil
	}
}

// fits tells whether a connection from addr is within its address's caps: its
// connections, and when it would take another's place (displace, every place taken),
// none of them waiting on it.
func (l *Listener) fits(addr string, a net.Addr, displace bool) bool {
	if l.isProxy(a) {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	full := displace && len(l.places) == cap(l.places)
	return l.perAddr[addr] < l.maxPerAddr && (!full || l.waitingBy[addr] == 0)
}

// hold counts c, which has its place, as held: waiting on its client for a request.
func (l *Listener) hold(c net.Conn, addr string) *conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &conn{Conn: c, l: l, addr: addr, since: l.now(), at: len(l.held)}
	l.held = append(l.held, h)
	l.all++
	l.perAddr[addr]++
	l.waitingBy[addr]++
	return h
}

// room waits until a place is free, and takes it (took), or until a connection may give
// up its own to the next one accepted.
func (l *Listener) room() (took bool, err error) {
	for {
		select {
		case l.places <- struct{}{}:
			return true, nil
		default:
		}
		v, wait := l.victim()
		if v != nil {
			return false, nil
		}
		var timer <-chan time.Time
		var t *time.Timer
		if wait > 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		select {
		case l.places <- struct{}{}:
			took = true
		case <-l.changed:
		case <-timer:
		case <-l.closed:
			err = net.ErrClosed
		}
		if t != nil {
			t.Stop()
		}
		if took || err != nil {
			return took, err
		}
	}
}

// place takes a place for c, just accepted: a free one, else the slowest connection's,
// else the first to free (c waiting meanwhile: the one connection held past the cap). It
// reports false, c closed, when the listener closes first.
func (l *Listener) place(c net.Conn) bool {
	for {
		select {
		case l.places <- struct{}{}:
			return true
		default:
		}
		if v, _ := l.victim(); v != nil {
			l.evicted.Add(1)
			_ = v.Close() // gives its place back, for the next turn to take
			continue
		}
		select {
		case l.places <- struct{}{}:
			return true
		case <-l.closed:
			_ = c.Close()
			return false
		}
	}
}

// victim is the connection to close for a new one when every place is taken (see
// waitingGrace), or nil and how long until one is past its grace (0: none will be).
func (l *Listener) victim() (v *conn, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for _, c := range l.held {
		if c.game {
			continue
		}
		due := c.due(now)
		if due > 0 {
			if wait == 0 || due < wait {
				wait = due
			}
			continue
		}
		if v == nil || c.before(v, l.waitingBy) {
			v = c
		}
	}
	return v, wait
}

// ConnState follows the http.Server's connections (http.Server.ConnState): whether each
// is being answered or waits on its client, and since when.
func (l *Listener) ConnState(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*conn)
	if ok && s == http.StateHijacked {
		// A browser's game (the play socket): it holds its connection as long as it
		// plays, counted as a player by the server's limits, and is never taken for a
		// slow client.
		l.mu.Lock()
		c.game = true
		l.mu.Unlock()
		return
	}
	if !ok || s != http.StateActive && s != http.StateIdle {
		return
	}
	answering := s == http.StateActive
	l.mu.Lock()
	if c.at >= 0 && c.answering != answering { // still held
		c.answering = answering
		if !answering {
			l.waitingBy[c.addr]++
		} else if l.waitingBy[c.addr]--; l.waitingBy[c.addr] <= 0 {
			delete(l.waitingBy, c.addr)
		}
	}
	c.since = l.now()
	l.mu.Unlock()
	if !answering {
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}
}

// isProxy tells whether a is one of the trusted proxies.
func (l *Listener) isProxy(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && slices.ContainsFunc(l.trusted, func(p netip.Prefix) bool { return p.Contains(ap.Addr().Unmap()) })
}

// conn gives its place back when closed.
type conn struct {
	net.Conn
	l    *Listener
	addr string
	once sync.Once
	// Guarded by l.mu: its index in l.held (-1 once closed); whether a request is being
	// answered (a whole request read), and since when it has been answered or waited on
	// its client.
	at        int
	answering bool
	since     time.Time
	game      bool // hijacked for a game: it never gives up its place
}

// due is how long until c may give up its place (0 or less: now); the caller holds l.mu.
func (c *conn) due(now time.Time) time.Duration {
	grace := waitingGrace
	if c.answering {
		grace = answeringGrace
	}
	return c.since.Add(grace).Sub(now)
}

// before tells whether c gives up its place before d: one waiting on its client before
// one answered, then one of the address with more waiting, then the longer in its state.
func (c *conn) before(d *conn, waitingBy map[string]int) bool {
	if c.answering != d.answering {
		return !c.answering
	}
	if n, m := waitingBy[c.addr], waitingBy[d.addr]; n != m {
		return n > m
	}
	return c.since.Before(d.since)
}

func (c *conn) Close() error {
	c.once.Do(func() {
		l := c.l
		l.mu.Lock()
		l.all--
		if l.perAddr[c.addr]--; l.perAddr[c.addr] <= 0 {
			delete(l.perAddr, c.addr)
		}
		if !c.answering {
			if l.waitingBy[c.addr]--; l.waitingBy[c.addr] <= 0 {
				delete(l.waitingBy, c.addr)
			}
		}
		last := l.held[len(l.held)-1]
		l.held[c.at], last.at = last, c.at
		l.held = l.held[:len(l.held)-1]
		c.at = -1
		l.mu.Unlock()
		<-l.places // after it is no longer counted: the count never passes the places
	})
	return c.Conn.Close()
}
