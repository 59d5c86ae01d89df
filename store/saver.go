package store

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Retry delays after a failed write when no new Put arrives to trigger one.
const (
	retryMin = 500 * time.Millisecond
	retryMax = 30 * time.Second
)

// SaverStats counts a Saver's writes since it was made.
type SaverStats struct {
	// Batches is the number of successful batch writes.
	Batches uint64
	// Records is the number of records those batches wrote.
	Records uint64
	// LastLatency is how long the most recent write took, whether or not it
	// succeeded.
	LastLatency time.Duration
	// Errors is the number of failed batch writes.
	Errors uint64
}

// pendingRecord is a record waiting to be written, with the sequence number
// of the Put that made it, so a write does not drop a newer Put that arrived
// while it was on disk.
type pendingRecord struct {
	rec world.Adventurer
	seq uint64
}

// Saver is a write-behind layer over a Store, so the game engine never waits
// on disk: Put files records in memory and returns, and the Run goroutine
// writes them in batches. Load sees records not yet written, so a player who
// reconnects at once gets the newest state. If a write fails the records stay
// pending and are retried. A Saver is safe for concurrent use.
type Saver struct {
	st   *Store
	log  *slog.Logger
	kick chan struct{} // capacity 1: "there is something to write"

	writeMu sync.Mutex // held for a whole write, so Run and Flush take turns

	mu       sync.Mutex // guards the fields below; never held during disk I/O
	pending  map[string]pendingRecord
	tombs    []knights.Tombstone       // dead knights' tombstones waiting to be written, kept apart so a new knight's record cannot replace them
	fame     []knights.FameEntry       // retired knights waiting to be written, likewise
	levels   map[int]world.LevelState  // newest state of each level waiting to be written
	mail     map[string][]world.Letter // newest mailbox of each recipient waiting to be written
	reports  []Report                  // reports waiting to be written
	bindings map[string]*binding       // new keys by fingerprint, written with their knight's first record
	seq      uint64
	stats    SaverStats
	failures int // consecutive failed writes

	// duringWrite, if set (by tests), runs after a write has taken its
	// snapshot of the pending records and before it saves them.
	duringWrite func()
}

// NewSaver returns a Saver writing to st and logging write failures to log
// (slog.Default() if nil). Start its Run goroutine to write in the background.
func NewSaver(st *Store, log *slog.Logger) *Saver {
	if log == nil {
		log = slog.Default()
	}
	return &Saver{
		st:      st,
		log:     log,
		kick:    make(chan struct{}, 1),
		pending: make(map[string]pendingRecord),
	}
}

// Put queues records to be written. It never waits on disk: it keeps each record as it
// is under the record's fingerprint, replacing any record still pending for that
// fingerprint (the last Put wins), and wakes Run. The records are the caller's copies,
// which nothing changes afterwards (the world's checkpoint makes them for the Saver, the
// seen squares shared with the engine, which never changes them in place): a copy here
// again was most of a checkpoint's time on the world's goroutine. A record without a
// fingerprint cannot be keyed; it is dropped and logged.
func (s *Saver) Put(recs ...world.Adventurer) {
	now := time.Now()
	s.mu.Lock()
	for _, c := range recs {
		if c.ID == "" {
			s.log.Error("saver: dropping adventurer without fingerprint", "name", c.Name)
			continue
		}
		s.seq++
		s.pending[c.ID] = pendingRecord{rec: c, seq: s.seq}
		if c.Death != nil {
			s.tombs = append(s.tombs, knights.Tombstone{Died: now, Adventurer: c})
		}
		if c.Retirement != nil {
			s.fame = append(s.fame, knights.FameEntry{Retired: now, Adventurer: c})
		}
	}
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // a wake-up is already queued
	}
}

// binding is a new key waiting for its knight's first record, and how many sessions
// hold it.
type binding struct {
	key  knights.Key
	refs int
}

