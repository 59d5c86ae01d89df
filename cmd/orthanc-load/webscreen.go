package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// webScreen is the screen of a browser session: the grid of cells the play page paints,
// kept from the frames the server sends it (web/playscreen.go's playFrame). A frame is
// {"w": W, "h": H, "rows": [[y, runs], ...]}, a run [text, foreground, background,
// attributes], and each row sent is the whole row, so a row's cells are its runs' text
// split into characters; colours and attributes are read and dropped, as textScreen
// drops them. A message without rows is not a frame (the socket may carry other kinds):
// it is not read here.
type webScreen struct {
	w, h int
	// cells are each row's characters: "" for the second column of a wide character.
	cells [][]string
	// rows are each row's text, blanks and all.
	rows []string
}

// newWebScreen is a blank w×h screen.
func newWebScreen(w, h int) *webScreen {
	s := &webScreen{}
	s.resize(w, h)
	return s
}

// resize makes the screen w×h and blank, as the page's is when the server's terminal
// changes size.
func (s *webScreen) resize(w, h int) {
	s.w, s.h = w, h
	s.cells = make([][]string, h)
	s.rows = make([]string, h)
	blankRow := strings.Repeat(" ", w)
	for y := range s.cells {
		s.cells[y] = make([]string, w)
		for x := range s.cells[y] {
			s.cells[y][x] = " "
		}
		s.rows[y] = blankRow
	}
}

// wireFrame is a frame as the socket carries it: the screen's size and each row sent,
// its runs' text joined.
type wireFrame struct {
	W, H int
	Rows []wireRow
}

// wireRow is one row of a frame: its number and its text, a character a cell.
type wireRow struct {
	Y    int
	Text string
}

// errNotFrame is decodeFrame's error for a message that is not a frame.
var errNotFrame = errors.New("not a frame")

// decodeFrame reads one message of the socket as a frame: errNotFrame when it is valid
// JSON of another kind (no rows, or no size). It reads the frame's JSON by hand (jsonScan)
// rather than through encoding/json, which took most of the tool's CPU at a thousand
// browsers, on the box of the server it measures.
func decodeFrame(msg []byte) (wireFrame, error) {
	var f wireFrame
	sc := jsonScan{b: msg}
	rows := false
	sc.object(func(key []byte) {
		switch string(key) {
		case "w":
			f.W = sc.integer()
		case "h":
			f.H = sc.integer()
		case "rows":
			rows = true
			sc.array(func() { f.Rows = append(f.Rows, sc.row()) })
		default:
			sc.skip()
		}
	})
	if sc.space(); sc.err == nil && sc.i != len(sc.b) {
		sc.fail()
	}
	if sc.err != nil {
		return f, sc.err
	}
	if !rows || f.W < 1 || f.H < 1 {
		return f, errNotFrame
	}
	return f, nil
}

// apply paints frame f: a new size blanks the screen first, then each row sent replaces
// that row. A row off the screen is an error, and the rest are painted.
func (s *webScreen) apply(f wireFrame) error {
	if f.W != s.w || f.H != s.h {
		s.resize(f.W, f.H)
	}
	var err error
	for _, r := range f.Rows {
		if r.Y < 0 || r.Y >= s.h {
			err = errors.New("a row off the screen")
			continue
		}
		s.setRow(r.Y, r.Text)
	}
	return err
}

// jsonScan reads the JSON of a frame: objects, arrays, integers and strings where a frame
// has them, and skips any other value. Its first error stays, and makes every read after
// it a no-op.
type jsonScan struct {
	b   []byte
	i   int
	err error
	buf []byte // a row's text as its runs are read
}

var errBadJSON = errors.New("bad JSON")

func (sc *jsonScan) fail() {
	if sc.err == nil {
		sc.err = fmt.Errorf("%w at byte %d", errBadJSON, sc.i)
	}
	sc.i = len(sc.b)
}

// space skips white space.
func (sc *jsonScan) space() {
	for sc.i < len(sc.b) && (sc.b[sc.i] == ' ' || sc.b[sc.i] == '\t' || sc.b[sc.i] == '\n' || sc.b[sc.i] == '\r') {
		sc.i++
	}
}

// peek is the next byte that is not white space, 0 at the end.
func (sc *jsonScan) peek() byte {
	sc.space()
	if sc.i >= len(sc.b) {
		return 0
	}
	return sc.b[sc.i]
}

// want takes the byte c, or fails.
func (sc *jsonScan) want(c byte) {
	if sc.peek() != c {
		sc.fail()
		return
	}
	sc.i++
}

// object reads an object, calling field with each key; field reads the value.
func (sc *jsonScan) object(field func(key []byte)) {
	sc.want('{')
	if sc.peek() == '}' {
		sc.i++
		return
	}
	for sc.err == nil {
		key := sc.str()
		sc.want(':')
		field(key)
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return
		default:
			sc.fail()
		}
	}
}

