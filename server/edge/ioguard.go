package edge

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The stall watch: a game session's input and output, watched for a client that stops
// taking frames in (the stall timeout) or stops typing (the idle timeout). The same watch
// times each key to the frame that answers it (the server's orthanc_key_to_frame_seconds):
// the oldest key read since the last frame, to the next frame written in full. A key that
// changes nothing on the screen is counted at whatever frame comes next (a turn of the
// world, someone walking by), unless that is more than keyFrameMax later: a wait so long
// is a key the game ignored, not a server that slow (the tick histogram would show that).
const keyFrameMax = 10 * time.Second

// NewGuard wraps a game session's input and output: the input marks the last keystroke
// (for the idle timeout, which WatchIdle starts), and a write the client does not take
// in within stall calls onStall, which closes the session, so one stalled client never
// holds anything but itself. keyFrame, when not nil, is told how long each key took to
// the frame that answered it. The frames of a session with an emulated terminal go
// straight to its SSH channel (frameWriter) when it has one.
func NewGuard(sess ssh.Session, stall time.Duration, keyFrame func(time.Duration), onStall func()) *Guard {
	g := &Guard{sess: sess, out: sess, stall: stall, keyFrame: keyFrame, done: make(chan struct{}), onStall: onStall}
	if ch := rawChannel(sess.Context()); ch != nil && sess.EmulatedPty() {
		g.out = &frameWriter{ch: ch} // the frames skip the library's copies (channel.go)
	}
	g.lastKey.Store(time.Now().UnixNano())
	return g
}

// Guard is one game session's input and output, watched: the session's reader and
// writer, for its program.
type Guard struct {
	sess    ssh.Session
	out     io.Writer // the session's output: its channel, through a frameWriter, when it has one
	stall   time.Duration
	onStall func()
	lastKey atomic.Int64 // unix nanoseconds of the last byte read
	// keyAt is the unix nanoseconds of the oldest key read since the last frame, 0 for
	// none; keyFrame times each such key to the next frame (nil: not timed).
	keyAt    atomic.Int64
	keyFrame func(time.Duration)
	done     chan struct{} // closed when the game has ended: the idle watch stops
	once     sync.Once

	mu   sync.Mutex
	idle *time.Timer // the idle watch, stopped once done is closed

	// writing is held through a write; stallTimer, made at the first and set again at
	// each (a timer a frame was 4 % of the bytes a busy server allocated), fires if the
	// client does not take the write in within stall.
	writing    sync.Mutex
	stallTimer *time.Timer
}

// StopWatching ends the idle watch once the game has ended (the connection may go on,
// with other sessions).
func (g *Guard) StopWatching() {
	g.once.Do(func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		close(g.done)
		if g.idle != nil {
			g.idle.Stop() // a stopped timer holds nothing of the session
		}
	})
}

// Read reads keys from the client, noting when.
func (g *Guard) Read(p []byte) (int, error) {
	n, err := g.sess.Read(p)
	if n > 0 {
		now := time.Now().UnixNano()
		g.lastKey.Store(now)
		g.keyAt.CompareAndSwap(0, now)
	}
	return n, err
}

// Write writes a frame, closing the session if the client does not take it in time.
func (g *Guard) Write(p []byte) (int, error) {
	n, err := g.writeTo(g.out, p)
	if err == nil {
		g.answered()
	}
	return n, err
}

// answered times the oldest key read since the last frame to the frame just written.
func (g *Guard) answered() {
	at := g.keyAt.Swap(0)
	if at == 0 || g.keyFrame == nil {
		return
	}
	if d := time.Duration(time.Now().UnixNano() - at); d <= keyFrameMax {
		g.keyFrame(d)
	}
}

// writeTo writes p to w under the stall watch. Writes take turns: the watch is of the
// one under way.
func (g *Guard) writeTo(w io.Writer, p []byte) (int, error) {
	g.writing.Lock()
	defer g.writing.Unlock()
	if g.stallTimer == nil {
		g.stallTimer = time.AfterFunc(g.stall, g.onStall)
	} else {
		g.stallTimer.Reset(g.stall)
	}
	defer g.stallTimer.Stop()
	return w.Write(p)
}

// Say writes a line of the server's own, outside any frame, taking its turn with the
// frames: the channel must not be written from two goroutines at once (x/crypto's
// channel shares its packet buffer between writes).
func (g *Guard) Say(line string) {
	_, _ = g.writeTo(g.out, []byte(line))
}

// WatchIdle calls onIdle, which closes the session, once no key has come for idle while
// the session is open. It is a timer set for when the session would be idle, not a
// goroutine: each goroutine's stack was a tenth of a player's memory.
func (g *Guard) WatchIdle(idle time.Duration, onIdle func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.idle = time.AfterFunc(idle, func() {
		g.mu.Lock()
		select {
		case <-g.done:
			g.mu.Unlock()
			return
		default:
		}
		if since := time.Since(time.Unix(0, g.lastKey.Load())); since < idle {
			g.idle.Reset(idle - since) // a key came since: look again when it is idle long enough
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		if g.sess.Context().Err() == nil {
			onIdle()
		}
	})
}

// CloseConn closes a session's whole connection: that ends its context, so the game
// stops and the knight leaves the world (and is saved) the usual way.
func CloseConn(sess ssh.Session) {
	if c, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok {
		_ = c.Close()
		return
	}
	_ = sess.Close()
}
