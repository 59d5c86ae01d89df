package server

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// A session over SSH runs its tea.Model in a loop of its own (sessionLoop), not in a
// tea.Program. With its renderer and its input off, what a Program still did for the game
// was a loop over messages, a goroutine that starts each command, and a render ticker
// with nothing to render: three goroutines a session and their channels, for a model
// that draws its own frames (app's terminal) and is fed by the session's input pump. The
// loop runs on the session's goroutine, inside the pump's parser (edge.InputPump.Parse),
// so the keys, the world's views, the session's requests and the messages of commands
// are all waited for in one select. The model's Update and View run on one of the
// drawers the sessions share (deep), so the session's goroutine keeps the small stack of
// a wait.
//
// What the model relies on, kept as Bubble Tea v2's loop does it:
//   - first Init, its command started; then the colour profile (ColorProfileMsg, from the
//     session's environment as wish gives it) and the terminal's size (WindowSizeMsg);
//   - View after each Update, and once more when the loop quits;
//   - each command runs on a goroutine of its own, which ends when it returns its message;
//     a tea.Batch's commands each on their own, a tea.Sequence's in order;
//   - tea.QuitMsg ends the loop; window sizes a terminal could not have are dropped;
//   - the pump's keys and pastes arrive as tea.KeyPressMsg and tea.PasteMsg.
//
// The renderer's own messages (cursor, title, alternate screen, clear screen) have no
// renderer to act on, as with Bubble Tea's renderer off; the model writes its own modes.

// sessionLoop runs one session's model. Its methods but Send, Quit and resized are for
// the session's goroutine, which owns the model.
type sessionLoop struct {
	model   tea.Model
	in      *edge.InputPump // the session's keys, parsed on the loop's goroutine
	profile colorprofile.Profile
	width   int
	height  int

	msgs chan tea.Msg  // messages for the loop from commands and other goroutines
	done chan struct{} // closed when the loop has ended: Send returns at once then
	once sync.Once
	err  error // why the loop ended, when not by tea.Quit or the session's end

	mu          sync.Mutex // guards size and sizePending
	size        tea.WindowSizeMsg
	sizePending bool // a sizeChanged is on its way to the loop

	ended   bool     // the loop has quit: messages still handed to it are dropped
	drawers *drawers // where Update and View run (deep)
	ran     chan any // a drawer's end of this loop's frame, and its panic if it had one
	// next is the message update takes, and update the method value deep hands a drawer:
	// made once, so a frame costs no closure.
	next   tea.Msg
	update func()
}

// newSessionLoop makes the loop of model for a terminal of width×height in profile.
// Its Update and View run on d.
func newSessionLoop(model tea.Model, in *edge.InputPump, width, height int, profile colorprofile.Profile, d *drawers) *sessionLoop {
	l := &sessionLoop{model: model, in: in, profile: profile, width: width, height: height,
		msgs: make(chan tea.Msg), done: make(chan struct{}), drawers: d, ran: make(chan any, 1)}
	l.update = l.updateAndView
	return l
}

// Send hands msg to the loop from any goroutine but the loop's own; once the loop has
// ended it returns at once, dropping msg.
func (l *sessionLoop) Send(msg tea.Msg) {
	select {
	case l.msgs <- msg:
	case <-l.done:
	}
}

// Quit ends the loop, from any goroutine but the loop's own.
func (l *sessionLoop) Quit() { l.Send(tea.QuitMsg{}) }

// sizeChanged tells the loop that the terminal's size changed (resized).
type sizeChanged struct{}

// resized takes the terminal's new size from whichever goroutine answers the session's
// requests, which may be the loop's own (the pump answers them once it has started), so
// it never waits for the loop: the size is kept, and the loop is told on a goroutine that
// ends when the loop takes it in. Sizes that come before the loop takes one are folded:
// it reads the newest.
func (l *sessionLoop) resized(w, h int) {
	l.mu.Lock()
	l.size = tea.WindowSizeMsg{Width: w, Height: h}
	pending := l.sizePending
	l.sizePending = true
	l.mu.Unlock()
	if !pending {
		go l.Send(sizeChanged{})
	}
}

// run runs the loop on the calling goroutine until the model quits, the pump stops or
// the loop is told to quit, with the pump's parser waiting for the keys and everything
// else.
// A panic in the model ends the loop with an error and its stack, as Bubble Tea's
// program ends with ErrProgramPanic, so the session still ends as a session does.
func (l *sessionLoop) run() (err error) {
	in := l.in
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v\n%s", tea.ErrProgramPanic, r, debug.Stack())
		}
		l.end()
		in.Stop()
	}()
	l.deep(func() {
		l.exec(l.model.Init())
		l.model.View()
	})
	l.handle(tea.ColorProfileMsg{Profile: l.profile})
	l.handle(tea.WindowSizeMsg{Width: l.width, Height: l.height})
	in.Parse(func(ev uv.Event) {
		if l.handle(ev) {
			in.Stop()
		}
	}, l.msgs)
	return l.err
}

