package app

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The test harness: the one way the tests make a Model and run it.
//
//	a world    runWorld steps when the test sends a tick; ticker steps it on its own
//	a Model    playModel is a session on a world; viewModel is a playing session showing
//	           a view the test made, its commands kept by a recorder (no world at all)
//	keys       keys presses keys on a Model, its commands left aside (a viewModel's);
//	           enterLine types a line and presses Enter the same way
//	running    a driver runs a Model in a world the way the Bubble Tea runtime does: its
//	           commands on their own goroutines, their messages back through Update;
//	           waitText and waitOut wait for the screen or the transcript
//	loops      joinNow carries out the join at once, for the fuzz tests and the
//	           benchmark, which press keys by the thousand and cannot settle after each
//	frames     checkFrame checks a frame's size

// runWorld starts an engine that steps only when the test says so.
func runWorld(t *testing.T) (*world.Engine, chan time.Time) {
	t.Helper()
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	t.Cleanup(cancel)
	return e, tick
}

// ticker steps the world in the background until the test ends.
func ticker(t *testing.T, tick chan time.Time) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case tick <- time.Time{}:
				time.Sleep(time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// playModel is the session of the key fp on the world e (nil: no world), 80×24 unless p
// says otherwise, its rolls from a fixed seed unless p brings its own. Its context ends
// with the test.
func playModel(tb testing.TB, e *world.Engine, fp string, p Params) *Model {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	p.Fingerprint, p.Engine = fp, e
	if p.Width == 0 && p.Height == 0 {
		p.Width, p.Height = 80, 24
	}
	if p.Rand == nil {
		p.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return New(ctx, p)
}

// viewModel is Sir Kay's session playing, w×h, showing v, with no world: its commands go
// to the recorder.
func viewModel(t *testing.T, v world.View, w, h int) (*Model, *recorder) {
	t.Helper()
	m := playModel(t, nil, "SHA256:kay", Params{Width: w, Height: h})
	rec := &recorder{}
	m.bt.to = rec
	m.screen, m.view, m.haveView, m.synced = screenPlay, v, true, true
	return m, rec
}

// recorder stands in for the world: it keeps every command and party action a session
// sends.
type recorder struct {
	mu    sync.Mutex
	cmds  []world.Command
	party []world.PartyAction
}

func (r *recorder) Do(_ context.Context, c world.Command) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = append(r.cmds, c)
	return nil
}

func (r *recorder) Party(_ context.Context, a world.PartyAction) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.party = append(r.party, a)
	return nil
}

func (r *recorder) sent() ([]world.Command, []world.PartyAction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]world.Command(nil), r.cmds...), append([]world.PartyAction(nil), r.party...)
}

// take returns the commands sent since the last take.
func (r *recorder) take() []world.Command {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cmds
	r.cmds = nil
	return c
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds, r.party = nil, nil
}

// namedKeys are the keys a test names, as a terminal sends them.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter":       {Code: tea.KeyEnter},
	"esc":         {Code: tea.KeyEscape},
	"backspace":   {Code: tea.KeyBackspace},
	"tab":         {Code: tea.KeyTab},
	"shift+tab":   {Code: tea.KeyTab, Mod: tea.ModShift},
	"up":          {Code: tea.KeyUp},
	"down":        {Code: tea.KeyDown},
	"left":        {Code: tea.KeyLeft},
	"right":       {Code: tea.KeyRight},
	"shift+right": {Code: tea.KeyRight, Mod: tea.ModShift},
	"home":        {Code: tea.KeyHome},
	"end":         {Code: tea.KeyEnd},
	"pgup":        {Code: tea.KeyPgUp},
	"pgdown":      {Code: tea.KeyPgDown},
	"space":       {Code: tea.KeySpace, Text: " "},
}

// keyMsgs are the key presses of k: a named key ("enter", "shift+tab", "pgdown"), or
// else text, typed a character at a time.
func keyMsgs(k string) []tea.KeyPressMsg {
	if msg, ok := namedKeys[k]; ok {
		return []tea.KeyPressMsg{msg}
	}
	return textMsgs(k)
}

// textMsgs are the key presses that type s, even where it spells a key's name ("down").
func textMsgs(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		if r == ' ' {
			out = append(out, namedKeys["space"])
		} else {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	return out
}

// keys presses keys (named keys or text) on a model, leaving aside the commands it
// returns (the name field's cursor blinking; a viewModel has no world to run them on).
func keys(m *Model, ks ...string) {
	for _, k := range ks {
		for _, msg := range keyMsgs(k) {
			m.Update(msg)
		}
	}
}

// enterLine types s and presses Enter, as a player does at a command line.
func enterLine(m *Model, s string) {
	for _, msg := range textMsgs(s) {
		m.Update(msg)
	}
	m.Update(namedKeys["enter"])
}

// checkFrame fails unless the frame is h lines of w columns.
func checkFrame(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("frame has %d lines, want %d:\n%s", len(lines), h, s)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n != w {
			t.Fatalf("line %d is %d columns, want %d:\n%s", i, n, w, s)
		}
	}
}

