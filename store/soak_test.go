package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The replays churn the file for as long as the server runs (issue 46): once their bound
// is full, every batch written is matched by the oldest deleted. bbolt never shrinks its
// file and reuses the pages deletes free, so the file must level off: here 100 knights'
// chunks, 4.7 KB every 10 s each (as walking knights record them), go through a bound of
// 2 MB for 12 minutes of the writer's batches, with a checkpoint of 50 knights every 2 s
// beside them. From the third time the bound has been churned through to the end (about
// twelve times), the file does not grow, the free and pending pages stay under half the
// bound, and the free list a commit writes stays as small as they are.
func TestReplayChurnKeepsTheFileFlat(t *testing.T) {
	st := openTemp(t)
	st.db.NoSync = true // the pages are allocated and written as they are with fsync, which would take most of the time
	const budget, knights, seconds = 2 << 20, 100, 700
	w := NewReplayWriter(st, budget, 10*time.Minute, nil)
	r := rand.New(rand.NewPCG(46, 3))
	noise := make([]byte, 1<<16) // chunks are compressed: slices of it are as dense
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	recs := benchAdventurers(50)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	var settled DiskStats // at the third churn through the bound
	var worst DiskStats   // the most free pages seen after it
	for s := range seconds {
		for k := s % 10; k < knights; k += 10 {
			n := 3000 + r.IntN(3400)
			at := r.IntN(len(noise) - n)
			c := noise[at : at+n]
			began := t0.Add(time.Duration(s-2-r.IntN(9)) * time.Second)
			w.PutChunk(fmt.Sprintf("K-%032x", k), ReplayChunk{Start: began.Add(time.Duration(k) * time.Millisecond), Data: c})
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if s%2 == 0 {
			for i := range recs {
				recs[i].Turn = uint64(s)
			}
			if err := st.SaveAdventurers(recs); err != nil {
				t.Fatal(err)
			}
		}
		d, err := st.DiskStats()
		if err != nil {
			t.Fatal(err)
		}
		switch churn := st.ReplayChurn(); {
		case churn.Deleted < 3*budget:
		case settled.FileBytes == 0:
			settled = d
			t.Logf("at %d s, the bound churned through three times: file %d KB, %d free and %d pending pages, free list %d B",
				s, d.FileBytes>>10, d.FreePages, d.PendingPages, d.FreelistBytes)
		case d.FreePages+d.PendingPages > worst.FreePages+worst.PendingPages:
			worst = d
		}
	}
	end, err := st.DiskStats()
	if err != nil {
		t.Fatal(err)
	}
	churn := st.ReplayChurn()
	t.Logf("at the end, %d MB written and %d MB deleted (the bound %.1f times): file %d KB; the most free and pending pages %d + %d, free list %d B",
		churn.Written>>20, churn.Deleted>>20, float64(churn.Deleted)/budget, end.FileBytes>>10, worst.FreePages, worst.PendingPages, worst.FreelistBytes)
	if settled.FileBytes == 0 || churn.Deleted < 12*budget {
		t.Fatalf("the bound was churned through %.1f times, want 12 or more", float64(churn.Deleted)/budget)
	}
	if end.FileBytes > settled.FileBytes {
		t.Errorf("the file grew from %d KB to %d KB under a full bound", settled.FileBytes>>10, end.FileBytes>>10)
	}
	if free := int64(worst.FreePages+worst.PendingPages) * int64(end.PageSize); free > budget/2 {
		t.Errorf("%d KB of free and pending pages (%d + %d) under a bound of %d KB", free>>10, worst.FreePages, worst.PendingPages, budget>>10)
	}
	if worst.FreelistBytes > budget/2/end.PageSize*8 {
		t.Errorf("a free list of %d B", worst.FreelistBytes)
	}
}
