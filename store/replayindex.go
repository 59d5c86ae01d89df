package store

import (
	"bytes"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// replayIndex finds each knight's chunks. They are keyed in time order (T/<start>/<knight>)
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
	live   map[string][]int64 // knight → its chunks' starts (unix ms), oldest first
	bytes  int64              // the bucket's keys and values
}

// withReplays calls fn holding the index, built first if need be (a write transaction:
// the rolling records of the first layout, keyed by knight, are dropped then).
func (s *Store) withReplays(fn func(ix *replayIndex) error) error {
	ix := &s.replays
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.loaded {
		if err := s.db.Update(ix.load); err != nil {
			return err
		}
	}
	return fn(ix)
}

// load builds the index from the bucket's keys.
func (ix *replayIndex) load(tx *bolt.Tx) error {
	ix.live, ix.bytes = map[string][]int64{}, 0
	b := tx.Bucket(bucketReplays)
	var old [][]byte
	err := b.ForEach(func(k, v []byte) error {
		switch {
		case bytes.HasPrefix(k, []byte("L/")):
			old = append(old, bytes.Clone(k))
			return nil
		case bytes.HasPrefix(k, []byte("T/")):
			if ms, knight, ok := parseChunkKey(k); ok {
				ix.live[knight] = append(ix.live[knight], ms)
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

// add files a chunk's start, in order.
func (ix *replayIndex) add(knight string, ms int64) {
	l := ix.live[knight]
	i, found := slices.BinarySearch(l, ms)
	if !found {
		ix.live[knight] = slices.Insert(l, i, ms)
	}
}

// remove takes a chunk's start out.
func (ix *replayIndex) remove(knight string, ms int64) {
	l := ix.live[knight]
	if i, found := slices.BinarySearch(l, ms); found {
		l = slices.Delete(l, i, i+1)
	}
	if len(l) == 0 {
		delete(ix.live, knight)
		return
	}
	ix.live[knight] = l
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
