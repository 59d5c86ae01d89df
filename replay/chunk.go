package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A chunk is a few seconds of one knight's views, read alone: a byte of version, the
// turn of its first view and the tick's length in nanoseconds (uvarints), then its
// frames compressed, the first frame carrying the whole view and each after it what
// changed. Version 3 compresses the frames as pieces, each its length (a uvarint) and an
// S2 block (github.com/klauspost/compress/s2), the pieces' bytes one after the other
// being the frames'; version 2 as one flate stream (chunkv2.go), read still. A frame
// (fields.go) is its turn after the chunk's first and its Set (uvarints), the parts Set
// names in the order of fields, then the count of lines ever said, the count of its
// lines and each line (a string and its kind's byte). The store keeps a chunk as bytes,
// under the wall time it began.

// chunkVersion is the first byte of every chunk this program writes; it reads versions
// 1's and 2's too (chunkv1.go, chunkv2.go).
const chunkVersion = 3

// maxFrames bounds the frames' bytes read from one chunk: a writer cuts a chunk at
// maxChunkRaw, past which only its last frame goes.
const maxFrames = 4 << 20

// Chunk is a chunk's bytes and when it began. Born is the life of the knight it holds
// (world.Self.Born): a chunk is one life's, so what is kept of a life holds no other.
type Chunk struct {
	Start time.Time
	Born  time.Time
	Data  []byte
}

// ErrBadChunk means a chunk's bytes are not one this program can read.
var ErrBadChunk = errors.New("not a replay chunk this program can read")

// writer is a chunk in the making, owned by the recorder's goroutine: its frames are
// encoded as the views come, and compressed when it is done. Besides the frames, it
// keeps what the next frame is written against: the parts of the last frame's view
// compared as they are (lastView: it shares them with the world), the knights in sight
// then and the bytes of the parts compared as bytes. A level's bytes (about 5 KB, most of a walking knight's chunk) are not
// copied into the frames: they are shared by every chunk of the level's snapshot
// (levelOf), so the frames keep where they go and finish puts them there, compressed
// once a snapshot: a chunk's pieces are its frames between the levels, each
// compressed alone, and the levels' pieces.
type writer struct {
	buf                 blocks
	levels              []splice
	sc                  *scratch
	prev                lastView
	others              []seenKnight
	self, fight, market []byte
	first               uint64 // the turn of its first view
	start               time.Time
	born                time.Time // the life of the knight whose views it holds
	frames              int
}

// lastView is what a writer keeps of the last frame's view: the parts the next frame is
// compared with as they are. A whole view is 824 bytes a knight, and it kept alive what
// the writer never reads again: the log's lines and the level's crowd of that turn (the
// lines are counted by Said, the knights in sight kept as writer.others, the status as
// writer.self's bytes).
type lastView struct {
	Turn, Said, FightSeq uint64
	Level                *world.Level
	Visible, Known       []byte
	FoundDoors           []int
	Traps                []world.Pos
	Monsters             []world.SeenMonster
	Shadows              []world.Shadow
	Fight                *world.FightView
	LastFight, Watchers  []string
	Dead                 *world.Death
	Retired              *world.Retirement
	Party                []world.PartyMember
	Invites, Asks        []string
	surface              *world.Surface
	market               *world.MarketView
}

func lastOf(v *world.View) lastView {
	return lastView{Turn: v.Turn, Said: v.Said, FightSeq: v.FightSeq, Level: v.Level, Visible: v.Visible, Known: v.Known,
		FoundDoors: v.FoundDoors, Traps: v.Traps, Monsters: v.Monsters, Shadows: v.Shadows, Fight: v.Fight,
		LastFight: v.LastFight, Watchers: v.Watchers, Dead: v.Dead, Retired: v.Retired, Party: v.Party,
		Invites: v.Invites, Asks: v.Asks, surface: surfaceMap(v), market: marketOf(v)}
}

