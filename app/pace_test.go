package app

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/vt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// pacedSession is Sir Kay on the dungeon screen, 80×24, drawing keys' frames at most one
// a KeyFrameGap, on the test's clock; its terminal is an emulator, and each write (a
// frame) is timed on that clock. The test is its timer: it says when a held frame is due.
type pacedSession struct {
	t      *testing.T
	m      *Model
	now    time.Time
	em     *vt.Emulator
	frames []time.Time // when each frame was written
	due    time.Time   // when the frame held is due; zero when none is asked for
}

func newPacedSession(t *testing.T) *pacedSession {
	m, _ := viewModel(t, crowdedView(t), 80, 24)
	s := &pacedSession{t: t, m: m, now: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC), em: vt.NewEmulator(80, 24)}
	m.pacing.gap = KeyFrameGap
	m.p.Now = func() time.Time { return s.now }
	m.term.out, m.term.bce = s, true
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	m.View()
	return s
}

// Write is the session's terminal.
func (s *pacedSession) Write(p []byte) (int, error) {
	s.frames = append(s.frames, s.now)
	return s.em.Write(p)
}

// wait moves the clock on by d, and gives the model the end of the gap if it comes
// within d, as the program's timer does.
func (s *pacedSession) wait(d time.Duration) {
	end := s.now.Add(d)
	if !s.due.IsZero() && !s.due.After(end) {
		s.now = s.due
		s.due = time.Time{}
		s.send(frameDueMsg{})
	}
	s.now = end
}

// send gives the model msg and draws, as the program does. When it starts to hold a
// frame, the command it returns is the wait for the gap's end, due KeyFrameGap after the
// last frame.
func (s *pacedSession) send(msg tea.Msg) tea.Cmd {
	s.t.Helper()
	asked := s.m.pacing.due
	_, cmd := s.m.Update(msg)
	if s.m.pacing.due && !asked {
		if cmd == nil {
			s.t.Fatalf("%v: a frame held with no wait for the gap's end", s.now)
		}
		s.due = s.frames[len(s.frames)-1].Add(KeyFrameGap)
	}
	s.m.View()
	return cmd
}

// press presses a key (as keyMsgs reads k); it returns the command the key returned.
func (s *pacedSession) press(k string) tea.Cmd {
	s.t.Helper()
	var cmd tea.Cmd
	for _, msg := range keyMsgs(k) {
		cmd = s.send(msg)
	}
	return cmd
}

// shows fails unless the emulated terminal shows what the model's screen is now.
func (s *pacedSession) shows(when string) {
	s.t.Helper()
	want := strings.Split(s.m.Text(), "\n")
	got := strings.Split(s.em.String(), "\n")
	for y := range want {
		if y >= len(got) || strings.TrimRight(got[y], " ") != strings.TrimRight(want[y], " ") {
			s.t.Fatalf("%s: the terminal shows\n%s\nnot the screen\n%s", when, s.em.String(), s.m.Text())
		}
	}
}

// Keys that come faster than anyone types (a key a millisecond, as a client sending a
// key a packet does) are drawn a frame a KeyFrameGap at most, not a frame a key, and the
// last key is always drawn, at the gap's end; a world's view that comes meanwhile waits
// for the same frame. A person's keys, further apart than the gap, are each drawn at once.
func TestFastKeysAreDrawnAFrameAGap(t *testing.T) {
	s := newPacedSession(t)
	s.wait(time.Second)
	s.press("enter")
	for _, k := range "Sir" { // a person typing: 100 ms a key
		s.wait(100 * time.Millisecond)
		n := len(s.frames)
		if cmd := s.press(string(k)); cmd != nil || len(s.frames) != n+1 {
			t.Fatalf("a key 100 ms after the last frame: %d frames, a command %v; want it drawn at once", len(s.frames)-n, cmd != nil)
		}
	}
	s.shows("typed slowly")

	start := len(s.frames)
	const keys = 500
	var typed strings.Builder
	for i := range keys {
		s.wait(time.Millisecond)
		k := string(rune('a' + i%26))
		typed.WriteString(k)
		s.press(k)
		if i == keys/2 {
			s.send(viewMsg(crowdedView(t))) // the world's turn, in the middle of it
		}
	}
	last := s.frames[len(s.frames)-1]
	if !strings.Contains(s.m.Text(), typed.String()[keys-40:]) {
		t.Fatalf("the line is not the keys typed:\n%s", s.m.Text())
	}
	drawn := s.frames[start:]
	for i := 1; i < len(drawn); i++ {
		if gap := drawn[i].Sub(drawn[i-1]); gap < KeyFrameGap {
			t.Fatalf("frames %d and %d of the typing %v apart, less than the gap %v", i-1, i, gap, KeyFrameGap)
		}
	}
	if most := keys*time.Millisecond/KeyFrameGap + 1; len(drawn) > int(most) {
		t.Fatalf("%d keys a millisecond apart drew %d frames; at most %d", keys, len(drawn), most)
	}
	if !s.m.pacing.held || s.due.IsZero() {
		t.Fatalf("the last key's frame is not held for the gap's end (last frame %v, now %v)", last, s.now)
	}
	s.wait(KeyFrameGap)
	if len(s.frames) != start+len(drawn)+1 {
		t.Fatalf("the gap's end drew %d frames, want the one held", len(s.frames)-start-len(drawn))
	}
	s.shows("the gap's end after the last key")
	t.Logf("%d keys a millisecond apart: %d frames", keys, len(s.frames)-start)

	// The gap's end with nothing held draws nothing.
	n := len(s.frames)
	s.send(frameDueMsg{})
	if len(s.frames) != n {
		t.Fatal("a gap's end with no frame held drew one")
	}
}

// A key that acts is drawn at once, with the keys held before it: Esc closing the chat
// line, Enter sending it, and the y that leaves, which ends the session (a frame held
// then would never be drawn); so is the world's view that ends the session.
func TestKeysThatActAreNotHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string // after letters typed on the chat line, a millisecond apart
		quit bool
	}{
		{"esc", []string{"esc"}, false},
		{"enter", []string{"enter"}, false},
		{"q then y", []string{"esc", "q", "y"}, true},
		{"ctrl+c", nil, true},
		{"ended", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPacedSession(t)
			s.wait(time.Second)
			s.press("enter")
			for _, k := range "hello" {
				s.wait(time.Millisecond)
				s.press(string(k))
			}
			if !s.m.pacing.held {
				t.Fatal("letters a millisecond apart are not held")
			}
			var cmd tea.Cmd
			ks := tc.keys
			switch tc.name {
			case "ctrl+c":
				s.wait(time.Millisecond)
				cmd = s.send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
			case "ended":
				s.wait(time.Millisecond)
				cmd = s.send(viewMsg(world.View{Ended: "The realm is closing."}))
			}
			for _, k := range ks {
				s.wait(time.Millisecond)
				cmd = s.press(k)
			}
			if s.m.pacing.held {
				t.Fatalf("after %q the frame is still held", tc.keys)
			}
			s.shows("the key that acts")
			if s.m.chat.open != (tc.name == "ctrl+c") && tc.name != "ended" {
				t.Fatalf("after %q the chat line is open:\n%s", tc.keys, s.m.Text())
			}
			if tc.quit {
				if cmd == nil {
					t.Fatal("no command to leave")
				}
				if _, ok := cmd().(tea.QuitMsg); !ok {
					t.Fatal("the last key does not leave")
				}
			}
		})
	}
}
