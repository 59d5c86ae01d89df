package replay

// blocks are a chunk's frames before compression, in blocks of blockSize taken from the
// recorder's free list and given back when the chunk is compressed: an open chunk holds
// its bytes and less than a block more (a slice that doubles holds up to twice them),
// and the chunks of a crowd, cut and begun all the time, make no garbage.
type blocks struct {
	bs   [][]byte
	size int
}

// blockSize is a block's bytes; maxFree is how many blocks the free list keeps (1 MB).
const (
	blockSize = 1 << 10
	maxFree   = 1024
)

// freeBlocks are blocks to be used again, owned by the recorder's goroutine.
type freeBlocks [][]byte

func (f *freeBlocks) get() []byte {
	if n := len(*f); n > 0 {
		b := (*f)[n-1]
		*f = (*f)[:n-1]
		return b
	}
	return make([]byte, 0, blockSize)
}

// put takes back a chunk's blocks.
func (f *freeBlocks) put(b *blocks) {
	for i, blk := range b.bs {
		if len(*f) < maxFree {
			*f = append(*f, blk[:0])
		}
		b.bs[i] = nil
	}
	b.bs, b.size = b.bs[:0], 0
}

// write appends p.
func (b *blocks) write(p []byte, f *freeBlocks) {
	for len(p) > 0 {
		if n := len(b.bs); n == 0 || len(b.bs[n-1]) == cap(b.bs[n-1]) {
			b.bs = append(b.bs, f.get())
		}
		last := &b.bs[len(b.bs)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p, b.size = p[n:], b.size+n
	}
}

// appendRange appends the bytes from..to to dst.
func (b *blocks) appendRange(dst []byte, from, to int) []byte {
	off := 0 // where the block begins
	for _, blk := range b.bs {
		if lo, hi := max(from-off, 0), min(to-off, len(blk)); lo < hi {
			dst = append(dst, blk[lo:hi]...)
		}
		if off += len(blk); off >= to {
			break
		}
	}
	return dst
}
