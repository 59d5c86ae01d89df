package realm

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// benchSheet is a knight's sheet of about the size the game saves (2 KiB).
var benchSheet = bytes.Repeat([]byte("x"), 2048)

// BenchmarkClaim is a login's claim: one transaction that puts the claim on the
// realm's lease and reads the knight's sheet. Each claim is of a new knight.
func BenchmarkClaim(b *testing.B) {
	r := openRealm(b, newClient(b, etcdAddr), "A", nil)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if _, err := r.Claim(ctx, fmt.Sprint("k", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoint is fenced checkpoints of 2 KiB sheets: one knight after another,
// and 100 knights at once (each writer its own knight), as a realm's saver would.
func BenchmarkCheckpoint(b *testing.B) {
	r := openRealm(b, newClient(b, etcdAddr), "A", nil)
	ctx := context.Background()
	f, err := r.Claim(ctx, "solo")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			if err := f.Checkpoint(ctx, benchSheet); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	})
	var next atomic.Int64 // each round's writers claim knights of their own
	b.Run("100", func(b *testing.B) {
		b.SetParallelism(50) // × GOMAXPROCS (2 here): 100 writers
		b.RunParallel(func(pb *testing.PB) {
			f, err := r.Claim(ctx, fmt.Sprint("p", next.Add(1)))
			if err != nil {
				b.Error(err)
				return
			}
			for pb.Next() {
				if err := f.Checkpoint(ctx, benchSheet); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	})
}

// BenchmarkMove is a knight moving realm: B asks, A checks the knight in (saving its
// sheet) and B claims it; then the other way.
func BenchmarkMove(b *testing.B) {
	cli := newClient(b, etcdAddr)
	realms := []*Realm{openRealm(b, cli, "A", checkIn(string(benchSheet))), openRealm(b, cli, "B", checkIn(string(benchSheet)))}
	ctx := context.Background()
	if _, err := realms[0].Claim(ctx, "k"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := realms[(i+1)%2].Take(ctx, "k"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitAll is a realm's checkpoint of 1000 knights' 2 KiB sheets, many knights
// to a transaction (CommitAll), as a realm's saver writes them.
func BenchmarkCommitAll(b *testing.B) {
	r := openRealm(b, newClient(b, etcdAddr), "A", nil)
	ctx := context.Background()
	es := make([]Entry, 1000)
	for i := range es {
		f, err := r.Claim(ctx, fmt.Sprint("k", i))
		if err != nil {
			b.Fatal(err)
		}
		es[i] = Entry{Knight: f, Writes: []Write{{Key: "knight/" + f.Knight(), Value: benchSheet}}}
	}
	for b.Loop() {
		for _, err := range CommitAll(ctx, es) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(es))/b.Elapsed().Seconds(), "knights/s")
}
