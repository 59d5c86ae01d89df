package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// Slow keys: a p99 says how late the slowest keys were, not whether they came late all
// through the window (a server steadily behind) or together, in a few moments (a
// collection of the heap, a checkpoint, anything periodic that stalls every session at
// once). SlowKeys tells the two apart: the window is cut into slices by when each key
// was answered, and the slow keys of the worst slices are counted.
const (
	slowAfter = 100 * time.Millisecond // the budget of item 2's p99
	sliceLen  = 100 * time.Millisecond
)

// SlowKeys is how the keys answered later than OverMs fall in the window's slices of
// SliceMs.
type SlowKeys struct {
	OverMs  float64 `json:"over_ms"`
	SliceMs float64 `json:"slice_ms"`
	// Count is how many keys were answered later than OverMs.
	Count int `json:"count"`
	// Slices is how many slices the window has; WithSlow how many hold a slow key.
	Slices   int `json:"slices"`
	WithSlow int `json:"slices_with_slow"`
	// WorstTwentieth is the percentage of the slow keys answered in the twentieth of
	// the slices that hold the most of them: near 5 when they are spread evenly, near
	// 100 when they come in stalls.
	WorstTwentieth float64 `json:"in_worst_twentieth_percent"`
}

// slice is one slice of the window: the keys answered in it and their latencies.
type slice struct {
	start time.Duration // from the window's start
	lat   []time.Duration
}

// slicesOf cuts the window [start, end) (unix nanoseconds) into slices of length n and
// puts each key answered at answered[i] with latency lat[i] in its slice; keys answered
// outside the window are left out.
func slicesOf(start, end int64, n time.Duration, answered []int64, lat []time.Duration) []slice {
	if end <= start || n <= 0 {
		return nil
	}
	out := make([]slice, (end-start+int64(n)-1)/int64(n))
	for i := range out {
		out[i].start = time.Duration(i) * n
	}
	for i, at := range answered {
		if at < start || at >= end {
			continue
		}
		s := &out[(at-start)/int64(n)]
		s.lat = append(s.lat, lat[i])
	}
	return out
}

// slowKeys summarises the slices' keys later than over.
func slowKeys(sl []slice, over, n time.Duration) SlowKeys {
	sk := SlowKeys{OverMs: millis(over), SliceMs: millis(n), Slices: len(sl)}
	counts := make([]int, len(sl))
	for i, s := range sl {
		for _, l := range s.lat {
			if l > over {
				counts[i]++
			}
		}
		sk.Count += counts[i]
		if counts[i] > 0 {
			sk.WithSlow++
		}
	}
	if sk.Count == 0 {
		return sk
	}
	slices.SortFunc(counts, func(a, b int) int { return cmp.Compare(b, a) })
	worst := 0
	for _, c := range counts[:max(1, len(counts)/20)] {
		worst += c
	}
	sk.WorstTwentieth = round3(100 * float64(worst) / float64(sk.Count))
	return sk
}

// writeTimeline writes the slices as a table, a line each: the slice's start in seconds
// from the window's, its keys, their p50, p99 and longest in milliseconds, and how many
// were later than over.
func writeTimeline(w io.Writer, sl []slice, over time.Duration) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# seconds\tkeys\tp50_ms\tp99_ms\tmax_ms\tover_%gms\n", millis(over))
	for _, s := range sl {
		p := percentiles(s.lat)
		slow := 0
		for _, l := range s.lat {
			if l > over {
				slow++
			}
		}
		fmt.Fprintf(bw, "%.1f\t%d\t%.1f\t%.1f\t%.1f\t%d\n", s.start.Seconds(), len(s.lat), p.P50, p.P99, p.Max, slow)
	}
	return bw.Flush()
}
