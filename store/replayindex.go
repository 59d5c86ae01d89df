package store

import (
	"bytes"
	"cmp"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// replayIndex finds each knight's chunks. They are keyed in time order (T/<at>/...)
// so that a second's chunks of every knight go together to the end of the bucket and the
// oldest leave from its head: bbolt writes whole pages, and chunks keyed by knight
// dirtied a page (and its branch) a chunk, about 10× their bytes. An index on disk would
// do the same again, so it is kept in memory: each knight's starts (a few bytes a
// chunk), built from the keys at the first use of the bucket. Its lock is held through
// every read and write of the rolling records, so it always agrees with the file: a
// write that fails leaves it to be built again.
type replayIndex struct {
	mu     sync.Mutex
	loaded bool
	live   map[string][]liveChunk // knight → its chunks, oldest first
	last   int64                  // the newest batch's time (unix ms)
	bytes  int64                  // the bucket's keys and values
	// written and deleted are the bytes of keys and values put and deleted since Open
	// (a write undone counted too): the churn the bound makes.
	written, deleted int64
	// room holds the keys and the sealed values a write puts, used again by the next
	// (bbolt keeps them until the transaction ends): a second's chunks were each copied
	// into a value made for it, 1.6 MB a second at 2000 walkers. key is a key to read or
	// delete.
	room, key []byte
}

// maxRoom bounds the room kept between writes: a batch's chunks are at most
// maxPendingReplay (a second's at 2000 walkers about 2 MB, at 4000 about 7 MB), so the
// room of a busy server's batches is made once and kept.
const maxRoom = maxPendingReplay + maxPendingReplay/8

// withReplays calls fn holding the index, built first if need be (a write transaction:
// the rolling records of the first layout, keyed by knight, are dropped then).
func (s *Store) withReplays(fn func(ix *replayIndex) error) error {
	ix := &s.replays
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.loaded {
		if err := s.update(ix.load); err != nil {
			return err
		}
	}
	return fn(ix)
}

// load builds the index from the bucket's keys.
func (ix *replayIndex) load(tx *bolt.Tx) error {
	ix.live, ix.last, ix.bytes = map[string][]liveChunk{}, 0, 0
	b := tx.Bucket(bucketReplays)
	var old [][]byte
	err := b.ForEach(func(k, v []byte) error {
		switch {
		case bytes.HasPrefix(k, []byte("L/")):
			old = append(old, bytes.Clone(k))
			return nil
		case bytes.HasPrefix(k, []byte("T/")):
			if c, knight, ok := parseChunkKey(k); ok {
				ix.add(knight, c)
				ix.last = max(ix.last, c.at)
			}
		}
		ix.bytes += int64(len(k) + len(v))
		return nil
	})
	for _, k := range old {
		if err == nil {
			err = b.Delete(k)
		}
	}
	ix.loaded = err == nil
	return err
}

// find is where the knight's chunk begun at start is, or would go.
func (ix *replayIndex) find(knight string, start int64) (int, bool) {
	return slices.BinarySearchFunc(ix.live[knight], start, func(c liveChunk, s int64) int { return cmp.Compare(c.start, s) })
}

// add files a chunk, in the order of the starts.
func (ix *replayIndex) add(knight string, c liveChunk) {
	if i, found := ix.find(knight, c.start); !found {
		ix.live[knight] = slices.Insert(ix.live[knight], i, c)
	}
}

// remove takes the chunk begun at start out.
func (ix *replayIndex) remove(knight string, start int64) {
	l := ix.live[knight]
	if i, found := ix.find(knight, start); found {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(ix.live, knight)
		return
	}
	ix.live[knight] = l
}

// ReplayChurn is the bytes of the replays' keys and values written and deleted since
// Open (once the bound is reached, what is written is deleted), and the bucket's bytes
// (-1 before its first use).
type ReplayChurn struct{ Written, Deleted, Bytes int64 }

// ReplayChurn reads the replays' churn since Open.
func (s *Store) ReplayChurn() ReplayChurn {
	ix := &s.replays
	ix.mu.Lock()
	defer ix.mu.Unlock()
	n := ix.bytes
	if !ix.loaded {
		n = -1
	}
	return ReplayChurn{Written: ix.written, Deleted: ix.deleted, Bytes: n}
}

// size is the bucket's size as the index knows it, -1 before it is built.
func (ix *replayIndex) size() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.loaded {
		return -1
	}
	return ix.bytes
}
