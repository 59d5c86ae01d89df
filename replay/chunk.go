package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A chunk is a few seconds of one knight's views, read alone: a byte of version, the
// turn of its first view and the tick's length in nanoseconds (uvarints), then a flate
// stream of gob-encoded frames, the first carrying the whole view and each after it
// what changed. The store keeps it as bytes, under the wall time it began.

// chunkVersion is the first byte of every chunk this program writes.
const chunkVersion = 1

// Chunk is a chunk's bytes and when it began.
type Chunk struct {
	Start time.Time
	Data  []byte
}

// ErrBadChunk means a chunk's bytes are not one this program can read.
var ErrBadChunk = errors.New("not a replay chunk this program can read")

// writer is a chunk in the making, owned by the recorder's goroutine: its frames are
// encoded as the views come, and compressed when it is done.
type writer struct {
	buf    bytes.Buffer
	enc    *gob.Encoder
	prev   world.View
	first  uint64 // the turn of its first view
	start  time.Time
	frames int
}

// add encodes v as what changed since the view before it. A view that changes nothing a
// replay shows (a turn passing) is left out.
func (w *writer) add(v *world.View) error {
	if w.enc == nil {
		w.enc, w.first = gob.NewEncoder(&w.buf), v.Turn
	}
	f := frame{Turn: v.Turn - w.first}
	for i, fd := range fields {
		if w.frames == 0 || !fd.same(&w.prev, v) {
			f.Set |= 1 << uint(i)
			fd.put(&f, v)
		}
	}
	n := keyLines
	if w.frames > 0 {
		n = int(min(v.Said-w.prev.Said, uint64(keyLines*8)))
	}
	n = min(n, len(v.Messages))
	if f.Set == 0 && n == 0 {
		return nil
	}
	f.Lines, f.Said = v.Messages[len(v.Messages)-n:], v.Said
	if len(v.Kinds) == len(v.Messages) {
		f.Kinds = v.Kinds[len(v.Kinds)-n:]
	}
	if err := w.enc.Encode(&f); err != nil {
		return fmt.Errorf("encode a frame: %w", err)
	}
	w.prev = *v
	w.frames++
	return nil
}

// span is how long the chunk lasts so far.
func (w *writer) span(tick time.Duration) time.Duration {
	return time.Duration(w.prev.Turn-w.first) * tick
}

// finish compresses the chunk with zw (the recorder's one compressor, reset for each).
func (w *writer) finish(zw *flate.Writer, tick time.Duration) (Chunk, error) {
	out := bytes.NewBuffer(make([]byte, 0, w.buf.Len()/3+32))
	out.WriteByte(chunkVersion)
	out.Write(binary.AppendUvarint(nil, w.first))
	out.Write(binary.AppendUvarint(nil, uint64(tick)))
	zw.Reset(out)
	if _, err := zw.Write(w.buf.Bytes()); err != nil {
		return Chunk{}, err
	}
	if err := zw.Close(); err != nil {
		return Chunk{}, err
	}
	return Chunk{Start: w.start, Data: out.Bytes()}, nil
}

// chunkHead is what comes before a chunk's frames.
type chunkHead struct {
	first uint64
	tick  time.Duration
}

// openChunk reads a chunk's head and returns the gob decoder of its frames.
func openChunk(data []byte) (chunkHead, *gob.Decoder, error) {
	r := bytes.NewReader(data)
	if v, err := r.ReadByte(); err != nil || v != chunkVersion {
		return chunkHead{}, nil, ErrBadChunk
	}
	first, err1 := binary.ReadUvarint(r)
	tick, err2 := binary.ReadUvarint(r)
	if err1 != nil || err2 != nil || tick == 0 || tick > uint64(time.Minute) {
		return chunkHead{}, nil, ErrBadChunk
	}
	return chunkHead{first, time.Duration(tick)}, gob.NewDecoder(flate.NewReader(r)), nil
}

// frames reads every frame of a chunk, calling each with it; a chunk cut short ends
// with the frames read so far.
func frames(data []byte, each func(h chunkHead, f *frame)) error {
	h, dec, err := openChunk(data)
	if err != nil {
		return err
	}
	for {
		var f frame
		switch err := dec.Decode(&f); {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return fmt.Errorf("%w: %v", ErrBadChunk, err)
		}
		each(h, &f)
	}
}
