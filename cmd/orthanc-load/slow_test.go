package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keysAt makes keys answered at the given offsets from start, each with latency lat.
func keysAt(start int64, lat time.Duration, offsets ...time.Duration) ([]int64, []time.Duration) {
	at := make([]int64, len(offsets))
	ls := make([]time.Duration, len(offsets))
	for i, o := range offsets {
		at[i], ls[i] = start+int64(o), lat
	}
	return at, ls
}

// Slow keys that come together in a few slices are told apart from slow keys spread
// through the window: the worst twentieth of the slices holds all of the first, and a
// twentieth of the second.
func TestSlowKeysToldApartFromSteadyLateness(t *testing.T) {
	const start = int64(1_000_000_000)
	end := start + int64(10*time.Second) // 100 slices
	var stalled, steady []time.Duration
	for s := range 3 { // three stalls of 40 slow keys, at 2, 5 and 8 s
		for k := range 40 {
			stalled = append(stalled, time.Duration(2+3*s)*time.Second+time.Duration(k)*time.Millisecond)
		}
	}
	for s := range 100 { // a slow key in every slice
		steady = append(steady, time.Duration(s)*sliceLen+sliceLen/2)
	}
	for _, tc := range []struct {
		name     string
		offsets  []time.Duration
		withSlow int
		worst    float64
	}{
		{"stalls", stalled, 3, 100},
		{"steady", steady, 100, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, lat := keysAt(start, 150*time.Millisecond, tc.offsets...)
			// Fast keys in every slice change nothing.
			for s := range 100 {
				at = append(at, start+int64(time.Duration(s)*sliceLen))
				lat = append(lat, 20*time.Millisecond)
			}
			sk := slowKeys(slicesOf(start, end, sliceLen, at, lat), slowAfter, sliceLen)
			want := SlowKeys{OverMs: 100, SliceMs: 100, Count: len(tc.offsets), Slices: 100, WithSlow: tc.withSlow, WorstTwentieth: tc.worst}
			if sk != want {
				t.Errorf("got %+v\nwant %+v", sk, want)
			}
		})
	}
}

// A key is in the slice it was answered in; keys answered before or after the window
// are not in it; a window that does not end on a slice's end has a last, shorter slice;
// a key exactly at the budget is not slow.
func TestSlicesOfTheWindow(t *testing.T) {
	const start = int64(5_000_000_000)
	end := start + int64(250*time.Millisecond)
	at := []int64{start - 1, start, start + int64(99*time.Millisecond), start + int64(100*time.Millisecond), end - 1, end}
	lat := []time.Duration{time.Second, 10 * time.Millisecond, slowAfter, slowAfter + 1, 2 * slowAfter, time.Second}
	sl := slicesOf(start, end, sliceLen, at, lat)
	if len(sl) != 3 {
		t.Fatalf("%d slices, want 3", len(sl))
	}
	for i, want := range [][]time.Duration{{10 * time.Millisecond, slowAfter}, {slowAfter + 1}, {2 * slowAfter}} {
		if got := sl[i].lat; !slices.Equal(got, want) || sl[i].start != time.Duration(i)*sliceLen {
			t.Errorf("slice %d: at %v, %v; want at %v, %v", i, sl[i].start, got, time.Duration(i)*sliceLen, want)
		}
	}
	if sk := slowKeys(sl, slowAfter, sliceLen); sk.Count != 2 || sk.WithSlow != 2 || sk.WorstTwentieth != 50 {
		t.Errorf("%+v: want 2 slow keys in 2 slices, half of them in the worst (the one) slice", sk)
	}
	if sl := slicesOf(end, start, sliceLen, at, lat); sl != nil {
		t.Errorf("a window that ends before it starts has slices: %v", sl)
	}
	if sk := slowKeys(nil, slowAfter, sliceLen); sk.Count != 0 || sk.WorstTwentieth != 0 {
		t.Errorf("no slices: %+v", sk)
	}
}

// The timeline is a line a slice, with its keys' figures.
func TestWriteTimeline(t *testing.T) {
	sl := []slice{
		{start: 0, lat: []time.Duration{10 * time.Millisecond, 30 * time.Millisecond, 250 * time.Millisecond}},
		{start: sliceLen},
	}
	var b bytes.Buffer
	if err := writeTimeline(&b, sl, slowAfter); err != nil {
		t.Fatal(err)
	}
	want := "# seconds\tkeys\tp50_ms\tp99_ms\tmax_ms\tover_100ms\n" +
		"0.0\t3\t30.0\t250.0\t250.0\t1\n" +
		"0.1\t0\t0.0\t0.0\t0.0\t0\n"
	if b.String() != want {
		t.Errorf("timeline:\n%s\nwant:\n%s", b.String(), want)
	}
}

// -timeline writes the run's slices, through the command, against the bare reference:
// every key answered in the window is on a line; a path that cannot be made fails before
// the run.
func TestTimelineFlag(t *testing.T) {
	t.Parallel()
	_, addr := serveBare(t)
	path := filepath.Join(t.TempDir(), "timeline.tsv")
	var out, errOut bytes.Buffer
	args := []string{"-mode", "bare", "-addr", addr, "-n", "3", "-rate", "5", "-ramp", "100ms", "-duration", "1s", "-quiet", "-json", "-timeline", path}
	if code := run(t.Context(), args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 10 || len(lines) > 13 || !strings.HasPrefix(lines[0], "# seconds") {
		t.Fatalf("timeline of %d lines, want a heading and about 10 slices:\n%s", len(lines), data)
	}
	keys := 0
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("line %q has %d fields", l, len(f))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		keys += n
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	// A key answered after the window's end is in the report's count, not on the
	// timeline: at most one a session.
	if a := rep.Keys.Answered; keys < 5 || keys > a || keys < a-3 {
		t.Errorf("%d keys on the timeline, %d answered in the report", keys, a)
	}
	if sk := rep.SlowKeys; sk.Slices != len(lines)-1 || sk.OverMs != 100 || sk.SliceMs != 100 {
		t.Errorf("slow keys %+v, for a timeline of %d slices", sk, len(lines)-1)
	}

	bad := filepath.Join(t.TempDir(), "no such folder", "timeline.tsv")
	if code := run(t.Context(), []string{"-mode", "bare", "-addr", addr, "-n", "1", "-timeline", bad}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "-timeline") {
		t.Errorf("a timeline that cannot be made: exit %d, %s", code, errOut.String())
	}
}
