package edge

import (
	"bytes"
	"io"

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
// library's own, behind a filter of the requests a client sends on the channel, with a
// context of the session's own. A connection may have at most max-per-key session
// channels open.
func SessionChannel(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	if slot := SlotOf(ctx); slot != nil {
		if !slot.openChannel() {
			_ = newChan.Reject(gossh.ResourceShortage, "too many sessions on this connection")
			return
		}
		defer slot.closeChannel()
	}
	cc := &channelContext{Context: ctx} // the session's own
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
//   - env beyond MaxEnvVars variables or maxEnvBytes each, and any request past
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
			if env > MaxEnvVars || len(req.Payload) > maxEnvBytes {
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
	ch gossh.Channel
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
		return w.ch.Write(p)
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
	n, err := w.ch.Write(b)
	return min(n, len(p)), err
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
