package app

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Keys that come faster than anyone types (a client sending a key a packet, a paste sent
// as keys) are drawn together, at most a frame a gap, not a frame each: a frame a key
// would be a thousand frames a second for one client typing at the key rate, and writing
// them out over SSH half of what that client costs. A key that comes less than the gap
// after the last frame drawn leaves the screen to be drawn when the gap ends, with every
// key after it; the keys are taken at once all the same, only their frame waits. A person
// typing fast leaves 60 ms or more between keys, so each of their keys is drawn at once.
//
//	KeyFrameGap   frames a second for keys, at most   a key's frame waits, at most
//	0             one a key (1000 at the key rate)    nothing
//	20 ms         50                                  20 ms, under a frame of a 50 Hz screen
//
// A key with a command of its own (Enter, Esc, one that returns a command: Ctrl-C and the
// other keys that leave) is drawn at once, with the keys held before it: what it does (a
// line sent, a screen closed, the session's end) is never late. While a frame is held,
// the world's views wait for it too (they are drawn with it); the view that ends the
// session, and anything else, is drawn at once.

// KeyFrameGap is the least time between two frames drawn for keys in the server's
// sessions (Params.KeyFrameGap).
const KeyFrameGap = 20 * time.Millisecond

// framePace is when the session last drew its screen, and whether a frame is held for
// the gap's end. It is the Model's, on the program's goroutine.
type framePace struct {
	gap  time.Duration // Params.KeyFrameGap; 0 draws every key at once
	last time.Time     // when a frame was last written
	held bool          // the screen has changed and is drawn when the gap ends
	due  bool          // a frameDueMsg is on its way
}

// frameDueMsg says the gap after the last frame has ended: a frame held is drawn.
type frameDueMsg struct{}

// pace decides, after msg's Update, whether the frame it changed is drawn now or held
// for the gap's end, and returns the command to run: cmd, or the wait for the gap's end
// when a frame starts to be held.
func (m *Model) pace(msg tea.Msg, cmd tea.Cmd) tea.Cmd {
	p := &m.pacing
	if p.gap <= 0 || m.frameOK {
		return cmd
	}
	var holds bool
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		holds = cmd == nil && !drawnAtOnce(msg)
		if holds && !p.held && m.now().Sub(p.last) >= p.gap {
			holds = false // the first key after a pause is drawn at once
		}
	case viewReadyMsg, viewMsg, watchViewMsg:
		holds = p.held // with the keys held, if any
	}
	if holds && m.screen == screenEnded {
		holds = false
	}
	if !holds {
		p.held = false
		return cmd
	}
	p.held = true
	if p.due {
		return cmd
	}
	p.due = true
	wait := p.gap - m.now().Sub(p.last)
	return tea.Batch(cmd, m.frameDue(wait))
}

// drawnAtOnce says a key is drawn at once whenever it comes: it acts (sends a line,
// closes what is open), and the player waits to see what it did. Keys that return a
// command (Ctrl-C and the other keys that leave) are drawn at once too.
func drawnAtOnce(k tea.KeyPressMsg) bool {
	return k.Code == tea.KeyEnter || k.Code == tea.KeyEscape
}

// frameDue waits for d, the rest of the gap, and says the held frame is due; it gives up
// when the session ends.
func (m *Model) frameDue(d time.Duration) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return frameDueMsg{}
		case <-m.ctx.Done():
			return nil
		}
	}
}

// frameIsDue takes the end of the gap: the frame held, if any, is drawn (View), and one
// that is not held is not drawn again.
func (m *Model) frameIsDue() {
	m.pacing.due = false
	m.pacing.held = false
	m.keep = true // a held frame is not drawn yet (frameOK is false): View draws it
}

// drew notes that a frame was just written.
func (m *Model) drew() {
	if m.pacing.gap > 0 {
		m.pacing.last = m.now()
	}
}
