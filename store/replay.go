package store

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Replays: each knight's rolling record, chunk by chunk, and the records kept
// with a death, a retirement or a report. A chunk's bytes are the replay package's; the
// store keeps them as given, and keeps the whole bucket under a bound, oldest first out.
//
//	replays
//	├── K/<at>/<knight>/<kind>[/<n>]   a kept record: its header (JSON {"v":1,"replay":{...}}) and its chunks
//	└── T/<at>/<knight>[~<born>]/<start>  a chunk of the knight's rolling record, written at at (unix ms, 16 hex digits),
//	                                      of its life born at born (none for a knight named before lives were told apart)
//
// Both are in time order, so writes append to the bucket's end and the oldest leave from
// its head (replayindex.go finds a knight's chunks). The first layout's rolling records,
// L/<knight>/<start>, are dropped at the bucket's first use. A kept record's value is the header's length (a uvarint), the header, then each chunk as
// its start (unix ms) and length (uvarints) and its bytes.

// bucketReplays holds the replays.
var bucketReplays = []byte("replays")

// kindReport is the Kind of a report's record (replay.KindReport).
const kindReport = "report"

// ReplayChunk is a few seconds of a knight's record, as the replay package wrote it.
// Written is when its batch was written (zero in a kept record): the bound lets rolling
// chunks go in that order, oldest written first.
type ReplayChunk struct {
	Start   time.Time
	Written time.Time
	Born    time.Time // the life it is of (world.Self.Born); zero in a kept record
	Data    []byte
}

// Replay is a kept record: whose, why and when it was kept, and its chunks (empty in a
// listing).
type Replay struct {
	Knight string `json:"knight"`
	// Born is the life it is of (world.Self.Born, the knight's Created): a key's later
	// knights share Knight. Zero for a report's asked (the knight's newest life is kept),
	// for a record kept before lives were told apart, and for a death's or a retirement's
	// of a knight named before then (its Created is zero).
	Born    time.Time     `json:"born,omitzero"`
	Name    string        `json:"name"`
	Kind    string        `json:"kind"` // "death", "retired" or "report"
	At      time.Time     `json:"at"`
	Private bool          `json:"private,omitempty"`
	Report  int           `json:"report,omitempty"`
	Window  time.Duration `json:"window"`
	Chunks  []ReplayChunk `json:"-"`
}

// ID names a kept record to players and admins (the web page's address of its cast,
// `replay remove ID`): a hash, so the knight's id is not shown.
func (r Replay) ID() string {
	sum := sha256.Sum256([]byte(r.Knight + "/" + r.Kind + "/" + strconv.FormatInt(r.At.UnixMilli(), 10)))
	return hex.EncodeToString(sum[:8])
}

type replayValue struct {
	V      int    `json:"v"`
	Replay Replay `json:"replay"`
}

// replayKeep asks for the end of a knight's rolling record to be kept as r.
type replayKeep struct{ r Replay }

// stamp is a time as a key's 16 hex digits of unix milliseconds, which sort as the times do.
func stamp(t time.Time) string { return fmt.Sprintf("%016x", t.UnixMilli()) }

// bornTime is a chunk key's birth as a time, zero for none told.
func bornTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func unstamp(s string) (time.Time, bool) {
	ms, err := strconv.ParseUint(s, 16, 64)
	return time.UnixMilli(int64(ms)).UTC(), err == nil && len(s) == 16
}

// liveChunk is where a chunk of a knight's rolling record is: when its batch was
// written, when it began and when the life it is of was born (unix ms; 0: not told).
type liveChunk struct{ at, start, born int64 }

// key is the chunk's key: T/<at>/<knight>[~<born>]/<start>. It is ordered by the batch's time, not
// the chunk's start, as chunks come in the order they end, not begin: a second's batch
// is appended at the end of the bucket, where keys by their starts (up to a chunk's
// 10 s before) would go in among the last thousand.
func (c liveChunk) key(knight string) []byte {
	return c.appendKey(make([]byte, 0, maxChunkKeyLen+len(knight)), knight)
}

