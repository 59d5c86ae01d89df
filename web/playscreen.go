package web

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"strings"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
	"github.com/coder/websocket"
)

// playScreen is a browser's terminal, kept here: the game writes to it as to an SSH
// client's terminal, a virtual terminal (x/vt) takes the writes in, and after each one
// the rows that differ from what the page shows are sent to it (playFrame).
type playScreen struct {
	ctx  context.Context
	conn *websocket.Conn

	mu    sync.Mutex // the game's writes and the page's resizes
	em    *vt.Emulator
	size  Size
	shown []string // each row as last sent, encoded; nil rows are sent
	buf   strings.Builder
}

// playFrame is what the page is sent: its screen's size and the rows that changed, each
// [y, runs], a run being [text, foreground, background, attributes], the colours as
// "#rrggbb" or "" for the page's own, the attributes playBold and the rest.
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

func newPlayScreen(ctx context.Context, c *websocket.Conn, size Size) *playScreen {
	s := &playScreen{ctx: ctx, conn: c}
	s.setSize(size)
	return s
}

// setSize makes a new terminal of size; the caller holds mu, or is the only user.
func (s *playScreen) setSize(size Size) {
	if s.em != nil {
		endAnswers(s.em)
	}
	s.em = vt.NewEmulator(size.W, size.H)
	// The emulator answers a program's queries on a pipe that a write waits on until
	// read: the game asks none, but one must never hold the game's goroutine.
	go func(em *vt.Emulator) { _, _ = io.Copy(io.Discard, em) }(s.em)
	s.size = size
	s.shown = make([]string, size.H)
}

// close ends the terminal, and its goroutine; nothing more is drawn on it.
func (s *playScreen) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	endAnswers(s.em)
}

// endAnswers closes the pipe of em's answers, which ends the goroutine reading them
// (Emulator.Close would too, but sets a field that goroutine's Read reads unguarded);
// an answer after is dropped.
func endAnswers(em *vt.Emulator) {
	if c, ok := em.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
}

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
	if _, err := s.em.Write(p); err != nil {
		return 0, fmt.Errorf("play screen: %w", err)
	}
	f := playFrame{W: s.size.W, H: s.size.H}
	for y := range s.size.H {
		row := s.row(y)
		if row == s.shown[y] {
			continue
		}
		s.shown[y] = row
		f.Rows = append(f.Rows, json.RawMessage(row))
	}
	if len(f.Rows) == 0 {
		return len(p), nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		return 0, fmt.Errorf("play screen: encode: %w", err)
	}
	ctx, cancel := context.WithTimeout(s.ctx, PlayWriteTimeout)
	defer cancel()
	if err := s.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return 0, fmt.Errorf("play screen: send a frame: %w", err)
	}
	return len(p), nil
}

// row encodes row y of the terminal as the page is sent it: [y, runs].
func (s *playScreen) row(y int) string {
	type run struct {
		text   strings.Builder
		fg, bg string
		attrs  int
	}
	var runs []any
	var cur *run
	end := func() {
		if cur != nil {
			runs = append(runs, []any{cur.text.String(), cur.fg, cur.bg, cur.attrs})
		}
	}
	for x := 0; x < s.size.W; x++ {
		c := s.em.CellAt(x, y)
		text, fg, bg, attrs := " ", "", "", 0
		if c != nil {
			if c.Width == 0 {
				continue // the rest of a wide character, written with its first half
			}
			if c.Content != "" {
				text = c.Content
			}
			fg, bg, attrs = hexColour(c.Style.Fg), hexColour(c.Style.Bg), playAttrs(c.Style)
		}
		if cur == nil || cur.fg != fg || cur.bg != bg || cur.attrs != attrs {
			end()
			cur = &run{fg: fg, bg: bg, attrs: attrs}
		}
		cur.text.WriteString(text)
	}
	end()
	s.buf.Reset()
	b, _ := json.Marshal([]any{y, runs}) // strings and ints: never fails
	s.buf.Write(b)
	return s.buf.String()
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

// hexColour is c as CSS's #rrggbb, or "" for none (the terminal's default).
func hexColour(c color.Color) string {
	if c == nil {
		return ""
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
