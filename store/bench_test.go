package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// benchAdventurers returns n knights, each with maps of all ten levels of a 32×20 dungeon
// (80-byte bitsets, partly explored).
func benchAdventurers(n int) []world.Adventurer {
	r := rand.New(rand.NewPCG(1977, 1))
	stats := world.Stats{Str: 14, Int: 11, Con: 12, Dex: 10}
	recs := make([]world.Adventurer, n)
	for i := range recs {
		a := world.NewAdventurer(fmt.Sprintf("SHA256:bench%037d", i), fmt.Sprintf("Knight %d", i), stats, 12)
		a.Depth, a.X, a.Y = i%world.DefaultDepth+1, 5, 7
		for d := 1; d <= world.DefaultDepth; d++ {
			seen := make([]byte, (world.LevelW*world.LevelH+7)/8)
			for j := range seen {
				// A bit set in both of two random bytes: about a quarter of the squares
				// seen. The two bytes are one draw's, where two calls on both sides of
				// & read as one value twice.
				v := r.Uint32()
				seen[j] = byte(v) & byte(v>>8)
			}
			a.Maps = append(a.Maps, world.LevelMap{Depth: d, Seed: world.LevelSeed(1977, d),
				W: world.LevelW, H: world.LevelH, Seen: seen})
		}
		recs[i] = a
	}
	return recs
}

// openBench opens a fresh store in the benchmark's temporary folder.
func openBench(b *testing.B) *Store {
	b.Helper()
	st, err := Open(filepath.Join(b.TempDir(), "orthanc.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	return st
}

// BenchmarkSaveCheckpoint1000 writes a checkpoint of 1000 adventurers that are already in
// the file (as after the first checkpoint of a running server) in one transaction,
// fsync included. SetBytes counts the encoded values, so MB/s is value bytes written.
func BenchmarkSaveCheckpoint1000(b *testing.B) {
	st := openBench(b)
	recs := benchAdventurers(1000)
	if err := st.SaveAdventurers(recs); err != nil {
		b.Fatal(err)
	}
	total := 0
	for i := range recs {
		v, err := encodeAdventurer(&recs[i])
		if err != nil {
			b.Fatal(err)
		}
		total += len(v)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	turn := uint64(0)
	for b.Loop() {
		turn += 80
		for i := range recs {
			recs[i].Turn = turn
		}
		if err := st.SaveAdventurers(recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total)/float64(len(recs)), "bytes/record")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}

// BenchmarkSaverPut1000 is the part of a checkpoint that runs on the engine goroutine:
// handing 1000 records to the Saver, which files them in its pending map.
func BenchmarkSaverPut1000(b *testing.B) {
	s := NewSaver(openBench(b), nil)
	recs := benchAdventurers(1000)
	s.Put(recs...)
	b.ReportAllocs()
	for b.Loop() {
		s.Put(recs...)
	}
	if s.Pending() != len(recs) {
		b.Fatalf("%d records pending, want %d", s.Pending(), len(recs))
	}
}

// BenchmarkBoards10000 is a board read at 10 000 living knights, each with its ten
// levels' maps: the scan of every sheet (Living) and the ranking (knights.Standings), as
// a board read once its last scan is knights.BoardsStale old.
func BenchmarkBoards10000(b *testing.B) {
	st := openBench(b)
	recs := benchAdventurers(10000)
	for i := range recs {
		recs[i].Slain, recs[i].Deepest = i%997, recs[i].Depth
	}
	if err := st.SaveAdventurers(recs); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC)
	s := knights.NewStandings(flushed{st}, func() time.Time { return now })
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(knights.BoardsStale) // every read scans
		p, err := s.Board(world.BoardSlain, false, recs[5].ID)
		if err != nil || len(p.Rows) != knights.BoardTop+1 {
			b.Fatalf("%+v, %v", p, err)
		}
	}
}

// flushed is the store as the boards read it, with nothing waiting to be written.
type flushed struct{ *Store }

func (flushed) Flush() error { return nil }
