package app

// The test harness: everything the tests use to make a Model and run it. Moved here from
// the files that grew their own, so that there is one of each.

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

// driver runs a Model the way the Bubble Tea runtime does, closely enough for tests:
// commands run on their own goroutines, their messages come back through Update (each
// followed by View, which draws), batches fan out, sequences run in order, and what the
// model writes to its terminal is recorded.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	term bytes.Buffer // everything the model wrote to its terminal
	quit bool
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

func newDriver(t *testing.T, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256)}
	m.term.out = &d.term
	d.run(m.Init())
	d.send(tea.ColorProfileMsg{Profile: colorprofile.TrueColor}) // as Bubble Tea sends first
	d.settle()
	return d
}

// run carries out a command on its own goroutine.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { d.msgs <- cmd() }()
}

// send gives the model a message and carries out what it returns.
func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.m.View()
	d.run(cmd)
}

// handle takes one message a command returned.
func (d *driver) handle(msg tea.Msg) {
	if msg == nil {
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
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
		go func() {
			for _, c := range cmds {
				if c != nil {
					d.msgs <- c()
				}
			}
		}()
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

// key presses keys: names like "enter", "up", "shift+right", or text typed a rune at a time.
func (d *driver) key(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		switch k {
		case "enter":
			d.send(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			d.send(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "up":
			d.send(tea.KeyPressMsg{Code: tea.KeyUp})
		case "down":
			d.send(tea.KeyPressMsg{Code: tea.KeyDown})
		case "left":
			d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
		case "right":
			d.send(tea.KeyPressMsg{Code: tea.KeyRight})
		case "backspace":
			d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
		default:
			for _, r := range k {
				if r == ' ' {
					d.send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
				} else {
					d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
				}
			}
		}
		d.settle()
	}
}

// line types a line and presses Enter.
func (d *driver) line(s string) {
	d.t.Helper()
	d.key(s, "enter")
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

// waitOut waits until the printed transcript holds every want.
func (d *driver) waitOut(want ...string) string {
	d.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.settle()
		s := d.out()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("never printed %q; printed:\n%s", want, s)
		}
	}
}

// playModel is a model for a new key on a world the test steps with tick.
func playModel(t *testing.T, e *world.Engine, fp string, p Params) *Model {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p.Fingerprint, p.Engine, p.Width, p.Height = fp, e, 80, 24
	if p.Rand == nil {
		p.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return New(ctx, p)
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

// feed sends msg to the model and, as the Bubble Tea runtime would, carries out the
// commands that join the world and wait for views, feeding their results back. Other
// commands (the name field's cursor blink) are left alone.
func feed(t *testing.T, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(msg)
	for cmd != nil {
		out := make(chan tea.Msg, 1)
		go func() { out <- cmd() }()
		var next tea.Msg
		select {
		case next = <-out:
		case <-time.After(300 * time.Millisecond):
			return
		}
		switch next.(type) {
		case joinedMsg:
			_, cmd = m.Update(next)
		case viewMsg:
			m.Update(next)
			return // the next command would wait for another view
		default:
			return
		}
	}
}

func press(t *testing.T, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		feed(t, m, keyMsg(k))
	}
}

func newModel(t *testing.T, e *world.Engine, saved *world.Adventurer) *Model {
	return New(context.Background(), Params{Fingerprint: "SHA256:test", Saved: saved, Engine: e,
		Width: 80, Height: 24, Rand: rand.New(rand.NewPCG(1, 2))})
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

// battleModel is a playing session showing v, whose commands go to a recorder.
func battleModel(t *testing.T, v world.View, w, h int) (*Model, *recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(ctx, Params{Fingerprint: "SHA256:kay", Width: w, Height: h, Rand: rand.New(rand.NewPCG(1, 2))})
	rec := &recorder{}
	m.bt.to = rec
	m.screen, m.view, m.haveView, m.synced = screenPlay, v, true, true
	return m, rec
}

// keyMsg is the key a terminal sends for a key's name ("tab", "shift+right", "x").
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "shift+right":
		return tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModShift}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func keys(m *Model, ks ...string) {
	for _, k := range ks {
		m.Update(keyMsg(k))
	}
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

// typeLine types s into the model one key at a time, leaving aside the commands the
// text field returns (its cursor's blinking).
func typeLine(m *Model, s string) {
	for _, r := range s {
		k := tea.KeyPressMsg{Code: r, Text: string(r)}
		if r == ' ' {
			k = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		}
		m.Update(k)
	}
}

// enterLine types s and presses Enter, as a player does at a command line.
func enterLine(m *Model, s string) {
	typeLine(m, s)
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
}

// runCmd carries out a command the way the runtime would, for the ones that join the
// world or bring a view; others (cursor blinks, quitting) are dropped.
func runCmd(m *Model, cmd tea.Cmd) {
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	select {
	case msg := <-out:
		switch msg.(type) {
		case joinedMsg, viewMsg:
			_, next := m.Update(msg)
			if _, ok := msg.(joinedMsg); ok && next != nil {
				runCmd(m, next)
			}
		}
	case <-time.After(time.Second):
	}
}

// surfaceModel is a playing session showing v, its commands going to a recorder.
func surfaceModel(t *testing.T, v world.View, w, h int) (*Model, *recorder) {
	t.Helper()
	return battleModel(t, v, w, h)
}

// surfacePress gives the model keys as the terminal sends them.
func surfacePress(m *Model, ks ...string) { keys(m, ks...) }

// benchRun carries out a command as the Bubble Tea runtime would and returns its message,
// failing the benchmark if it takes longer than a few seconds.
func benchRun(b *testing.B, cmd tea.Cmd) tea.Msg {
	b.Helper()
	if cmd == nil {
		b.Fatal("no command to run")
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	select {
	case msg := <-out:
		return msg
	case <-time.After(5 * time.Second):
		b.Fatal("command did not finish")
		return nil
	}
}
