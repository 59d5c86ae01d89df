package web

import (
	"context"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/coder/websocket"
)

// playScreen is a browser's terminal, kept here: the game writes to it as to an SSH
// client's terminal, a terminal of cells (playTerm) takes the writes in, and after each
// one the rows that differ from what the page shows are sent to it (playFrame).
type playScreen struct {
	ctx  context.Context
	conn *websocket.Conn

	mu   sync.Mutex // the game's writes and the page's resizes
	term *playTerm
	size Size
	// shown is each row as last sent, as a hash of its encoding; 0 rows are sent.
	shown []uint64
	// row and msg are a row's and a frame's encodings, their memory kept for the next.
	row, msg []byte
	// lines says the page shows the game's lines in its log (playlog.go); alt that the
	// game is on its screen; log the transcript's line under way.
	lines, alt bool
	log        lineLog
}

// playFrame is what the page is sent: its screen's size and the rows that changed, each
// [y, runs], a run being [text, foreground, background, attributes], the colours as
// "#rrggbb" or "" for the page's own, the attributes playBold and the rest. It is
// written by hand (appendFrame), as encoding/json writes this type.
type playFrame struct {
	W    int   `json:"w"`
	H    int   `json:"h"`
	Rows []any `json:"rows"`
}

// The attributes of a run, as the page reads them.
const (
	playBold = 1 << iota
	playFaint
	playItalic
	playUnderline
	playReverse
)

// rowSeed seeds the hashes of the rows shown.
var rowSeed = maphash.MakeSeed()

func newPlayScreen(ctx context.Context, c *websocket.Conn, size Size) *playScreen {
	s := &playScreen{ctx: ctx, conn: c}
	s.setSize(size)
	return s
}

// setSize makes a new terminal of size; the caller holds mu, or is the only user.
func (s *playScreen) setSize(size Size) {
	s.term = newPlayTerm(size.W, size.H)
	s.term.touchAll()
	s.size = size
	s.shown = make([]uint64, size.H)
}

// wholeNext has the next frame send every row, whatever the page was sent before; the
// caller holds mu.
func (s *playScreen) wholeNext() {
	clear(s.shown)
	s.term.touchAll()
}

// close is called as the socket ends; the terminal holds no goroutine or file to let go.
func (s *playScreen) close() {}

// resize gives the page's terminal a new size: blank, as a terminal's after a resize is
// to the game, which draws its frame again whole on the size's message.
func (s *playScreen) resize(size Size) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if size == s.size {
		return
	}
	s.setSize(size)
}

// Write takes what the game draws in, and sends the page the rows it changed; an
// error once the page does not take a frame in within PlayWriteTimeout, or has gone.
func (s *playScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.term.Write(p) // never fails
	if sent, err := s.logged(p); sent || err != nil {
		return len(p), err
	}
	b, rows := s.appendFrame(s.msg[:0])
	s.msg = b
	if rows == 0 {
		return len(p), nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, PlayWriteTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return 0, fmt.Errorf("play screen: send a frame: %w", err)
	}
	return len(p), nil
}

// appendFrame appends to b the frame of the rows that changed since the last one, as
// encoding/json would write a playFrame, and says how many rows it holds; none, and b
// as it was, when nothing changed.
func (s *playScreen) appendFrame(b []byte) ([]byte, int) {
	start := len(b)
	b = append(b, `{"w":`...)
	b = strconv.AppendInt(b, int64(s.size.W), 10)
	b = append(b, `,"h":`...)
	b = strconv.AppendInt(b, int64(s.size.H), 10)
	b = append(b, `,"rows":[`...)
	rows := 0
	for y, dirty := range s.term.dirty {
		if !dirty {
			continue
		}
		s.term.dirty[y] = false
		s.row = s.appendRow(s.row[:0], y)
		h := maphash.Bytes(rowSeed, s.row) | 1 // never 0, which is a row not shown
		if h == s.shown[y] {
			continue
		}
		s.shown[y] = h
		if rows > 0 {
			b = append(b, ',')
		}
		b = append(b, s.row...)
		rows++
	}
	if rows == 0 {
		return b[:start], 0
	}
	return append(b, "]}"...), rows
}

// appendRow appends row y of the terminal as the page is sent it, [y, runs], as
// encoding/json would write it.
func (s *playScreen) appendRow(b []byte, y int) []byte {
	t := s.term
	cells := t.cells()[y*t.w : (y+1)*t.w]
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, ",["...)
	var text []byte
	runs := 0
	var look termLook
	end := func() {
		if runs > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, text)
		b = append(b, ',')
		b = appendHexColour(b, look.fg)
		b = append(b, ',')
		b = appendHexColour(b, look.bg)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(look.attrs), 10)
		b = append(b, ']')
		runs++
	}
	open := false
	for _, c := range cells {
		if c.g == glyphWideRest {
			continue // the rest of a wide character, written with its first half
		}
		if !open || c.look != look {
			if open {
				end()
			}
			look, text, open = c.look, text[:0], true
		}
		text = append(text, t.text(c.g)...)
	}
	if open {
		end()
	}
	return append(b, "]]"...)
}

// appendHexColour appends colour c (as a cell keeps it) as a JSON string, CSS's
// "#rrggbb", or "" for none (the page's own).
func appendHexColour(b []byte, c uint32) []byte {
	if c&colourSet == 0 {
		return append(b, `""`...)
	}
	const digits = "0123456789abcdef"
	b = append(b, '"', '#')
	for shift := 20; shift >= 0; shift -= 4 {
		b = append(b, digits[c>>shift&0xf])
	}
	return append(b, '"')
}

// appendJSONString appends s as encoding/json writes a string: <, > and & escaped too,
// bad UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendJSONString(b, s []byte) []byte {
	const digits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', digits[c>>4], digits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', digits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// playAttrs are a cell's attributes, as the page reads them.
func playAttrs(st uv.Style) int {
	a := 0
	for _, m := range []struct {
		uv, page int
	}{{uv.AttrBold, playBold}, {uv.AttrFaint, playFaint}, {uv.AttrItalic, playItalic}, {uv.AttrReverse, playReverse}} {
		if int(st.Attrs)&m.uv != 0 {
			a |= m.page
		}
	}
	if st.Underline != uv.UnderlineNone {
		a |= playUnderline
	}
	return a
}
