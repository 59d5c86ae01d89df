package app

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
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
