package main

import (
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// limits are the server's protections against too many, too idle or too greedy clients.
// Each has a flag (config.go) and its default below.
type limits struct {
	maxSessions      int           // connections open at once, in all
	maxPerIP         int           // connections from one address, refused before the SSH handshake
	maxPerKey        int           // sessions of one key
	handshakeTimeout time.Duration // to finish the SSH handshake
	idleTimeout      time.Duration // since the last keystroke (not output) in the game
	maxLifetime      time.Duration // of one connection
	stallTimeout     time.Duration // a frame the client does not take in closes the session
}

// Defaults, and what they mean for a 2-core server:
//
//	limit             default  effect
//	max-sessions      500      about what a 2-core box serves (p99 352 ms with 50 of 500 walking; docs/PERFORMANCE.md)
//	max-per-ip        20       a household or a classroom behind one address still fits
//	max-per-key       4        a game, a watcher and commands at once; a fifth is refused
//	handshake         10s      a client that never finishes the handshake is dropped
//	idle              30m      an AFK knight is saved and its session closed
//	lifetime          12h      no connection lives forever
//	stall             30s      a client that stops reading its screen is closed, knight saved
var defaultLimits = limits{
	maxSessions: 500, maxPerIP: 20, maxPerKey: 4,
	handshakeTimeout: 10 * time.Second, idleTimeout: 30 * time.Minute,
	maxLifetime: 12 * time.Hour, stallTimeout: 30 * time.Second,
}

// Per-session request bounds: env variables a client may set, their size, and requests of
// any kind on one session.
const (
	maxEnvVars      = 32
	maxEnvBytes     = 1024
	maxSessionReqs  = 10000
	tooManyMessage  = "orthanc: too many connections from your address; try again later\r\n"
	serverFullMsg   = "orthanc: the server is full; try again later\r\n"
	tooManyPerKey   = "Too many sessions with this key are open; close one and try again."
	stalledLogLabel = "session stalled: closing"
)

// limitListener refuses connections over the total and per-address limits before any SSH
// is spoken, with a line of text the client's terminal shows.
type limitListener struct {
	net.Listener
	lim   limits
	mu    sync.Mutex
	total int
	perIP map[string]int
}

func newLimitListener(ln net.Listener, lim limits) *limitListener {
	return &limitListener{Listener: ln, lim: lim, perIP: map[string]int{}}
}

// Accept hands on the next connection within the limits, closing the rest.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		l.mu.Lock()
		msg := ""
		switch {
		case l.total >= l.lim.maxSessions:
			msg = serverFullMsg
		case l.perIP[ip] >= l.lim.maxPerIP:
			msg = tooManyMessage
		default:
			l.total++
			l.perIP[ip]++
		}
		l.mu.Unlock()
		if msg != "" {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = io.WriteString(c, msg)
			_ = c.Close()
			continue
		}
		return &limitedConn{Conn: c, release: func() { l.release(ip) }}, nil
	}
}

func (l *limitListener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.perIP[ip]--; l.perIP[ip] <= 0 {
		delete(l.perIP, ip)
	}
}

func hostOf(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

// limitedConn gives its place back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// keyCounter counts open sessions per key.
type keyCounter struct {
	mu sync.Mutex
	n  map[string]int
}

// limitKeys is a middleware refusing a key's sessions over the per-key limit.
func (s *server) limitKeys(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		fp := keys.Fingerprint(sess.PublicKey())
		s.perKey.mu.Lock()
		over := s.perKey.n[fp] >= s.cfg.limits.maxPerKey
		if !over {
			s.perKey.n[fp]++
		}
		s.perKey.mu.Unlock()
		if over {
			fmt.Fprintln(sess.Stderr(), tooManyPerKey)
			_ = sess.Exit(1)
			return
		}
		defer func() {
			s.perKey.mu.Lock()
			if s.perKey.n[fp]--; s.perKey.n[fp] <= 0 {
				delete(s.perKey.n, fp)
			}
			s.perKey.mu.Unlock()
		}()
		next(sess)
	}
}

// sessionChannel is the SSH "session" channel handler: the library's own, behind a filter
// of the requests a client sends on the channel.
func (s *server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{NewChannel: newChan}, ctx)
}

// filteredChannel accepts the channel and filters its requests.
type filteredChannel struct{ gossh.NewChannel }

// Accept accepts the channel; its requests pass through filterRequests.
func (f filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
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

// guardIO wraps a game session's input and output: the input marks the last keystroke (for
// the idle timeout), and a write the client does not take in within the stall timeout
// closes the session, so one stalled client never holds anything but itself.
func (s *server) guardIO(sess ssh.Session) *ioGuard {
	g := &ioGuard{sess: sess, stall: s.cfg.limits.stallTimeout, onStall: func() {
		s.log.Warn(stalledLogLabel, "fingerprint", keys.Fingerprint(sess.PublicKey()), "addr", sess.RemoteAddr().String())
		closeConn(sess)
	}}
	g.lastKey.Store(time.Now().UnixNano())
	go g.watchIdle(s.cfg.limits.idleTimeout, func() {
		fmt.Fprintf(sess, "\r\nYou were idle for %v; your knight is saved where it stands.\r\n", s.cfg.limits.idleTimeout)
		s.log.Info("session idle: closing", "fingerprint", keys.Fingerprint(sess.PublicKey()), "idle", s.cfg.limits.idleTimeout)
		closeConn(sess)
	})
	return g
}

// ioGuard is one game session's input and output, watched.
type ioGuard struct {
	sess    ssh.Session
	stall   time.Duration
	onStall func()
	lastKey atomic.Int64 // unix nanoseconds of the last byte read
}

// Read reads keys from the client, noting when.
func (g *ioGuard) Read(p []byte) (int, error) {
	n, err := g.sess.Read(p)
	if n > 0 {
		g.lastKey.Store(time.Now().UnixNano())
	}
	return n, err
}

// Write writes a frame, closing the session if the client does not take it in time.
func (g *ioGuard) Write(p []byte) (int, error) { return (&ioGuardWriter{g, g.sess}).Write(p) }

// ioGuardWriter is the stall watch around one writer.
type ioGuardWriter struct {
	g *ioGuard
	w io.Writer
}

func (gw *ioGuardWriter) Write(p []byte) (int, error) {
	t := time.AfterFunc(gw.g.stall, gw.g.onStall)
	defer t.Stop()
	return gw.w.Write(p)
}

// watchIdle closes the session once no key has come for the idle timeout.
func (g *ioGuard) watchIdle(idle time.Duration, onIdle func()) {
	check := min(idle/4, time.Minute)
	t := time.NewTicker(check)
	defer t.Stop()
	for {
		select {
		case <-g.sess.Context().Done():
			return
		case <-t.C:
			if time.Since(time.Unix(0, g.lastKey.Load())) >= idle {
				onIdle()
				return
			}
		}
	}
}

// closeConn closes a session's whole connection: that ends its context, so the game stops
// and the knight leaves the world (and is saved) the usual way.
func closeConn(sess ssh.Session) {
	if c, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok {
		_ = c.Close()
		return
	}
	_ = sess.Close()
}
