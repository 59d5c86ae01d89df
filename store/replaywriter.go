package store

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// ReplayWriter writes the replays' chunks and keeps in batches, off the world's and the
// recorder's goroutines, as the Saver writes records: PutChunk and Keep file them in
// memory and return, and Run writes what has come about once a second in one
// transaction, holding the bucket within its bound. Safe for concurrent use.
type ReplayWriter struct {
	st      *Store
	log     *slog.Logger
	limit   int64
	rolling time.Duration
	// keptFor is how long a kept record is kept (0: until the bound takes it), and now
	// the clock that ages them and the rolling records (nil: no ages, only the bound).
	keptFor time.Duration
	now     func() time.Time
	kick    chan struct{}

	// writing is held through a write, from taking the batch to its commit: a Flush
	// that finds nothing pending while Run writes what it took waits for that to be on
	// disk (the death screen's replay flushes, then reads the death's keep).
	writing sync.Mutex
	mu      sync.Mutex // guards the pending batch; never held during disk I/O
	chunks  []pendingChunk
	// spare is the list of the batch last written, emptied, for the next batch to be
	// filed in: a second's chunks at 2000 walkers are 400, and a list grown anew for
	// each batch made 90 KB of garbage a second.
	spare   []pendingChunk
	keeps   []replayKeep
	pending int64 // bytes of chunks pending
	dropped uint64
	// handBack takes each chunk's bytes once the writer is done with them (HandBack).
	handBack func(data []byte)
}

// pendingChunk is a chunk waiting to be written.
type pendingChunk struct {
	knight string
	c      ReplayChunk
}

// maxPendingReplay bounds the chunks waiting for a slow disk; past it new chunks are
// dropped (a replay loses seconds, the game nothing).
const maxPendingReplay = 8 << 20

// replayBatchEvery is how often Run writes at most.
const replayBatchEvery = time.Second

// NewReplayWriter writes to st, keeping each knight's last rolling window of chunks and
// the whole bucket within limit bytes (0: no bound). Start Run.
func NewReplayWriter(st *Store, limit int64, rolling time.Duration, log *slog.Logger) *ReplayWriter {
	if log == nil {
		log = slog.Default()
	}
	return &ReplayWriter{st: st, log: log, limit: limit, rolling: rolling, kick: make(chan struct{}, 1)}
}

// Expire has each batch, and a write at least every expireEvery while nothing comes,
// delete what is past its age by now: a rolling record's chunks once older than the
// rolling window (a knight who stopped playing keeps none longer), a kept record once
// older than keptFor (0: until the bound takes it). Call it before Run.
func (w *ReplayWriter) Expire(keptFor time.Duration, now func() time.Time) {
	w.keptFor, w.now = keptFor, now
}

// HandBack has the writer give each chunk's Data to f once it is done with them: the
// chunk written, or given up (dropped for a full queue, or its batch's write failed).
// The bytes are f's then. For a producer that gave them up with PutChunk and keeps no
// other hold on them (replay.Recycle). Call it before Run.
func (w *ReplayWriter) HandBack(f func(data []byte)) { w.handBack = f }

// expireEvery is how often an idle writer still deletes what is past its age.
const expireEvery = time.Minute

// PutChunk files a chunk of the knight's record.
func (w *ReplayWriter) PutChunk(knight string, c ReplayChunk) {
	w.mu.Lock()
	if w.pending+int64(len(c.Data)) > maxPendingReplay {
		w.dropped++
		w.mu.Unlock()
		if w.handBack != nil {
			w.handBack(c.Data)
		}
		return
	}
	w.chunks = append(w.chunks, pendingChunk{knight, c})
	w.pending += int64(len(c.Data))
	w.mu.Unlock()
	w.wake()
}

// Keep files a kept record: the end of r.Knight's record, r.Window long, as it is once
// the chunks filed before are written.
func (w *ReplayWriter) Keep(r Replay) {
	w.mu.Lock()
	w.keeps = append(w.keeps, replayKeep{r})
	w.mu.Unlock()
	w.wake()
}

func (w *ReplayWriter) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Run writes batches until ctx ends, then writes what is left.
func (w *ReplayWriter) Run(ctx context.Context) {
	t := time.NewTicker(replayBatchEvery)
	defer t.Stop()
	var expired time.Time
	for {
		select {
		case <-ctx.Done():
			_ = w.Flush()
			return
		case <-t.C:
		}
		idle := true
		select {
		case <-w.kick:
			idle = false
		default:
		}
		if idle && (w.now == nil || w.now().Sub(expired) < expireEvery) {
			continue
		}
		if w.now != nil {
			expired = w.now()
		}
		if err := w.write(true); err != nil {
			w.log.Error("replays: write", "err", err)
		}
	}
}

// Flush writes everything filed so far and returns when it is on disk. A batch that
// fails is dropped: a replay is worth less than holding the memory for a full disk.
func (w *ReplayWriter) Flush() error { return w.write(false) }

// write writes what is filed; with always, also when nothing is, for what is past its
// age to go.
func (w *ReplayWriter) write(always bool) error {
	w.writing.Lock()
	defer w.writing.Unlock()
	w.mu.Lock()
	chunks, keeps := w.chunks, w.keeps
	w.chunks, w.keeps, w.pending, w.spare = w.spare, nil, 0, nil
	w.mu.Unlock()
	defer w.giveBack(chunks)
	if len(chunks) == 0 && len(keeps) == 0 && (!always || w.now == nil) {
		return nil
	}
	b := replayBounds{rolling: w.rolling, limit: w.limit}
	if w.now != nil {
		now := w.now()
		b.rollingBefore = now.Add(-w.rolling)
		if w.keptFor > 0 {
			b.keptBefore = now.Add(-w.keptFor)
		}
	}
	return w.st.writeReplays(chunks, keeps, b)
}

// maxSpare bounds the list kept for the next batch (its entries, 112 bytes each).
const maxSpare = 4096

// giveBack keeps a batch's list, written, for the next batch to be filed in, and hands
// its chunks' bytes back (HandBack): bbolt took copies of them.
func (w *ReplayWriter) giveBack(chunks []pendingChunk) {
	if w.handBack != nil {
		for _, c := range chunks {
			w.handBack(c.c.Data)
		}
	}
	if cap(chunks) == 0 || cap(chunks) > maxSpare {
		return
	}
	clear(chunks) // the chunks' bytes are for the collector now
	w.mu.Lock()
	if w.spare == nil {
		w.spare = chunks[:0]
	}
	w.mu.Unlock()
}

// Bytes is the bucket's size as the store last knew it (-1 before its first use).
func (w *ReplayWriter) Bytes() int64 { return w.st.replays.size() }

// Size is the bucket's bytes, as the bound counts them (keys and sealed values): the
// store's count once it has used the bucket, else read from the store (every value once).
func (w *ReplayWriter) Size() (int64, error) {
	if n := w.Bytes(); n >= 0 {
		return n, nil
	}
	return w.st.ReplayBytes()
}
