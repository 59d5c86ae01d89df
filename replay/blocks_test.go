package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
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
		var got []byte
		at := 0
		for _, l := range levels {
			got = b.appendRange(got, at, l.at)
			got = append(got, l.m.b...)
			at = l.at
		}
		got = b.appendRange(got, at, b.size)
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: %d bytes back, want %d", round, len(got), len(want))
		}
		free.put(&b)
	}
	if len(free) == 0 || len(free) > maxFree {
		t.Fatalf("%d blocks kept for use again", len(free))
	}
}

// A chunk whose knight changes level (and comes back) has each level's bytes where its
// frame put them, whether the frames before it are a few bytes (stored) or many
// (compressed): the pieces of the flate stream read as one.
func TestLevelsChangingInAChunkComeBack(t *testing.T) {
	e := world.New(world.Config{Seed: 1977, Depth: 3, WanderChance: -1})
	l1, l2 := e.Level(1), e.Level(2)
	var vs []world.View
	for i := range 60 {
		v := world.View{Turn: uint64(i), Level: l1, Self: world.Self{Name: "Kay", Depth: 1, Pos: world.Pos{X: i % 7}}}
		if i >= 20 && i < 40 {
			v.Level, v.Self.Depth = l2, 2
		}
		v.Log, v.Said = world.LogOf([]string{fmt.Sprintf("step %d, a line long enough to be worth compressing", i)}, nil), uint64(i+1)
		vs = append(vs, v)
	}
	w := &writer{start: time.Now()}
	for i := range vs {
		w.add(&vs[i])
	}
	if len(w.levels) != 3 {
		t.Fatalf("levels at %v: want three", w.levels)
	}
	c := w.finish(25 * time.Millisecond)
	var levels [][]byte
	err := frames(c.Data, func(_ chunkHead, f *frame) {
		if f.Set&2 != 0 { // the level's bit: its place in fields
			levels = append(levels, f.Level)
		}
	})
	b1, _ := l1.MarshalBinary()
	b2, _ := l2.MarshalBinary()
	if err != nil || len(levels) != 3 || !bytes.Equal(levels[0], b1) || !bytes.Equal(levels[1], b2) || !bytes.Equal(levels[2], b1) {
		t.Fatalf("%d levels back (%v)", len(levels), err)
	}
}