// driver runs a Model the way the Bubble Tea runtime does, closely enough for tests:
// commands run on their own goroutines, their messages come back through Update (each
// followed by View, which draws), batches fan out, sequences run in order, and what the
// model writes to its terminal is recorded. A command that ends after the test has is
// let go.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	done chan struct{} // closed when the test ends
	term bytes.Buffer  // everything the model wrote to its terminal
	quit bool
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

func newDriver(t *testing.T, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	m.term.out = &d.term
	d.run(m.Init())
	d.send(tea.ColorProfileMsg{Profile: colorprofile.TrueColor}) // as Bubble Tea sends first
	d.settle()
	return d
}

// run carries out commands on a goroutine of their own, one after the other.
func (d *driver) run(cmds ...tea.Cmd) {
	go func() {
		for _, cmd := range cmds {
			if cmd == nil {
				continue
			}
			select {
			case d.msgs <- cmd():
			case <-d.done:
				return
			}
		}
	}()
}

// send gives the model a message and carries out what it returns.
func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.m.View()
	if cmd != nil {
		d.run(cmd)
	}
}

// handle takes one message a command returned.
func (d *driver) handle(msg tea.Msg) {
	if msg == nil {
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			if c != nil {
				d.run(c)
			}
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	rv := reflect.ValueOf(msg)
	switch {
	case rv.Kind() == reflect.Slice && rv.Type().Elem() == cmdType: // tea.Sequence
		cmds := make([]tea.Cmd, rv.Len())
		for i := range cmds {
			cmds[i] = rv.Index(i).Interface().(tea.Cmd)
		}
		d.run(cmds...)
	default:
		d.send(msg)
	}
}

// settle handles messages until none has come for a moment.
func (d *driver) settle() {
	d.t.Helper()
	for {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
		case <-time.After(40 * time.Millisecond):
			return
		}
	}
}

// key presses keys: names like "enter", "up", "shift+right", or text typed a character
// at a time; the model settles after each.
func (d *driver) key(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		for _, msg := range keyMsgs(k) {
			d.send(msg)
		}
		d.settle()
	}
}

// line types a line and presses Enter.
func (d *driver) line(s string) {
	d.t.Helper()
	for _, msg := range textMsgs(s) {
		d.send(msg)
	}
	d.settle()
	d.key("enter")
}

// out is the transcript screen-reader mode has printed so far: every line the terminal
// was given whole, as the terminal shows it (a carriage return starts the line again).
func (d *driver) out() string {
	text := ansi.Strip(d.term.String())
	lines := strings.Split(text, "\r\n")
	lines = lines[:len(lines)-1] // the prompt, still being typed on
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	return strings.Join(lines, "\n")
}

// waitFor handles messages until read, given what the model shows, holds every want,
// and returns what it read; the test fails after 5 s.
func (d *driver) waitFor(what string, read func() string, want ...string) string {
	d.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.settle()
		s := read()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("never %s %q:\n%s", what, want, s)
		}
	}
}

// waitOut waits until the printed transcript holds every want.
func (d *driver) waitOut(want ...string) string {
	d.t.Helper()
	return d.waitFor("printed", d.out, want...)
}

// waitText waits until the screen holds every want.
func (d *driver) waitText(want ...string) string {
	d.t.Helper()
	return d.waitFor("showed", d.m.Text, want...)
}

// runNow carries out a command at once and returns its message; the test fails if it
// takes more than a few seconds.
func runNow(tb testing.TB, cmd tea.Cmd) tea.Msg {
	tb.Helper()
	if cmd == nil {
		tb.Fatal("no command to run")
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	select {
	case msg := <-out:
		return msg
	case <-time.After(5 * time.Second):
		tb.Fatal("the command did not finish")
		return nil
	}
}

// joinNow carries out the command that joins the world (a model on the screen that joins
// it returns it) and takes the first view, as the runtime would; any other command of
// the model's is left aside.
func joinNow(tb testing.TB, m *Model, cmd tea.Cmd) {
	tb.Helper()
	msg := runNow(tb, cmd)
	if _, ok := msg.(joinedMsg); !ok {
		return
	}
	if _, next := m.Update(msg); next != nil {
		if v, ok := runNow(tb, next).(viewMsg); ok {
			m.Update(v)
		}
	}
}