// scratch is what a recorder's writers use between views, one at a time.
type scratch struct {
	e, frame enc
	others   []world.Other
	seen     []seenKnight
	level    splice // the level's bytes in the frame being written, at their place in e
	free     freeBlocks
	raw, z   []byte // a piece's bytes, and them compressed
	out      []byte // a chunk's bytes, before the copy handed over (chunk.go, finish)
	json     jsonScratch
	// spare is a writer whose chunk is done, emptied for the next chunk begun: a crowd's
	// chunks fill in seconds, and a writer made anew each time grew its lists anew.
	spare *writer
}

// writer is a writer for a chunk begun at start, of the life born: the spare one, or
// one made.
func (sc *scratch) writer(start, born time.Time) *writer {
	w := sc.spare
	if w == nil {
		w = &writer{sc: sc}
	}
	sc.spare = nil
	w.start, w.born = start, born
	return w
}

// reset empties a writer whose chunk is done, keeping the room of its lists, and makes
// it its scratch's spare.
func (w *writer) reset() {
	w.sc.free.put(&w.buf)
	clear(w.levels)
	clear(w.others[:cap(w.others)]) // the names left in its room are the world's to free
	w.levels, w.others = w.levels[:0], w.others[:0]
	w.self, w.fight, w.market = w.self[:0], w.fight[:0], w.market[:0]
	w.prev, w.first, w.frames = lastView{}, 0, 0
	w.sc.spare = w
}

// splice is a level and where its bytes go in a chunk's frames.
type splice struct {
	at int
	m  *levelMemo
}

// putLevel writes a level's length, and leaves its bytes to be written at the chunk's
// finish.
func (w *writer) putLevel(e *enc, m *levelMemo) {
	if m == nil || len(m.b) == 0 {
		e.uint(0)
		return
	}
	e.uint(uint64(len(m.b)))
	w.sc.level = splice{len(e.b), m}
}

// add encodes v as what changed since the view before it. A view that changes nothing a
// replay shows (a turn passing) is left out.
func (w *writer) add(v *world.View) {
	if w.sc == nil {
		w.sc = &scratch{}
	}
	if w.frames == 0 {
		w.first = v.Turn
	}
	parts := &w.sc.e
	parts.b, w.sc.level = parts.b[:0], splice{}
	var set uint64
	for i, fd := range fields {
		if fd.put(w, v, parts) {
			set |= 1 << uint(i)
		}
	}
	n := keyLines
	if w.frames > 0 {
		n = int(min(v.Said-w.prev.Said, uint64(keyLines*8)))
	}
	if n = min(n, v.Log.Len()); set == 0 && n == 0 {
		return
	}
	e := &w.sc.frame
	e.b = e.b[:0]
	e.uint(v.Turn - w.first)
	e.uint(set)
	if w.sc.level.m != nil {
		w.levels = append(w.levels, splice{w.buf.size + len(e.b) + w.sc.level.at, w.sc.level.m})
	}
	e.b = append(e.b, parts.b...)
	putLines(e, v, n)
	w.buf.write(e.b, &w.sc.free)
	w.prev = lastOf(v)
	w.frames++
}

// putLines writes the count of lines ever said and the last n lines of the log.
func putLines(e *enc, v *world.View, n int) {
	e.uint(v.Said)
	e.uint(uint64(n))
	for i := v.Log.Len() - n; i < v.Log.Len(); i++ {
		e.str(v.Log.Line(i))
		e.b = append(e.b, byte(v.Log.Kind(i)))
	}
}

// span is how long the chunk lasts so far.
func (w *writer) span(tick time.Duration) time.Duration {
	return time.Duration(w.prev.Turn-w.first) * tick
}

// finish compresses the chunk: the frames up to each level, the level's piece as it was
// compressed once, and the frames after the last.
// They are made in the scratch's room and copied once, for the sink, into a buffer a
// sink handed back (Recycle) or a new one.
func (w *writer) finish(tick time.Duration) Chunk {
	defer w.sc.free.put(&w.buf)
	out := append(w.sc.out[:0], chunkVersion)
	out = binary.AppendUvarint(out, w.first)
	out = binary.AppendUvarint(out, uint64(tick))
	at := 0
	for _, s := range w.levels {
		out = w.piece(out, at, s.at)
		out = appendPiece(out, s.m.compressed())
		at = s.at
	}
	w.sc.out = w.piece(out, at, w.buf.size)
	return Chunk{Start: w.start, Born: w.born, Data: takeChunkBytes(w.sc.out)}
}

