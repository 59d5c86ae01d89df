package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

func ms(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func TestPercentiles(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(100-i) * time.Millisecond // reversed: percentiles sort
	}
	rand.Shuffle(len(hundred), func(i, j int) { hundred[i], hundred[j] = hundred[j], hundred[i] })
	thousand := make([]time.Duration, 1000)
	for i := range thousand {
		thousand[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Percentiles
	}{
		{"empty", nil, Percentiles{}},
		{"one", ms(7.5), Percentiles{Count: 1, P50: 7.5, P95: 7.5, P99: 7.5, Max: 7.5}},
		{"two", ms(2, 1), Percentiles{Count: 2, P50: 1, P95: 2, P99: 2, Max: 2}},
		{"1..100 shuffled", hundred, Percentiles{Count: 100, P50: 50, P95: 95, P99: 99, Max: 100}},
		{"1..1000", thousand, Percentiles{Count: 1000, P50: 500, P95: 950, P99: 990, Max: 1000}},
		// One slow key in a hundred is the p99 only when it is not the only one.
		{"tail", append(ms(make([]float64, 98)...), ms(500, 900)...), Percentiles{Count: 100, P50: 0, P95: 0, P99: 500, Max: 900}},
		{"sub-millisecond", []time.Duration{1500 * time.Microsecond, 250 * time.Microsecond}, Percentiles{Count: 2, P50: 0.25, P95: 1.5, P99: 1.5, Max: 1.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentiles(tt.in); got != tt.want {
				t.Errorf("percentiles = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRates(t *testing.T) {
	if got := rates(nil); got != (Rates{}) {
		t.Errorf("rates(nil) = %+v", got)
	}
	got := rates([]float64{300, 100, 200, 1000})
	want := Rates{Sessions: 4, Mean: 400, P50: 200, Max: 1000}
	if got != want {
		t.Errorf("rates = %+v, want %+v", got, want)
	}
}

func TestIsActiveSpreadsEvenly(t *testing.T) {
	for _, c := range []struct{ n, active int }{{1, 1}, {1, 0}, {10, 3}, {100, 10}, {1000, 100}, {500, 500}, {7, 0}} {
		count, run, longest := 0, 0, 0
		for i := range c.n {
			if isActive(i, c.active, c.n) {
				count++
				run = 0
			} else {
				run++
				longest = max(longest, run)
			}
		}
		if count != c.active {
			t.Errorf("n=%d active=%d: %d sessions active", c.n, c.active, count)
		}
		if c.active > 0 && longest > c.n/c.active {
			t.Errorf("n=%d active=%d: %d idle sessions in a row, want at most %d", c.n, c.active, longest, c.n/c.active)
		}
	}
}

func TestWindow(t *testing.T) {
	var w window
	now := time.Now()
	if w.in(now) {
		t.Error("a window that has not started holds a time")
	}
	w.start.Store(now.UnixNano())
	if !w.in(now) || !w.in(now.Add(time.Hour)) || w.in(now.Add(-time.Nanosecond)) {
		t.Error("an open window: wrong membership")
	}
	w.end.Store(now.Add(time.Second).UnixNano())
	if !w.in(now.Add(999*time.Millisecond)) || w.in(now.Add(time.Second)) {
		t.Error("a closed window: wrong membership")
	}
}

func TestErrorCounts(t *testing.T) {
	var e errorCounts
	e.add("dial", errors.New("first"))
	e.add("dial", errors.New("second"))
	e.add("walk-in timeout", nil)
	if e.counts["dial"] != 2 || e.counts["walk-in timeout"] != 1 {
		t.Errorf("counts = %v", e.counts)
	}
	if e.examples["dial"] != "first" {
		t.Errorf("example = %q, want the first message", e.examples["dial"])
	}
	var f *failure
	if err := fail("handshake", os.ErrDeadlineExceeded); !errors.As(err, &f) || f.kind != "handshake" || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("fail() = %v: want kind handshake wrapping the cause", err)
	}
}

func TestReportText(t *testing.T) {
	r := &Report{
		Addr: "127.0.0.1:2222", Mode: ModeGame, N: 10, Active: 2, Rate: 2, RampSeconds: 1, WindowSeconds: 30,
		Established: 9, Failed: 1, Errors: map[string]int{"walk-in timeout": 1},
		ErrorExamples: map[string]string{"walk-in timeout": "not in the dungeon"},
		Latency:       Percentiles{Count: 120, P50: 20, P95: 35, P99: 48.5, Max: 60},
		Keys:          Keys{Sent: 120, Answered: 120},
		SlowKeys:      SlowKeys{OverMs: 100, SliceMs: 100, Count: 7, Slices: 300, WithSlow: 3, WorstTwentieth: 100},
		BytesIdle:     Rates{Sessions: 7, Mean: 12, P50: 10, Max: 40},
		Server:        &ProcStats{PID: 42, CPUPercent: 55, RSSKB: 40960, RSSBaselineKB: 20480, RSSPerSessionKB: 2275.6},
		World:         &WorldStats{Samples: 3, TurnsPerSecond: 40, TickP50: 0.05, TickP99: 1.2},
	}
	var buf bytes.Buffer
	if err := r.writeText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"9  failed 1  dropped 0", "walk-in timeout 1", "p99 48.5", "mean 12", "pid 42: CPU 55%", "2276 KiB per session", "40.0 turns/s",
		"7 over 100 ms, in 3 of 300 slices of 100 ms; 100 % in the worst twentieth"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"p99_ms":48.5`, `"established":9`, `"bytes_per_second_idle":{"sessions":7`, `"turns_per_second":40`, `"slow_keys":{"over_ms":100,"slice_ms":100,"count":7,"slices":300,"slices_with_slow":3,"in_worst_twentieth_percent":100}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}

func TestSummariseWorld(t *testing.T) {
	t0 := time.Now()
	mk := func(at time.Duration, turn uint64, p50, p99 float64) statsSample {
		s := statsSample{at: t0.Add(at), Turn: turn, PlayersOnline: 5}
		s.Tick.P50, s.Tick.P99, s.Tick.Max = p50, p99, p99*2
		return s
	}
	ws := summariseWorld([]statsSample{mk(0, 1000, 0.2, 3), mk(10*time.Second, 1400, 0.1, 9), mk(20*time.Second, 1790, 0.3, 4)}, 1)
	// The first sample counts for the turn rate only: its steps are from before the window.
	want := WorldStats{Samples: 3, TurnsPerSecond: 39.5, TickP50: 0.1, TickP99: 9, TickMax: 18, PlayersOnline: 5, Errors: 1}
	if *ws != want {
		t.Errorf("summariseWorld = %+v, want %+v", *ws, want)
	}
	if ws := summariseWorld([]statsSample{mk(0, 5, 0.4, 2)}, 0); ws.TickP50 != 0.4 || ws.TickP99 != 2 || ws.TurnsPerSecond != 0 {
		t.Errorf("one sample: %+v", ws)
	}
	if ws := summariseWorld(nil, 2); ws.Samples != 0 || ws.Errors != 2 {
		t.Errorf("no samples: %+v", ws)
	}
}

func TestProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	a, err := readProc("self")
	if err != nil {
		t.Fatal(err)
	}
	if a.rssKB <= 0 || a.hwmKB < a.rssKB {
		t.Errorf("rss %d kB, hwm %d kB", a.rssKB, a.hwmKB)
	}
	if a.anonKB <= 0 || a.fileKB <= 0 || a.anonKB+a.fileKB > a.rssKB {
		t.Errorf("rss %d kB: anonymous %d kB and files %d kB; want both, within it", a.rssKB, a.anonKB, a.fileKB)
	}
	b := a
	b.at = a.at.Add(2 * time.Second)
	b.cpuTicks = a.cpuTicks + 100 // one second of CPU in two of wall time
	if got := cpuPercent(a, b); got != 50 {
		t.Errorf("cpuPercent = %v, want 50", got)
	}
	if parseKB("  12345 kB") != 12345 {
		t.Error("parseKB")
	}
	if _, err := readProc("0"); err == nil {
		t.Error("readProc of pid 0: no error")
	}
}

func TestConfigCheck(t *testing.T) {
	ok := Config{Addr: "127.0.0.1:1", N: 10, Active: 2, Rate: 1, Duration: time.Second, Mode: ModeGame}
	if err := ok.check(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	if ok.WalkTimeout == 0 || ok.Drain == 0 || ok.StatsEvery == 0 {
		t.Errorf("defaults not set: %+v", ok)
	}
	all := ok
	all.Web, all.Browsers = "http://127.0.0.1:1", -1
	if err := all.check(); err != nil || all.Browsers != all.N {
		t.Errorf("-browsers -1: %v, %d browsers, want all %d", err, all.Browsers, all.N)
	}
	for name, mut := range map[string]func(*Config){
		"no addr":                 func(c *Config) { c.Addr = "" },
		"n 0":                     func(c *Config) { c.N = 0 },
		"active > n":              func(c *Config) { c.Active = 11 },
		"rate 0":                  func(c *Config) { c.Rate = 0 },
		"no duration":             func(c *Config) { c.Duration = 0 },
		"bad mode":                func(c *Config) { c.Mode = "x" },
		"neg ramp":                func(c *Config) { c.Ramp = -time.Second },
		"browsers without a page": func(c *Config) { c.Browsers = 2 },
		"a page not http":         func(c *Config) { c.Web, c.Browsers = "ws://127.0.0.1:1", 2 },
		"browsers > n":            func(c *Config) { c.Web, c.Browsers = "http://127.0.0.1:1", 11 },
		"browsers in bare mode":   func(c *Config) { c.Web, c.Browsers, c.Mode = "http://127.0.0.1:1", 2, ModeBare },
		"browsers with keys":      func(c *Config) { c.Web, c.Browsers, c.Keys = "http://127.0.0.1:1", 2, make([]loadKey, 10) },
		"browsers and a restart": func(c *Config) {
			c.Web, c.Browsers, c.ServerPID, c.RestartAfter = "http://127.0.0.1:1", 2, 1, time.Millisecond
		},
	} {
		c := ok
		mut(&c)
		if err := c.check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"-n", "0"}, &out, &errOut); code != 2 {
		t.Errorf("-n 0: exit %d, want 2 (%s)", code, errOut.String())
	}
	if code := run(t.Context(), []string{"-bogus"}, &out, &errOut); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code := run(t.Context(), []string{"-h"}, &out, &errOut); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	if code := run(t.Context(), []string{"extra"}, &out, &errOut); code != 2 {
		t.Errorf("an argument: exit %d, want 2", code)
	}
}

func TestKnightName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for range 1000 {
		n := knightName(r)
		if len(n) > 20 || !strings.HasPrefix(n, "Bot ") || strings.ContainsAny(n[4:], "cdilorsv0123456789") {
			t.Fatalf("name %q: not a name the game keeps apart", n)
		}
		if seen[n] {
			t.Fatalf("name %q twice in 1000", n)
		}
		seen[n] = true
	}
}
