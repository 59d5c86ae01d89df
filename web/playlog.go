package web

import (
	"bytes"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Screen-reader mode on the play page: the page shows the game's lines in a log (an
// aria-live region a screen reader reads as lines come) instead of the grid. The game
// in that mode writes a transcript with no escape sequence (app's terminal.plain): lines
// ended by CR LF, the prompt after the last, typed characters echoed, a backspace as
// BS SP BS, news written over the prompt from a CR. Here that stream is read as a
// terminal's line would show it, and each line ended is sent whole, as its own message
// kind (playLines): no escape byte reaches the page. When the game draws its screen
// (the alternate screen), its frames are sent, as without the log.

// playLines is a message of lines for the page's log.
type playLines struct {
	Lines []string `json:"lines"`
}

// playPlain tells the page which the game shows: the log (plain on) or the grid. It is
// sent when the game turned screen-reader mode on or off of its own (showPlain, or its
// screen seen again while the page showed the log), and to a page that takes a game up.
type playPlain struct {
	Plain bool `json:"plain"`
}

// Sequences the game enters and leaves its screen with (app's enterFull and leaveFull);
// which came last says which the game shows.
var (
	altScreenOn  = []byte(ansi.SetModeAltScreenSaveCursor)
	altScreenOff = []byte(ansi.ResetModeAltScreenSaveCursor)
)

// lineLog reads a transcript as the line a terminal's cursor is on: the lines it ends.
type lineLog struct {
	line []rune
	x    int
}

// take reads text (escape sequences removed) and returns the lines it ended, right
// spaces trimmed, blank ones left out.
func (l *lineLog) take(text string) []string {
	var out []string
	for _, r := range text {
		switch {
		case r == '\r':
			l.x = 0
		case r == '\n':
			if s := strings.TrimRight(string(l.line), " "); s != "" {
				out = append(out, s)
			}
			l.line, l.x = l.line[:0], 0
		case r == '\b':
			l.x = max(l.x-1, 0)
		case r < ' ' || r == 0x7f:
			// another control: nothing a line shows
		case l.x < len(l.line):
			l.line[l.x] = r
			l.x++
		default:
			l.line = append(l.line, r)
			l.x++
		}
	}
	return out
}

// reset forgets the line under way.
func (l *lineLog) reset() { l.line, l.x = l.line[:0], 0 }

// setLines says whether the page shows the log (its switch, or ?plain=1).
func (s *playScreen) setLines(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = on
	s.log.reset()
	s.missed = nil
}

// showPlain has the page show the log (on) or the grid because the game turned
// screen-reader mode on or off of its own: the page is told, and a grid coming back is
// sent whole.
func (s *playScreen) showPlain(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines == on {
		return
	}
	s.lines = on
	s.log.reset()
	s.missed = nil
	if !on {
		s.wholeNext()
	}
	if s.conn != nil && s.send(playPlain{Plain: on}) != nil {
		s.drop()
	}
}

// logged sends the page the lines p ends when the page shows the log and the game is not
// on its screen; sent false leaves p to the grid. The caller holds mu and has given p to
// the emulator. A game that comes to its screen while the page shows the log has left
// screen-reader mode of its own: the page is told, and shown the grid whole.
func (s *playScreen) logged(p []byte) (sent bool, err error) {
	was := s.alt
	on, off := bytes.LastIndex(p, altScreenOn), bytes.LastIndex(p, altScreenOff)
	if on != off { // -1 both when neither came
		s.alt = on > off
	}
	if !s.lines {
		return false, nil
	}
	if s.alt {
		if !was {
			s.lines = false
			s.log.reset()
			s.wholeNext()
			return false, s.send(playPlain{Plain: false})
		}
		return false, nil // the game has not taken the page's switch yet
	}
	s.wholeNext() // the grid is sent whole when it comes back
	lines := s.log.take(ansi.Strip(string(p)))
	if len(lines) == 0 {
		return true, nil
	}
	if s.conn == nil {
		s.miss(lines)
		return true, nil
	}
	if err := s.send(playLines{Lines: lines}); err != nil {
		s.miss(lines) // the page went as they were sent: the next one is sent them
		return true, err
	}
	return true, nil
}

// miss keeps lines no page was shown, the last playMissedKeep of them; the caller holds mu.
func (s *playScreen) miss(lines []string) {
	s.missed = append(s.missed, lines...)
	if n := len(s.missed) - playMissedKeep; n > 0 {
		s.missed = append(s.missed[:0], s.missed[n:]...)
	}
}

// switchPlain takes a turn of the page's screen-reader switch: the screen sends lines
// (or frames) from now, and the game is asked to change modes (only the newest turn
// waits for it).
func switchPlain(scr *playScreen, plained chan bool, on bool) {
	scr.setLines(on)
	offerNewest(plained, on)
}
