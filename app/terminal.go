package app

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"
)

// terminal is the player's terminal as this session last drew it. The game writes its
// own frames rather than handing Bubble Tea a string each time: Bubble Tea parses every
// frame back into cells and compares them all, which was two thirds of the server's CPU
// with 1000 players (docs/PERFORMANCE.md). A frame here already is cells, so the
// terminal compares them with the cells it shows and writes only the stretches that
// changed, in one write.
//
// It is used by one goroutine, the session's Bubble Tea program.
type terminal struct {
	out io.Writer // nil draws nowhere (tests that read Model.Text)
	// bce says the terminal erases in the background colour in effect (xterm and its
	// kind): blank stretches are erased, not written, and a new screen is cleared black.
	bce  bool
	mode termMode
	// shown is what the screen shows, row by row, w×h; nil when it is unknown (first
	// frame, new size, new colours), and the next frame clears the screen first.
	shown []cell
	w, h  int
	frame canvas // the canvas the next frame is drawn on (canvas)
	// shownCells and frameCells are spareCells' handles on the cells of shown and of
	// frame, kept so that giving them back makes nothing.
	shownCells, frameCells *[]cell
	// prompt is the input line shown in screen-reader mode, if promptOK: the line the
	// cursor is on shows it.
	prompt   string
	promptOK bool
	buf      []byte
	bufBytes *[]byte // frameBytes' handle on buf's bytes, while they are a pooled buffer's
	failed   bool    // a write failed: the connection is going, and nothing more is written
	writes   int     // the writes made (a frame, or screen-reader mode's lines), for the frames' pace
}

// termMode is which screen the terminal is on.
type termMode uint8

const (
	termNone  termMode = iota // nothing written yet
	termFull                  // the alternate screen, cursor hidden: the game's frames
	termPlain                 // the normal screen: screen-reader mode's transcript and prompt, no escape sequences
)

// Terminal sequences. Entering the game's screen saves the player's screen and cursor;
// bracketed paste lets a paste arrive as one message, not as keys that walk.
const (
	enterFull   = ansi.SetModeAltScreenSaveCursor + ansi.ResetModeTextCursorEnable + ansi.SetModeBracketedPaste
	leaveFull   = ansi.ResetStyle + ansi.ResetModeAltScreenSaveCursor + ansi.SetModeTextCursorEnable
	clearScreen = ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen
)

// A frame longer than syncFrom bytes is written between the marks of synchronized
// output (DEC mode 2026), which a terminal that knows them reads as one update: the
// server sends a frame in SSH packets of 1 KB (edge's sendPiece), and a screen that
// opens whole (the message log, the map) would otherwise show half drawn for a moment,
// its bottom still the screen before. A terminal that does not know the mode ignores
// it; a step's frame, a few hundred bytes, goes out in one packet and without them.
const (
	syncFrom  = 1 << 10
	syncStart = ansi.SetModeSynchronizedOutput
	syncEnd   = ansi.ResetModeSynchronizedOutput
)

// erasesInColour reports whether a terminal of type term (TERM) erases in the background
// colour in effect (BCE) and knows ECH: xterm and the terminals that follow it, as
// Bubble Tea's renderer assumes. Others get every cell written.
func erasesInColour(term string) bool {
	family, _, _ := strings.Cut(term, "-")
	switch family {
	case "xterm", "screen", "tmux", "rxvt", "alacritty", "kitty", "foot", "st", "wezterm",
		"ghostty", "contour", "rio", "linux", "putty", "konsole", "gnome", "vte", "iterm2":
		return true
	}
	return false
}

// canvas gives a blank w×h canvas for the next frame, on cells from spareCells. It is
// the terminal's own, good until the next call; paint keeps its cells as the screen shown.
func (t *terminal) canvas(w, h int) *canvas {
	if t.frameCells == nil {
		t.frameCells = getCells(w * h)
	} else {
		sizeCells(t.frameCells, w*h)
	}
	t.frame.blankOn(w, h, *t.frameCells)
	return &t.frame
}

// redraw forgets what the screen shows, so the next frame is written whole (new colours).
func (t *terminal) redraw() {
	t.shown = nil
}

// forget forgets what the screen shows, giving its cells back to spareCells.
func (t *terminal) forget() {
	if t.shownCells != nil {
		putCells(t.shownCells)
	}
	t.shown, t.shownCells = nil, nil
}

// spareCells are the cells of frames being drawn, shared by the sessions: a session
// keeps the cells its screen shows between frames, and takes a frame's from here only
// while it draws, so a thousand sessions hold a few frames' cells, not a thousand (7.5 KB
// each at 80×24).
var spareCells sync.Pool

