package store

import (
	"fmt"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// What the database costs on disk, for the operator's metrics: the file's size, bbolt's
// free pages and free list, and how long write transactions take. bbolt never shrinks
// its file; pages freed by deletes are reused by later writes, so a file churned by the
// replays' deletes should level off once their bound is reached, and these say whether
// it does.

// DiskStats is the database file's state on disk.
type DiskStats struct {
	// FileBytes is the file's size (stat).
	FileBytes int64
	// PageSize is bbolt's page size.
	PageSize int
	// FreePages are pages free for reuse; PendingPages were freed by a write still
	// visible to an open read transaction, and are free once it ends.
	FreePages, PendingPages int
	// FreeBytes is the bytes of the free pages, FreelistBytes the free list's own (what a
	// commit writes of it, when the free list is written).
	FreeBytes, FreelistBytes int
	// PagesWritten and PageBytesWritten count the pages write transactions allocated (and
	// so wrote) since Open, the free list's included.
	PagesWritten, PageBytesWritten int64
	// Commits are the write transactions' durations since Open.
	Commits CommitStats
}

// DiskStats reads the file's size and bbolt's counters.
func (s *Store) DiskStats() (DiskStats, error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return DiskStats{}, fmt.Errorf("disk stats of %s: %w", s.path, err)
	}
	bs := s.db.Stats()
	return DiskStats{
		FileBytes: fi.Size(), PageSize: s.db.Info().PageSize,
		FreePages: bs.FreePageN, PendingPages: bs.PendingPageN,
		FreeBytes: bs.FreeAlloc, FreelistBytes: bs.FreelistInuse,
		PagesWritten: bs.TxStats.GetPageCount(), PageBytesWritten: bs.TxStats.GetPageAlloc(),
		Commits: s.commits.stats(),
	}, nil
}

// CommitBuckets are the upper bounds of CommitStats' buckets: 100 µs to about 1.6 s,
// doubling (a commit's fsync alone is 1–10 ms on most disks).
var CommitBuckets = func() []time.Duration {
	b := make([]time.Duration, 15)
	for i := range b {
		b[i] = 100 * time.Microsecond << i
	}
	return b
}()

// CommitStats is a histogram of write transactions' durations: from holding bbolt's
// writer lock to the commit on disk, fsync included (what a write makes every other
// write wait).
type CommitStats struct {
	// Counts[i] are the commits that took at most CommitBuckets[i] and more than the
	// bucket before; a commit longer than the last is counted only in Count.
	Counts []uint64
	Count  uint64
	Sum    time.Duration
}

// commitTimes is CommitStats as it is kept.
type commitTimes struct {
	mu     sync.Mutex
	counts [15]uint64
	count  uint64
	sum    time.Duration
}

func (c *commitTimes) observe(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, b := range CommitBuckets {
		if d <= b {
			c.counts[i]++
			break
		}
	}
	c.count++
	c.sum += d
}

func (c *commitTimes) stats() CommitStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CommitStats{Counts: append([]uint64(nil), c.counts[:]...), Count: c.count, Sum: c.sum}
}

// update is bbolt's Update, timed from the transaction's start (the writer's lock held)
// to its commit; a transaction that fails is not counted.
func (s *Store) update(fn func(tx *bolt.Tx) error) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		start := time.Now()
		if err := fn(tx); err != nil {
			return err
		}
		tx.OnCommit(func() { s.commits.observe(time.Since(start)) })
		return nil
	})
}
