package edge

import (
	"bytes"
	"io"
	"sync"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Per-session request bounds: env variables a client may set (MaxEnvVars), their size,
// and requests of any kind on one session.
const (
	MaxEnvVars     = 32
	maxEnvBytes    = 1024
	maxSessionReqs = 10000
)

// SessionChannel is the SSH "session" channel handler (an ssh.ChannelHandler): the
// library's own session, behind a filter of the requests a client sends on the channel,
// with a context of the session's own. A connection may have at most max-per-key session
// channels open.
//
// The library answers a session's requests on a goroutine of its own for the session's
// whole life, and the filter needed another in front of it: two goroutines' stacks a
// session, for the few requests a game takes after its start (a window change now and
// then). So the library's loop has the requests only until the shell or the command
// starts the session (on a goroutine that ends then), and the filter, on the channel's
// goroutine, answers the rest itself: window changes go to the session's program
// (WatchWindow), anything else is refused, as the library refused it once started.
func SessionChannel(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	release := func() {}
	if slot := SlotOf(ctx); slot != nil {
		if !slot.openChannel() {
			_ = newChan.Reject(gossh.ResourceShortage, "too many sessions on this connection")
			return
		}
		release = slot.closeChannel
	}
	ch, reqs, err := newChan.Accept()
	if err != nil {
		release()
		return // the client has gone
	}
	cc := &channelContext{Context: ctx, ch: ch, handoff: make(chan *sessionRequests)} // the session's own
	toLibrary := make(chan *gossh.Request)
	libraryDone := make(chan struct{})
	go func() {
		defer close(libraryDone)
		ssh.DefaultSessionHandler(srv, conn, acceptedChannel{NewChannel: newChan, ch: ch, reqs: toLibrary}, cc)
	}()
	rs := &sessionRequests{cc: cc, reqs: reqs, release: release}
	for req := range reqs {
		pass, started := rs.f.beforeStart(req)
		if started && rs.f.pty != nil {
			cc.setWindow(int(rs.f.pty.Columns), int(rs.f.pty.Rows)) // before the program can watch it
		}
		for _, r := range pass {
			toLibrary <- r
		}
		if started {
			break
		}
	}
	close(toLibrary)
	<-libraryDone
	for {
		select {
		case req, ok := <-reqs:
			if !ok {
				release()
				return
			}
			rs.f.afterStart(cc, req)
		case cc.handoff <- rs:
			return // a game's input pump answers them from now on (TakeRequests)
		}
	}
}

// sessionRequests are a session's requests once it has started, with their filter, for
// the goroutine that answers them: the channel's, or a game's input pump, which takes
// them over so that a game session has one goroutine fewer.
type sessionRequests struct {
	cc      *channelContext
	reqs    <-chan *gossh.Request
	f       requestFilter
	release func() // the channel's place in the connection's, given back when the requests end
}

// answer answers one request; ok is false once the requests have ended (the channel has
// closed), and the channel's place is given back.
func (rs *sessionRequests) answer(req *gossh.Request, ok bool) bool {
	if !ok {
		rs.release()
		return false
	}
	rs.f.afterStart(rs.cc, req)
	return true
}

// drain answers the requests until they end: what a pump that took them and stopped
// leaves, for the session's last moments.
func (rs *sessionRequests) drain() {
	for {
		req, ok := <-rs.reqs
		if !rs.answer(req, ok) {
			return
		}
	}
}

// takeRequests is where a game's input pump takes its session's requests over from the
// channel's goroutine, which then ends; nil for a session that did not come through
// SessionChannel.
func takeRequests(ctx ssh.Context) <-chan *sessionRequests {
	if cc, ok := ctx.(*channelContext); ok {
		return cc.handoff
	}
	return nil
}

// acceptedChannel is a session channel accepted already, given to the library's session
// handler with the requests the filter passes on.
type acceptedChannel struct {
	gossh.NewChannel
	ch   gossh.Channel
	reqs <-chan *gossh.Request
}

// Accept returns the channel and the filtered requests.
func (a acceptedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	return a.ch, a.reqs, nil
}

// requestFilter filters one session's requests:
//   - env beyond MaxEnvVars variables or maxEnvBytes each, and any request past
//     maxSessionReqs, are refused, so a client cannot grow a session without bound;
//   - agent and X11 forwarding requests, and subsystems, are refused (only plain
//     sessions are served);
//   - the PTY request is answered here and held, with any window-changes after it, until
//     the shell or command: then it is passed on carrying the latest window size. The SSH
//     library keeps one pending window size between the PTY request and the shell; a
//     window-change in between blocked its request loop before the shell started, and the
//     session hung (and passing the change on later races with the handler reading it).
type requestFilter struct {
	env, n int
	pty    *ptyRequest
}

// beforeStart filters a request that came before the session started: pass is what the
// library is to answer (none when the filter answered it), the PTY request held before
// the shell or command; started says that request started the session.
func (f *requestFilter) beforeStart(req *gossh.Request) (pass []*gossh.Request, started bool) {
	f.n++
	if f.n > maxSessionReqs {
		_ = req.Reply(false, nil)
		return nil, false
	}
	switch req.Type {
	case "env":
		f.env++
		if f.env > MaxEnvVars || len(req.Payload) > maxEnvBytes {
			_ = req.Reply(false, nil)
			return nil, false
		}
	case "auth-agent-req@openssh.com", "x11-req", "subsystem":
		_ = req.Reply(false, nil)
		return nil, false
	case "pty-req":
		if f.pty != nil {
			break // the library refuses a second one
		}
		var p ptyRequest
		if gossh.Unmarshal(req.Payload, &p) != nil {
			break // the library refuses a malformed one
		}
		f.pty = &p
		_ = req.Reply(true, nil)
		return nil, false
	case "window-change":
		if f.pty == nil {
			break
		}
		var w windowChange
		if gossh.Unmarshal(req.Payload, &w) == nil {
			f.pty.Columns, f.pty.Rows, f.pty.Width, f.pty.Height = w.Columns, w.Rows, w.Width, w.Height
		}
		_ = req.Reply(true, nil)
		return nil, false
	case "shell", "exec":
		if f.pty != nil {
			pass = append(pass, &gossh.Request{Type: "pty-req", Payload: gossh.Marshal(f.pty)})
		}
		return append(pass, req), true
	}
	return []*gossh.Request{req}, false
}

// afterStart answers a request that came once the session had started: a window change
// of a session with a terminal goes to its program; the rest the library refused then.
func (f *requestFilter) afterStart(cc *channelContext, req *gossh.Request) {
	f.n++
	var w windowChange
	if f.n > maxSessionReqs || req.Type != "window-change" || f.pty == nil || gossh.Unmarshal(req.Payload, &w) != nil {
		_ = req.Reply(false, nil)
		return
	}
	_ = req.Reply(true, nil)
	cc.setWindow(int(w.Columns), int(w.Rows))
	cc.sendWindow()
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

// A game's frames go straight to its session's SSH channel. The SSH library writes a
// session with a terminal through a writer that turns "\n" into "\r\n" with two
// bytes.ReplaceAll calls, each a new copy of the frame even when it holds no newline:
// at a thousand players, a quarter of the bytes the server allocated, and the garbage
// collections they cost showed as the slowest tenth of keystrokes (docs/PERFORMANCE.md).
// frameWriter does the same translation without copying a frame that needs none.
//
// The channel is found through the session's own context (channelContext): the library
// gives every session of a connection the connection's context, so a value kept there
// would be shared by two sessions on one connection.

// channelContext is the context of one session channel: its connection's, which it
// reads and writes through, and the channel, once accepted. The session's Context is it.
type channelContext struct {
	ssh.Context
	ch      gossh.Channel
	handoff chan *sessionRequests // the session's requests, to a game's pump (takeRequests)

	mu     sync.Mutex // guards the window and resize
	w, h   int        // the terminal's size, latest first
	resize func(w, h int)
	// sending is held through a call of resize: the calls take turns, and each passes
	// the latest size, so the last one called passes the last size the client sent.
	sending sync.Mutex
}

// setWindow keeps the terminal's size.
func (c *channelContext) setWindow(w, h int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w, c.h = w, h
}

// sendWindow passes the latest size to the session's program, if it watches.
func (c *channelContext) sendWindow() {
	c.sending.Lock()
	defer c.sending.Unlock()
	c.mu.Lock()
	resize, w, h := c.resize, c.w, c.h
	c.mu.Unlock()
	if resize != nil {
		resize(w, h)
	}
}

// WatchWindow calls resize with each change of the terminal's size the client sends on
// the session whose context ctx is, until stop is called. The calls take turns, on the
// goroutine that reads the session's requests; resize may block until the program takes
// the size in (the client's next requests wait). w and h are the size the program began
// with: a change that came since the session started is passed at once, from a goroutine
// of its own. A session that did not come through SessionChannel has none to watch.
func WatchWindow(ctx ssh.Context, w, h int, resize func(w, h int)) (stop func()) {
	cc, ok := ctx.(*channelContext)
	if !ok {
		return func() {}
	}
	cc.mu.Lock()
	cc.resize = resize
	changed := cc.w != w || cc.h != h
	cc.mu.Unlock()
	if changed {
		go cc.sendWindow()
	}
	return func() {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		cc.resize = nil
	}
}

// rawChannel returns the SSH channel of the session whose context ctx is, or nil (a
// session that did not come through SessionChannel, as in unit tests).
func rawChannel(ctx ssh.Context) gossh.Channel {
	if cc, ok := ctx.(*channelContext); ok {
		return cc.ch
	}
	return nil
}

// frameWriter writes to a session's channel as the SSH library's terminal writer does
// ("\n" goes out as "\r\n"), copying only writes that hold a bare newline.
type frameWriter struct {
	ch  io.Writer
	buf []byte // the translated copy, for a write that needs one
}

// frameWriterKeeps is the most of a translated copy a frameWriter keeps between writes:
// the lines a screen reader is sent are short, and a session keeps little for them.
const frameWriterKeeps = 4 << 10

// Write writes p, with each "\n" not already after a "\r" sent as "\r\n". It reports at
// most len(p) bytes written.
func (w *frameWriter) Write(p []byte) (int, error) {
	i := bareNewline(p)
	if i < 0 {
		return w.send(p)
	}
	b := append(w.buf[:0], p[:i]...)
	for k := i; k < len(p); k++ {
		if p[k] == '\n' && (k == 0 || p[k-1] != '\r') {
			b = append(b, '\r')
		}
		b = append(b, p[k])
	}
	if cap(b) <= frameWriterKeeps {
		w.buf = b[:0]
	} else {
		w.buf = nil
	}
	n, err := w.send(b)
	return min(n, len(p)), err
}

// sendPiece is the most of a frame handed to the channel at once. x/crypto's channel
// keeps a packet buffer as large as the largest write it was given, and its cipher
// another: a whole screen (4 KB and more, written at a session's start and when a screen
// opens) would leave both that large for the rest of the session, where a step's frame
// takes a few hundred bytes. A screen in pieces costs a packet a piece.
const sendPiece = 1 << 10

// send writes b to the channel in pieces of at most sendPiece.
func (w *frameWriter) send(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		piece := b[:min(len(b), sendPiece)]
		m, err := w.ch.Write(piece)
		n += m
		if err != nil {
			return n, err
		}
		b = b[len(piece):]
	}
	return n, nil
}

// bareNewline is the index of the first "\n" in p not after a "\r", or -1.
func bareNewline(p []byte) int {
	for i := 0; ; i++ {
		j := bytes.IndexByte(p[i:], '\n')
		if j < 0 {
			return -1
		}
		if i += j; i == 0 || p[i-1] != '\r' {
			return i
		}
	}
}
