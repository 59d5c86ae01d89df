package replay

import (
	"context"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// moments are n views a second apart, each turn its second.
func moments(n int) []Moment {
	ms := make([]Moment, n)
	for i := range ms {
		ms[i] = Moment{At: time.Duration(i) * time.Second, View: world.View{Turn: uint64(i)}}
	}
	return ms
}

// The viewer's controls: pause stops the clock, faster and slower change the pace, skip
// shows the next view at once, back goes 10 s back; the status says each.
func TestPlayerControls(t *testing.T) {
	now := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	got := &views{}
	p := NewPlayer("Kay", moments(30), got)
	p.now, p.base = func() time.Time { return now }, now
	p.showLocked(0)
	if s := p.Status(); s != "0:00 of 0:29" {
		t.Fatalf("status at the start: %q", s)
	}
	for range 15 {
		p.SkipIdle()
	}
	if v := got.list(); v[len(v)-1].Turn != 15 {
		t.Fatalf("after 15 skips the view is turn %d", v[len(v)-1].Turn)
	}
	now = now.Add(2 * time.Second) // plays on: 17 s
	p.Faster()
	p.Pause()
	now = now.Add(time.Minute) // paused: the clock stands
	if s := p.Status(); s != "0:17 of 0:29, 2×, paused" {
		t.Fatalf("status: %q", s)
	}
	p.Back()
	if v := got.list(); v[len(v)-1].Turn != 7 {
		t.Fatalf("back 10 s from 0:17 shows turn %d", v[len(v)-1].Turn)
	}
	p.Slower()
	p.Slower()
	p.Slower()
	p.Slower()
	if s := p.Status(); s != "0:07 of 0:29, ¼×, paused" {
		t.Fatalf("status: %q", s)
	}
}

// Played, a replay hands every view over in order and stands at the end.
func TestPlayerPlaysToTheEnd(t *testing.T) {
	got := &views{}
	ms := moments(5)
	for i := range ms {
		ms[i].At /= 1000 // milliseconds apart
	}
	p := NewPlayer("Kay", ms, got)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Run(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for len(got.list()) < 5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polls for what it waits for; Run keeps its own time
	}
	v := got.list()
	if len(v) != 5 || v[4].Turn != 4 {
		t.Fatalf("%d views delivered", len(v))
	}
	if s := p.Status(); s != "0:00 of 0:00, the end" {
		t.Fatalf("status: %q", s)
	}
}
