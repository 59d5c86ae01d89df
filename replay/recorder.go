package replay

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Recording (DESIGN §9, "Replays"): every view the world sends a knight's session is
// also handed to the Recorder, which never makes the world wait: a full queue drops the
// view (the next one carries the log's lines it had). Its one goroutine encodes each
// knight's views into a chunk and hands the chunk, compressed, to a Sink every chunk span;
// on a death or a retirement it asks the Sink to keep the end of the knight's record.
//
// Tuning:
//
//	constant      value    effect
//	ChunkSpan     20 s     a chunk's length: what a crash loses; a chunk's compression has a
//	                       cost of its own (at 10 s, half the recorder's time at 1000 walkers)
//	maxChunkRaw   8 KB     a busier chunk is cut sooner (its frames before compression, its
//	                       levels not counted: memory, for a crowd's chunks full of lines)
//	othersGap     250 ms   a view that shows only others moving, or their lines, is held on the
//	                       world's goroutine (gate.go) this soon after the last one queued: a
//	                       crowd's views come 10 a second, and queueing them was most of the
//	                       recorder's time; a knight steps at most once a round
//	queueLen      4096     views waiting for the goroutine before more are dropped (3.2 MB):
//	                       a crowd of 1000 sends a burst of about 1000 a turn
//	Rolling       10 min   how much of each knight's play the store keeps
//	DeathWindow   5 min    what is kept with a tombstone or a hall-of-fame entry
//	ReportWindow  2 min    what is kept with a report
const (
	ChunkSpan    = 20 * time.Second
	maxChunkRaw  = 8 << 10
	othersGap    = 250 * time.Millisecond
	queueLen     = 4096
	Rolling      = 10 * time.Minute
	DeathWindow  = 5 * time.Minute
	ReportWindow = 2 * time.Minute
)

// Kind says why a record was kept.
type Kind string

// The kinds of kept records.
const (
	KindDeath   Kind = "death"
	KindRetired Kind = "retired"
	KindReport  Kind = "report"
)

// Keep asks a Sink to keep the last Window of a knight's rolling record, as it is once
// every chunk handed over before has been written.
type Keep struct {
	Knight string
	// Born is the life whose end is kept (world.Self.Born); zero for a report's, which
	// keeps the knight's newest life.
	Born    time.Time
	Name    string // the knight's name then
	Kind    Kind
	At      time.Time
	Private bool // its knight keeps it for itself (world.Options.PrivateReplays)
	Window  time.Duration
	Report  int // the report it is kept with, for KindReport
}

// Sink takes a recorder's chunks and keeps; neither call may wait on disk. A chunk's
// Data is the sink's from PutChunk on; once written it may hand them back (Recycle).
type Sink interface {
	PutChunk(knight string, c Chunk)
	Keep(k Keep)
}

// Recorder records the knights' views. Deliver-side methods are safe from any goroutine;
// the knights' chunks are owned by Run's goroutine.
type Recorder struct {
	in      chan item
	stopped chan struct{} // closed when Run returns
	sink    Sink
	now     func() time.Time
	tick    time.Duration
	log     *slog.Logger
	dropped atomic.Uint64
	views   atomic.Uint64
	busy    atomic.Int64 // nanoseconds the goroutine has spent on items: its share of the CPU
	mu      sync.Mutex
	live    map[*recording]struct{} // the sessions' recordings that may hold a view (gate.go)
}

// item is a view of a knight, or a request to the goroutine.
type item struct {
	knight string
	view   world.View
	keep   *Keep         // keep the end of a knight's record, once its chunk is handed over
	cut    bool          // the knight's chunk is done (Cut)
	flush  chan struct{} // closed when handed over: every chunk's, or the leaving knight's
}

// NewRecorder makes a recorder of views whose turns last tick, handing chunks to sink;
// now is the wall clock (nil: time.Now). Start Run.
func NewRecorder(sink Sink, tick time.Duration, now func() time.Time, log *slog.Logger) *Recorder {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Recorder{in: make(chan item, queueLen), stopped: make(chan struct{}), sink: sink, now: now, tick: tick, log: log,
		live: map[*recording]struct{}{}}
}

// RecorderStats are a recorder's counts since it was made.
type RecorderStats struct {
	Views   uint64        // views recorded (those queued: gate.go holds some back)
	Dropped uint64        // views and keeps dropped on a full queue
	Busy    time.Duration // time its goroutine spent recording
}

// Stats are the recorder's counts.
func (r *Recorder) Stats() RecorderStats {
	return RecorderStats{Views: r.views.Load(), Dropped: r.dropped.Load(), Busy: time.Duration(r.busy.Load())}
}

// For is the Subscriber that records one session's views of the knight with id knight.
func (r *Recorder) For(knight string) world.Subscriber { return &recording{r: r, knight: knight} }

