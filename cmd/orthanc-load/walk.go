package main

import (
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// step is one screen on the way into the game: when the screen shows every string in
// want, one of anyOf when it has any, and none of not, the walker sends send, one write
// each (typeName stands for the session's knight's name). The step with nothing to send
// is the arrival.
type step struct {
	want  []string
	anyOf []string
	not   []string
	send  []string
}

// containsAny reports whether s holds one of subs.
func containsAny(s string, subs []string) bool {
	for _, t := range subs {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// matches reports whether the screen shows the step's screen.
func (st step) matches(screen string) bool {
	for _, w := range st.want {
		if !strings.Contains(screen, w) {
			return false
		}
	}
	if containsAny(screen, st.not) {
		return false
	}
	return len(st.anyOf) == 0 || containsAny(screen, st.anyOf)
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

// returningScript takes a knight the server has (a key of the keys file) from the title
// to where it stood: Enter at the title's "Welcome back", and it is in, known by its
// status line, in the dungeon or outside. (The screen that waits for the world to take
// the knight in has a status line too, of nobody outside: it is not the arrival.) A
// knight that has died since (or retired) rolls a new one at the title as a new key
// does, and the walker takes it through the roll and the name prompt as gameScript does;
// the walker may skip steps (see feed). Every session that comes
// back after a restart walks in this way.
var returningScript = []step{
	{want: []string{"Press Enter to continue your adventure"}, send: []string{keyEnter}},
	{want: []string{"Press Enter to roll a new knight"}, send: []string{keyEnter}},
	{want: []string{"Press r to roll again"}, send: []string{keyEnter}},
	{want: []string{"Name your knight"}, send: []string{typeName, keyEnter}},
	{anyOf: []string{dungeonStatus, outsideStatus}, not: []string{joiningText}},
}

// joiningText is on the screen while the world takes a knight in.
const joiningText = "Entering the dungeon..."

// dungeonStatus is in the status line at the foot of the game's dungeon screen
// ("Sir Kay │ Level 1 │ Hits 12/12 │ … │ Depth 1"); outsideStatus stands in its place
// when the knight is outside the dungeon.
const (
	dungeonStatus = "│ Depth "
	outsideStatus = "│ Outside"
)

// screenDepth is the level the status line on the screen says the knight is on (0
// outside), or -1 when the screen shows no status line.
func screenDepth(screen string) int {
	i := strings.LastIndex(screen, dungeonStatus)
	if i < 0 {
		if strings.Contains(screen, outsideStatus) {
			return 0
		}
		return -1
	}
	rest := screen[i+len(dungeonStatus):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	d, err := strconv.Atoi(rest[:n])
	if err != nil {
		return -1
	}
	return d
}

// screenText is a session's screen as a walker reads it: a terminal's (textScreen, kept
// from the output's bytes) or a browser's (webScreen, kept from the frames' rows, which
// takes no bytes: its Write does nothing).
type screenText interface {
	io.Writer
	screen() string
	lines(from, to int) string
	cell(x, y int) string
}

// walker reads a session's screen. Every session uses it on the way into the dungeon;
// after that only active sessions keep it, to steer their knight (see session.press).
// Idle sessions drop it: their steady state needs only byte counts and timestamps.
type walker struct {
	text  screenText
	steps []step
	next  int
	name  string // the knight's name, typed at the name prompt
}

// newWalker starts a walker over a w×h screen.
func newWalker(steps []step, w, h int, name string) *walker {
	return &walker{text: newTextScreen(w, h), steps: steps, name: name}
}

// newWebWalker starts a walker over a browser's screen, which the session paints.
func newWebWalker(steps []step, scr *webScreen, name string) *walker {
	return &walker{text: scr, steps: steps, name: name}
}

// feed gives the walker output from the server. It returns what to send now, one write
// each (at most one step's worth per call, so a screen that is still being drawn is not
// answered twice), and whether the session has arrived. The step answered is the first
// from the next one on whose screen it is, so a script may hold screens that only some
// sessions see (returningScript's roll for a knight that died).
func (wk *walker) feed(b []byte) (send []string, arrived bool) {
	_, _ = wk.text.Write(b)
	return wk.advance()
}

// advance is feed's answer to the screen as it is now: for a browser's screen, which
// the frames paint, once a frame is painted.
func (wk *walker) advance() (send []string, arrived bool) {
	if wk.next >= len(wk.steps) {
		return nil, true
	}
	screen := wk.text.screen()
	j := wk.next
	for j < len(wk.steps) && !wk.steps[j].matches(screen) {
		j++
	}
	if j == len(wk.steps) {
		return nil, false
	}
	st := wk.steps[j]
	wk.next = j + 1
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

// screen is the screen's text, a line a row with trailing blanks left out.
func (wk *walker) screen() string { return wk.text.screen() }

// lines is the text of rows from to to-1 of the screen, one line each.
func (wk *walker) lines(from, to int) string { return wk.text.lines(from, to) }
