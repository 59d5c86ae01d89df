package app

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// AdminFunc runs one line typed in the in-game console through the server's admin
// command table and returns its output and whether it succeeded. The server passes one
// only to sessions whose key is an admin's; the server still checks every line.
type AdminFunc func(line string) (output string, ok bool)

// Console tuning:
//
//	constant            value   effect
//	maxConsoleLines     500     output lines kept for scrolling back
//	maxConsoleHistory   50      lines typed that up and down recall
//	consoleInputLimit   400     characters one console line may hold
const (
	maxConsoleLines   = 500
	maxConsoleHistory = 50
	consoleInputLimit = 400
)

// consoleForAdmins is what a player who is not an admin is told on pressing ':'.
const consoleForAdmins = "The console is for admins."

// console is the one-line admin console that ':' opens over the dungeon screen, with a
// scrollable panel of output above it. It is part of the Model and owned by its program.
type console struct {
	open    bool
	busy    bool // a line is running
	input   lineInput
	out     []consoleOut // output, oldest first
	anchor  int          // index in out of the last line typed (its echo)
	top     int          // first wrapped line shown, when not following
	follow  bool         // show the last command's output from its start
	history lineHistory
	note    string // a one-line note shown in the message area while the console is closed
	// wrapped is out wrapped to wrappedW columns, and at[i] the first of out[i]'s lines
	// in it, made again when out or the width changes and not for every key typed:
	// wrapping 500 lines again for each frame made a key on the console cost a millisecond.
	wrapped  []consoleOut
	at       []int
	wrappedW int
	wrapOK   bool
}

// consoleOut is one line of console output.
type consoleOut struct {
	text string
	cls  class
}

// consoleResultMsg carries a console line's output back to the program.
type consoleResultMsg struct {
	output string
	ok     bool
}

func newConsole() *console {
	return &console{input: lineInput{prompt: ": ", limit: consoleInputLimit}}
}

// consoleOpen reports whether the console is open. A session has none until ':' is first
// pressed in it: most knights are no admins, and it is 0.3 KB a session.
func (m *Model) consoleOpen() bool { return m.console != nil && m.console.open }

// openConsole opens the console (':' on the dungeon screen), or tells a player who is not
// an admin that it is not theirs.
func (m *Model) openConsole() tea.Cmd {
	if m.console == nil {
		m.console = newConsole()
	}
	cs := m.console
	if m.p.Admin == nil {
		cs.note = consoleForAdmins
		return nil
	}
	cs.open, cs.follow = true, true
	cs.input.open(&cs.history)
	return nil
}

// consoleKey handles a key for the console: while it is open every key is its own.
// handled is false for keys the game should have.
func (m *Model) consoleKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	cs := m.console
	if cs == nil {
		return nil, false
	}
	s := k.String()
	if !cs.open {
		cs.note = "" // a note shows until the next key
		return nil, false
	}
	switch {
	case s == "esc", s == "backspace" && cs.input.empty(): // a phone has no Esc
		cs.open = false
		cs.input.close()
		cs.wrapped, cs.at, cs.wrapOK = nil, nil, false
	case s == "enter":
		line := strings.TrimSpace(cs.input.value())
		if line == "" || cs.busy {
			return nil, true
		}
		cs.input.reset()
		cs.history.add(line)
		cs.add(": "+line, clsSelf)
		cs.anchor = len(cs.out) - 1
		cs.busy, cs.follow = true, true
		run := m.p.Admin
		return func() tea.Msg {
			out, ok := run(line)
			return consoleResultMsg{out, ok}
		}, true
	case s == "pgup", s == "pgdown":
		lines, top, rows := m.consoleWindow(m.width)
		step := max(1, rows-1)
		if s == "pgup" {
			top -= step
		} else {
			top += step
		}
		cs.top, cs.follow = min(max(0, top), max(0, len(lines)-rows)), false
	case s == "up", s == "down":
		cs.history.recall(s == "up", &cs.input)
	default:
		cs.input.key(k)
	}
	return nil, true
}

