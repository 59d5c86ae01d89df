package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Percentiles summarises a set of durations, in milliseconds. The percentiles are
// nearest-rank: P95 is the smallest sample that at least 95 % of the samples do not
// exceed.
type Percentiles struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// percentiles sorts xs in place and summarises it; an empty xs gives the zero value.
func percentiles(xs []time.Duration) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	slices.Sort(xs)
	return Percentiles{
		Count: len(xs),
		P50:   millis(rank(xs, 0.50)),
		P95:   millis(rank(xs, 0.95)),
		P99:   millis(rank(xs, 0.99)),
		Max:   millis(xs[len(xs)-1]),
	}
}

// rank is the nearest-rank q-quantile of the sorted, non-empty xs.
func rank[T any](xs []T, q float64) T {
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func millis(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

// round3 keeps three decimals, so reports stay readable.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Rates summarises a per-session rate (bytes or output bursts a second).
type Rates struct {
	Sessions int     `json:"sessions"`
	Mean     float64 `json:"mean"`
	P50      float64 `json:"p50"`
	Max      float64 `json:"max"`
}

// rates sorts xs in place and summarises it.
func rates(xs []float64) Rates {
	if len(xs) == 0 {
		return Rates{}
	}
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return Rates{Sessions: len(xs), Mean: round3(sum / float64(len(xs))), P50: round3(rank(xs, 0.5)), Max: round3(xs[len(xs)-1])}
}

// Sizes summarises sizes in bytes: their count, mean and nearest-rank percentiles.
type Sizes struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   int32   `json:"p50"`
	P99   int32   `json:"p99"`
	Max   int32   `json:"max"`
}

// sizes sorts xs in place and summarises it.
func sizes(xs []int32) Sizes {
	if len(xs) == 0 {
		return Sizes{}
	}
	slices.Sort(xs)
	var sum int64
	for _, x := range xs {
		sum += int64(x)
	}
	return Sizes{Count: len(xs), Mean: round3(float64(sum) / float64(len(xs))), P50: rank(xs, 0.5), P99: rank(xs, 0.99), Max: xs[len(xs)-1]}
}

// KindStats are a run's figures for one kind of session, SSH's or browsers', as the
// report's of the same names.
type KindStats struct {
	Kind         string      `json:"kind"` // "ssh" or "web"
	Sessions     int         `json:"sessions"`
	Established  int         `json:"established"`
	Failed       int         `json:"failed"`
	Dropped      int         `json:"dropped"`
	Arrival      Percentiles `json:"arrival"`
	Keys         Keys        `json:"keys"`
	Latency      Percentiles `json:"latency"`
	BytesActive  Rates       `json:"bytes_per_second_active"`
	BytesIdle    Rates       `json:"bytes_per_second_idle"`
	FramesActive Rates       `json:"frames_per_second_active"`
	FramesIdle   Rates       `json:"frames_per_second_idle"`
	FrameBytes   Sizes       `json:"frame_bytes"`
}

// kindStats are r's figures as one kind's, of n sessions.
func (r *Report) kindStats(web bool, n int) KindStats {
	kind := "ssh"
	if web {
		kind = "web"
	}
	return KindStats{Kind: kind, Sessions: n, Established: r.Established, Failed: r.Failed, Dropped: r.Dropped,
		Arrival: r.Arrival, Keys: r.Keys, Latency: r.Latency, BytesActive: r.BytesActive, BytesIdle: r.BytesIdle,
		FramesActive: r.BurstsActive, FramesIdle: r.BurstsIdle, FrameBytes: r.FrameBytes}
}

// Keys counts the keystrokes sent in the measured window.
type Keys struct {
	// Sent is every measured key: keys written by active sessions during the window,
	// not counting the Enter keys that recover a session stuck off the dungeon screen.
	Sent int `json:"sent"`
	// Answered keys were followed by output on their session; their latencies make
	// up Report.Latency.
	Answered int `json:"answered"`
	// Unanswered keys saw no output within the stuck timeout (5 s), or by the end of
	// the drain after the window.
	Unanswered int `json:"unanswered"`
	// Recoveries is how many Enter keys were sent to sessions whose keys had gone
	// unanswered for the stuck timeout (a knight that died, or is outside).
	Recoveries int `json:"recoveries"`
	// Overlapped keys were written while an earlier key on the same session still
	// waited for output. The earlier key then takes the latency of whatever output
	// comes next, however long after; a run with many overlapped keys has a latency
	// tail that measures the keys' effects as much as the server.
	Overlapped int `json:"overlapped"`
}

// ProcStats is what /proc says about a process over the window (Linux only).
type ProcStats struct {
	PID int `json:"pid"`
	// CPUPercent is user+system CPU time over the window's wall time; 100 is one core.
	CPUPercent float64 `json:"cpu_percent"`
	// RSSBaselineKB is VmRSS before the first connection; RSSKB at the end of the
	// window; RSSPeakKB is VmHWM then.
	RSSBaselineKB int64 `json:"rss_baseline_kb"`
	RSSKB         int64 `json:"rss_kb"`
	RSSPeakKB     int64 `json:"rss_peak_kb"`
	// RSSPerSessionKB is (RSSKB − RSSBaselineKB) / sessions established.
	RSSPerSessionKB float64 `json:"rss_per_session_kb"`
	// AnonPerSessionKB and FilePerSessionKB are RSSPerSessionKB's two parts: the growth of
	// RssAnon, the process's own memory, and of RssFile, pages of mapped files (for the
	// game server, mostly its database as bbolt maps it), each over the sessions.
	AnonPerSessionKB float64 `json:"anon_per_session_kb"`
	FilePerSessionKB float64 `json:"file_per_session_kb"`
}

// WorldStats is what the game server's admin `stats --json` said during the window.
type WorldStats struct {
	Samples int `json:"samples"`
	// TurnsPerSecond is the turns the world stepped between the first and the last
	// sample, over the time between them; at the default 25 ms tick, 40 is on time.
	TurnsPerSecond float64 `json:"turns_per_second"`
	// TickP50 is the median of the samples' p50 step times, TickP99 and TickMax the
	// largest of their p99 and max. Each sample covers the server's last 1000 steps
	// (25 s at the default tick), so the first sample, taken as the window opens, is
	// left out of these three when there are others.
	TickP50 float64 `json:"tick_p50_ms"`
	TickP99 float64 `json:"tick_p99_ms"`
	TickMax float64 `json:"tick_max_ms"`
	// PlayersOnline is the count at the last sample.
	PlayersOnline int `json:"players_online"`
	// Errors counts samples that failed.
	Errors int `json:"errors,omitempty"`
}

// Fights are the battles that started in the window, as the screens of the sessions
// that read theirs (active, game mode) showed them (fights.go).
type Fights struct {
	Sessions int `json:"sessions"`
	Started  int `json:"started"`
	// Won battles ended with the foe killed, Lost with the knight dead; Other ended
	// otherwise (the knight ran, or the window closed on them: not counted).
	Won   int `json:"won"`
	Lost  int `json:"lost"`
	Other int `json:"other"`
	// Deaths counts every death screen seen in the window, in a battle or not (a trap).
	Deaths int `json:"deaths"`
	// PerMinute is battles started per minute of the window, over all the sessions;
	// PerSession the same for each session.
	PerMinute  float64 `json:"started_per_minute"`
	PerSession Rates   `json:"started_per_minute_per_session"`
}

// Returning is where the sessions that played a keys file's knights (-keys) arrived.
type Returning struct {
	Keys int `json:"keys"`
	// OnStoredLevel arrived on the level their line of the keys file gives (where the
	// seed command put them; a knight that has since taken stairs, a chute or a
	// teleport, or died, is elsewhere).
	OnStoredLevel int `json:"on_stored_level"`
	// Depths counts arrivals by level (0 outside).
	Depths map[int]int `json:"depths"`
}

// Report is the result of one run.
type Report struct {
	Addr        string  `json:"addr"`
	Mode        string  `json:"mode"`
	Scenario    string  `json:"scenario,omitempty"`
	N           int     `json:"n"`
	Active      int     `json:"active"`
	Rate        float64 `json:"rate_keys_per_second"`
	RampSeconds float64 `json:"ramp_seconds"`
	// WindowSeconds is the measured steady state: it starts once every session has
	// arrived or failed, and lasts -duration.
	WindowSeconds float64 `json:"window_seconds"`

	// Established sessions reached the dungeon (in bare mode: drew a first frame);
	// Failed did not; Dropped were established but closed before the window ended.
	Established int `json:"established"`
	Failed      int `json:"failed"`
	Dropped     int `json:"dropped"`
	// Errors counts failures by kind; ErrorExamples keeps the first message of each.
	Errors        map[string]int    `json:"errors"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`

	// FirstFrame is connect-to-first-frame: from the start of the TCP dial to the
	// first byte of terminal output. Arrival runs to the moment the session is in
	// the dungeon (the emulated screen shows it), the start screens included.
	FirstFrame Percentiles `json:"first_frame"`
	Arrival    Percentiles `json:"arrival"`

	Keys Keys `json:"keys"`
	// Latency is keystroke-to-next-frame: from writing a key to the arrival of the
	// next byte of output on that session (see the package documentation).
	Latency Percentiles `json:"latency"`
	// SlowKeys says whether the keys later than 100 ms came all through the window or
	// together, in stalls (slow.go).
	SlowKeys SlowKeys `json:"slow_keys"`
	// timeline is the window's slices of 100 ms, for -timeline.
	timeline []slice

	// BytesPerSecond is terminal output received per session per second in the
	// window (after decryption: what the terminal is sent), for active and idle
	// sessions. BurstsPerSecond counts output bursts (reads more than 5 ms after the
	// previous one), about one per frame.
	BytesActive  Rates `json:"bytes_per_second_active"`
	BytesIdle    Rates `json:"bytes_per_second_idle"`
	BurstsActive Rates `json:"bursts_per_second_active"`
	BurstsIdle   Rates `json:"bursts_per_second_idle"`
	// FrameBytes are the bytes of each frame in the window, every session's: an SSH
	// session's burst of output, a browser's frame message (its JSON; the WebSocket's
	// header adds 2 to 4 bytes).
	FrameBytes Sizes `json:"frame_bytes"`

	// Browsers is how many of the N were browsers' sessions (-web); Kinds then gives
	// the figures above for each kind apart, SSH's and browsers', and Page the play
	// page's weight.
	Browsers int         `json:"browsers,omitempty"`
	Kinds    []KindStats `json:"kinds,omitempty"`
	Page     []PageFile  `json:"page,omitempty"`

	Fights    *Fights    `json:"fights,omitempty"`
	Returning *Returning `json:"returning,omitempty"`
	Restart   *Restart   `json:"restart,omitempty"`

	Server *ProcStats  `json:"server,omitempty"`
	Load   *ProcStats  `json:"load_tool,omitempty"`
	World  *WorldStats `json:"world,omitempty"`
	// LoadAverage is the box's one-minute load average at the start and the end of
	// the window (other work on the box shows here).
	LoadAverage [2]float64 `json:"load_average"`
}

// writeText prints the report for a person.
func (r *Report) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	pct := func(p Percentiles) string {
		if p.Count == 0 {
			return "none"
		}
		return fmt.Sprintf("p50 %.1f  p95 %.1f  p99 %.1f  max %.1f ms  (%d)", p.P50, p.P95, p.P99, p.Max, p.Count)
	}
	rt := func(x Rates, unit string) string {
		if x.Sessions == 0 {
			return "none"
		}
		return fmt.Sprintf("mean %.0f  p50 %.0f  max %.0f %s  (%d sessions)", x.Mean, x.P50, x.Max, unit, x.Sessions)
	}
	sz := func(x Sizes) string {
		if x.Count == 0 {
			return "none"
		}
		return fmt.Sprintf("mean %.0f  p50 %d  p99 %d  max %d B  (%d frames)", x.Mean, x.P50, x.P99, x.Max, x.Count)
	}
	if r.Scenario != "" {
		row("target", "%s (%s mode, %s)", r.Addr, r.Mode, r.Scenario)
	} else {
		row("target", "%s (%s mode)", r.Addr, r.Mode)
	}
	row("sessions", "%d, %d active at %g keys/s, ramp %.1f s, window %.1f s", r.N, r.Active, r.Rate, r.RampSeconds, r.WindowSeconds)
	row("established", "%d  failed %d  dropped %d", r.Established, r.Failed, r.Dropped)
	if len(r.Errors) > 0 {
		kinds := slices.Sorted(maps.Keys(r.Errors))
		parts := make([]string, 0, len(kinds))
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Errors[k]))
		}
		row("errors", "%s", strings.Join(parts, ", "))
		for _, k := range kinds {
			if ex := r.ErrorExamples[k]; ex != "" {
				row("  "+k, "%s", ex)
			}
		}
	}
	row("first frame", "%s", pct(r.FirstFrame))
	row("in the dungeon", "%s", pct(r.Arrival))
	row("keys", "%d sent, %d answered, %d unanswered, %d overlapped, %d recoveries",
		r.Keys.Sent, r.Keys.Answered, r.Keys.Unanswered, r.Keys.Overlapped, r.Keys.Recoveries)
	row("key to frame", "%s", pct(r.Latency))
	if sk := r.SlowKeys; sk.Count > 0 {
		row("slow keys", "%d over %g ms, in %d of %d slices of %g ms; %g %% in the worst twentieth of them",
			sk.Count, sk.OverMs, sk.WithSlow, sk.Slices, sk.SliceMs, sk.WorstTwentieth)
	}
	row("bytes/s active", "%s", rt(r.BytesActive, "B/s"))
	row("bytes/s idle", "%s", rt(r.BytesIdle, "B/s"))
	row("bursts/s active", "%s", rt(r.BurstsActive, "/s"))
	row("bursts/s idle", "%s", rt(r.BurstsIdle, "/s"))
	row("bytes a frame", "%s", sz(r.FrameBytes))
	for _, k := range r.Kinds {
		row(k.Kind, "%d sessions: %d established, %d failed, %d dropped; keys %d sent, %d unanswered; key to frame %s",
			k.Sessions, k.Established, k.Failed, k.Dropped, k.Keys.Sent, k.Keys.Unanswered, pct(k.Latency))
		row("  bytes/s", "active %s; idle %s", rt(k.BytesActive, "B/s"), rt(k.BytesIdle, "B/s"))
		row("  frames/s", "active %s; idle %s", rt(k.FramesActive, "/s"), rt(k.FramesIdle, "/s"))
		row("  bytes a frame", "%s", sz(k.FrameBytes))
	}
	for _, p := range r.Page {
		row("page "+p.Path, "%d bytes, %d gzipped", p.Bytes, p.GzipBytes)
	}
	if f := r.Fights; f != nil {
		row("battles", "%d started, %d won, %d lost, %d other; %d deaths  (%d sessions)", f.Started, f.Won, f.Lost, f.Other, f.Deaths, f.Sessions)
		if f.Sessions > 0 {
			row("battles/min", "%.1f in all; per session mean %.2f  p50 %.2f  max %.2f", f.PerMinute, f.PerSession.Mean, f.PerSession.P50, f.PerSession.Max)
		}
	}
	if ret := r.Returning; ret != nil {
		depths := slices.Sorted(maps.Keys(ret.Depths))
		parts := make([]string, 0, len(depths))
		for _, d := range depths {
			parts = append(parts, fmt.Sprintf("%d:%d", d, ret.Depths[d]))
		}
		row("returning", "%d keys, %d arrived on their stored level; by level %s", ret.Keys, ret.OnStoredLevel, strings.Join(parts, " "))
	}
	if rs := r.Restart; rs != nil {
		row("restart", "SIGTERM at %.1f s to pid %d, exited in %.0f ms; started again as pid %d, first handshake after %.0f ms",
			rs.AtSeconds, rs.PID, rs.ExitMs, rs.NewPID, rs.FirstHandshakeMs)
		row("  back", "%d of %d (%d failed, %d on the same level), all back after %.0f ms; each %s",
			rs.Back, rs.Sessions, rs.Failed, rs.SameLevel, rs.AllBackMs, pct(rs.BackTime))
		row("  handshakes", "%d, %.1f/s sustained, %d in the busiest second; %d retries",
			rs.Handshakes, rs.HandshakesPerSecond, rs.PeakHandshakesPerSecond, rs.Retries)
	}
	for _, p := range []struct {
		name string
		s    *ProcStats
	}{{"server", r.Server}, {"load tool", r.Load}} {
		if p.s == nil {
			continue
		}
		row(p.name, "pid %d: CPU %.0f%%, RSS %.1f MiB (was %.1f, peak %.1f), %.0f KiB per session (%.0f its own, %.0f mapped files)",
			p.s.PID, p.s.CPUPercent, kib2mib(p.s.RSSKB), kib2mib(p.s.RSSBaselineKB), kib2mib(p.s.RSSPeakKB), p.s.RSSPerSessionKB,
			p.s.AnonPerSessionKB, p.s.FilePerSessionKB)
	}
	if ws := r.World; ws != nil {
		row("world", "%.1f turns/s, tick p50 %.3f  p99 %.3f  max %.3f ms, %d players (%d samples, %d errors)",
			ws.TurnsPerSecond, ws.TickP50, ws.TickP99, ws.TickMax, ws.PlayersOnline, ws.Samples, ws.Errors)
	}
	row("load average", "%.2f → %.2f", r.LoadAverage[0], r.LoadAverage[1])
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func kib2mib(kb int64) float64 { return float64(kb) / 1024 }

