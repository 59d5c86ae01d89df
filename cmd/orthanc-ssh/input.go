package main

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// A game session's keys reach its Bubble Tea program through an input pump, not through
// Bubble Tea's own input reader. That reader (ultraviolet's TerminalReader.StreamEvents,
// as bubbletea v2.1.1 runs it) sends each parsed key to the program without watching for
// the program's end: once the program has quit with keys still unread, the send blocks
// for ever, and its goroutine keeps the session, the connection and all the input the
// client sent (issue 17). The pump parses with the same reader, but into a channel of its
// own that it drains until the reader stops, and the reader stops when the game does,
// because the input it reads can be stopped.
//
// The pump also bounds what one session's input can hold in memory:
//
//	constant      value    effect
//	inputQueue    8        chunks of at most readChunk (1 KiB) read from the client and not yet parsed: 8 KiB, or
//	                       about a second of the game's work when they are all keys; keys beyond are dropped
//	maxPaste      16 KiB   of one bracketed paste reach the game; the rest of a longer paste is dropped up to its end
//	maxUnparsed   32 KiB   handed to the parser with no event coming out (an escape sequence that never ends): the
//	                       parser is given parserPause without input, after which it lets go of the sequence
//	parserPause   100 ms   twice the parser's escape timeout
//
// Keys are dropped rather than queued without end: a client that sends faster than the
// game takes keys in gains nothing by it. A paste is never dropped by the queue (its
// length is bounded already), so its end marker always reaches the parser.
const (
	readChunk   = 1 << 10
	inputQueue  = 8
	maxPaste    = 16 << 10
	maxUnparsed = 32 << 10
	parserPause = 2 * uv.DefaultEscTimeout
)

// Bracketed paste markers: a terminal sends the pasted text between them.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// inputPump is one game session's input: a goroutine reading the client into a bounded
// queue (fill), the terminal parser reading the queue (Read), and a goroutine handing
// the parsed events to the program (forward).
type inputPump struct {
	chunks chan []byte   // read from the client, oldest first; closed by fill when the client's input ends
	err    error         // why the client's input ended; written by fill before it closes chunks
	stop   chan struct{} // closed when the game has ended
	once   sync.Once
	cancel context.CancelFunc

	rest []byte // the part of a chunk the parser has not read yet; the parser's goroutine only

	unparsed atomic.Int64 // bytes handed to the parser since it last gave an event
	dropped  atomic.Int64 // bytes of keys dropped because the queue was full
}

// startInput starts parsing what the client types on r as a terminal of type term sends
// it, and handing the events to send (the program's Send). Call stopInput once the
// program has ended.
func startInput(r io.Reader, term string, send func(uv.Event)) *inputPump {
	ctx, cancel := context.WithCancel(context.Background())
	p := &inputPump{chunks: make(chan []byte, inputQueue), stop: make(chan struct{}), cancel: cancel}
	events := make(chan uv.Event)
	go p.fill(r)
	go func() {
		defer close(events)
		// StreamEvents ends when Read reports the end of the input (the client's, or stop).
		_ = uv.NewTerminalReader(p, term).StreamEvents(ctx, events)
	}()
	go p.forward(events, send)
	return p
}

// stopInput ends the pump's parsing: the parser's next read reports the end of the input.
// The goroutine reading the client ends when its read does (the session closes).
func (p *inputPump) stopInput() {
	p.once.Do(func() {
		close(p.stop)
		p.cancel()
	})
}

// fill reads the client into the queue until the client's input ends or the game has,
// cutting long pastes and dropping keys that do not fit.
func (p *inputPump) fill(r io.Reader) {
	defer close(p.chunks)
	buf := make([]byte, readChunk)
	var paste pasteLimit
	for {
		n, err := r.Read(buf)
		if n > 0 {
			wasIn := paste.in
			chunk := paste.filter(make([]byte, 0, n+len(pasteEnd)), buf[:n])
			switch {
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
			p.err = err
			return
		}
	}
}

// Read gives the parser the client's input; it reports io.EOF once the game has ended.
func (p *inputPump) Read(b []byte) (int, error) {
	for len(p.rest) == 0 {
		chunk, err := p.next()
		if err != nil {
			return 0, err
		}
		p.rest = chunk
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	p.unparsed.Add(int64(n))
	return n, nil
}

// next waits for the next chunk of input. When the parser has taken maxUnparsed bytes
// without giving an event, it gets no more until it gives one: with no input its escape
// timeout expires and it gives up the sequence it is holding as an event (forward then
// starts the count again). The wait goes in steps of parserPause, however long the
// parser takes on a busy machine, so the bound holds whatever the timing.
func (p *inputPump) next() ([]byte, error) {
	for p.unparsed.Load() > maxUnparsed {
		t := time.NewTimer(parserPause)
		select {
		case <-p.stop:
			t.Stop()
			return nil, io.EOF
		case <-t.C:
		}
	}
	select {
	case <-p.stop:
		return nil, io.EOF
	case c, ok := <-p.chunks:
		if !ok {
			if p.err != nil {
				return nil, p.err
			}
			return nil, io.EOF
		}
		return c, nil
	}
}

// forward hands the parsed events on until the parser stops. Once the program has ended
// its Send returns at once, so the parser is never left blocked.
func (p *inputPump) forward(events <-chan uv.Event, send func(uv.Event)) {
	for ev := range events {
		p.unparsed.Store(0)
		send(ev)
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
