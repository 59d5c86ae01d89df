package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// A replay (ssh -t host replay NAME --death): the watching screen, its views coming
// from a replay played back instead of from the world, and its keys changing the pace.
// The screen draws each view at this terminal's size and screen-reader mode tells it in
// sentences, as they do a knight watched live.

// ReplayControl is a replay being played (the replay package's Player): whose it is,
// where it stands, and the viewer's controls, which take effect at once.
type ReplayControl interface {
	Name() string
	Status() string
	Pause()
	Faster()
	Slower()
	SkipIdle()
	Back()
	// Ended reports whether the replay has shown its last moment.
	Ended() bool
}

// replayKey is one key of a replay: its letter, screen-reader mode's word for it, its
// help, and what it does (nil: leave).
type replayKey struct {
	key  string
	word string
	help string
	do   func(ReplayControl)
}

// replayKeys are a replay's keys, in the order the bar and the help name them.
var replayKeys = []replayKey{
	{"p", "pause", "pause, or go on", ReplayControl.Pause},
	{"f", "faster", "twice as fast", ReplayControl.Faster},
	{"s", "slower", "half as fast", ReplayControl.Slower},
	{"i", "skip", "skip to what happens next", ReplayControl.SkipIdle},
	{"b", "back", "back 10 seconds", ReplayControl.Back},
	{"q", "stop", "leave", nil},
}

// replayKeyPress handles a key of a replay; Esc and Backspace leave too.
func (m *Model) replayKeyPress(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	i := slices.IndexFunc(replayKeys, func(r replayKey) bool { return r.key == s })
	switch {
	case s == "esc", s == "backspace", i >= 0 && replayKeys[i].do == nil:
		return m.leaveReplay()
	case i >= 0:
		replayKeys[i].do(m.watch.replay)
	}
	return nil
}

// leaveReplay ends a replay: a replay's session ends, and the death screen's replay goes
// back to the death screen, which says the way on.
func (m *Model) leaveReplay() tea.Cmd {
	if m.watch.only {
		return tea.Quit
	}
	m.say("You stop the replay.")
	m.stopWatching("") // back to the screen it was asked from
	return nil
}

// fellMsg is the death screen's replay, started, or why it could not be.
type fellMsg struct {
	ctl    ReplayControl
	box    *ViewSlot
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

// seeFell plays the last minute of the knight that has just died (the death screen's r).
func (m *Model) seeFell() tea.Cmd {
	if m.p.Fell == nil || m.tomb == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	return func() tea.Msg {
		ctl, box, err := m.p.Fell(ctx)
		return fellMsg{ctl, box, ctx, cancel, err}
	}
}

// startFell shows the death screen's replay, or says why there is none.
func (m *Model) startFell(msg fellMsg) tea.Cmd {
	if msg.err != nil || m.screen != screenDead {
		msg.cancel()
		if msg.err != nil {
			m.say("How you fell could not be shown: " + msg.err.Error())
		}
		return nil
	}
	m.watch = watching{box: msg.box, ctx: msg.ctx, cancel: msg.cancel, replay: msg.ctl, from: screenDead}
	m.pl.watched = told{}
	m.screen = screenWatch
	if m.pl.active {
		m.say("How you fell, the last minute told again. " + replayWords())
	}
	return m.waitWatch()
}

// replayWord runs a typed word of a replay, saying where the replay stands after it;
// ok is false for a word that is not one.
func (m *Model) replayWord(line string) (tea.Cmd, bool) {
	w := strings.ToLower(strings.TrimSpace(line))
	i := slices.IndexFunc(replayKeys, func(r replayKey) bool { return r.word == w })
	if i < 0 || replayKeys[i].do == nil {
		return nil, false
	}
	replayKeys[i].do(m.watch.replay)
	m.say("Replay: " + m.watch.replay.Status() + ".")
	return nil, true
}

// tellReplayEnd says, in screen-reader mode, that the replay has come to its end, once
// each time it does (back, then the end again, says it again): on the screen the bar
// says so.
func (m *Model) tellReplayEnd() {
	r := m.watch.replay
	if r == nil {
		return
	}
	end := r.Ended()
	if end && !m.watch.endTold {
		m.say("The replay ends here. Type back to see its last 10 seconds again, or stop to leave.")
	}
	m.watch.endTold = end
}

// replayWords names a replay's words, for screen-reader mode.
func replayWords() string {
	var ws []string
	for _, r := range replayKeys {
		ws = append(ws, r.word+" ("+r.help+")")
	}
	return "Type " + english.List(ws) + "."
}

// replayBar is the line over a replay's screen: whose, where it stands, and its keys,
// as much as the width holds: the keys by their words, else by their letters; on a narrow
// screen the letters go before the knight's name (the status line under the screen names
// it too), and before nothing at all.
func (m *Model) replayBar(w int) string {
	r := m.watch.replay
	var words, letters []string
	for _, k := range replayKeys {
		words = append(words, k.key+" "+k.word)
		letters = append(letters, k.key)
	}
	head := fmt.Sprintf(" REPLAY of %s, %s.", r.Name(), r.Status())
	short := fmt.Sprintf(" REPLAY %s.", r.Status())
	if m.watch.cast {
		return fit(w, head+" ", short+" ")
	}
	named, bare := strings.Join(words, " "), strings.Join(letters, " ")
	return fit(w, head+" "+strings.Join(words, ", ")+" ", head+" "+named+" ", head+" "+bare+" ",
		short+" "+bare+" ", head+" ", short+" ")
}
