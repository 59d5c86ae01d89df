package replay

import (
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A knight's views are gated on the world's goroutine, before the queue: in a crowd the
// world sends about 10 views a second a knight, most of them only others moving and
// others' lines, and queueing each cost the recorder more than writing the frames it
// kept. A view that shows nothing of the knight's own (gate.pass) within othersGap of
// the last one queued is held, not queued; the next view queued carries its lines (the
// log keeps 200), and the last one held is queued when the knight's chunk is cut
// (Recorder.Cut: the session's end, its record asked for), or the recorder is flushed or
// asked to keep the knight's record.

// own is what of a view is the knight's own: a change in it is queued at once.
type own struct {
	pos           world.Pos
	depth, hits   int
	level         *world.Level
	fight         *world.FightView
	fightSeq      uint64
	surface       *world.SurfaceView
	dead, retired bool
}

func ownOf(v *world.View) own {
	return own{v.Self.Pos, v.Self.Depth, v.Self.Hits, v.Level, v.Fight, v.FightSeq, v.Surface, v.Dead != nil, v.Retired != nil}
}

// gate decides which of one session's views are queued.
type gate struct {
	last   own
	turn   uint64 // the turn of the last view queued
	queued bool
}

// pass says whether v is queued: the session's first, a change of the knight's own, or
// one othersGap after the last queued. A death or a retirement always is.
func (g *gate) pass(v *world.View, tick time.Duration) bool {
	o := ownOf(v)
	return !g.queued || o != g.last || o.dead || o.retired || time.Duration(v.Turn-g.turn)*tick >= othersGap
}

// passed notes v as queued.
func (g *gate) passed(v *world.View) { g.last, g.turn, g.queued = ownOf(v), v.Turn, true }

// recording is the Subscriber of one session's views of a knight (Recorder.For). Deliver
// runs on the world's goroutine; the view held is shared with release, which the
// session's end, a flush and a keep call from theirs.
type recording struct {
	r      *Recorder
	knight string
	mu     sync.Mutex
	g      gate
	held   world.View
	// holding says held is a view not yet queued; listed, that the recording is in the
	// recorder's list of those a flush releases.
	holding, listed bool
}

// Deliver queues a view, or holds it; it never blocks.
func (s *recording) Deliver(v world.View) {
	if v.Ended != "" {
		return // the session's end, not the knight's
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.listed {
		s.r.list(s)
		s.listed = true
	}
	if !s.g.pass(&v, s.r.tick) {
		s.held, s.holding = v, true
		return
	}
	s.holding = false
	s.queue(&v)
}

// queue puts v on the recorder's queue, under s.mu: a view held and released is queued
// before any view after it.
func (s *recording) queue(v *world.View) {
	select {
	case s.r.in <- item{knight: s.knight, view: *v}:
		s.g.passed(v)
	default:
		s.r.dropped.Add(1)
	}
}

// release queues the view held, if any, and takes the recording off the recorder's list
// (a view delivered after puts it back).
func (s *recording) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holding {
		s.queue(&s.held)
	}
	s.held, s.holding, s.listed = world.View{}, false, false
}

// list and unlisted keep the recordings holding, or able to hold, a view.
func (r *Recorder) list(s *recording) {
	r.mu.Lock()
	r.live[s] = struct{}{}
	r.mu.Unlock()
}

// unlist takes off the list the recordings of knight, or every one for "", and returns
// them: the caller releases each.
func (r *Recorder) unlist(knight string) []*recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*recording
	for s := range r.live {
		if knight == "" || s.knight == knight {
			out = append(out, s)
			delete(r.live, s)
		}
	}
	return out
}

// releaseHeld queues the views held for knight (every knight for ""), before what the
// caller queues next.
func (r *Recorder) releaseHeld(knight string) {
	for _, s := range r.unlist(knight) {
		s.release()
	}
}