// maxChunkKeyLen is the most a chunk's key adds to its knight's id: its prefix, three
// times in hex and their separators.
const maxChunkKeyLen = len("T/") + 16 + len("/") + len("~") + 16 + len("/") + 16

// appendKey appends the chunk's key to dst.
func (c liveChunk) appendKey(dst []byte, knight string) []byte {
	dst = append(appendHex16(append(dst, "T/"...), c.at), '/')
	dst = append(dst, knight...)
	if c.born != 0 {
		dst = appendHex16(append(dst, '~'), c.born)
	}
	return appendHex16(append(dst, '/'), c.start)
}

// appendHex16 appends n as fmt's %016x writes it, without fmt's boxing of n (three
// values made a chunk's key, and a chunk's key is made at its put and its delete).
func appendHex16(dst []byte, n int64) []byte {
	if n < 0 {
		return fmt.Appendf(dst, "%016x", n)
	}
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i], n = digits[n&15], n>>4
	}
	return append(dst, b[:]...)
}

// parseChunkKey reads a chunk's key.
func parseChunkKey(k []byte) (c liveChunk, knight string, ok bool) {
	n := len(k)
	if n < 37 || string(k[:2]) != "T/" || k[18] != '/' || k[n-17] != '/' {
		return liveChunk{}, "", false
	}
	at, ok1 := unstamp(string(k[2:18]))
	start, ok2 := unstamp(string(k[n-16:]))
	knight = string(k[19 : n-17])
	var born time.Time
	if i := strings.LastIndexByte(knight, '~'); i >= 0 {
		var ok3 bool
		if born, ok3 = unstamp(knight[i+1:]); !ok3 {
			return liveChunk{}, "", false
		}
		knight = knight[:i]
	}
	return liveChunk{at.UnixMilli(), start.UnixMilli(), bornMilli(born)}, knight, ok1 && ok2
}