// errorCounts collects failures by kind, keeping the first message of each kind.
type errorCounts struct {
	counts   map[string]int
	examples map[string]string
}

func (e *errorCounts) add(kind string, err error) {
	if e.counts == nil {
		e.counts = map[string]int{}
	}
	if e.examples == nil {
		e.examples = map[string]string{}
	}
	e.counts[kind]++
	if _, ok := e.examples[kind]; !ok && err != nil {
		e.examples[kind] = err.Error()
	}
}

// tally gathers the established sessions' results into a report.
type tally struct {
	first, arrival, latency  []time.Duration
	answered                 []int64   // when each of latency's keys was answered
	bytesActive, bytesIdle   []float64 // bytes a second
	burstsActive, burstsIdle []float64 // output bursts a second
	fightRates               []float64 // battles started a minute
	frameSizes               []int32
}

// add counts the result r of an established session, active or idle, into rep and t:
// secs is the window's length and bytes what the session read in it.
func (t *tally) add(rep *Report, r result, active bool, secs float64, bytes int64) {
	rep.Established++
	if r.dropped {
		rep.Dropped++
	}
	t.first = append(t.first, r.firstFrame)
	t.arrival = append(t.arrival, r.arrival)
	t.latency = append(t.latency, r.latencies...)
	t.answered = append(t.answered, r.answered...)
	t.frameSizes = append(t.frameSizes, r.frameSizes...)
	rep.Keys.Sent += r.sent
	rep.Keys.Answered += len(r.latencies)
	rep.Keys.Unanswered += r.unanswered
	rep.Keys.Recoveries += r.recoveries
	rep.Keys.Overlapped += r.overlapped
	if f := rep.Fights; f != nil && r.reads {
		f.add(r.fights)
		if secs > 0 {
			t.fightRates = append(t.fightRates, float64(r.fights.started)/secs*60)
		}
	}
	if secs <= 0 {
		return
	}
	bps, bursts := float64(bytes)/secs, float64(r.bursts)/secs
	if active {
		t.bytesActive, t.burstsActive = append(t.bytesActive, bps), append(t.burstsActive, bursts)
	} else {
		t.bytesIdle, t.burstsIdle = append(t.bytesIdle, bps), append(t.burstsIdle, bursts)
	}
}

// summarise puts the percentiles and rates of what t gathered into rep; secs is the
// window's length.
func (t *tally) summarise(rep *Report, secs float64) {
	rep.FirstFrame, rep.Arrival, rep.Latency = percentiles(t.first), percentiles(t.arrival), percentiles(t.latency)
	rep.BytesActive, rep.BytesIdle = rates(t.bytesActive), rates(t.bytesIdle)
	rep.BurstsActive, rep.BurstsIdle = rates(t.burstsActive), rates(t.burstsIdle)
	rep.FrameBytes = sizes(t.frameSizes)
	if f := rep.Fights; f != nil && secs > 0 {
		f.PerMinute = round3(float64(f.Started) / secs * 60)
		f.PerSession = rates(t.fightRates)
	}
}

// add counts the battles one session's screen showed.
func (f *Fights) add(n fightCounts) {
	f.Sessions++
	f.Started += n.started
	f.Won += n.won
	f.Lost += n.lost
	f.Other += n.other
	f.Deaths += n.deaths
}

// add counts a returning knight that arrived on level depth; its line of the keys file
// put it on stored.
func (rt *Returning) add(depth, stored int) {
	rt.Depths[depth]++
	if depth == stored {
		rt.OnStoredLevel++
	}
}