// Bind holds k, a key that plays no knight yet with the id its first knight is to have,
// until a record of that knight is written: the key is written in the same transaction,
// so the store never has a knight without a key. KeyOf sees it meanwhile, so a second
// session of the key gets the same id. The returned release lets it go when the session
// that bound it ends; a key bound by several sessions is let go by the last, and one whose
// knight has a record waiting to be written is kept until that write takes it with the
// record (a session may end before its knight's first write lands, as when the disk
// refuses it for a while).
func (s *Saver) Bind(k knights.Key) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bindings == nil {
		s.bindings = map[string]*binding{}
	}
	b := s.bindings[k.Fingerprint]
	if b == nil {
		b = &binding{key: k}
		s.bindings[k.Fingerprint] = b
	}
	b.refs++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if b.refs--; b.refs <= 0 && s.bindings[k.Fingerprint] == b {
				if _, waiting := s.pending[b.key.Knight]; !waiting {
					delete(s.bindings, k.Fingerprint)
				}
			}
		})
	}
}

// KeyOf returns the entry of the key fp: one bound and waiting for its knight's first
// record, or the stored one (an error wrapping ErrNotFound if there is none).
func (s *Saver) KeyOf(fp string) (knights.Key, error) {
	s.mu.Lock()
	b := s.bindings[fp]
	s.mu.Unlock()
	if b != nil {
		return b.key, nil
	}
	return s.st.KeyOf(fp)
}

// PutLevels queues level states to be written, keeping only the newest per level. Like
// Put, it never waits for the disk.
func (s *Saver) PutLevels(states ...world.LevelState) {
	if len(states) == 0 {
		return
	}
	s.mu.Lock()
	if s.levels == nil {
		s.levels = map[int]world.LevelState{}
	}
	for _, l := range states {
		l.Broken = slices.Clone(l.Broken)
		l.Monsters = slices.Clone(l.Monsters)
		s.levels[l.Depth] = l
	}
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// PutMail queues a recipient's whole mailbox to be written (an empty one is deleted),
// keeping only the newest per recipient. Like Put, it never waits for the disk; the
// world calls it as its Archive.
func (s *Saver) PutMail(to string, letters []world.Letter) {
	s.mu.Lock()
	if s.mail == nil {
		s.mail = map[string][]world.Letter{}
	}
	s.mail[to] = slices.Clone(letters)
	s.mu.Unlock()
	s.wake()
}

// PutReport queues a report to be written. Like Put, it never waits for the disk.
func (s *Saver) PutReport(r Report) {
	r.Lines = slices.Clone(r.Lines)
	s.mu.Lock()
	s.reports = append(s.reports, r)
	s.mu.Unlock()
	s.wake()
}

// wake tells Run there is something to write.
func (s *Saver) wake() {
	select {
	case s.kick <- struct{}{}:
	default: // a wake-up is already queued
	}
}

// Load returns the adventurer under fingerprint fp: the pending record if
// one is waiting to be written, otherwise the stored one (an error wrapping
// ErrNotFound if there is none). The result is the caller's to change.
func (s *Saver) Load(fp string) (world.Adventurer, error) {
	s.mu.Lock()
	p, ok := s.pending[fp]
	s.mu.Unlock()
	if ok {
		return p.rec.Clone(), nil
	}
	// A record leaves pending only after its write commits, so if it is not
	// pending here the store already has it (or never had it).
	return s.st.LoadAdventurer(fp)
}

// Flush writes everything pending now, in one batch, and returns when it is
// on disk. On failure the records stay pending.
func (s *Saver) Flush() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.write()
}

// Pending returns how many records are waiting to be written.
func (s *Saver) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Stats returns the write counters.
func (s *Saver) Stats() SaverStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Run writes pending records whenever Put signals, and after a failed write
// retries with a growing delay (from 0.5 s up to 30 s) until a write
// succeeds. When ctx is done it makes a final Flush and returns. Run it in
// one goroutine per Saver.
func (s *Saver) Run(ctx context.Context) {
	var retry <-chan time.Time
	delay := retryMin
	for {
		select {
		case <-ctx.Done():
			if err := s.Flush(); err != nil {
				s.log.Error("saver: stopping with unsaved records", "path", s.st.Path(), "records", s.Pending())
			}
			return
		case <-s.kick:
		case <-retry:
		}
		if err := s.Flush(); err != nil {
			retry = time.After(delay)
			delay = min(2*delay, retryMax)
			continue
		}
		retry, delay = nil, retryMin
	}
}

