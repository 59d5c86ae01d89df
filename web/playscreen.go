package web

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/coder/websocket"
)

// playScreen is a browser's terminal, kept here for the game's life: the game writes to
// it as to an SSH client's terminal, a terminal of cells (playTerm) takes the writes in,
// and after each one the rows that differ from what the page shows are sent to it
// (playFrame). While no page shows the game (its socket dropped) the terminal still takes
// the game's writes in, nothing encoded, and a page that takes the game up is sent it
// whole.
type playScreen struct {
	mu   sync.Mutex      // the game's writes, the page's resizes, sockets taking it up and going
	conn *websocket.Conn // the page's socket; nil while none shows the game
	gen  uint64          // the newest socket's to take the game up (playGame.gen)
	who  []byte          // {"who": ...}, what the page was told of who it plays as, for a page that takes the game up
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
	// missed is what the game said in the log's mode while no page showed it (a phone
	// asleep), its last playMissedKeep lines, for the page that takes the game up.
	missed []string
}

// playMissedKeep is how many of the lines said while no page showed the game are kept
// for the page that comes back: a minute's grace of a fight is well under it.
const playMissedKeep = 200

// playMissedLine comes before the lines a page that comes back missed.
const playMissedLine = "While this page was away:"

// playFrame is what the page is sent: its screen's size, whether the game rang the bell
// since the last frame (the field only when it did), and the rows that changed, each
// [y, runs], a run being [text, foreground, background, attributes], the colours as
// "#rrggbb" or "" for the page's own, the attributes playBold and the rest. It is
// written by hand (appendFrame), as encoding/json writes this type.
type playFrame struct {
	W    int   `json:"w"`
	H    int   `json:"h"`
	Bell bool  `json:"bell,omitempty"`
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

func newPlayScreen(size Size) *playScreen {
	s := &playScreen{}
	s.setSize(size)
	return s
}

// attach makes c the page the screen is sent to, at size: first is sent first, then,
// with whole, who the page plays as, which of the grid and the log the game shows when
// the page asked for the other (plain, its ?plain=1: {"plain": ...}, the game's mode
// being what the page then shows) and the grid as it stands, for a page that takes up a
// game already drawn. It reports whether the size changed, which the game is to be told
// of. A page that cannot be sent to is let go (its socket closed). gen is the socket's
// place in the order the game was taken up in: an older one than the screen's (another
// page took the game up meanwhile) is not attached.
func (s *playScreen) attach(c *websocket.Conn, gen uint64, size Size, plain bool, first any, whole bool) (resized bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen < s.gen {
		return false
	}
	s.conn, s.gen = c, gen
	if size != s.size {
		s.setSize(size)
		resized = true
	}
	s.wholeNext() // the new page has been sent nothing
	err := s.send(first)
	if err == nil && whole && s.who != nil {
		err = s.write(s.who)
	}
	if err == nil && whole && plain != s.lines {
		err = s.send(playPlain{Plain: s.lines})
	}
	if err == nil && whole && (!s.lines || s.alt) {
		err = s.sendChanged()
	}
	if err == nil && whole && s.lines && len(s.missed) > 0 {
		err = s.send(playLines{Lines: append([]string{playMissedLine}, s.missed...)})
		if err == nil {
			s.missed = nil
		}
	}
	if err != nil {
		s.drop()
	}
	return resized
}

// tell tells the page who it plays as, {"who": w}, and each page that takes the game up
// after it.
func (s *playScreen) tell(w PlayWho) {
	b, _ := json.Marshal(map[string]PlayWho{"who": w})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.who = b
	if s.write(b) != nil {
		s.drop()
	}
}

// detach stops sending to c, if it is the page the screen is sent to.
func (s *playScreen) detach(c *websocket.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == c {
		s.conn = nil
	}
}

// drop lets the page go, its socket closed (which ends its reading, and the game is
// held); the caller holds mu.
func (s *playScreen) drop() {
	if s.conn != nil {
		_ = s.conn.CloseNow()
	}
	s.conn = nil
}

// setSize makes a new terminal of size; the caller holds mu, or is the only user.
func (s *playScreen) setSize(size Size) {
	bell := s.term != nil && s.term.bell // a bell not yet sent rings after the resize
	s.term = newPlayTerm(size.W, size.H)
	s.term.bell = bell
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

// close is called as the game ends; the terminal holds no goroutine or file to let go.
func (s *playScreen) close() {}

// resize gives the page's terminal a new size: blank, as a terminal's after a resize is
// to the game, which draws its frame again whole on the size's message. It reports
// whether the size changed.
func (s *playScreen) resize(size Size) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if size == s.size {
		return false
	}
	s.setSize(size)
	return true
}

// Write takes what the game draws in, and sends the page (if one shows the game) the
// rows it changed, or the lines it ended when the page shows the log. A page that does
// not take a frame in within PlayWriteTimeout, or has gone, is let go: the game goes on,
// held, and never sees an error for it. While no page shows the game the rows changed
// stay marked, for the next page's whole screen, and the log's lines are lost.
func (s *playScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.term.Write(p) // never fails
	sent, err := s.logged(p)
	if err == nil && !sent && s.conn != nil {
		err = s.sendChanged()
	}
	if err != nil {
		s.drop()
	}
	return len(p), nil
}

// sendChanged sends the page the rows that differ from what it was last sent; the
// caller holds mu, with a page to send to.
func (s *playScreen) sendChanged() error {
	b, ok := s.appendFrame(s.msg[:0])
	s.msg = b
	if !ok {
		return nil
	}
	return s.write(b)
}

// send sends the page m, as JSON (nothing while no page shows the game); the caller
// holds mu.
func (s *playScreen) send(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("play screen: encode: %w", err)
	}
	return s.write(b)
}

// write sends the page one message within PlayWriteTimeout (nothing while no page shows
// the game); the caller holds mu.
func (s *playScreen) write(b []byte) error {
	if s.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), PlayWriteTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("play screen: send: %w", err)
	}
	return nil
}

// appendFrame appends to b the frame of the rows that changed since the last one, as
// encoding/json would write a playFrame, and says whether it did: not, and b as it was,
// when nothing changed and no bell rang. A bell with no row changed is a frame of no
// rows, so that it rings when it came and not with the next change.
func (s *playScreen) appendFrame(b []byte) ([]byte, bool) {
	start := len(b)
	bell := s.term.bell
	s.term.bell = false
	b = append(b, `{"w":`...)
	b = strconv.AppendInt(b, int64(s.size.W), 10)
	b = append(b, `,"h":`...)
	b = strconv.AppendInt(b, int64(s.size.H), 10)
	if bell {
		b = append(b, `,"bell":true`...)
	}
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
	if rows == 0 && !bell {
		return b[:start], false
	}
	return append(b, "]}"...), true
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
