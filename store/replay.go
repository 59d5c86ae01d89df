package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Replays (issue 33): each knight's rolling record, chunk by chunk, and the records kept
// with a death, a retirement or a report. A chunk's bytes are the replay package's; the
// store keeps them as given, and keeps the whole bucket under a bound, oldest first out.
//
//	replays
//	├── L/<knight>/<start>             a chunk of the knight's rolling record (start: unix ms, 16 hex digits)
//	└── K/<at>/<knight>/<kind>[/<n>]   a kept record: its header (JSON {"v":1,"replay":{...}}) and its chunks
//
// A kept record's value is the header's length (a uvarint), the header, then each chunk as
// its start (unix ms) and length (uvarints) and its bytes.

// bucketReplays holds the replays.
var bucketReplays = []byte("replays")

// ReplayChunk is a few seconds of a knight's record, as the replay package wrote it.
type ReplayChunk struct {
	Start time.Time
	Data  []byte
}

// Replay is a kept record: whose, why and when it was kept, and its chunks (empty in a
// listing).
type Replay struct {
	Knight  string        `json:"knight"`
	Name    string        `json:"name"`
	Kind    string        `json:"kind"` // "death", "retired" or "report"
	At      time.Time     `json:"at"`
	Private bool          `json:"private,omitempty"`
	Report  int           `json:"report,omitempty"`
	Window  time.Duration `json:"window"`
	Chunks  []ReplayChunk `json:"-"`
}

type replayValue struct {
	V      int    `json:"v"`
	Replay Replay `json:"replay"`
}

// replayKeep asks for the end of a knight's rolling record to be kept as r.
type replayKeep struct{ r Replay }

// stamp is a time as a key's 16 hex digits of unix milliseconds, which sort as the times do.
func stamp(t time.Time) string { return fmt.Sprintf("%016x", t.UnixMilli()) }

func unstamp(s string) (time.Time, bool) {
	ms, err := strconv.ParseUint(s, 16, 64)
	return time.UnixMilli(int64(ms)).UTC(), err == nil && len(s) == 16
}

func liveKey(knight string, start time.Time) []byte {
	return []byte("L/" + knight + "/" + stamp(start))
}

// keptKey orders kept records by when they were kept.
func keptKey(r *Replay) []byte {
	k := "K/" + stamp(r.At) + "/" + r.Knight + "/" + r.Kind
	if r.Report > 0 {
		k += "/" + strconv.Itoa(r.Report)
	}
	return []byte(k)
}

// keyTime is when the value under a key of the bucket began (a chunk) or was kept.
func keyTime(k []byte) (time.Time, bool) {
	s := string(k)
	switch {
	case strings.HasPrefix(s, "L/"):
		return unstamp(s[strings.LastIndexByte(s, '/')+1:])
	case strings.HasPrefix(s, "K/") && len(s) > 18:
		return unstamp(s[2:18])
	}
	return time.Time{}, false
}

// encodeKept is a kept record's value.
func encodeKept(r Replay) ([]byte, error) {
	hdr, err := json.Marshal(replayValue{V: ValueVersion, Replay: r})
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(nil, uint64(len(hdr)))
	out = append(out, hdr...)
	for _, c := range r.Chunks {
		out = binary.AppendUvarint(out, uint64(c.Start.UnixMilli()))
		out = binary.AppendUvarint(out, uint64(len(c.Data)))
		out = append(out, c.Data...)
	}
	return out, nil
}

// decodeKept reads a kept record's header, and its chunks too when chunks is set (they
// share v's bytes: copy them out of a transaction).
func decodeKept(k, v []byte, chunks bool) (Replay, error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)-w) {
		return Replay{}, fmt.Errorf("replay %s: no header", k)
	}
	var rv replayValue
	if err := json.Unmarshal(v[w:w+int(n)], &rv); err != nil {
		return Replay{}, fmt.Errorf("replay %s: %w", k, err)
	}
	if rv.V != ValueVersion {
		return Replay{}, fmt.Errorf("replay %s: value version %d, want %d: %w", k, rv.V, ValueVersion, ErrUnknownVersion)
	}
	if !bytes.Equal(keptKey(&rv.Replay), k) {
		return Replay{}, fmt.Errorf("replay %s: the header says %s", k, keptKey(&rv.Replay))
	}
	for rest := v[w+int(n):]; chunks && len(rest) > 0; {
		ms, a := binary.Uvarint(rest)
		l, b := binary.Uvarint(rest[max(a, 0):])
		if a <= 0 || b <= 0 || l > uint64(len(rest)-a-b) {
			return Replay{}, fmt.Errorf("replay %s: a chunk is cut short", k)
		}
		rest = rest[a+b:]
		rv.Replay.Chunks = append(rv.Replay.Chunks, ReplayChunk{Start: time.UnixMilli(int64(ms)).UTC(), Data: rest[:l]})
		rest = rest[l:]
	}
	return rv.Replay, nil
}

// decodeReplayValue checks a value of the bucket, for decodeValue.
func decodeReplayValue(k, v []byte) error {
	if _, ok := keyTime(k); !ok {
		return fmt.Errorf("replay key %q: no time in it", k)
	}
	if bytes.HasPrefix(k, []byte("K/")) {
		_, err := decodeKept(k, v, true)
		return err
	}
	return nil
}

