package app

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Headless draws a replay with no program and no terminal behind it (the web page's
// asciicast files): the watching screen a replay's session shows, the same Model, fed the
// views by the caller at its own pace, each frame written to out as the changes to the
// one before, exactly as a session's terminal gets them. It is for one goroutine.
type Headless struct {
	m   *Model
	box *ViewSlot
}

// NewHeadless draws the replay ctl stands for at width×height, in 256 colours and the
// default theme, writing to out; tick is the replay's game turn (the server's -tick).
func NewHeadless(ctl ReplayControl, width, height int, tick time.Duration, out io.Writer) *Headless {
	box := NewViewSlot()
	m := New(context.Background(), Params{Replay: ctl, Views: box, Width: width, Height: height,
		Out: out, Term: "xterm-256color", Tick: tick})
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
	// A recording is played on the viewer's own screen: not the alternate one, whose
	// leaving would wipe the last frame, and with no paste to bracket.
	m.term.mode = termFull
	m.watch.cast = true
	m.term.write([]byte(ansi.ResetModeTextCursorEnable))
	return &Headless{m: m, box: box}
}

// Draw shows v, writing the frame's bytes to out; ctl.Status should say where v stands.
func (h *Headless) Draw(v world.View) {
	h.m.Update(watchViewMsg{h.box, v})
	h.m.View()
}

// End gives the cursor back and the colours, as a session's end does, the cursor on a
// new line under the last row: what a terminal writes after it (a shell's prompt) covers
// nothing of the last frame.
func (h *Headless) End() {
	h.m.term.write([]byte(ansi.ResetStyle + ansi.CursorPosition(1, h.m.height) + "\r\n" + ansi.SetModeTextCursorEnable))
}

// Text is the screen last drawn, without colour.
func (h *Headless) Text() string { return h.m.Text() }
