package edge

import (
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// A game session's keys reach its model through an input pump (over SSH, the session's
// own loop runs in the pump's parser; in a browser, a Bubble Tea program's Send), not
// through Bubble Tea's own input reader. That reader (ultraviolet's TerminalReader.StreamEvents,
// as bubbletea v2.1.1 runs it) sends each parsed key to the program without watching for
// the program's end: once the program has quit with keys still unread, the send blocks
// for ever, and its goroutine keeps the session, the connection and all the input the
// client sent. Each TerminalReader also builds its own table of legacy key sequences,
// 138 KB of every session's heap at 1000 players, though the decoder it wraps knows those
// sequences already. So the pump decodes with ultraviolet's EventDecoder alone, and
// gathers escape sequences and pastes itself.
//
// The pump also bounds what one session's input can hold in memory:
//
//	constant      value    effect
//	inputQueue    8        chunks of at most readChunk (1 KiB) read from the client and not yet parsed: 8 KiB, or
//	                       about a second of the game's work when they are all keys; keys beyond are dropped
//	maxPaste      16 KiB   of one bracketed paste reach the game; the rest of a longer paste is dropped up to its end
//	maxUnparsed   32 KiB   of input waiting for a sequence to end: past it the sequence is given up as it stands
//	escTimeout    50 ms    with no more input, an unfinished sequence is taken as it stands (a lone Esc is the key)
//
// Keys are dropped rather than queued without end: a client that sends faster than the
// game takes keys in gains nothing by it. A paste is never dropped by the queue (its
// length is bounded already), so its end marker always reaches the parser.
//
// A session's keys are limited in rate too, as one client sending 15 MB/s of h took the
// server from 7 % to 73 % of a core: a burst for pastes and held keys, then a steady
// rate far above any typist's (a held arrow key sends about 90 bytes a second); keys past
// it are dropped, the pump then reads nothing until a chunk fits again (so the channel's
// window fills and the client waits), and a client still past it after FloodClose is told
// why and closed.
// A bracketed paste is charged to the rate but never dropped by it (it is bounded already),
// and only what passes the paste's own cut is charged.
//
//	keyRate       1 KiB/s  steady rate of keys, in bytes
//	keyBurst      4 KiB    sent at once before the rate holds
//	FloodClose    10 s     past the rate this long without a pause (the burst back full) closes the session
const (
	readChunk   = 1 << 10
	inputQueue  = 8
	maxPaste    = 16 << 10
	maxUnparsed = 32 << 10
	escTimeout  = uv.DefaultEscTimeout
	keyRate     = 1 << 10
	keyBurst    = 4 << 10
)

// FloodClose is how long a client may send keys past the rate, without a pause, before
// its session is closed.
const FloodClose = 10 * time.Second

// keyBucket is the rate of one session's keys: a token bucket of bytes.
type keyBucket struct {
	tokens float64
	last   time.Time
	over   time.Time // when keys were first dropped since the bucket was last full; zero when it was
}

// wait is how long until n bytes fit.
func (b *keyBucket) wait(n int) time.Duration {
	return time.Duration((float64(n) - b.tokens) / keyRate * float64(time.Second))
}

// take charges n bytes at now and reports whether they fit; a paste always fits, and
// takes what the bucket holds up to its length. flooding is true once the client has
// been past the rate for FloodClose.
func (b *keyBucket) take(n int, paste bool, now time.Time) (fits, flooding bool) {
	if b.last.IsZero() {
		b.tokens, b.last = keyBurst, now
	}
	b.tokens = min(keyBurst, b.tokens+keyRate*now.Sub(b.last).Seconds())
	b.last = now
	if b.tokens >= keyBurst {
		b.over = time.Time{}
	}
	fits = b.tokens >= float64(n)
	switch {
	case fits:
		b.tokens -= float64(n)
	case paste:
		b.tokens = 0
	}
	if !fits && b.over.IsZero() {
		b.over = now
	}
	fits = fits || paste
	return fits, !b.over.IsZero() && now.Sub(b.over) >= FloodClose
}

// Bracketed paste markers: a terminal sends the pasted text between them.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// InputPump is one game session's input: a goroutine reading the client into a bounded
// queue (fill), and a parser decoding the queue and handing the events to the program
// (parse: on a goroutine of its own, or on the session's, Parse), which waits for the
// program's views too (Wait).
type InputPump struct {
	chunks chan []byte   // read from the client, oldest first; closed by fill when the client's input ends
	stop   chan struct{} // closed when the game has ended
	once   sync.Once
	wait   Wait
	// handoff gives the pump its session's requests to answer (takeRequests), when it
	// is a game's over SSH.
	handoff <-chan *sessionRequests

	dropped atomic.Int64 // bytes of keys dropped because the queue was full or past the rate
	flooded atomic.Bool  // the session was closed for sending keys past the rate
	onFlood func()       // closes the session, told why
}

// Wait is something else a session's program waits for, which the pump's parser waits
// for beside the input, in place of a goroutine of its own (each goroutine's stack is
// kilobytes a session): after a token on Arm, the first token on Ready sends Msg. A game
// waits so for the world's next view (app's ViewWait).
type Wait struct {
	Arm, Ready <-chan struct{}
	Msg        any
}

// StartInput starts parsing what the client types on r and handing the events to send
// (the program's Send, which returns at once once the program has ended, so the parser
// is never left blocked); onFlood closes the session of a client past the key rate for
// FloodClose (with no onFlood, the keys are not limited in rate: the parser's tests).
// Call Stop once the program has ended.
func StartInput(r io.Reader, send func(uv.Event), onFlood func()) *InputPump {
	return StartGameInput(nil, r, send, onFlood, Wait{})
}

// StartGameInput is StartInput for a game session: the parser waits for w too, until
// Stop, even after the client's input has ended, and answers the session's requests
// once it has started (SessionChannel's, in place of the channel's goroutine); ctx is
// the session's context (nil for none).
func StartGameInput(ctx ssh.Context, r io.Reader, send func(uv.Event), onFlood func(), w Wait) *InputPump {
	p := NewGameInput(ctx, r, onFlood, w)
	go p.parse(send, nil)
	return p
}

// NewGameInput is StartGameInput with the parsing left to the caller's goroutine
// (Parse): a session whose program's loop is its own parses there, a goroutine fewer.
// The client is read from a goroutine of its own, for a read blocks.
func NewGameInput(ctx ssh.Context, r io.Reader, onFlood func(), w Wait) *InputPump {
	p := &InputPump{chunks: make(chan []byte, inputQueue), stop: make(chan struct{}), onFlood: onFlood, wait: w}
	if ctx != nil {
		p.handoff = takeRequests(ctx)
	}
	go p.fill(r)
	return p
}

// Parse decodes the client's input into events for send on the caller's goroutine, and
// hands send what comes on inbox too (a program's messages from its commands and from
// other goroutines), in the order they come, until Stop. send runs on the caller's
// goroutine, so it may call Stop.
func (p *InputPump) Parse(send func(uv.Event), inbox <-chan uv.Event) {
	p.parse(send, inbox)
}

// Stop ends the pump's parsing. The goroutine reading the client ends when its read
// does (the session closes).
func (p *InputPump) Stop() {
	p.once.Do(func() { close(p.stop) })
}

// Dropped is how many bytes of keys were dropped because the queue was full or they
// came past the rate.
func (p *InputPump) Dropped() int64 {
	return p.dropped.Load()
}

// fill reads the client into the queue until the client's input ends or the game has,
// cutting long pastes and dropping keys that do not fit.
func (p *InputPump) fill(r io.Reader) {
	defer close(p.chunks)
	buf := make([]byte, readChunk)
	var paste pasteLimit
	var rate keyBucket
	for {
		n, err := r.Read(buf)
		if n > 0 {
			wasIn := paste.in
			chunk := paste.filter(make([]byte, 0, n+len(pasteEnd)), buf[:n])
			fits, ok := p.limit(&rate, n, len(chunk), wasIn || paste.in)
			if !ok {
				return
			}
			switch {
			case !fits: // past the key rate: dropped, and counted, by limit
			case len(chunk) == 0: // all of it the dropped end of a long paste
			case wasIn || paste.in:
				// Part of a paste, whose length is bounded: wait for room, so the
				// parser always sees the paste end.
				select {
				case <-p.stop:
					return
				case p.chunks <- chunk:
				}
			default:
				select {
				case <-p.stop:
					return
				case p.chunks <- chunk:
				default:
					p.dropped.Add(int64(n))
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// limit charges a read of n bytes, of which charged passed the paste's cut, to the
// session's key rate: fits is false for keys past it, which are dropped, and the pump
// then reads no more until a chunk's worth fits again (the SSH channel's window fills and
// the client waits, instead of the server reading and decrypting a flood only to drop it).
// ok is false once the pump is to stop: the game has ended, or the client has flooded
// for FloodClose and its session is closed.
func (p *InputPump) limit(rate *keyBucket, n, charged int, paste bool) (fits, ok bool) {
	if p.onFlood == nil {
		return true, true
	}
	fits, flooding := rate.take(charged, paste, time.Now())
	if flooding {
		p.flooded.Store(true)
		p.dropped.Add(int64(n))
		p.onFlood()
		return false, false
	}
	if fits {
		return true, true
	}
	p.dropped.Add(int64(n))
	select {
	case <-p.stop:
		return false, false
	case <-time.After(rate.wait(readChunk)):
		return false, true
	}
}

// parse decodes the queue into events for send until the game ends, or the client's input
// does when the pump waits for nothing else. Input that may be the start of a longer
// sequence waits for more, for at most escTimeout or until maxUnparsed bytes wait.
func (p *InputPump) parse(send func(uv.Event), inbox <-chan uv.Event) {
	var d decoder
	wait := time.NewTimer(escTimeout)
	wait.Stop()
	defer wait.Stop()
	chunks, arm, handoff := p.chunks, p.wait.Arm, p.handoff
	var ready <-chan struct{} // p.wait.Ready once armed
	var rs *sessionRequests   // the session's requests, once taken over
	var reqs <-chan *gossh.Request
	defer func() {
		if reqs != nil {
			go rs.drain() // the session's last moments: the channel closes soon
		}
	}()
	for {
		var expired <-chan time.Time
		if len(d.buf) > 0 {
			expired = wait.C
		}
		select {
		case <-p.stop:
			return
		case c, ok := <-chunks:
			if !ok {
				d.scan(true, send)
				if arm == nil && ready == nil && reqs == nil && handoff == nil && inbox == nil {
					return
				}
				chunks = nil // the input has ended; the views and the requests go on
				continue
			}
			d.buf = append(d.buf, c...)
			d.scan(len(d.buf) > maxUnparsed, send)
			if len(d.buf) > 0 {
				wait.Reset(escTimeout)
			}
		case <-expired:
			d.scan(true, send)
		case msg := <-inbox:
			send(msg)
		case <-arm:
			arm, ready = nil, p.wait.Ready
		case <-ready:
			arm, ready = p.wait.Arm, nil
			send(p.wait.Msg)
		case rs = <-handoff:
			handoff, reqs = nil, rs.reqs
		case req, ok := <-reqs:
			if !rs.answer(req, ok) {
				reqs = nil
			}
		}
	}
}

// decoder turns a session's input into the events the game reads: keys, pastes, and
// unknown sequences (which the game ignores). What else a terminal may send (focus,
// mouse, reports) the game never asks for, and is dropped.
type decoder struct {
	uv.EventDecoder
	buf   []byte // input not decoded yet
	paste []byte // the paste so far; nil outside one
}

// scan decodes the events at the start of buf and hands them to send. Unless expired,
// an unfinished sequence at the end waits in buf for the input that finishes it.
func (d *decoder) scan(expired bool, send func(uv.Event)) {
	buf := d.buf
	for len(buf) > 0 {
		n, ev := d.Decode(buf)
		if n == 0 {
			break
		}
		_, unknown := ev.(uv.UnknownEvent)
		// An unknown sequence, or Esc with at most one byte after it, may be a longer
		// sequence cut by the read: wait for the rest.
		if !expired && (unknown || buf[0] == ansi.ESC && n <= 2) {
			break
		}
		seq := buf[:n]
		buf = buf[n:]
		if d.paste != nil {
			d.addToPaste(ev, seq, send)
			continue
		}
		switch ev := ev.(type) {
		case uv.PasteStartEvent:
			d.paste = []byte{}
		case uv.KeyPressEvent, uv.UnknownEvent:
			send(ev)
		case uv.MultiEvent:
			for _, e := range ev {
				if k, ok := e.(uv.KeyPressEvent); ok {
					send(k)
				}
			}
		}
	}
	d.buf = d.buf[:copy(d.buf, buf)]
	if len(d.buf) == 0 && cap(d.buf) > readChunk {
		d.buf = nil // a long sequence or paste is over: its buffer need not stay
	}
}

// addToPaste adds one decoded event inside a paste: text as it is, another key as the
// bytes that sent it; the paste's end hands the whole paste to send.
func (d *decoder) addToPaste(ev uv.Event, seq []byte, send func(uv.Event)) {
	switch ev := ev.(type) {
	case uv.PasteEndEvent:
		send(uv.PasteEvent{Content: strings.ToValidUTF8(string(d.paste), "")})
		d.paste = nil
	case uv.KeyPressEvent:
		if ev.Text != "" {
			d.paste = append(d.paste, ev.Text...)
		} else {
			d.paste = append(d.paste, seq...)
		}
	}
}

// pasteLimit passes bracketed pastes of at most maxPaste bytes. The rest of a longer
// paste is dropped up to its end marker, which passes, so the parser's paste ends; the
// parser would otherwise gather a paste of any length.
type pasteLimit struct {
	in    bool // inside a paste
	n     int  // bytes of this paste passed on
	match int  // bytes of the marker looked for (start outside a paste, end inside) seen so far
}

// filter appends to dst what of src passes, and returns it.
func (l *pasteLimit) filter(dst, src []byte) []byte {
	for _, c := range src {
		marker := pasteStart
		if l.in {
			marker = pasteEnd
		}
		// The markers hold one ESC, at their start, so a mismatch restarts the match.
		switch {
		case c == marker[l.match]:
			l.match++
		case c == marker[0]:
			l.match = 1
		default:
			l.match = 0
		}
		done := l.match == len(marker)
		if done {
			l.match = 0
		}
		switch {
		case !l.in:
			dst = append(dst, c)
			if done {
				l.in, l.n = true, 0
			}
		case l.n < maxPaste:
			dst = append(dst, c)
			l.n++
			l.in = !done
		case done: // the end of a paste cut short
			dst = append(dst, pasteEnd...)
			l.in = false
		}
	}
	return dst
}
