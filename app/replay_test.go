package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// fakeReplay stands in for the replay package's Player: it counts each control.
type fakeReplay struct{ calls []string }

func (f *fakeReplay) Name() string   { return "Sir Kay" }
func (f *fakeReplay) Status() string { return "0:42 of 5:00, 1×" }
func (f *fakeReplay) Pause()         { f.calls = append(f.calls, "pause") }
func (f *fakeReplay) Faster()        { f.calls = append(f.calls, "faster") }
func (f *fakeReplay) Slower()        { f.calls = append(f.calls, "slower") }
func (f *fakeReplay) SkipIdle()      { f.calls = append(f.calls, "skip") }
func (f *fakeReplay) Back()          { f.calls = append(f.calls, "back") }

// TestReplayKeysDoWhatTheBarSays: each letter of the table reaches its control, the bar
// of a replay's session names the keys (by their words where the width holds them), and
// q leaves.
func TestReplayKeysDoWhatTheBarSays(t *testing.T) {
	ctl := &fakeReplay{}
	m := playModel(t, nil, "SHA256:kay", Params{Replay: ctl, Views: NewViewSlot()})
	if bar := m.replayBar(80); !strings.Contains(bar, "p f s i b q") {
		t.Errorf("at 80 columns the bar %q names no keys", bar)
	}
	bar := m.replayBar(160)
	for _, k := range replayKeys {
		if !strings.Contains(bar, k.key+" "+k.word) {
			t.Errorf("the bar %q does not name %s %s", bar, k.key, k.word)
		}
	}
	for _, s := range []string{"p", "f", "s", "i", "b", "x"} {
		m.replayKeyPress(tea.KeyPressMsg{Code: rune(s[0]), Text: s})
	}
	if got := strings.Join(ctl.calls, " "); got != "pause faster slower skip back" {
		t.Errorf("the keys did %q", got)
	}
	if cmd := m.replayKeyPress(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd == nil {
		t.Error("q does not leave a replay's session")
	}
}

// TestACastNamesNoKeys: a replay drawn into a file (the web page's asciicast) is the
// same screen, but no one can press its keys, so its bar names none.
func TestACastNamesNoKeys(t *testing.T) {
	var out bytes.Buffer
	h := NewHeadless(&fakeReplay{}, 80, 24, 25*time.Millisecond, &out)
	h.Draw(world.View{})
	top := strings.SplitN(h.Text(), "\n", 2)[0]
	if !strings.Contains(top, "REPLAY of Sir Kay, 0:42 of 5:00") {
		t.Errorf("the cast's bar is %q", top)
	}
	if strings.Contains(top, "pause") || strings.Contains(top, "p f s") {
		t.Errorf("the cast's bar names keys no one can press: %q", top)
	}
	if out.Len() == 0 {
		t.Error("nothing was written")
	}
}
