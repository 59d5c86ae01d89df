package server

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// The session's own loop (sessionLoop) in place of a tea.Program: the messages and
// commands the game's model relies on, as Bubble Tea's loop handles them.

// loopModel notes what its loop hands it; its commands come from a test's script.
type loopModel struct {
	mu     sync.Mutex
	seen   []string // the messages, by name, in the order Update took them
	views  int
	init   tea.Cmd
	onKey  func(k tea.KeyPressMsg) tea.Cmd
	onSeen chan string
	// loopGoroutine is the goroutine the loop runs on; updatedOn those Update ran on.
	loopGoroutine string
	updatedOn     map[string]bool
}

// goroutineID is the calling goroutine's number, from its stack's first line.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

type noteMsg string

func (m *loopModel) Init() tea.Cmd { return m.init }

func (m *loopModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var name string
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.ColorProfileMsg:
		name = "profile " + msg.Profile.String()
	case tea.WindowSizeMsg:
		name = fmt.Sprintf("size %dx%d", msg.Width, msg.Height)
	case tea.KeyPressMsg:
		name = "key " + msg.String()
		if m.onKey != nil {
			cmd = m.onKey(msg)
		}
	case noteMsg:
		name = string(msg)
	default:
		return m, nil
	}
	m.mu.Lock()
	m.seen = append(m.seen, name)
	if m.updatedOn == nil {
		m.updatedOn = map[string]bool{}
	}
	m.updatedOn[goroutineID()] = true
	m.mu.Unlock()
	if m.onSeen != nil {
		m.onSeen <- name
	}
	return m, cmd
}

func (m *loopModel) View() tea.View {
	m.mu.Lock()
	m.views++
	m.mu.Unlock()
	return tea.View{}
}

func note(s string) tea.Cmd { return func() tea.Msg { return noteMsg(s) } }

// runLoop runs a loop of m over the keys in keys (then an input that never ends, as a
// session's) until it ends; it fails the test if the loop has not ended in 10 s.
func runLoop(t *testing.T, m *loopModel, keys string) (*sessionLoop, func() error) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	go func() { _, _ = w.Write([]byte(keys)) }()
	in := edge.NewGameInput(nil, r, nil, edge.Wait{})
	l := newSessionLoop(m, in, 80, 24, colorprofile.ANSI256)
	done := make(chan error, 1)
	go func() {
		m.mu.Lock()
		m.loopGoroutine = goroutineID()
		m.mu.Unlock()
		done <- l.run()
	}()
	return l, func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the loop did not end")
			return nil
		}
	}
}

func TestSessionLoopStartsAsBubbleTeaDoesAndQuits(t *testing.T) {
	m := &loopModel{}
	m.onKey = func(k tea.KeyPressMsg) tea.Cmd {
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	}
	_, wait := runLoop(t, m, "aq")
	if err := wait(); err != nil {
		t.Fatalf("the loop ended with %v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	got := strings.Join(m.seen, ", ")
	if !strings.HasPrefix(got, "profile ANSI256, size 80x24") || !strings.Contains(got, "key a, key q") {
		t.Errorf("the model was handed %s", got)
	}
	if m.views < 4 {
		t.Errorf("View was called %d times: after Init, each message and at the end", m.views)
	}
}

func TestSessionLoopRunsBatchesAndSequences(t *testing.T) {
	m := &loopModel{onSeen: make(chan string, 16)}
	m.onKey = func(k tea.KeyPressMsg) tea.Cmd {
		switch k.String() {
		case "b":
			return tea.Batch(note("one"), note("two"))
		case "s":
			return tea.Sequence(note("first"), tea.Batch(note("inner")), note("second"), note("third"))
		}
		return tea.Quit
	}
	l, wait := runLoop(t, m, "")
	<-m.onSeen
	<-m.onSeen
	l.Send(tea.KeyPressMsg{Code: 'b', Text: "b"})
	got := map[string]bool{}
	for !got["one"] || !got["two"] {
		got[<-m.onSeen] = true
	}
	l.Send(tea.KeyPressMsg{Code: 's', Text: "s"})
	var order []string
	for len(order) < 5 {
		if s := <-m.onSeen; s != "key b" {
			order = append(order, s)
		}
	}
	if strings.Join(order, " ") != "key s first inner second third" {
		t.Errorf("a sequence's messages came as %v", order)
	}
	l.Quit()
	if err := wait(); err != nil {
		t.Fatalf("the loop ended with %v", err)
	}
}

func TestSessionLoopSurvivesACommandsPanic(t *testing.T) {
	m := &loopModel{init: func() tea.Msg { panic("a command's bug") }}
	_, wait := runLoop(t, m, "")
	if err := wait(); !errors.Is(err, tea.ErrProgramPanic) || !strings.Contains(err.Error(), "a command's bug") {
		t.Fatalf("the loop ended with %v, not the command's panic", err)
	}
}

func TestSessionLoopTakesTheNewestSizeFromItsOwnGoroutine(t *testing.T) {
	m := &loopModel{onSeen: make(chan string, 16)}
	var l *sessionLoop
	m.onKey = func(k tea.KeyPressMsg) tea.Cmd {
		// On the loop's goroutine, as the pump answers a window change there: it must
		// not wait for the loop.
		l.resized(100, 30)
		l.resized(120, 40)
		return nil
	}
	l, wait := runLoop(t, m, "")
	l.Send(tea.KeyPressMsg{Code: 'r', Text: "r"})
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s := <-m.onSeen:
			if s == "size 100x30" {
				t.Fatal("an older size was handed to the model after a newer one came")
			}
			if s != "size 120x40" {
				continue
			}
			l.Quit()
			if err := wait(); err != nil {
				t.Fatalf("the loop ended with %v", err)
			}
			return
		case <-deadline:
			t.Fatal("the new size never reached the model")
		}
	}
}

// The model's Update and View draw a frame, which takes a stack of 16 KB; the goroutine
// that ran them would keep it, a stack shrinking only by half at a collection. So they
// run on goroutines that end, and the session's goroutine, waiting most of its life,
// keeps a small stack: 6-8 KB less a session (docs/PERFORMANCE.md).
func TestSessionLoopDrawsOnAGoroutineThatEnds(t *testing.T) {
	m := &loopModel{}
	m.onKey = func(k tea.KeyPressMsg) tea.Cmd {
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	}
	_, wait := runLoop(t, m, "abq")
	if err := wait(); err != nil {
		t.Fatalf("the loop ended with %v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.updatedOn[m.loopGoroutine] {
		t.Errorf("Update ran on the loop's own goroutine (%s)", m.loopGoroutine)
	}
	if len(m.updatedOn) < 5 {
		t.Errorf("Update ran on %d goroutines for 5 messages: each runs on one that ends", len(m.updatedOn))
	}
}
