package store

import (
	"os"
	"testing"
	"time"
)

// DiskStats reads the file's size as stat gives it and bbolt's counters, and counts every
// write transaction that commits, once, in its histogram; a replays' batch is counted in
// their churn, written and then deleted.
func TestDiskStatsCountCommitsAndChurn(t *testing.T) {
	st := openTemp(t)
	before, err := st.DiskStats()
	if err != nil {
		t.Fatal(err)
	}
	recs := benchAdventurers(50)
	for range 3 {
		if err := st.SaveAdventurers(recs); err != nil {
			t.Fatal(err)
		}
	}
	after, err := st.DiskStats()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if after.FileBytes != fi.Size() || after.PageSize <= 0 {
		t.Errorf("file %d bytes, page %d; stat says %d", after.FileBytes, after.PageSize, fi.Size())
	}
	if n := after.Commits.Count - before.Commits.Count; n != 3 {
		t.Errorf("3 saves counted as %d commits", n)
	}
	var inBuckets uint64
	for _, c := range after.Commits.Counts {
		inBuckets += c
	}
	if inBuckets > after.Commits.Count || after.Commits.Sum <= before.Commits.Sum {
		t.Errorf("commits %+v", after.Commits)
	}
	if after.PageBytesWritten <= before.PageBytesWritten || after.PagesWritten <= before.PagesWritten {
		t.Errorf("pages written %d (%d B) before, %d (%d B) after three saves", before.PagesWritten, before.PageBytesWritten,
			after.PagesWritten, after.PageBytesWritten)
	}

	w := NewReplayWriter(st, 0, time.Minute, nil)
	t0 := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	w.PutChunk("K-1", ReplayChunk{Start: t0, Data: make([]byte, 1000)})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	ch := st.ReplayChurn()
	if ch.Written < 1000 || ch.Deleted != 0 || ch.Bytes != ch.Written {
		t.Errorf("a chunk of 1000 B: churn %+v", ch)
	}
	w.PutChunk("K-1", ReplayChunk{Start: t0.Add(2 * time.Minute), Data: make([]byte, 1000)}) // the first is out of the window
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := st.ReplayChurn(); got.Deleted != ch.Written || got.Written != 2*ch.Written || got.Bytes != ch.Written {
		t.Errorf("the first chunk cut by the second: churn %+v, the first %+v", got, ch)
	}
}