// showResult puts a finished line's output in the panel. Output is cleaned of escape
// sequences and control characters before it reaches the screen.
func (cs *console) showResult(msg consoleResultMsg) {
	cs.busy = false
	cls := clsText
	if !msg.ok {
		cls = clsTitle
	}
	text := strings.TrimRight(msg.output, "\n")
	if text == "" {
		if msg.ok {
			cs.add("(done)", clsDim)
		} else {
			cs.add("(failed)", cls)
		}
		return
	}
	for _, line := range strings.Split(text, "\n") {
		cs.add(world.CleanLine(line), cls)
	}
}

func (cs *console) add(text string, cls class) {
	cs.out = append(cs.out, consoleOut{text, cls})
	cs.wrapOK = false
	if over := len(cs.out) - maxConsoleLines; over > 0 {
		cs.out = cs.out[over:]
		cs.anchor = max(0, cs.anchor-over)
	}
}

// consoleRows is how many output rows the panel has: half the screen.
func (m *Model) consoleRows() int { return max(3, (m.height-2)/2) }

// consoleWindow is the console's output wrapped to width w, the first line to show and the
// number of rows shown. Following, it shows the last command's output from its start
// when it is longer than the panel (a pager's habit), else the newest lines.
func (m *Model) consoleWindow(w int) (lines []consoleOut, top, rows int) {
	cs := m.console // open
	if !cs.wrapOK || cs.wrappedW != w {
		cs.wrapped, cs.at = cs.wrapped[:0], cs.at[:0]
		for _, o := range cs.out {
			cs.at = append(cs.at, len(cs.wrapped))
			for _, part := range wrapHang(o.text, w, hangOf(o.text)) { // a table row hangs under its text
				cs.wrapped = append(cs.wrapped, consoleOut{part, o.cls})
			}
		}
		cs.wrappedW, cs.wrapOK = w, true
	}
	lines = cs.wrapped
	anchor := 0
	if cs.anchor < len(cs.at) {
		anchor = cs.at[cs.anchor]
	}
	rows = min(m.consoleRows(), len(lines))
	last := max(0, len(lines)-rows)
	top = min(cs.top, last)
	if cs.follow {
		top = min(anchor, last)
	}
	return lines, top, rows
}

// drawConsole draws the console over the bottom of the dungeon screen: a rule, the
// output (wrapped, newest at the bottom), and the input line in place of the last
// message. Closed, it shows only its note, if any.
func (m *Model) drawConsole(c *canvas) {
	if m.screen != screenPlay {
		return
	}
	cs := m.console
	if cs == nil {
		return
	}
	inputRow := m.dun.lay.msgRow() // the last message row, just above the status line
	blank := strings.Repeat(" ", c.w)
	if !cs.open {
		if cs.note != "" {
			drawAbove(c, inputRow, wrap(cs.note, c.w), clsText)
		}
		return
	}
	lines, first, rows := m.consoleWindow(c.w)
	shown := lines[first : first+rows]
	top := inputRow - len(shown) - 1
	rule := fit(c.w, "── console: Enter runs, Esc closes, PgUp/PgDn scroll, help lists commands ", "── console: Enter runs, Esc closes ", "── console ")
	if first > 0 || first+rows < len(lines) {
		rule = fit(c.w, "── console: Enter runs, Esc closes, PgUp/PgDn (more), help lists commands ", "── console (more: PgUp/PgDn) ", "── console (more) ")
	}
	c.text(0, top, blank, clsDim)
	c.text(0, top, rule+strings.Repeat("─", max(0, c.w-textWidth(rule))), clsDim)
	for i, o := range shown {
		c.text(0, top+1+i, blank, clsText)
		c.text(0, top+1+i, o.text, o.cls)
	}
	c.text(0, inputRow, blank, clsText)
	end := "_"
	if cs.busy {
		end += "  (running...)"
	}
	c.text(0, inputRow, cs.input.tail(c.w, end), clsSelf)
}