// getCells gives n cells, whatever they hold, as the handle that putCells gives back:
// the pool holds pointers, and a handle kept with its cells puts them back without
// making one.
func getCells(n int) *[]cell {
	p, ok := spareCells.Get().(*[]cell)
	if !ok {
		p = new([]cell)
	}
	sizeCells(p, n)
	return p
}

// sizeCells makes *p n cells long, whatever they hold, on new cells if it has too few.
func sizeCells(p *[]cell, n int) {
	if cap(*p) < n {
		*p = make([]cell, n)
	}
	*p = (*p)[:n]
}

// putCells gives cells got from getCells back to spareCells.
func putCells(p *[]cell) {
	spareCells.Put(p)
}

// paint shows a frame of the game: the cells that differ from what the screen shows,
// each changed stretch of a row written from the cursor position at its start. The
// terminal keeps c's cells; c must not be used after.
func (t *terminal) paint(c *canvas, th *theme) {
	b := t.buffer()
	cells := t.frameCells // the handle on c's cells
	if c != &t.frame || cells == nil {
		cells = new([]cell) // a canvas of the caller's (tests): pooled after like any other
		*cells = c.cells
	}
	if c == &t.frame {
		t.frameCells = nil
	}
	if old := t.shownCells; old != nil && old != cells {
		// The screen shown before this frame: cells for another frame to be drawn on.
		defer putCells(old)
	}
	if t.mode != termFull {
		b = append(b, enterFull...)
		t.mode, t.shown = termFull, nil
	}
	if c.w != t.w || c.h != t.h {
		t.w, t.h, t.shown = c.w, c.h, nil
	}
	pen := penNone
	switch {
	case t.shown != nil:
		b, pen = t.appendChanges(b, c, t.shown, th, pen)
	case t.bce:
		// Cleared in the text's colours, the screen shows a blank canvas: what differs
		// from one is all there is to write.
		b = append(b, clearScreen...)
		b = append(b, th.open[clsText]...)
		b = append(b, ansi.CursorHomePosition+ansi.EraseScreenBelow...) // from the top: all of it
		blank := getCells(len(c.cells))
		for i := range *blank {
			(*blank)[i] = mkCell(' ', clsText)
		}
		b, pen = t.appendChanges(b, c, *blank, th, clsText)
		putCells(blank)
	default:
		b = append(b, clearScreen...)
		for y := range c.h {
			b = appendCUP(b, 0, y)
			b, pen = th.appendCells(b, c.cells[y*c.w:(y+1)*c.w], pen)
		}
	}
	if pen != penNone {
		// Nothing else the session writes (a closing line) inherits the game's colours.
		b = append(b, th.close[pen]...)
	}
	t.shown, t.shownCells = c.cells, cells
	t.write(synchronized(b))
}

// synchronized is frame b, between the marks of synchronized output when it is longer
// than syncFrom; the marks go in b's own buffer.
func synchronized(b []byte) []byte {
	n := len(b)
	if n <= syncFrom {
		return b
	}
	b = append(b, syncStart...) // room for the start, before the frame moves along
	copy(b[len(syncStart):], b[:n])
	copy(b, syncStart)
	return append(b, syncEnd...)
}

// joinGap is how many unchanged cells may lie between two changed stretches of a row
// and still be written with them: moving the cursor costs about as much as writing them.
const joinGap = 6

// appendChanges appends what turns the screen showing shown into c, row by row, starting
// with pen, and returns the pen in effect after.
func (t *terminal) appendChanges(b []byte, c *canvas, shown []cell, th *theme, pen class) ([]byte, class) {
	w := c.w
	cx, cy := -1, -1 // where the cursor is, when known
	for y := range c.h {
		now, was := c.cells[y*w:(y+1)*w], shown[y*w:(y+1)*w]
		for x := 0; x < w; x++ {
			if now[x] == was[x] {
				continue
			}
			start, end := x, x+1
			for j, gap := x+1, 0; j < w && gap <= joinGap; j++ {
				if now[j] != was[j] {
					end, gap = j+1, 0
				} else {
					gap++
				}
			}
			// A wide character is written whole: from its first half, through its second.
			if now[start].r() == wideRest && start > 0 {
				start--
			}
			if end < w && now[end].r() == wideRest {
				end++
			}
			if y == cy && start > cx {
				b = appendCUF(b, start-cx)
			} else {
				b = appendCUP(b, start, y)
			}
			b, pen, cx = t.appendStretch(b, now, start, end, th, pen)
			cy = y
			if cx == w {
				cy = -1 // at the right edge a terminal waits to wrap: move from scratch
			}
			x = end - 1
		}
	}
	return b, pen
}

