package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// writeTables writes the Markdown tables: the sweeps' reports, what each load's first
// report past the limit is, and the handshake reports.
func writeTables(w io.Writer, reps []*report, limit float64) error {
	bw := bufio.NewWriter(w)
	ss := sweeps(reps)
	if len(ss) > 0 {
		fmt.Fprintln(bw, "| N | load | est. / failed / dropped | p50 / p99 ms | server CPU % | CPU % a session | RSS KB a session | turns/s | load avg |")
		fmt.Fprintln(bw, "|---|---|---|---|---|---|---|---|---|")
		for _, s := range ss {
			for _, r := range s.reports {
				cpu, cpuEach, rss := "–", "–", "–"
				if r.Server != nil {
					cpu = fmt.Sprintf("%.0f", r.Server.CPUPercent)
					rss = fmt.Sprintf("%.0f", r.Server.RSSPerSessionKB)
				}
				if v, ok := r.cpuPerSession(); ok {
					cpuEach = fmt.Sprintf("%.3f", v)
				}
				turns := "–"
				if r.World != nil {
					turns = fmt.Sprintf("%.1f", r.World.TurnsPerSecond)
				}
				fmt.Fprintf(bw, "| %d | %s | %d / %d / %d | %s | %s | %s | %s | %s | %s |\n",
					r.N, s.load, r.Established, r.Failed, r.Dropped, latency(r.Latency.Count, r.Latency.P50, r.Latency.P99),
					cpu, cpuEach, rss, turns, loadAverage(r.LoadAverage))
			}
		}
		fmt.Fprintln(bw)
		for _, s := range ss {
			fmt.Fprintf(bw, "- %s: %s\n", s.load, pastLimit(s, limit))
		}
	}
	var hs []*report
	for _, r := range reps {
		if r.Mode == modeHandshake {
			hs = append(hs, r)
		}
	}
	if len(hs) > 0 {
		if len(ss) > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw, "| report | N | at once | logged in / failed | logins/s (steady) | p50 / p99 ms | server CPU % | load tool CPU % | errors | load avg |")
		fmt.Fprintln(bw, "|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range hs {
			cpu, tool := "–", "–"
			if r.Server != nil {
				cpu = fmt.Sprintf("%.0f", r.Server.CPUPercent)
			}
			if r.Load != nil {
				tool = fmt.Sprintf("%.0f", r.Load.CPUPercent)
			}
			fmt.Fprintf(bw, "| %s | %d | %d | %d / %d | %.0f (%.0f) | %s | %s | %s | %s | %s |\n",
				r.file, r.N, r.Concurrency, r.LoggedIn, r.Failed, r.PerSecond, r.Steady,
				latency(r.LoggedIn, r.Handshake.P50, r.Handshake.P99), cpu, tool, errorKinds(r.Errors), loadAverage(r.LoadAverage))
		}
	}
	return bw.Flush()
}

func latency(count int, p50, p99 float64) string {
	if count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f / %.1f", p50, p99)
}

func loadAverage(la []float64) string {
	if len(la) != 2 {
		return "–"
	}
	return fmt.Sprintf("%.2f → %.2f", la[0], la[1])
}

func errorKinds(errs map[string]int) string {
	if len(errs) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, errs[k]))
	}
	return strings.Join(parts, ", ")
}

// pastLimit says where a sweep first goes past the limit.
func pastLimit(s sweep, limit float64) string {
	var under *report
	for _, r := range s.reports {
		if !r.over(limit) {
			under = r
			continue
		}
		why := fmt.Sprintf("p99 %.1f ms", r.Latency.P99)
		if r.Failed > 0 || r.Dropped > 0 {
			why += fmt.Sprintf(", %d failed, %d dropped", r.Failed, r.Dropped)
		}
		out := fmt.Sprintf("first past %g ms (or with sessions failed or dropped) at N = %d (%s)", limit, r.N, why)
		if under != nil {
			out += fmt.Sprintf("; the last N under it: %d (p99 %.1f ms)", under.N, under.Latency.P99)
		}
		return out + "."
	}
	return fmt.Sprintf("under %g ms, with every session in, up to N = %d.", limit, s.reports[len(s.reports)-1].N)
}
