package replay

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A chunk's frames in blocks come back as they were written, in pieces between the
// levels wherever they fall: inside a block, at a block's end, at the very end; and the
// blocks are used again.
func TestBlocksWriteTheFramesWithTheLevels(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	var free freeBlocks
	for round := range 200 {
		var b blocks
		var want []byte
		var levels []splice
		for range r.IntN(12) {
			p := make([]byte, r.IntN(3*blockSize))
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			at := b.size + r.IntN(len(p)+1)
			if round%7 == 0 {
				at = b.size + len(p) // at the end of what is written
			}
			if r.IntN(2) == 0 {
				lvl := []byte{byte(round), 'L', byte(len(levels))}
				levels = append(levels, splice{at, &levelMemo{b: lvl}})
				want = append(want, p[:at-b.size]...)
				want = append(want, lvl...)
				want = append(want, p[at-b.size:]...)
			} else {
				want = append(want, p...)
			}
			b.write(p, &free)
		}
		var got bytes.Buffer
		at := 0
		for _, l := range levels {
			if err := b.writeRange(&got, at, l.at); err != nil {
				t.Fatal(err)
			}
			got.Write(l.m.b)
			at = l.at
		}
		if err := b.writeRange(&got, at, b.size); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("round %d: %d bytes back, want %d", round, got.Len(), len(want))
		}
		free.put(&b)
	}
	if len(free) == 0 || len(free) > maxFree {
		t.Fatalf("%d blocks kept for use again", len(free))
	}
}