// echMin is the shortest run of blanks erased (ECH) rather than written: the sequence and
// the move past it cost about as much as writing that many blanks.
const echMin = 8

// appendStretch appends the cells row[start:end], the cursor being at start, starting
// with pen; it returns the pen in effect after and the column the cursor is in. With bce,
// runs of echMin blanks or more are erased in their background instead of written.
func (t *terminal) appendStretch(b []byte, row []cell, start, end int, th *theme, pen class) ([]byte, class, int) {
	x := start
	for x < end {
		i, n := end, 0 // the next run of blanks to erase, if any
		if t.bce {
			for j := x; j < end; {
				k := j
				for k < end && row[k].r() == ' ' && th.plainBlank[row[k].cls()] {
					k++
				}
				if k-j >= echMin {
					i, n = j, k-j
					break
				}
				j = k + 1
			}
		}
		b, pen = th.appendCells(b, row[x:i], pen)
		if n == 0 {
			return b, pen, end
		}
		if pen == penNone || !th.plainBlank[pen] { // every plain blank shares the background
			if pen == penNone {
				b = append(b, th.open[row[i].cls()]...)
			} else {
				b = append(b, th.change[pen][row[i].cls()]...)
			}
			pen = row[i].cls()
		}
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, 'X') // ECH: erase n cells, the cursor staying
		x = i + n
		if x == end {
			return b, pen, i
		}
		b = appendCUF(b, n)
	}
	return b, pen, end
}

// appendCUF appends the sequence that moves the cursor n columns right.
func appendCUF(b []byte, n int) []byte {
	b = append(b, "\x1b["...)
	if n > 1 {
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, 'C')
}

// appendCUP appends the sequence that moves the cursor to column x, row y (from 0).
func appendCUP(b []byte, x, y int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(x+1), 10)
	return append(b, 'H')
}

// plain shows screen-reader mode: lines printed once on the normal screen, above the
// prompt, and the prompt with the cursor at its end. It writes no escape sequence at all
// (a screen reader reads what is written, so a line erased and written again is heard
// twice): typed characters are echoed as a terminal echoes them, a line comes
// over the prompt shown with a carriage return (and spaces where the prompt was longer),
// and the prompt follows the last line. With hold set the prompt is not written yet: a
// line has been entered and its answer is awaited (the prompt comes after it). Each line
// is broken between words at the terminal's width w (0: not broken), which would
// otherwise cut it mid-word ("press Ent" / "er.").
func (t *terminal) plain(lines []string, prompt string, hold bool, w int) {
	b := t.buffer()
	if t.mode != termPlain {
		if t.mode == termFull {
			// The player asked for the mode: leave the game's screen, and paste as keys.
			b = append(b, leaveFull...)
			b = append(b, ansi.ResetModeBracketedPaste...)
		}
		// The cursor is at the start of a line of its own (the shell's line ended, or the
		// cursor came back to where it was before the full screen).
		t.mode, t.promptOK = termPlain, false
		t.forget()
	}
	if len(lines) == 0 {
		switch {
		case hold || (t.promptOK && prompt == t.prompt):
			return
		case !t.promptOK:
			t.prompt, t.promptOK = prompt, true
			t.write(append(b, prompt...))
			return
		}
		// Typing and erasing at the end of the line are echoed as a terminal echoes them,
		// the new characters, or backspace-space-backspace for each one erased, so a
		// screen reader hears the key typed and not the whole line again.
		if added, ok := strings.CutPrefix(prompt, t.prompt); ok {
			t.prompt = prompt
			t.write(append(b, added...))
			return
		}
		if erased, ok := strings.CutPrefix(t.prompt, prompt); ok && narrow(erased) {
			for range utf8.RuneCountInString(erased) {
				b = append(b, "\b \b"...)
			}
			t.prompt = prompt
			t.write(b)
			return
		}
		// Another line altogether (one recalled from history): over the one shown.
		b = append(b, '\r')
		b = appendOver(b, prompt, t.prompt)
		t.prompt = prompt
		t.write(b)
		return
	}
	if t.promptOK {
		if typed, ok := t.typedOn(lines[0], w); ok {
			// The first line is the typed line (Enter): it stays as typed, and the keys
			// that came with Enter, whose frame was held (app.KeyFrameGap), are echoed
			// after it as if drawn on their own. Written over the prompt, a line typed in
			// one burst (a paste, a screen reader's own echo) would be heard twice: its
			// first key, then the whole line.
			b = append(b, typed...)
			b = append(b, "\r\n"...)
		} else {
			// A line the game says comes over the prompt, which follows it again.
			rows := breakLine(lines[0], w)
			b = append(b, '\r')
			b = appendOver(b, rows[0], t.prompt)
			b = append(b, "\r\n"...)
			for _, r := range rows[1:] {
				b = append(append(b, r...), "\r\n"...)
			}
		}
		lines = lines[1:]
	}
	for _, l := range lines {
		// The session's terminal gets bytes as they are written: a line break must also
		// return the carriage.
		for _, r := range breakLine(l, w) {
			b = append(append(b, r...), "\r\n"...)
		}
	}
	t.promptOK = !hold
	if !hold {
		b = append(b, prompt...)
		t.prompt = prompt
	}
	t.write(b)
}

