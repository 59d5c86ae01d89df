package main

import (
	"io"
	"math/rand/v2"
	"strings"

	"github.com/charmbracelet/x/vt"
)

// step is one screen on the way into the game: when the screen shows every string in
// want, the walker sends send, one write each (typeName stands for the session's knight's
// name). The step with nothing to send is the arrival.
type step struct {
	want []string
	send []string
}

// typeName in a step's send is replaced by the walker's name.
const typeName = "\x00name"

// gameScript takes a new key from the game's title to the dungeon: Enter at the title,
// Enter to keep the rolled characteristics, a name of its own and Enter at the name
// prompt, then the first dungeon screen, known by its status line. (Not by the welcome
// message: on a busy server other knights' news can push it off the three message lines
// before the session's first frame.) The name is typed rather than the suggestion taken
// because names are unique: two sessions at the prompt at once may be offered the same
// suggestion, and the second would be refused.
var gameScript = []step{
	{want: []string{"Press Enter to begin"}, send: []string{keyEnter}},
	{want: []string{"Press r to roll again"}, send: []string{keyEnter}},
	{want: []string{"Name your knight"}, send: []string{typeName, keyEnter}},
	{want: []string{dungeonStatus + "1"}},
}

// dungeonStatus is in the status line at the foot of the game's dungeon screen
// ("Sir Kay │ Level 1 │ Hits 12/12 │ … │ Depth 1").
const dungeonStatus = "│ Depth "

// walker reads a session's screen through a terminal emulator. Every session uses it on
// the way into the dungeon; after that only active sessions keep it, to steer their
// knight (see session.press). Idle sessions drop it: their steady state needs only byte
// counts and timestamps, and an emulator on every byte of a thousand sessions would cost
// CPU the server, on the same box, should have.
type walker struct {
	em    *vt.Emulator
	steps []step
	next  int
	name  string // the knight's name, typed at the name prompt
}

// newWalker starts a walker over an 80×24 screen. The emulator's answers to terminal
// queries (cursor position, device attributes) are copied to answers until close.
func newWalker(steps []step, w, h int, name string, answers io.Writer) *walker {
	wk := &walker{em: vt.NewEmulator(w, h), steps: steps, name: name}
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := wk.em.Read(buf)
			if n > 0 {
				if _, werr := answers.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return wk
}

// feed gives the walker output from the server. It returns what to send now, one write
// each (at most one step's worth per call, so a screen that is still being drawn is not
// answered twice), and whether the session has arrived.
func (wk *walker) feed(b []byte) (send []string, arrived bool) {
	_, _ = wk.em.Write(b)
	if wk.next >= len(wk.steps) {
		return nil, true
	}
	screen := wk.em.String()
	st := wk.steps[wk.next]
	for _, w := range st.want {
		if !strings.Contains(screen, w) {
			return nil, false
		}
	}
	wk.next++
	if len(st.send) == 0 {
		return nil, true
	}
	send = make([]string, len(st.send))
	for i, k := range st.send {
		if k == typeName {
			k = wk.name
		}
		send[i] = k
	}
	return send, wk.next >= len(wk.steps)
}

// nameLetters are the letters of generated names: none that the game folds together when
// it decides whether two names are the same (c, d, i, l, o, r, s, v).
const nameLetters = "abefghjkmnpqtuwxyz"

// knightName is a name unique to the session, such as "Bot qkxetmaw": a letter word the
// game accepts (1 to 20 letters and spaces), random enough that two sessions of a run,
// or of runs against the same database, do not share one.
func knightName(r *rand.Rand) string {
	b := []byte("Bot ")
	for range 8 {
		b = append(b, nameLetters[r.IntN(len(nameLetters))])
	}
	return string(b)
}

// screen is the emulated screen's text.
func (wk *walker) screen() string { return wk.em.String() }

// lines is the text of rows from to to-1 of the emulated screen, one line each.
func (wk *walker) lines(from, to int) string {
	var sb strings.Builder
	for y := from; y < to; y++ {
		for x := range wk.em.Width() {
			if c := wk.em.CellAt(x, y); c != nil {
				sb.WriteString(c.Content)
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// close ends the goroutine copying answers. It closes the emulator's answer pipe rather
// than calling Emulator.Close, whose closed flag the reading goroutine reads unguarded
// (vt v0.1.0).
func (wk *walker) close() {
	if pw, ok := wk.em.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}
