package server

import (
	"bytes"
	"io"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

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
// session that did not come through sessionChannel, as in unit tests).
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