// array reads an array, calling elem to read each element.
func (sc *jsonScan) array(elem func()) {
	sc.want('[')
	if sc.peek() == ']' {
		sc.i++
		return
	}
	for sc.err == nil {
		elem()
		switch sc.peek() {
		case ',':
			sc.i++
		case ']':
			sc.i++
			return
		default:
			sc.fail()
		}
	}
}

// integer reads a whole number.
func (sc *jsonScan) integer() int {
	sc.space()
	start := sc.i
	if sc.i < len(sc.b) && sc.b[sc.i] == '-' {
		sc.i++
	}
	for sc.i < len(sc.b) && sc.b[sc.i] >= '0' && sc.b[sc.i] <= '9' {
		sc.i++
	}
	n, err := strconv.Atoi(string(sc.b[start:sc.i]))
	if err != nil {
		sc.fail()
	}
	return n
}

// str reads a string: the message's own bytes when it has no escape, else its value
// unescaped by encoding/json.
func (sc *jsonScan) str() []byte {
	if sc.peek() != '"' {
		sc.fail()
		return nil
	}
	start := sc.i
	sc.i++
	escaped := false
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case '\\':
			escaped = true
			sc.i += 2
			continue
		case '"':
			sc.i++
			if !escaped {
				return sc.b[start+1 : sc.i-1]
			}
			var s string
			if err := json.Unmarshal(sc.b[start:sc.i], &s); err != nil {
				sc.fail()
			}
			return []byte(s)
		}
		sc.i++
	}
	sc.fail()
	return nil
}

// row reads a row, [y, runs], each run [text, ...]: its number and its runs' text.
func (sc *jsonScan) row() wireRow {
	var r wireRow
	sc.buf = sc.buf[:0]
	n := 0
	sc.array(func() {
		switch n {
		case 0:
			r.Y = sc.integer()
		case 1:
			sc.array(func() {
				m := 0
				sc.array(func() {
					if m == 0 {
						sc.buf = append(sc.buf, sc.str()...)
					} else {
						sc.skip()
					}
					m++
				})
			})
		default:
			sc.skip()
		}
		n++
	})
	r.Text = string(sc.buf)
	return r
}

// skip skips one value of any kind.
func (sc *jsonScan) skip() {
	switch c := sc.peek(); {
	case c == '"':
		sc.str()
	case c == '{':
		sc.object(func([]byte) { sc.skip() })
	case c == '[':
		sc.array(sc.skip)
	case c == '-' || c >= '0' && c <= '9':
		for sc.i < len(sc.b) && strings.IndexByte("+-.eE0123456789", sc.b[sc.i]) >= 0 {
			sc.i++
		}
	case c == 't' && bytes.HasPrefix(sc.b[sc.i:], []byte("true")):
		sc.i += 4
	case c == 'f' && bytes.HasPrefix(sc.b[sc.i:], []byte("false")):
		sc.i += 5
	case c == 'n' && bytes.HasPrefix(sc.b[sc.i:], []byte("null")):
		sc.i += 4
	default:
		sc.fail()
	}
}

// setRow puts text into row y, a character a cell (two for a wide one), blank past its
// end.
func (s *webScreen) setRow(y int, text string) {
	cells := s.cells[y]
	x := 0
	for rest := text; rest != "" && x < s.w; {
		if c := rest[0]; c < 0x80 {
			cells[x] = asciiText[c]
			rest = rest[1:]
			x++
			continue
		}
		cluster, width := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		rest = rest[len(cluster):]
		cells[x] = cluster
		x++
		for ; width > 1 && x < s.w; width-- {
			cells[x] = ""
			x++
		}
	}
	for ; x < s.w; x++ {
		cells[x] = " "
	}
	s.rows[y] = strings.Join(cells, "")
}

// Write is not how a browser's screen is painted (apply is): it takes no terminal output.
func (s *webScreen) Write(b []byte) (int, error) { return len(b), nil }

// cell is the character at x, y: "" for the second column of a wide character.
func (s *webScreen) cell(x, y int) string {
	if x < 0 || y < 0 || x >= s.w || y >= s.h {
		return ""
	}
	return s.cells[y][x]
}

// screen is the screen's text, a line a row with trailing blanks left out.
func (s *webScreen) screen() string {
	var sb strings.Builder
	for y, r := range s.rows {
		if y > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(strings.TrimRight(r, " "))
	}
	return sb.String()
}

// lines is the text of rows from to to-1, one line each, blanks and all.
func (s *webScreen) lines(from, to int) string {
	var sb strings.Builder
	for y := max(from, 0); y < min(to, s.h); y++ {
		sb.WriteString(s.rows[y])
		sb.WriteByte('\n')
	}
	return sb.String()
}
