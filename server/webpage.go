package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// The server's web page (-http-addr, off by default): the web package draws it from the
// plain values webStatus gathers here, at most once every web.CacheFor, so the page never
// reaches into the world or the store itself and nothing on it changes game state.

// How much of the hall of fame and of the dead the page shows.
const (
	webFame   = 10
	webDeaths = 10
)

// The web server's timeouts: a client that sends its request slowly, or reads the answer
// slowly, holds a connection no longer than these.
const (
	webReadTimeout  = 10 * time.Second
	webWriteTimeout = 10 * time.Second
	webIdleTimeout  = 60 * time.Second
)

// WebConfig is the web page's caps and its trusted proxies (flags -http-*).
//
// The page's connections have a share of their own, so that a flood of them can hold
// neither the heap nor the descriptors SSH logins need. With every place taken the listener accepts
// nothing until one frees (the rest wait in the kernel's queue, holding no descriptor and
// costing no work); a connection past its address's cap is closed as soon as it is
// accepted. So the page never holds the descriptors SSH needs. A trusted proxy carries
// many visitors on its connections, so it has no cap of its own, only the share of all;
// the rate cap counts its requests by the client each is for (web.ClientAddr).
type WebConfig struct {
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

var defaultWeb = WebConfig{MaxConns: 256, MaxPerAddr: 8, Rate: web.DefaultRatePerSecond, Burst: web.DefaultRateBurst}

// listenHTTP opens the web page's listener, if the server has an HTTP address, so a bad
// address fails at start.
func (s *Server) listenHTTP() (net.Listener, error) {
	if s.cfg.HTTPAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", s.cfg.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("web page listen %s: %w", s.cfg.HTTPAddr, err)
	}
	w := s.cfg.Web
	return &webListener{Listener: ln, perAddr: map[string]int{}, maxPerAddr: w.MaxPerAddr, trusted: w.Trusted,
		places: make(chan struct{}, w.MaxConns), closed: make(chan struct{})}, nil
}

// webListener caps the page's connections, per address and in all.
type webListener struct {
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

// Close closes the listener and ends an Accept waiting for a place.
func (l *webListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Accept hands on the next connection within the caps, closing the rest.
func (l *webListener) Accept() (net.Conn, error) {
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
			return &webConn{Conn: c, l: l, addr: addr}, nil
		}
		<-l.places
		l.refused.Add(1)
		_ = c.Close()
	}
}

// isProxy tells whether a is one of the trusted proxies.
func (l *webListener) isProxy(a net.Addr) bool {
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && slices.ContainsFunc(l.trusted, func(p netip.Prefix) bool { return p.Contains(ap.Addr().Unmap()) })
}

// webConn gives its place back when closed.
type webConn struct {
	net.Conn
	l    *webListener
	addr string
	once sync.Once
}

func (c *webConn) Close() error {
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

// serveWeb serves the page on ln until ctx ends.
func (s *Server) serveWeb(ctx context.Context, ln net.Listener) {
	hs := &http.Server{
		Handler: web.New(s.webStatus, s.log.With("part", "web"), web.Options{
			RatePerSecond: float64(s.cfg.Web.Rate), RateBurst: s.cfg.Web.Burst, TrustedProxies: s.cfg.Web.Trusted,
			Cast: s.webCast}),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: webReadTimeout, WriteTimeout: webWriteTimeout,
		IdleTimeout: webIdleTimeout, MaxHeaderBytes: 8 << 10,
	}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error("web page server", "addr", ln.Addr().String(), "err", err)
	}
}

// webStatus gathers what the page shows: who is online from the world; the hall of fame
// and the latest deaths from the store, after the saver has written what it holds, with
// the addresses of their replays.
func (s *Server) webStatus(ctx context.Context) (web.Status, error) {
	host, port := s.publicHostPort()
	portN, _ := strconv.Atoi(port)
	st := web.Status{
		Name: s.cfg.Name, MOTD: s.motd(), Host: host, Port: portN,
		SSH: s.sshCommand(), Plain: s.sshCommand("-t") + " play --plain",
		HostKey: keys.Fingerprint(s.hostKey), HostKeyType: s.hostKey.Type(),
		KnownHosts: knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort(host, port))}, s.hostKey),
		Guests:     s.cfg.Guests, Started: s.obs.start, Version: s.cfg.Version,
	}
	who, err := s.engine.Who(ctx)
	if err != nil {
		return web.Status{}, fmt.Errorf("ask the world who is online: %w", err)
	}
	for _, w := range who {
		st.Online = append(st.Online, web.Player{Name: w.Name, Level: w.Level, Depth: w.Depth, Guest: w.Guest, Realm: s.cfg.Realm})
	}
	for _, k := range s.farWho(ctx) { // the other realms' knights, by realm
		st.Online = append(st.Online, web.Player{Name: k.Name, Level: k.Level, Guest: k.Guest, Realm: k.Realm, Far: true})
	}
	if err := s.knights.Flush(); err != nil {
		return web.Status{}, fmt.Errorf("write pending knights: %w", err)
	}
	if err := s.webRecords(&st); err != nil {
		return web.Status{}, err
	}
	return st, nil
}

// webRecords fills in the hall of fame and the latest deaths, each with its replay's
// address when a public one is kept.
func (s *Server) webRecords(st *web.Status) error {
	kept, err := s.publicKept()
	if err != nil {
		return fmt.Errorf("list the replays: %w", err)
	}
	fame, err := s.knights.Fame()
	if err != nil {
		return err
	}
	for i, f := range fame[:min(len(fame), webFame)] {
		a := f.Adventurer
		st.Fame = append(st.Fame, web.Fame{Rank: i + 1, Name: a.Name, Level: a.Level, Experience: a.Experience,
			PercentKills: a.PercentKills(), Retired: f.Retired, Replay: castLink(kept, a.ID, replay.KindRetired, f.Retired)})
	}
	tombs, err := s.knights.Tombstones()
	if err != nil {
		return err
	}
	slices.SortStableFunc(tombs, func(a, b knights.Tombstone) int { return b.Died.Compare(a.Died) })
	for _, t := range tombs {
		d := t.Adventurer.Death
		if d == nil || d.Killer == knights.ReplacedKiller {
			continue // a knight its player retired for another is no death
		}
		st.Deaths = append(st.Deaths, web.Death{Name: t.Adventurer.Name, Level: d.Level, Killer: d.Killer, Depth: d.Depth, Died: t.Died,
			Replay: castLink(kept, t.Adventurer.ID, replay.KindDeath, t.Died)})
		if len(st.Deaths) == webDeaths {
			break
		}
	}
	return nil
}