// piece appends the frames' bytes from..to, compressed, as a piece.
func (w *writer) piece(out []byte, from, to int) []byte {
	if from == to {
		return out
	}
	sc := w.sc
	sc.raw = w.buf.appendRange(sc.raw[:0], from, to)
	if n := s2.MaxEncodedLen(len(sc.raw)); cap(sc.z) < n {
		sc.z = make([]byte, n)
	}
	return appendPiece(out, s2.Encode(sc.z[:cap(sc.z)], sc.raw))
}

func appendPiece(out, z []byte) []byte {
	return append(binary.AppendUvarint(out, uint64(len(z))), z...)
}

// chunkHead is what comes before a chunk's frames.
type chunkHead struct {
	first uint64
	tick  time.Duration
}

// readHead reads a chunk's head, after its version byte, and returns it with the rest.
func readHead(data []byte) (chunkHead, []byte, error) {
	first, n1 := binary.Uvarint(data[1:])
	if n1 <= 0 {
		return chunkHead{}, nil, ErrBadChunk
	}
	tick, n2 := binary.Uvarint(data[1+n1:])
	if n2 <= 0 || tick == 0 || tick > uint64(time.Minute) {
		return chunkHead{}, nil, ErrBadChunk
	}
	return chunkHead{first, time.Duration(tick)}, data[1+n1+n2:], nil
}

// rawOf reads a version 2 or 3 chunk's head and its frames' bytes; cut says they end
// early (a piece cut short or bad, or past maxFrames).
func rawOf(data []byte) (h chunkHead, raw []byte, cut bool, err error) {
	h, rest, err := readHead(data)
	if err != nil {
		return h, nil, false, err
	}
	if data[0] == 2 {
		raw, cut = flateFrames(rest)
		return h, raw, cut, nil
	}
	for len(rest) > 0 {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return h, raw, true, nil
		}
		blk := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		if m, err := s2.DecodedLen(blk); err != nil || len(raw)+m > maxFrames {
			return h, raw, true, nil
		}
		d, err := s2.Decode(nil, blk)
		if err != nil {
			return h, raw, true, nil
		}
		raw = append(raw, d...)
	}
	return h, raw, false, nil
}

// frames reads every frame of a chunk, calling each with it; a chunk cut short ends
// with the frames read so far.
func frames(data []byte, each func(h chunkHead, f *frame)) error {
	switch {
	case len(data) == 0:
		return ErrBadChunk
	case data[0] == 1:
		return framesV1(data, each)
	case data[0] != 2 && data[0] != chunkVersion:
		return ErrBadChunk
	}
	h, raw, cut, err := rawOf(data)
	if err != nil {
		return err
	}
	d := dec{b: raw}
	var st frame // every part as the frames so far left it
	for len(d.b) > 0 {
		f := readFrame(&d, &st)
		if d.err != nil && cut {
			return nil
		} else if d.err != nil {
			return fmt.Errorf("%w: %v", ErrBadChunk, d.err)
		}
		each(h, &f)
	}
	return nil
}

// readFrame reads the next frame into st, and returns it with the parts it set.
func readFrame(d *dec, st *frame) frame {
	turn, set := d.uint(), d.uint()
	if set >= 1<<len(fields) {
		d.fail()
	}
	for i, fd := range fields {
		if set&(1<<uint(i)) != 0 && d.err == nil {
			fd.get(d, st)
		}
	}
	f := *st
	f.Turn, f.Set, f.Said = turn, uint32(set), d.uint()
	n := d.count()
	if n > 0 {
		f.Lines, f.Kinds = make([]string, n), make([]world.MsgKind, n)
	}
	for i := range n {
		f.Lines[i], f.Kinds[i] = d.str(), world.MsgKind(d.byte())
	}
	return f
}
