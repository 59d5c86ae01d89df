package replay

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A chunk's bytes are copied into a buffer of its size class, the smallest power of two
// from 512 B that holds them; past 256 KB into one of their own size.
func TestAChunksBytesTakeTheirSizeClass(t *testing.T) {
	for _, c := range []struct{ n, cap int }{
		{0, 512}, {1, 512}, {512, 512}, {513, 1024}, {3000, 4096}, {4096, 4096}, {1 << 18, 1 << 18}, {1<<18 + 1, 1<<18 + 1},
	} {
		b := bytes.Repeat([]byte{7}, c.n)
		got := takeChunkBytes(b)
		if !bytes.Equal(got, b) || cap(got) < c.cap || c.n <= 1<<18 && cap(got) != c.cap {
			t.Errorf("%d bytes: a copy of %d bytes, cap %d, want cap %d", c.n, len(got), cap(got), c.cap)
		}
	}
}

// Bytes handed back are what the next chunk of their size is finished into, holding
// that chunk's bytes and nothing of the last; bytes of another making are not taken.
func TestAChunkIsFinishedIntoBytesHandedBack(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	first := takeChunkBytes(bytes.Repeat([]byte("a"), 3000))
	Recycle(first)
	second := takeChunkBytes(bytes.Repeat([]byte("b"), 2500))
	if &second[:1][0] != &first[:1][0] {
		t.Fatal("a chunk of the same size class was not finished into the bytes handed back")
	}
	if !bytes.Equal(second, bytes.Repeat([]byte("b"), 2500)) {
		t.Fatalf("the chunk holds %d bytes that are not its own", len(second))
	}

	foreign := make([]byte, 3000) // not a size class's
	Recycle(foreign)
	if third := takeChunkBytes(make([]byte, 3000)); &third[:1][0] == &foreign[:1][0] {
		t.Fatal("bytes of another making were used for a chunk")
	}
}

// The recorder finishes a knight's chunk into bytes a sink handed back (Recycle), and the
// chunk reads back whole: the sink's store, once it has written a chunk, gives the next
// one its buffer rather than the collector.
func TestTheRecorderFinishesChunksIntoBytesHandedBack(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // a pool's last buffer is its own P's
	r, s, ctx := runRecorder(t)
	w := newTestWorld(t, r.For("K-kay"))
	w.walk(world.East, world.West)
	r.Flush(ctx)
	handed := map[*byte]bool{}
	for c := minChunkClass; c <= maxChunkClass; c++ {
		b := takeChunkBytes(make([]byte, 1<<c))
		handed[&b[0]] = true
		Recycle(b)
	}
	w.walk(world.East, world.West, world.East)
	r.Flush(ctx)
	chunks := s.of("K-kay")
	if len(chunks) != 2 {
		t.Fatalf("%d chunks, want 2", len(chunks))
	}
	if !handed[&chunks[1].Data[0]] {
		t.Fatalf("the second chunk (%d bytes, cap %d) was finished into bytes of its own", len(chunks[1].Data), cap(chunks[1].Data))
	}
	if ms := Timeline(chunks, true); len(ms) == 0 || ms[len(ms)-1].View.Self.Name != "Kay" {
		t.Fatalf("the chunks read back as %d moments", len(ms))
	}
}
