package webpage

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// Config is the web page's caps and its trusted proxies (flags -http-*).
//
// The page's connections have a share of their own, so that a flood of them can hold
// neither the heap nor the descriptors SSH logins need. With every place taken the listener accepts
// nothing until one frees (the rest wait in the kernel's queue, holding no descriptor and
// costing no work); a connection past its address's cap is closed as soon as it is
// accepted. So the page never holds the descriptors SSH needs. A trusted proxy carries
// many visitors on its connections, so it has no cap of its own, only the share of all;
// the rate cap counts its requests by the client each is for (web.ClientAddr).
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
}

// DefaultConfig is the page's caps when no flag says otherwise.
var DefaultConfig = Config{MaxConns: 256, MaxPerAddr: 8, Rate: web.DefaultRatePerSecond, Burst: web.DefaultRateBurst}

// Listen opens the page's listener on addr, within c's caps on connections (a
// *Listener), so a bad address fails at the server's start.
func Listen(addr string, c Config) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("web page listen %s: %w", addr, err)
	}
	return &Listener{Listener: ln, perAddr: map[string]int{}, maxPerAddr: c.MaxPerAddr, trusted: c.Trusted,
		places: make(chan struct{}, c.MaxConns), closed: make(chan struct{})}, nil
}

// Listener caps the page's connections, per address and in all.
type Listener struct {
	net.Listener
	maxPerAddr int
	trusted    []netip.Prefix // proxies: no cap per address
	mu         sync.Mutex
	all        int
	perAddr    map[string]int
	refused    atomic.Int64  // connections closed at once, past their address's cap
	places     chan struct{} // a token for each connection held: maxConns places
	closed     chan struct{} // closed with the listener: Accept waits no more
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
// address's cap.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Close closes the listener and ends an Accept waiting for a place.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Accept hands on the next connection within the caps, closing the rest.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		select {
		case l.places <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.places
			return nil, err
		}
		addr := edge.AddrKey(c.RemoteAddr())
		l.mu.Lock()
		ok := l.perAddr[addr] < l.maxPerAddr || l.isProxy(c.RemoteAddr())
		if ok {
			l.all++
			l.perAddr[addr]++
		}
		l.mu.Unlock()
		if ok {
			return &conn{Conn: c, l: l, addr: addr}, nil
		}
		<-l.places
		l.refused.Add(1)
		_ = c.Close()
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
}

func (c *conn) Close() error {
	c.once.Do(func() {
		<-c.l.places
		c.l.mu.Lock()
		c.l.all--
		if c.l.perAddr[c.addr]--; c.l.perAddr[c.addr] <= 0 {
			delete(c.l.perAddr, c.addr)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