// write saves a snapshot of the pending records; the caller holds writeMu.
func (s *Saver) write() error {
	s.mu.Lock()
	if len(s.pending) == 0 && len(s.tombs) == 0 && len(s.fame) == 0 && len(s.levels) == 0 && len(s.mail) == 0 && len(s.reports) == 0 {
		s.mu.Unlock()
		return nil
	}
	tombs, fame, levels, mail, reports := s.tombs, s.fame, s.levels, s.mail, s.reports
	s.levels, s.mail = nil, nil // a Put during the write starts a new map; on failure the old one is merged back
	batch := make([]world.Adventurer, 0, len(s.pending))
	seqs := make(map[string]uint64, len(s.pending))
	for fp, p := range s.pending {
		// Pending records are never modified in place, so the batch can
		// share them with the map.
		batch = append(batch, p.rec)
		seqs[fp] = p.seq
	}
	var keys []knights.Key
	written := map[string]*binding{}
	for fp, b := range s.bindings {
		if _, ok := seqs[b.key.Knight]; ok {
			keys = append(keys, b.key)
			written[fp] = b
		}
	}
	s.mu.Unlock()
	slices.SortFunc(keys, func(a, b knights.Key) int { return strings.Compare(a.Fingerprint, b.Fingerprint) })
	// bbolt writes keys in order fastest.
	slices.SortFunc(batch, func(a, b world.Adventurer) int { return strings.Compare(a.ID, b.ID) })

	if s.duringWrite != nil {
		s.duringWrite()
	}
	start := time.Now()
	var ls []world.LevelState
	for _, l := range levels {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b world.LevelState) int { return a.Depth - b.Depth })
	err := s.st.Save(Batch{Adventurers: batch, Tombstones: tombs, Fame: fame, Levels: ls, Keys: keys, Mail: mail, Reports: reports})
	latency := time.Since(start)

	s.mu.Lock()
	s.stats.LastLatency = latency
	if err != nil {
		for d, l := range levels {
			if _, newer := s.levels[d]; !newer {
				if s.levels == nil {
					s.levels = map[int]world.LevelState{}
				}
				s.levels[d] = l
			}
		}
		for to, ls := range mail {
			if _, newer := s.mail[to]; !newer {
				if s.mail == nil {
					s.mail = map[string][]world.Letter{}
				}
				s.mail[to] = ls
			}
		}
		s.stats.Errors++
		s.failures++
		failures := s.failures
		s.mu.Unlock()
		s.log.Error("saver: write failed; records stay pending",
			"path", s.st.Path(), "records", len(batch), "consecutive_failures", failures,
			"latency", latency, "err", err)
		return fmt.Errorf("flush %d adventurers: %w", len(batch), err)
	}
	for fp, b := range written {
		if s.bindings[fp] == b {
			delete(s.bindings, fp) // on disk now: the store answers for it
		}
	}
	s.tombs = s.tombs[len(tombs):] // Puts during the write only appended
	s.fame = s.fame[len(fame):]
	s.reports = s.reports[len(reports):]
	for fp, seq := range seqs {
		if p, ok := s.pending[fp]; ok && p.seq == seq {
			delete(s.pending, fp) // not replaced by a Put during the write
		}
	}
	s.stats.Batches++
	s.stats.Records += uint64(len(batch))
	recovered := s.failures
	s.failures = 0
	s.mu.Unlock()
	if recovered > 0 {
		s.log.Info("saver: writes recovered", "path", s.st.Path(), "failed_attempts", recovered, "records", len(batch))
	}
	return nil
}