// end marks the loop ended, once.
func (l *sessionLoop) end() {
	l.once.Do(func() { close(l.done) })
}

// handle takes one message on the loop's goroutine: an event of the pump's as Bubble Tea
// translates it, a command's message, or one sent from another goroutine. It reports
// whether the loop has ended.
func (l *sessionLoop) handle(msg tea.Msg) (ended bool) {
	if l.ended {
		return true
	}
	switch m := msg.(type) {
	case uv.KeyPressEvent:
		msg = tea.KeyPressMsg(m)
	case uv.PasteEvent:
		msg = tea.PasteMsg(m)
	case sizeChanged:
		l.mu.Lock()
		msg, l.sizePending = l.size, false
		l.mu.Unlock()
	case commandPanic:
		l.err = m.err
		l.ended = true
		return true
	case tea.QuitMsg:
		l.ended = true
		l.deep(func() { l.model.View() }) // the last frame, as Bubble Tea draws it when a program quits
		return true
	case tea.BatchMsg:
		for _, cmd := range m {
			l.exec(cmd)
		}
		return false
	case nil:
		return false
	}
	if cmds, ok := sequence(msg); ok {
		l.execSequence(cmds)
		return false
	}
	if size, ok := msg.(tea.WindowSizeMsg); ok && !plausibleSize(size) {
		return false
	}
	l.next = msg
	l.deep(l.update)
	return false
}

// updateAndView hands the model l.next and draws the frame it makes.
func (l *sessionLoop) updateAndView() {
	msg := l.next
	l.next = nil
	var cmd tea.Cmd
	l.model, cmd = l.model.Update(msg)
	l.exec(cmd)
	l.model.View()
}

// deep runs f, the model's Update and View, on one of the drawers and waits for it:
// drawing a frame takes a stack of 16 KB, which the session's goroutine would keep (a
// stack shrinks only at a collection, by half, when a quarter of it is in use), and it
// waits most of its life with little in use. A panic in f is the loop's.
func (l *sessionLoop) deep(f func()) {
	if r := l.drawers.run(f, l.ran); r != nil {
		panic(r)
	}
}

// exec starts cmd on a goroutine of its own, which hands its message to the loop and ends.
func (l *sessionLoop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		defer l.recoverCommand()
		l.Send(cmd())
	}()
}

// execSequence runs cmds one after another on a goroutine of its own, each one's message
// handed to the loop before the next starts (a batch among them run whole, its commands
// at once, before the next; a sequence among them run in its place), as Bubble Tea does.
func (l *sessionLoop) execSequence(cmds []tea.Cmd) {
	go func() {
		defer l.recoverCommand()
		l.runSequence(cmds)
	}()
}

// runSequence runs cmds in order on the calling goroutine.
func (l *sessionLoop) runSequence(cmds []tea.Cmd) {
	for _, cmd := range cmds {
		if cmd == nil {
			continue
		}
		l.deliver(cmd())
		select {
		case <-l.done:
			return
		default:
		}
	}
}

// deliver hands a sequence's message to the loop, running a batch or a sequence it holds
// on the calling goroutine first.
func (l *sessionLoop) deliver(msg tea.Msg) {
	if inner, ok := sequence(msg); ok {
		l.runSequence(inner)
		return
	}
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		l.Send(msg)
		return
	}
	var wg sync.WaitGroup
	for _, cmd := range batch {
		if cmd == nil {
			continue
		}
		wg.Go(func() {
			defer l.recoverCommand()
			l.deliver(cmd())
		})
	}
	wg.Wait()
}

// commandPanic ends the loop: a command panicked (its goroutine recovered).
type commandPanic struct{ err error }

// recoverCommand recovers a command's panic and ends the loop with it, as Bubble Tea
// does, rather than the whole server's process.
func (l *sessionLoop) recoverCommand() {
	if r := recover(); r != nil {
		l.Send(commandPanic{fmt.Errorf("%w: %v\n%s", tea.ErrProgramPanic, r, debug.Stack())})
	}
}

// sequenceType is the type of the message tea.Sequence's command returns, which
// Bubble Tea does not export: made by calling one.
var sequenceType = reflect.TypeOf(tea.Sequence(func() tea.Msg { return nil }, func() tea.Msg { return nil })())

// sequence returns the commands of a tea.Sequence's message.
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	if msg == nil || reflect.TypeOf(msg) != sequenceType {
		return nil, false
	}
	return reflect.ValueOf(msg).Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd), true
}

// The largest terminal Bubble Tea believes: a size past these is dropped, not drawn.
const (
	maxWindowSide  = 4096
	maxWindowCells = 1 << 20
)

// plausibleSize reports whether a terminal could be size.
func plausibleSize(size tea.WindowSizeMsg) bool {
	return size.Width >= 0 && size.Height >= 0 && size.Width <= maxWindowSide && size.Height <= maxWindowSide &&
		size.Width*size.Height <= maxWindowCells
}
