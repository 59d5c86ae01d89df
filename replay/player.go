package replay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Playing a replay: a Player hands a timeline's views to a Subscriber (the replay
// session's view slot) at their times, as the world hands a watched knight's to a
// spectator, so the session draws them as it draws any view, at its own size. The
// viewer's keys change the pace: its controls take effect at once, under the Player's
// lock, and wake the goroutine that waits for the next view.

// Tuning of playing:
//
//	constant   value   effect
//	BackStep   10 s    how far back "back" goes
//	maxSpeed   16      the fastest, doubling from 1
//	minSpeed   1/4     the slowest, halving from 1
const (
	BackStep = 10 * time.Second
	maxSpeed = 16
	minSpeed = 0.25
)

// Player plays a timeline. Its methods are safe from any goroutine; Run is its own.
type Player struct {
	name string
	ms   []Moment
	sub  world.Subscriber
	now  func() time.Time
	wake chan struct{}

	mu     sync.Mutex
	next   int           // the moment to show next
	pos    time.Duration // where the replay stood at base
	base   time.Time
	speed  float64
	paused bool
	gen    uint64 // counts changes, so a wait begun before one is not taken after it
}

// NewPlayer plays ms, the replay of the knight named name, to sub.
func NewPlayer(name string, ms []Moment, sub world.Subscriber) *Player {
	return &Player{name: name, ms: ms, sub: sub, now: time.Now, base: time.Now(), wake: make(chan struct{}, 1), speed: 1}
}

// Name is the replayed knight's name.
func (p *Player) Name() string { return p.name }

// Run plays until ctx ends; at the end of the replay it waits for a key.
func (p *Player) Run(ctx context.Context) {
	p.mu.Lock()
	p.base = p.now()
	p.showLocked(0)
	p.mu.Unlock()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		wait, gen, ok := p.waitFor()
		t.Stop()
		var timer <-chan time.Time
		if ok {
			t.Reset(wait)
			timer = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-timer:
			p.mu.Lock()
			if p.gen == gen {
				p.showLocked(p.next)
				p.pos = p.ms[p.next-1].At
				p.base = p.now()
			}
			p.mu.Unlock()
		}
	}
}

// waitFor is how long until the next moment, at this speed; ok is false when nothing
// comes (paused, or the end).
func (p *Player) waitFor() (wait time.Duration, gen uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused || p.next >= len(p.ms) {
		return 0, p.gen, false
	}
	return time.Duration(float64(p.ms[p.next].At-p.posLocked()) / p.speed), p.gen, true
}

// posLocked is where the replay stands now.
func (p *Player) posLocked() time.Duration {
	if p.paused || p.next >= len(p.ms) {
		return p.pos
	}
	return p.pos + time.Duration(float64(p.now().Sub(p.base))*p.speed)
}

// showLocked hands moment i to the viewer; the next to come is the one after it.
func (p *Player) showLocked(i int) {
	if i < len(p.ms) {
		p.sub.Deliver(p.ms[i].View)
		p.next = i + 1
	}
}

// change runs fn on the player's state, where the replay stands now, and wakes Run.
func (p *Player) change(fn func()) {
	p.mu.Lock()
	p.pos, p.base = p.posLocked(), p.now()
	fn()
	p.gen++
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Pause stops the replay, or goes on.
func (p *Player) Pause() { p.change(func() { p.paused = !p.paused }) }

// Faster doubles the pace, up to maxSpeed.
func (p *Player) Faster() { p.change(func() { p.speed = min(p.speed*2, maxSpeed) }) }

// Slower halves the pace, down to minSpeed.
func (p *Player) Slower() { p.change(func() { p.speed = max(p.speed/2, minSpeed) }) }

// SkipIdle shows the next moment now: a stretch where nothing happens is skipped.
func (p *Player) SkipIdle() {
	p.change(func() {
		if p.next < len(p.ms) {
			p.pos = p.ms[p.next].At
			p.showLocked(p.next)
		}
	})
}

// Back goes back BackStep, showing the view that stood then.
func (p *Player) Back() {
	p.change(func() {
		target, i := p.pos-BackStep, 0
		for i+1 < len(p.ms) && p.ms[i+1].At <= target {
			i++
		}
		p.pos = p.ms[i].At
		p.showLocked(i)
	})
}

// Ended reports whether the last moment has been shown.
func (p *Player) Ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next >= len(p.ms)
}

// Status says where the replay stands: "0:42 of 5:00", the pace when it is not 1×,
// paused, or the end.
func (p *Player) Status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var end time.Duration
	if len(p.ms) > 0 {
		end = p.ms[len(p.ms)-1].At
	}
	return status(min(p.posLocked(), end), end, p.speed, p.paused, p.next >= len(p.ms))
}

// status says where a replay stands: "0:42 of 5:00", the pace when it is not 1×, paused,
// or the end.
func status(pos, end time.Duration, speed float64, paused, ended bool) string {
	s := clock(pos) + " of " + clock(end)
	if speed != 1 {
		s += ", " + speedWords(speed)
	}
	switch {
	case ended:
		s += ", the end"
	case paused:
		s += ", paused"
	}
	return s
}

// clock is a duration as minutes and seconds.
func clock(d time.Duration) string {
	s := int(d / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// speedWords is a pace: "2×", "¼×".
func speedWords(f float64) string {
	switch f {
	case 0.5:
		return "½×"
	case 0.25:
		return "¼×"
	}
	return fmt.Sprintf("%g×", f)
}
