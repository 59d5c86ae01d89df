package replay

import (
	"math/bits"
	"sync"
)

// A finished chunk's bytes are the sink's (Sink.PutChunk), for the second or so until
// they are on disk, and then garbage: at 2000 walkers a second's chunks were an eighth of
// the bytes the server allocated, at 4000 a ninth. A sink that is done with them hands
// them back (Recycle) and the next chunks are finished into them. The buffers come in
// sizes of powers of two, each size a pool of its own, so a chunk takes at most twice
// its bytes and one of the right size is at hand whatever the sizes of the chunks
// handed back.

const (
	minChunkClass = 9  // 512 B, the smallest buffer a chunk is finished into
	maxChunkClass = 18 // 256 KB: a larger chunk's bytes are made for it, and not kept
)

// chunkBytes are the buffers handed back, by size: chunkBytes[k] holds those of
// 1<<(minChunkClass+k) bytes.
var chunkBytes [maxChunkClass - minChunkClass + 1]sync.Pool

// chunkClass is the size class of a buffer of at least n bytes; ok is false past the
// largest.
func chunkClass(n int) (k int, ok bool) {
	c := max(bits.Len(uint(max(n, 1)-1)), minChunkClass)
	return c - minChunkClass, c <= maxChunkClass
}

// takeChunkBytes is a buffer holding a copy of b: one handed back, or a new one of b's
// size class.
func takeChunkBytes(b []byte) []byte {
	k, ok := chunkClass(len(b))
	if !ok {
		return append([]byte(nil), b...)
	}
	if p, _ := chunkBytes[k].Get().(*[]byte); p != nil {
		return append((*p)[:0], b...)
	}
	return append(make([]byte, 0, 1<<(minChunkClass+k)), b...)
}

// Recycle hands back the bytes of a chunk this package finished (Chunk.Data), once
// whoever took the chunk will read them no more: the next chunks are finished into them.
// Bytes whose capacity is not one of the sizes are left to the collector. A sink that
// gives the same bytes elsewhere, or keeps them, must not hand them back.
func Recycle(data []byte) {
	c := cap(data)
	if c < 1<<minChunkClass || c > 1<<maxChunkClass || c&(c-1) != 0 {
		return
	}
	k, _ := chunkClass(c)
	data = data[:0]
	chunkBytes[k].Put(&data)
}
