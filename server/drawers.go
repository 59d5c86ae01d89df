package server

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// drawers run the sessions' Update and View, each on a goroutine that the sessions
// share. Drawing a frame takes a stack of 16 KB; on the session's own goroutine, which
// waits most of its life, that stack would be kept between frames, and on a goroutine
// started for each frame it was grown from the start size every time (the runtime's
// stack copies were 6 % of the server's CPU with 2000 knights walking). A drawer keeps
// its grown stack from frame to frame, for whichever session draws next, and there are
// only as many as draw at once: a frame handed over when every drawer is busy starts a
// new one, so no session waits for another's frame (an Update that waits on the world
// holds only its own drawer). At most keep drawers wait for a frame, the rest end with
// theirs: a world's turn hands hundreds of sessions their views at once, and the drawers
// of that burst would otherwise each keep a stack of 16 KB. A drawer with nothing to draw
// for drawerIdle ends too, so a quiet server keeps none.
type drawers struct {
	mu sync.Mutex
	// idle are the drawers waiting for a frame, the one that drew last at the end: it is
	// handed the next frame, so the drawers drawing most keep their stacks warm and those
	// at the bottom are the ones that end when the players thin out.
	idle []*drawer
	wait time.Duration // how long a drawer waits for a frame before it ends
	keep int           // the most drawers that wait
	live atomic.Int64  // drawers running, waiting or drawing
}

// drawer is one drawing goroutine: its next frame comes on jobs.
type drawer struct{ jobs chan drawJob }

// drawerIdle is how long a drawer waits for its next frame before it ends: long against
// the gap between two frames of a busy server, short against an operator reading
// goroutine counts after the players have gone.
const drawerIdle = 2 * time.Second

// drawJob is one frame's work, and where the drawer says it is done: nil, or what f
// panicked with.
type drawJob struct {
	f    func()
	done chan<- any
}

// newDrawers makes drawers that wait at most wait for a frame, keep of them at a time.
func newDrawers(wait time.Duration, keep int) *drawers { return &drawers{wait: wait, keep: keep} }

// drawersKept is how many drawers a server keeps waiting: twice as many as frames can be
// drawn at once.
func drawersKept() int { return 2 * runtime.GOMAXPROCS(0) }

// run runs f on a drawer and returns once it has: nil, or the value f panicked with,
// for the caller to panic with on its own goroutine. done is the caller's, buffered for
// one, so a drawer never waits for the caller to read it.
func (d *drawers) run(f func(), done chan any) any {
	j := drawJob{f: f, done: done}
	d.mu.Lock()
	if n := len(d.idle); n > 0 {
		w := d.idle[n-1]
		d.idle[n-1] = nil
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		w.jobs <- j // its own, buffered for one: it is waiting, or about to
	} else {
		d.mu.Unlock()
		d.live.Add(1)
		go d.draw(&drawer{jobs: make(chan drawJob, 1)}, j)
	}
	return <-done
}

// draw is a drawer's life: j, then whatever frame it is handed next, until none comes
// for d.wait. It is among the idle before it says a frame is done, so a session's next
// frame finds it there.
func (d *drawers) draw(w *drawer, j drawJob) {
	defer d.live.Add(-1)
	t := time.NewTimer(d.wait)
	defer t.Stop()
	for {
		r := drawOne(j.f)
		t.Reset(d.wait)
		d.mu.Lock()
		kept := len(d.idle) < d.keep
		if kept {
			d.idle = append(d.idle, w)
		}
		d.mu.Unlock()
		j.done <- r
		if !kept {
			return
		}
		j = drawJob{} // the finished frame's closure is not kept while the drawer waits
		select {
		case j = <-w.jobs:
		case <-t.C:
			d.mu.Lock()
			if i := slices.Index(d.idle, w); i >= 0 {
				d.idle = slices.Delete(d.idle, i, i+1)
				d.mu.Unlock()
				return
			}
			d.mu.Unlock()
			j = <-w.jobs // taken for a frame as the wait ran out: the frame is on its way
		}
	}
}

// drawOne runs f and returns what it panicked with, nil if it returned.
func drawOne(f func()) (panicked any) {
	defer func() { panicked = recover() }()
	f()
	return nil
}
