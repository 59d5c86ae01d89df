package main

import (
	"encoding/json"
	"errors"
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

// wireFrame is a frame as the socket carries it; Rows is nil in a message of another
// kind.
type wireFrame struct {
	W    int               `json:"w"`
	H    int               `json:"h"`
	Rows []json.RawMessage `json:"rows"`
}

// errNotFrame is decodeFrame's error for a message that is not a frame.
var errNotFrame = errors.New("not a frame")

// decodeFrame reads one message of the socket as a frame: errNotFrame when it is valid
// JSON of another kind (no rows, or no size).
func decodeFrame(msg []byte) (wireFrame, error) {
	var f wireFrame
	if err := json.Unmarshal(msg, &f); err != nil {
		return f, err
	}
	if f.Rows == nil || f.W < 1 || f.H < 1 {
		return f, errNotFrame
	}
	return f, nil
}

// apply paints frame f: a new size blanks the screen first, then each row sent replaces
// that row. A row it cannot read is an error, and the rest are painted.
func (s *webScreen) apply(f wireFrame) error {
	if f.W != s.w || f.H != s.h {
		s.resize(f.W, f.H)
	}
	var errs []error
	for _, raw := range f.Rows {
		if err := s.paintRow(raw); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// paintRow paints one row of a frame, [y, runs].
func (s *webScreen) paintRow(raw json.RawMessage) error {
	var row [2]json.RawMessage
	if err := json.Unmarshal(raw, &row); err != nil {
		return err
	}
	var y int
	if err := json.Unmarshal(row[0], &y); err != nil {
		return err
	}
	if y < 0 || y >= s.h {
		return errors.New("a row off the screen")
	}
	var runs []json.RawMessage
	if err := json.Unmarshal(row[1], &runs); err != nil {
		return err
	}
	var text strings.Builder
	text.Grow(s.w)
	for _, r := range runs {
		var run []json.RawMessage
		if err := json.Unmarshal(r, &run); err != nil {
			return err
		}
		var t string
		if len(run) == 0 {
			continue
		}
		if err := json.Unmarshal(run[0], &t); err != nil {
			return err
		}
		text.WriteString(t)
	}
	s.setRow(y, text.String())
	return nil
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
