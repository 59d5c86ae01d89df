// Command capacityplot draws and tabulates a capacity sweep from the JSON reports of the
// load tool (cmd/orthanc-load -json), as cmd/orthanc-load/capacity.sh leaves them in its
// folder:
//
//	cd scripts/capacityplot && go run . -svg "$OUT/capacity.svg" "$OUT" > "$OUT/capacity.md"
//
// The figure has three panels against N, the sessions open: the p99 of keystroke to next
// frame (log scale, with the -limit line, 100 ms), the server's CPU per session (percent
// of one core) and its RSS per session (KB), one line a load. A load is the share of the
// sessions walking and their key rate ("all walking, 2 keys/s"; "10 % walking, 2 keys/s").
// The Markdown table, on standard output, has a row a report: N, load, sessions
// established, failed and dropped, p50 and p99, the server's CPU and CPU and RSS per
// session, the world's turns a second where the report has them, and the load average at
// the window's start and end; then, for each load, the first N whose p99 is past the
// limit. Reports of the handshake mode get a table of their own, a row a file.
//
// It reads only the fields it needs, defined here: it depends on no package of the server
// and is a module of its own, so the plotting library stays out of the server's
// dependencies. Its test runs from this folder: cd scripts/capacityplot && go test ./...
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("capacityplot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	svg := fs.String("svg", "", "write the figure here (its extension picks the format: .svg, .png or .pdf); none when empty")
	limit := fs.Float64("limit", 100, "the p99 latency line, in milliseconds")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: capacityplot [-svg FILE] [-limit MS] FOLDER|REPORT.json ...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	reps, err := readReports(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "capacityplot:", err)
		return 1
	}
	if len(reps) == 0 {
		fmt.Fprintln(stderr, "capacityplot: no reports in", strings.Join(fs.Args(), " "))
		return 1
	}
	if ss := sweeps(reps); *svg != "" && len(ss) == 0 {
		fmt.Fprintln(stderr, "capacityplot: no reports of sessions, so no figure")
	} else if *svg != "" {
		if err := writeFigure(*svg, ss, *limit); err != nil {
			fmt.Fprintln(stderr, "capacityplot:", err)
			return 1
		}
	}
	if err := writeTables(stdout, reps, *limit); err != nil {
		fmt.Fprintln(stderr, "capacityplot:", err)
		return 1
	}
	return 0
}

// report is the part of a load tool report (cmd/orthanc-load's Report and
// HandshakeReport) that the figure and the tables use.
type report struct {
	file string // the file's name without .json

	Mode        string  `json:"mode"`
	N           int     `json:"n"`
	Active      int     `json:"active"`
	Rate        float64 `json:"rate_keys_per_second"`
	Established int     `json:"established"`
	Failed      int     `json:"failed"`
	Dropped     int     `json:"dropped"`
	Latency     struct {
		Count int     `json:"count"`
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
	} `json:"latency"`
	Server *proc `json:"server"`
	Load   *proc `json:"load_tool"`
	World  *struct {
		TurnsPerSecond float64 `json:"turns_per_second"`
	} `json:"world"`
	LoadAverage []float64 `json:"load_average"`

	// The handshake mode's.
	Concurrency int            `json:"concurrency"`
	LoggedIn    int            `json:"logged_in"`
	Errors      map[string]int `json:"errors"`
	PerSecond   float64        `json:"handshakes_per_second"`
	Steady      float64        `json:"steady_handshakes_per_second"`
	Handshake   struct {
		P50 float64 `json:"p50_ms"`
		P99 float64 `json:"p99_ms"`
	} `json:"handshake"`
}

type proc struct {
	CPUPercent      float64 `json:"cpu_percent"`
	RSSPerSessionKB float64 `json:"rss_per_session_kb"`
}

const modeHandshake = "handshake"

// readReports reads the JSON files named, and every *.json in the folders named, in
// name order.
func readReports(paths []string) ([]*report, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		slices.Sort(m)
		files = append(files, m...)
	}
	var reps []*report
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := &report{file: strings.TrimSuffix(filepath.Base(f), ".json")}
		if err := json.Unmarshal(b, r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if r.Mode == "" || r.N == 0 {
			return nil, fmt.Errorf("%s: not a report of the load tool (no mode or n)", f)
		}
		reps = append(reps, r)
	}
	return reps, nil
}

// loadKey is what makes two reports points of the same line: the share walking, in
// percent, and the key rate.
type loadKey struct {
	share int
	rate  float64
}

func (r *report) load() loadKey {
	k := loadKey{share: (100*r.Active + r.N/2) / r.N}
	if r.Active > 0 {
		k.rate = r.Rate
	}
	return k
}

func (k loadKey) String() string {
	switch {
	case k.share == 0:
		return "all idle"
	case k.share == 100:
		return fmt.Sprintf("all walking, %g keys/s", k.rate)
	}
	return fmt.Sprintf("%d %% walking, %g keys/s", k.share, k.rate)
}

// sweep is one load's reports, by N.
type sweep struct {
	load    loadKey
	reports []*report
}

// sweeps groups the session reports (not the handshake ones) by load, the loads with
// more walking first, each by N.
func sweeps(reps []*report) []sweep {
	var out []sweep
	for _, r := range reps {
		if r.Mode == modeHandshake {
			continue
		}
		k := r.load()
		i := slices.IndexFunc(out, func(s sweep) bool { return s.load == k })
		if i < 0 {
			out = append(out, sweep{load: k})
			i = len(out) - 1
		}
		out[i].reports = append(out[i].reports, r)
	}
	for _, s := range out {
		slices.SortStableFunc(s.reports, func(a, b *report) int { return a.N - b.N })
	}
	slices.SortFunc(out, func(a, b sweep) int {
		if a.load.share != b.load.share {
			return b.load.share - a.load.share
		}
		switch {
		case a.load.rate > b.load.rate:
			return -1
		case a.load.rate < b.load.rate:
			return 1
		}
		return 0
	})
	return out
}

// cpuPerSession is the server's CPU over the sessions established, in percent of a core.
func (r *report) cpuPerSession() (float64, bool) {
	if r.Server == nil || r.Established == 0 {
		return 0, false
	}
	return r.Server.CPUPercent / float64(r.Established), true
}

// over says whether the report is past the limit: p99 above it, or sessions that did
// not arrive or were dropped.
func (r *report) over(limit float64) bool {
	return r.Latency.P99 > limit || r.Failed > 0 || r.Dropped > 0
}