// bornMilli is a life's birth as a chunk's key keeps it: unix ms, 0 for none told.
func bornMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
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
	case strings.HasPrefix(s, "L/"): // the first layout's, dropped at the first use
		return unstamp(s[strings.LastIndexByte(s, '/')+1:])
	case (strings.HasPrefix(s, "K/") || strings.HasPrefix(s, "T/")) && len(s) > 18:
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
	err := s.withReplays(func(ix *replayIndex) error {
		return s.db.View(func(tx *bolt.Tx) error {
			t := open(tx, bucketReplays)
			for _, c := range ix.live[knight] {
				v, err := t.get(c.key(knight))
				if err != nil {
					return err
				}
				out = append(out, ReplayChunk{Start: time.UnixMilli(c.start).UTC(), Written: time.UnixMilli(c.at).UTC(),
					Born: bornTime(c.born), Data: bytes.Clone(v)})
			}
			return nil
		})
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

// RemoveKept deletes a kept record, as KeptReplays listed it; ErrNotFound when it has
// gone already.
func (s *Store) RemoveKept(r Replay) error {
	k := keptKey(&r)
	err := s.withReplays(func(ix *replayIndex) error {
		return s.update(func(tx *bolt.Tx) error {
			t := open(tx, bucketReplays)
			if t.b.Get(k) == nil {
				return ErrNotFound
			}
			return ix.deleteKeys(t, [][]byte{k})
		})
	})
	if err != nil {
		return fmt.Errorf("remove replay %s from %s: %w", k, s.path, err)
	}
	return nil
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

// replayBounds are what a batch's write holds the replays to: each knight's rolling
// record to its last rolling window, the bucket to limit bytes (0: no limit), and, when
// set, nothing older than their ages: chunks written before rollingBefore and records
// kept before keptBefore go.
type replayBounds struct {
	rolling                   time.Duration
	limit                     int64
	rollingBefore, keptBefore time.Time
}

// writeReplays writes a batch in one transaction: the chunks, each knight's record cut to
// its last rolling window, the keeps (each taking the chunks its window covers), what is
// past its age, and then the oldest of everything out until the bucket is within its
// bound.
func (s *Store) writeReplays(chunks []pendingChunk, keeps []replayKeep, b replayBounds) error {
	return s.withReplays(func(ix *replayIndex) error {
		// The room is made once for the batch's chunks (a kept record's bytes, rare,
		// grow it): grown by append, a second's chunks at 4000 walkers (7 MB) made
		// arrays of twice that a second for the collector, a fifth of what the server
		// allocated.
		need := 0
		for _, c := range chunks {
			need += maxChunkKeyLen + len(c.knight) + sumLen + len(c.c.Data)
		}
		if cap(ix.room) < need {
			ix.room = make([]byte, 0, need+need/8)
		}
		err := s.update(func(tx *bolt.Tx) error {
			t := open(tx, bucketReplays)
			t.b.FillPercent = 1 // appended at the end, deleted from the head: pages full
			return ix.write(t, chunks, keeps, b)
		})
		// The transaction is over: bbolt holds none of the room's bytes now.
		ix.room = ix.room[:0]
		if cap(ix.room) > maxRoom {
			ix.room = nil // a burst's: the next batch grows its own
		}
		if err != nil {
			ix.loaded = false // the index has what was undone: built again at the next use
		}
		return err
	})
}

// write is writeReplays in its transaction. The batch's chunks are keyed at its newest
// start, or the last batch's time if later, so each batch comes after the one before.
func (ix *replayIndex) write(t table, chunks []pendingChunk, keeps []replayKeep, b replayBounds) error {
	for _, c := range chunks {
		ix.last = max(ix.last, c.c.Start.UnixMilli())
	}
	for _, c := range chunks {
		if err := ix.put(t, c.knight, liveChunk{ix.last, c.c.Start.UnixMilli(), bornMilli(c.c.Born)}, c.c.Data); err != nil {
			return err
		}
		if err := ix.cutBefore(t, c.knight, c.c.Start.Add(-b.rolling).UnixMilli()); err != nil {
			return err
		}
	}
	for _, kp := range keeps {
		if err := ix.keep(t, kp.r); err != nil {
			return err
		}
	}
	for _, x := range []struct {
		prefix string
		before time.Time
	}{{"T/", b.rollingBefore}, {"K/", b.keptBefore}} {
		if err := ix.expire(t, x.prefix, x.before); err != nil {
			return err
		}
	}
	if b.limit > 0 && ix.bytes > b.limit {
		return ix.prune(t, ix.bytes-b.limit*9/10)
	}
	return nil
}

// expire deletes the values under prefix (T/ chunks, K/ kept records) whose time is
// before before, oldest first; nothing when before is zero. Both are in time order.
func (ix *replayIndex) expire(t table, prefix string, before time.Time) error {
	if before.IsZero() {
		return nil
	}
	var gone [][]byte
	c := t.b.Cursor()
	for k, _ := c.Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)); k, _ = c.Next() {
		if at, ok := keyTime(k); !ok || !at.Before(before) {
			break
		}
		gone = append(gone, bytes.Clone(k))
	}
	return ix.deleteKeys(t, gone)
}

// deleteKeys deletes values of the bucket, chunks from the index too.
func (ix *replayIndex) deleteKeys(t table, gone [][]byte) error {
	for _, k := range gone {
		if c, knight, ok := parseChunkKey(k); ok {
			ix.remove(knight, c.start)
		}
		if v := t.b.Get(k); v != nil {
			ix.bytes -= int64(len(k) + len(v))
			ix.deleted += int64(len(k) + len(v))
		}
		if err := t.delete(k); err != nil {
			return err
		}
	}
	return nil
}

// put writes a chunk; one of the knight's that began at the same time goes.
func (ix *replayIndex) put(t table, knight string, c liveChunk, data []byte) error {
	if i, found := ix.find(knight, c.start); found {
		if err := ix.del(t, knight, ix.live[knight][i]); err != nil {
			return err
		}
	}
	at := len(ix.room)
	ix.room = c.appendKey(ix.room, knight)
	k := ix.room[at:len(ix.room):len(ix.room)]
	ix.bytes += int64(len(k) + len(data) + sumLen)
	ix.written += int64(len(k) + len(data) + sumLen)
	ix.add(knight, c)
	return t.putIn(&ix.room, k, data)
}

// del deletes a chunk.
func (ix *replayIndex) del(t table, knight string, c liveChunk) error {
	k := c.appendKey(ix.key[:0], knight) // bbolt keeps no key it deletes
	ix.key = k
	if v := t.b.Get(k); v != nil {
		ix.bytes -= int64(len(k) + len(v))
		ix.deleted += int64(len(k) + len(v))
	}
	ix.remove(knight, c.start)
	return t.delete(k)
}

// cutBefore deletes the knight's chunks that began before ms.
func (ix *replayIndex) cutBefore(t table, knight string, ms int64) error {
	for l := ix.live[knight]; len(l) > 0 && l[0].start < ms; l = ix.live[knight] {
		if err := ix.del(t, knight, l[0]); err != nil {
			return err
		}
	}
	return nil
}

// keep makes a kept record of the chunks of r's knight that its window covers (the
// chunk it begins in too), of r's life only: a key's later knights share an id, and
// what is kept of one holds nothing of the knight before it. A report's record, asked
// with no life, is of the knight's newest life; a death or a retirement with no life is
// of a knight named before lives were told apart, whose chunks tell none, though its
// key's next knight may have written one since.
func (ix *replayIndex) keep(t table, r Replay) error {
	l := ix.live[r.Knight]
	born := bornMilli(r.Born)
	if born == 0 && r.Kind == kindReport && len(l) > 0 {
		born = l[len(l)-1].born
		r.Born = bornTime(born)
	}
	i, _ := ix.find(r.Knight, r.At.Add(-r.Window).UnixMilli()+1)
	for _, c := range l[max(i-1, 0):] { // the one before began before the window, inside it
		if c.born != born {
			continue
		}
		v, err := t.get(c.key(r.Knight))
		if err != nil {
			return err
		}
		r.Chunks = append(r.Chunks, ReplayChunk{Start: time.UnixMilli(c.start).UTC(), Data: bytes.Clone(v)})
	}
	if len(r.Chunks) == 0 {
		return nil
	}
	v, err := encodeKept(r)
	if err != nil {
		return err
	}
	k := keptKey(&r)
	if old := t.b.Get(k); old != nil {
		ix.bytes -= int64(len(k) + len(old))
		ix.deleted += int64(len(k) + len(old))
	}
	ix.bytes += int64(len(k) + len(v) + sumLen)
	ix.written += int64(len(k) + len(v) + sumLen)
	return t.putIn(&ix.room, k, v)
}

// prune deletes the oldest values, chunks and kept records alike, until at least need
// bytes are gone. Both kinds are in time order: it walks the two from their heads.
func (ix *replayIndex) prune(t table, need int64) error {
	var gone [][]byte
	kc, tc := t.b.Cursor(), t.b.Cursor()
	kk, kv := kc.Seek([]byte("K/"))
	tk, tv := tc.Seek([]byte("T/"))
	for n := int64(0); n < need; {
		kt, kok := keyTime(kk)
		tt, tok := keyTime(tk)
		kok = kok && bytes.HasPrefix(kk, []byte("K/"))
		tok = tok && bytes.HasPrefix(tk, []byte("T/"))
		switch {
		case kok && (!tok || kt.Before(tt)):
			gone, n = append(gone, bytes.Clone(kk)), n+int64(len(kk)+len(kv))
			kk, kv = kc.Next()
		case tok:
			gone, n = append(gone, bytes.Clone(tk)), n+int64(len(tk)+len(tv))
			tk, tv = tc.Next()
		default:
			n = need // nothing left
		}
	}
	return ix.deleteKeys(t, gone)
}
