package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// fakeReplay stands in for the replay package's Player: it counts each control; ended
// says it has shown its last moment.
type fakeReplay struct {
	calls []string
	ended bool
}

func (f *fakeReplay) Name() string   { return "Sir Kay" }
func (f *fakeReplay) Status() string { return "0:42 of 5:00, 1×" }
func (f *fakeReplay) Pause()         { f.calls = append(f.calls, "pause") }
func (f *fakeReplay) Faster()        { f.calls = append(f.calls, "faster") }
func (f *fakeReplay) Slower()        { f.calls = append(f.calls, "slower") }
func (f *fakeReplay) SkipIdle()      { f.calls = append(f.calls, "skip") }
func (f *fakeReplay) Back()          { f.calls = append(f.calls, "back") }
func (f *fakeReplay) Ended() bool    { return f.ended }

// TestReplayKeysDoWhatTheBarSays: each letter of the table reaches its control, the bar
// of a replay's session names the keys (by their words where the width holds them with
// the knight's name, else by their letters; at 40 columns the letters before the name),
// and q leaves.
func TestReplayKeysDoWhatTheBarSays(t *testing.T) {
	ctl := &fakeReplay{}
	m := playModel(t, nil, "SHA256:kay", Params{Replay: ctl, Views: NewViewSlot()})
	for _, w := range []int{160, 90} {
		bar := m.replayBar(w)
		for _, k := range replayKeys {
			if !strings.Contains(bar, k.key+" "+k.word) {
				t.Errorf("at %d columns the bar %q does not name %s %s", w, bar, k.key, k.word)
			}
		}
		if textWidth(bar) > w || !strings.Contains(bar, "0:42 of 5:00") {
			t.Errorf("at %d columns the bar is %q", w, bar)
		}
	}
	if bar := m.replayBar(80); textWidth(bar) > 80 || !strings.Contains(bar, "REPLAY of Sir Kay") || !strings.Contains(bar, "p f s i b q") {
		t.Errorf("at 80 columns the bar is %q", bar)
	}
	if bar := m.replayBar(40); textWidth(bar) > 40 || !strings.Contains(bar, "p f s i b q") || !strings.Contains(bar, "0:42 of 5:00") {
		t.Errorf("at 40 columns the bar is %q", bar)
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

// TestALowScreenShowsTheReplaysTopRowUnderItsBar: a screen under 24 rows has no header
// row, so the fight panel begins on the top row; the bar of a replay (or a watch) must
// not cover it: the panel's title, with the round, shows under the bar at 40×20.
func TestALowScreenShowsTheReplaysTopRowUnderItsBar(t *testing.T) {
	for _, size := range [][2]int{{40, 20}, {40, 18}, {80, 23}, {80, 24}} {
		var out bytes.Buffer
		h := NewHeadless(&fakeReplay{}, size[0], size[1], 25*time.Millisecond, &out)
		h.Draw(twoOnTwo(t))
		rows := strings.Split(h.Text(), "\n")
		if !strings.Contains(rows[0], "REPLAY") || !strings.Contains(rows[1], "ROUND 3") {
			t.Errorf("%d×%d: the bar or the fight panel's title is missing:\n%s", size[0], size[1], h.Text())
		}
		if len(rows) != size[1] {
			t.Errorf("%d×%d: %d rows drawn", size[0], size[1], len(rows))
		}
	}
}

// TestScreenReaderModeSaysWhenAReplayEnds: the bar says "the end"; screen-reader mode
// says it once, with what can be done, and again after back has gone from it.
func TestScreenReaderModeSaysWhenAReplayEnds(t *testing.T) {
	ctl := &fakeReplay{}
	box := NewViewSlot()
	m := playModel(t, nil, "SHA256:reader", Params{Replay: ctl, Views: box, Plain: true})
	v := twoOnTwo(t)
	show := func() {
		v.Said++
		m.Update(watchViewMsg{box, v})
	}
	ends := func() int {
		return strings.Count(strings.Join(m.pl.transcript, "\n"), "The replay ends here.")
	}
	show()
	if n := ends(); n != 0 {
		t.Fatalf("the end is told before it comes:\n%s", strings.Join(m.pl.transcript, "\n"))
	}
	ctl.ended = true
	show()
	show()
	if n := ends(); n != 1 {
		t.Fatalf("the end is told %d times:\n%s", n, strings.Join(m.pl.transcript, "\n"))
	}
	ctl.ended = false // back
	show()
	ctl.ended = true
	show()
	if n := ends(); n != 2 {
		t.Fatalf("the end after back is told %d times in all", n)
	}
}

// deliverFunc is a Subscriber made of a function.
type deliverFunc func(world.View)

func (f deliverFunc) Deliver(v world.View) { f(v) }

// The record of a knight's views has each before the session sees it: a death seen on the
// screen and its replay asked for at once (r) finds the death in the record's queue ahead
// of the cut, not behind it ("it was not recorded").
func TestTheRecordHasAViewBeforeTheSessionSeesIt(t *testing.T) {
	recorded := 0
	seen := 0
	tee := teeViews{
		slot: deliverFunc(func(world.View) {
			if recorded != seen+1 {
				t.Errorf("the session saw view %d when the record had %d", seen+1, recorded)
			}
			seen++
		}),
		record: deliverFunc(func(world.View) { recorded++ }),
	}
	for range 3 {
		tee.Deliver(world.View{})
	}
	if seen != 3 || recorded != 3 {
		t.Fatalf("seen %d, recorded %d; want 3 each", seen, recorded)
	}
}
