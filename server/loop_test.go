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
	return runLoopOn(t, m, keys, newDrawers(time.Second, 4))
}

// runLoopOn is runLoop with its frames drawn on d.
func runLoopOn(t *testing.T, m *loopModel, keys string, d *drawers) (*sessionLoop, func() error) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	go func() { _, _ = w.Write([]byte(keys)) }()
	in := edge.NewGameInput(nil, r, nil, edge.Wait{})
	l := newSessionLoop(m, in, 80, 24, colorprofile.ANSI256, d)
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

// A panic in the model's own Update, drawn on a drawer, ends that session's loop with the
// panic, and the drawer lives on for the next frame.
func TestSessionLoopEndsWithItsModelsPanic(t *testing.T) {
	d := newDrawers(time.Minute, 4)
	m := &loopModel{onKey: func(tea.KeyPressMsg) tea.Cmd { panic("the model's bug") }}
	_, wait := runLoopOn(t, m, "x", d)
	if err := wait(); !errors.Is(err, tea.ErrProgramPanic) || !strings.Contains(err.Error(), "the model's bug") {
		t.Fatalf("the loop ended with %v, not the model's panic", err)
	}
	if r := d.run(func() {}, make(chan any, 1)); r != nil || d.live.Load() != 1 {
		t.Errorf("after a frame's panic the next frame ended with %v on %d drawers; want nil on the same one", r, d.live.Load())
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

// The model's Update and View draw a frame, which takes a stack of 16 KB; the session's
// goroutine, waiting most of its life, would keep it, a stack shrinking only by half at a
// collection, and a goroutine started for each frame grew its stack again every time. So
// they run on drawers the sessions share: never the loop's own goroutine, and one frame
// after another, of one session or the next, on the same drawer.
func TestSessionLoopDrawsOnSharedDrawers(t *testing.T) {
	d := newDrawers(time.Minute, 4)
	quitOnQ := func(k tea.KeyPressMsg) tea.Cmd {
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	}
	first, second := &loopModel{onKey: quitOnQ}, &loopModel{onKey: quitOnQ}
	for _, m := range []*loopModel{first, second} {
		_, wait := runLoopOn(t, m, "abq", d)
		if err := wait(); err != nil {
			t.Fatalf("the loop ended with %v", err)
		}
	}
	drewOn := map[string]bool{}
	for _, m := range []*loopModel{first, second} {
		m.mu.Lock()
		if m.updatedOn[m.loopGoroutine] {
			t.Errorf("Update ran on the loop's own goroutine (%s)", m.loopGoroutine)
		}
		if len(m.seen) < 5 {
			t.Errorf("Update took %d messages (%v); want the profile, the size and three keys", len(m.seen), m.seen)
		}
		for g := range m.updatedOn {
			drewOn[g] = true
		}
		m.mu.Unlock()
	}
	if len(drewOn) != 1 || d.live.Load() != 1 {
		t.Errorf("two sessions' frames, one after another, ran on %d goroutines with %d drawers; want one drawer for all",
			len(drewOn), d.live.Load())
	}
}

// A frame that waits (an Update waiting on the world) holds its own drawer, not the
// others': another session's frame is drawn meanwhile on a drawer of its own, and when
// nothing comes to draw the drawers end.
func TestDrawersNeverMakeAFrameWaitForAnother(t *testing.T) {
	d := newDrawers(50*time.Millisecond, 4)
	release, held := make(chan struct{}), make(chan struct{})
	doneA := make(chan any, 1)
	go func() {
		doneA <- d.run(func() { close(held); <-release }, make(chan any, 1))
	}()
	<-held
	drew := make(chan any, 1)
	go func() { drew <- d.run(func() {}, make(chan any, 1)) }()
	select {
	case <-drew:
	case <-time.After(10 * time.Second):
		t.Fatal("a frame waited for another session's frame to end")
	}
	if n := d.live.Load(); n != 2 {
		t.Errorf("%d drawers while one frame waits and another is drawn; want 2", n)
	}
	close(release)
	if r := <-doneA; r != nil {
		t.Fatalf("the waiting frame ended with %v", r)
	}
	if r := d.run(func() { panic("drawn badly") }, make(chan any, 1)); r != "drawn badly" {
		t.Errorf("a frame's panic came back as %v; want its value, for the session to end with", r)
	}
	if !poll(10*time.Second, 5*time.Millisecond, func() bool { return d.live.Load() == 0 }) {
		t.Fatalf("%d drawers still there long after their last frame", d.live.Load())
	}
	many := newDrawers(time.Minute, 4)
	// A burst of frames at once (a world's turn hands many sessions their views): each
	// drawn at once on a drawer, and afterwards no more drawers wait than the four kept.
	var burst sync.WaitGroup
	waiting := make(chan struct{})
	var started sync.WaitGroup
	for range 10 {
		started.Add(1)
		burst.Go(func() {
			many.run(func() { started.Done(); <-waiting }, make(chan any, 1))
		})
	}
	started.Wait() // all ten drawn side by side
	if n := many.live.Load(); n != 10 {
		t.Errorf("%d drawers for ten frames drawn at once; want 10", n)
	}
	close(waiting)
	burst.Wait()
	if !poll(10*time.Second, time.Millisecond, func() bool { return many.live.Load() <= 4 }) {
		t.Errorf("%d drawers after a burst of ten frames; at most the four kept wait", many.live.Load())
	}
	many.mu.Lock()
	if n := len(many.idle); n != 4 {
		t.Errorf("%d drawers wait after a burst of ten frames; want the four kept", n)
	}
	many.mu.Unlock()
}