// Cut hands over the knight's open chunk, and returns once it is with the sink, so a
// replay asked for next has it: at the session's end, or when the knight's own record
// is asked for while it plays (its next view begins a chunk).
func (r *Recorder) Cut(knight string) {
	r.releaseHeld(knight)
	done := make(chan struct{})
	select {
	case r.in <- item{knight: knight, cut: true, flush: done}:
	case <-r.stopped:
		return
	}
	select {
	case <-done:
	case <-r.stopped:
	}
}

// Keep asks for the end of a knight's record to be kept (a report's: KindReport), once
// the chunk it is making is handed over. It never blocks: on a full queue the keep is
// dropped.
func (r *Recorder) Keep(k Keep) {
	r.releaseHeld(k.Knight)
	select {
	case r.in <- item{keep: &k}:
	default:
		r.dropped.Add(1)
	}
}

// Flush hands over every chunk begun, and returns once they are with the sink (or ctx
// ends).
func (r *Recorder) Flush(ctx context.Context) {
	r.releaseHeld("")
	done := make(chan struct{})
	select {
	case r.in <- item{flush: done}:
	case <-ctx.Done():
		return
	case <-r.stopped:
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Run records until ctx ends, then hands over what it holds.
func (r *Recorder) Run(ctx context.Context) {
	defer close(r.stopped)
	l := newLoop(r)
	t := time.NewTicker(ChunkSpan / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			l.doneAll()
			return
		case <-t.C:
			l.cutStale()
		case it := <-r.in:
			t0 := time.Now()
			l.take(it)
			r.busy.Add(int64(time.Since(t0)))
		}
	}
}

// loop is what Run's goroutine owns: each knight's open chunk and the writers' scratch.
type loop struct {
	r    *Recorder
	open map[string]*writer
	// ended is the life of each knight whose end was kept, so the views of its death
	// screen that follow keep it no more; a knight leaves it when its next life begins.
	ended map[string]time.Time
	sc    scratch
	v     world.View
}

func newLoop(r *Recorder) *loop {
	return &loop{r: r, open: map[string]*writer{}, ended: map[string]time.Time{}}
}

// take handles one item.
func (l *loop) take(it item) {
	switch {
	case it.keep != nil:
		l.done(it.keep.Knight)
		l.r.sink.Keep(*it.keep)
	case it.cut:
		l.done(it.knight)
		close(it.flush)
	case it.flush != nil:
		l.doneAll()
		close(it.flush)
	default:
		l.v = it.view // the writers' parts take a pointer: this one is not made anew each view
		l.record(it.knight, &l.v)
	}
}

// record adds a view to its knight's chunk; the end of a knight keeps its last minutes.
func (l *loop) record(knight string, v *world.View) {
	w := l.open[knight]
	if w != nil && !w.born.Equal(v.Self.Born) { // a new life: the last one's chunk ends
		l.done(knight)
		w = nil
	}
	if born, ok := l.ended[knight]; ok && !born.Equal(v.Self.Born) {
		delete(l.ended, knight)
	}
	if w == nil {
		w = l.sc.writer(l.r.now(), v.Self.Born)
		l.open[knight] = w
	}
	l.r.views.Add(1)
	w.add(v)
	kind := Kind("")
	switch {
	case v.Dead != nil:
		kind = KindDeath
	case v.Retired != nil:
		kind = KindRetired
	case w.span(l.r.tick) >= ChunkSpan || w.buf.size >= maxChunkRaw:
		l.done(knight)
		return
	default:
		return
	}
	l.done(knight)
	if born, ok := l.ended[knight]; ok && born.Equal(v.Self.Born) {
		return // its end is kept already
	}
	l.ended[knight] = v.Self.Born
	l.r.sink.Keep(Keep{Knight: knight, Born: v.Self.Born, Name: v.Self.Name, Kind: kind, At: l.r.now(),
		Private: v.Self.Options.PrivateReplays, Window: DeathWindow})
}

// cutStale hands over the chunks begun a span ago or more: a knight standing still
// still has its last seconds written.
func (l *loop) cutStale() {
	now := l.r.now()
	for k, w := range l.open {
		if now.Sub(w.start) >= ChunkSpan {
			l.done(k)
		}
	}
}

// done hands over the knight's chunk, compressed, to the sink.
func (l *loop) done(knight string) {
	w := l.open[knight]
	if w == nil {
		return
	}
	delete(l.open, knight)
	if w.frames > 0 {
		l.r.sink.PutChunk(knight, w.finish(l.r.tick))
	}
	w.reset()
}

// doneAll hands over every chunk begun.
func (l *loop) doneAll() {
	for k := range l.open {
		l.done(k)
	}
}