// LiveReplay returns the knight's rolling record, oldest chunk first.
func (s *Store) LiveReplay(knight string) ([]ReplayChunk, error) {
	var out []ReplayChunk
	prefix := []byte("L/" + knight + "/")
	err := s.db.View(func(tx *bolt.Tx) error {
		t := open(tx, bucketReplays)
		c := t.b.Cursor()
		for k, sealed := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, sealed = c.Next() {
			v, err := t.value(k, sealed)
			if err != nil {
				return err
			}
			start, _ := keyTime(k)
			out = append(out, ReplayChunk{Start: start, Data: bytes.Clone(v)})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read a replay from %s: %w", s.path, err)
	}
	return out, nil
}

// KeptReplays lists the kept records that keep says to, oldest first, without their
// chunks.
func (s *Store) KeptReplays(keep func(Replay) bool) ([]Replay, error) {
	var out []Replay
	err := s.db.View(func(tx *bolt.Tx) error {
		t := open(tx, bucketReplays)
		c := t.b.Cursor()
		for k, sealed := c.Seek([]byte("K/")); k != nil && bytes.HasPrefix(k, []byte("K/")); k, sealed = c.Next() {
			v, err := t.value(k, sealed)
			if err != nil {
				return err
			}
			r, err := decodeKept(k, v, false)
			if err != nil {
				return err
			}
			if keep(r) {
				out = append(out, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list replays in %s: %w", s.path, err)
	}
	return out, nil
}

// KeptReplay reads a kept record whole, as KeptReplays listed it; ErrNotFound when it
// has gone (oldest first out).
func (s *Store) KeptReplay(r Replay) (Replay, error) {
	k := keptKey(&r)
	var out Replay
	err := s.db.View(func(tx *bolt.Tx) error {
		v, err := open(tx, bucketReplays).get(k)
		if err != nil || v == nil {
			return cmp.Or(err, ErrNotFound)
		}
		if out, err = decodeKept(k, v, true); err != nil {
			return err
		}
		for i := range out.Chunks {
			out.Chunks[i].Data = bytes.Clone(out.Chunks[i].Data)
		}
		return nil
	})
	if err != nil {
		return Replay{}, fmt.Errorf("read replay %s from %s: %w", k, s.path, err)
	}
	return out, nil
}

// ReplayBytes is how many bytes the replays' keys and values take.
func (s *Store) ReplayBytes() (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketReplays).ForEach(func(k, v []byte) error {
			n += int64(len(k) + len(v))
			return nil
		})
	})
	return n, err
}

// writeReplays writes a batch in one transaction: the chunks, each knight's record cut to
// its last rolling window, the keeps (each taking the chunks its window covers), and
// then the oldest of everything out until the bucket is within limit bytes (0: no
// limit). total is the bucket's size before, and the size after is returned.
func writeReplays(tx *bolt.Tx, chunks []pendingChunk, keeps []replayKeep, rolling time.Duration, limit, total int64) (int64, error) {
	t := open(tx, bucketReplays)
	for _, c := range chunks {
		k := liveKey(c.knight, c.c.Start)
		total += int64(len(k) + len(c.c.Data) + sumLen)
		if err := t.put(k, c.c.Data); err != nil {
			return total, err
		}
		n, err := cutBefore(t, c.knight, c.c.Start.Add(-rolling))
		if err != nil {
			return total, err
		}
		total -= n
	}
	for _, kp := range keeps {
		n, err := keep(t, kp.r)
		if err != nil {
			return total, err
		}
		total += n
	}
	if limit > 0 && total > limit {
		n, err := prune(t, total-limit*9/10)
		total -= n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// cutBefore deletes the knight's chunks that began before t, and returns their bytes.
func cutBefore(t table, knight string, before time.Time) (int64, error) {
	prefix, end := []byte("L/"+knight+"/"), liveKey(knight, before)
	var gone [][]byte
	var n int64
	c := t.b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, end) < 0; k, v = c.Next() {
		gone = append(gone, bytes.Clone(k))
		n += int64(len(k) + len(v))
	}
	for _, k := range gone {
		if err := t.delete(k); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// keep makes a kept record of the chunks of r's knight that its window covers (the
// chunk it begins in too), and returns its bytes.
func keep(t table, r Replay) (int64, error) {
	prefix, from := []byte("L/"+r.Knight+"/"), r.At.Add(-r.Window)
	c := t.b.Cursor()
	for k, sealed := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, sealed = c.Next() {
		v, err := t.value(k, sealed)
		if err != nil {
			return 0, err
		}
		start, _ := keyTime(k)
		if !start.After(from) {
			r.Chunks = r.Chunks[:0] // the one before began before this one, inside the window
		}
		r.Chunks = append(r.Chunks, ReplayChunk{Start: start, Data: bytes.Clone(v)})
	}
	if len(r.Chunks) == 0 {
		return 0, nil
	}
	v, err := encodeKept(r)
	if err != nil {
		return 0, err
	}
	k := keptKey(&r)
	return int64(len(k) + len(v) + sumLen), t.put(k, v)
}

// prune deletes the oldest values, chunks and kept records alike, until at least need
// bytes are gone, and returns how many went.
func prune(t table, need int64) (int64, error) {
	type aged struct {
		at   time.Time
		k    []byte
		size int64
	}
	var all []aged
	err := t.b.ForEach(func(k, v []byte) error {
		at, _ := keyTime(k)
		all = append(all, aged{at, bytes.Clone(k), int64(len(k) + len(v))})
		return nil
	})
	if err != nil {
		return 0, err
	}
	slices.SortFunc(all, func(a, b aged) int { return a.at.Compare(b.at) })
	var n int64
	for _, a := range all {
		if n >= need {
			break
		}
		if err := t.delete(a.k); err != nil {
			return n, err
		}
		n += a.size
	}
	return n, nil
}