// typedOn reports whether line is the prompt shown, or the prompt with the keys typed
// since its last frame added at its end, and returns those keys: echoed after the
// prompt, they show line as it would be written over it. A longer line that would be
// broken at the width w, or that holds a line break, is written over the prompt as the
// game's lines are.
func (t *terminal) typedOn(line string, w int) (string, bool) {
	typed, ok := strings.CutPrefix(line, t.prompt)
	if !ok || (typed != "" && (strings.ContainsAny(typed, "\r\n") || (w > 0 && displaywidth.String(line) >= w))) {
		return "", false
	}
	return typed, true
}

// breakLine is a line of the transcript in the rows it takes on a terminal w columns wide:
// broken at its line breaks, and between words where longer than w (w of 0: only at its
// line breaks).
func breakLine(l string, w int) []string {
	var rows []string
	for part := range strings.SplitSeq(l, "\n") {
		if w <= 0 {
			rows = append(rows, part)
			continue
		}
		rows = wrapInto(rows, part, w)
	}
	return rows
}

// appendOver appends line, written over was from the start of its row: spaces follow it
// where was is wider, so nothing of was is left.
func appendOver(b []byte, line, was string) []byte {
	first, _, _ := strings.Cut(line, "\n")
	b = append(b, strings.ReplaceAll(line, "\n", "\r\n")...)
	if n := displaywidth.String(was) - displaywidth.String(first); n > 0 {
		b = append(b, strings.Repeat(" ", n)...)
	}
	return b
}

// narrow reports whether every character of s takes one column, so that one backspace
// takes the cursor back over each.
func narrow(s string) bool {
	for _, r := range s {
		if r < ' ' || displaywidth.Rune(r) != 1 {
			return false
		}
	}
	return true
}

// restore gives the player's terminal back as it was before the game: the normal screen,
// the cursor shown, paste as keys again. The session writes it when the game ends.
func (t *terminal) restore() {
	switch t.mode {
	case termFull:
		t.write(append(append(t.buffer(), leaveFull...), ansi.ResetModeBracketedPaste...))
	case termPlain:
		t.write(append(t.buffer(), "\r\n"...))
	}
	t.mode = termNone
}

// bell rings the terminal's bell: BEL, which every terminal takes as a bell (a sound, a
// flash, an urgent window) and no terminal draws.
func (t *terminal) bell() { t.write(append(t.buffer(), '\a')) }

// write sends one frame's bytes in one write, keeping a small buffer for the next and
// giving a large one back to frameBytes.
func (t *terminal) write(b []byte) {
	if t.out != nil && !t.failed && len(b) > 0 {
		t.writes++
		if _, err := t.out.Write(b); err != nil {
			t.failed = true // the connection is closing; the session ends on its own
		}
	}
	if cap(b) <= keptBytes {
		t.buf = b[:0]
		return
	}
	p := t.bufBytes // the pool's handle, when b is (or grew from) a pooled buffer
	if p == nil {
		p = new([]byte)
	}
	*p = b[:0]
	frameBytes.Put(p)
	t.buf, t.bufBytes = nil, nil
}

// keptBytes is the most of a write's buffer a terminal keeps between writes: enough for
// a step's frame; a whole screen's (4 KB and more) goes back to frameBytes.
const keptBytes = 512

// frameBytes are the buffers of frames being written, shared by the sessions, as
// spareCells are their cells: a session does not keep its largest frame's bytes.
var frameBytes sync.Pool

// buffer is an empty buffer for the next write: the terminal's own, or one from
// frameBytes.
func (t *terminal) buffer() []byte {
	if t.buf != nil {
		return t.buf[:0]
	}
	if p, ok := frameBytes.Get().(*[]byte); ok {
		t.bufBytes = p
		return (*p)[:0]
	}
	return make([]byte, 0, 1<<10)
}
