package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// ModeCasts measures what the web page's replays cost the server: -n client addresses
// ask for /replay/ID.cast in turn, each -rate times a second, for -duration. The ids go
// round the casts file (-casts, as seed -kept writes it), so that with more of them than
// the page keeps made every request is one it has to make; with no file each id is a
// random one, which no replay has. Each address is 127.77.X.Y, its own to the page's
// per-address caps: the page must listen on loopback (-addr its host:port).
//
//	orthanc-load seed -data DIR -n 10 -kept 40
//	orthanc-ssh -data DIR -http-addr 127.0.0.1:8080 &
//	orthanc-load -mode casts -addr 127.0.0.1:8080 -n 60 -rate 2 -duration 30s -casts DIR/load-casts -pid $!
const ModeCasts = "casts"

// CastsConfig is one run of the casts mode.
type CastsConfig struct {
	Addr      string // the web page's host:port, on loopback
	Addrs     int    // client addresses
	Rate      float64
	Duration  time.Duration
	IDs       []string // the casts asked for, in turn; none: random ids
	ServerPID int
	Progress  io.Writer
}

func (c *CastsConfig) check() error {
	host, _, err := net.SplitHostPort(c.Addr)
	ip := net.ParseIP(host)
	switch {
	case err != nil:
		return fmt.Errorf("-addr %q: %w", c.Addr, err)
	case ip == nil || !ip.IsLoopback():
		return fmt.Errorf("-addr %q: the casts mode asks from loopback addresses of its own, so the page must listen on loopback", c.Addr)
	case c.Addrs < 1 || c.Addrs > 250*250:
		return fmt.Errorf("-n %d: need 1 to %d client addresses", c.Addrs, 250*250)
	case c.Rate <= 0:
		return fmt.Errorf("-rate %v: need more than 0", c.Rate)
	case c.Duration <= 0:
		return fmt.Errorf("-duration %v: need more than 0", c.Duration)
	}
	return nil
}

// CastsReport is the result of a casts run.
type CastsReport struct {
	Addr  string  `json:"addr"`
	Mode  string  `json:"mode"`
	Addrs int     `json:"addrs"`
	Rate  float64 `json:"rate"`
	// IDs is how many casts were asked for in turn; 0: random ids, none a replay's.
	IDs     int     `json:"ids"`
	Seconds float64 `json:"seconds"`
	// Sent requests; Answers by HTTP status; Failed ones got none (Errors by kind, with an
	// example of each).
	Sent          int               `json:"sent"`
	Answers       map[string]int    `json:"answers"`
	Failed        int               `json:"failed"`
	Errors        map[string]int    `json:"errors"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	// Answer is a request's time to its answer's last byte, for every status.
	Answer Percentiles `json:"answer"`

	Server *ProcStats `json:"server,omitempty"`
	Load   *ProcStats `json:"load_tool,omitempty"`
	// LoadAverage is the box's one-minute load average at the start and at the end.
	LoadAverage [2]float64 `json:"load_average"`
}

// castResult is one request's outcome.
type castResult struct {
	status int // 0: no answer
	took   time.Duration
	err    error
}

// castSource is client address i: 127.77.X.Y.
func castSource(i int) net.IP { return net.IPv4(127, 77, byte(i/250), byte(2+i%250)) }

// RunCasts asks for the casts on its schedule: request k at k/(Addrs·Rate) seconds, from
// address k mod Addrs, for cast k mod len(IDs), each address a client with its
// connections kept alive, as a browser's. It returns the report, and ctx's error when
// ctx ended the run early.
func RunCasts(ctx context.Context, cfg CastsConfig) (*CastsReport, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	clients := make([]*http.Client, cfg.Addrs)
	for i := range clients {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: castSource(i)}, Timeout: 5 * time.Second}
		clients[i] = &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}, Timeout: 15 * time.Second}
	}
	srv0, err := readProcIf(cfg.ServerPID)
	if err != nil {
		return nil, fmt.Errorf("server pid %d: %w", cfg.ServerPID, err)
	}
	load0, _ := readProc("self")
	rep := &CastsReport{Addr: cfg.Addr, Mode: ModeCasts, Addrs: cfg.Addrs, Rate: cfg.Rate, IDs: len(cfg.IDs)}
	rep.LoadAverage[0] = loadAverage()

	every := time.Duration(float64(time.Second) / (cfg.Rate * float64(cfg.Addrs)))
	n := int(cfg.Duration / every)
	results := make([]castResult, n)
	var wg sync.WaitGroup
	start := time.Now()
	sent := 0
	for k := range n {
		if d := time.Until(start.Add(time.Duration(k) * every)); d > 0 {
			sleepCtx(ctx, d)
		}
		if ctx.Err() != nil {
			break
		}
		id := fmt.Sprintf("%016x", rand.Uint64())
		if len(cfg.IDs) > 0 {
			id = cfg.IDs[k%len(cfg.IDs)]
		}
		c := clients[k%cfg.Addrs]
		sent++
		wg.Go(func() { results[k] = getCast(ctx, c, "http://"+cfg.Addr+"/replay/"+id+".cast") })
		if cfg.Progress != nil && k > 0 && k%(cfg.Addrs*int(max(cfg.Rate, 1))*10) == 0 {
			fmt.Fprintf(cfg.Progress, "%.0f s: %d requests\n", time.Since(start).Seconds(), k)
		}
	}
	end := time.Now()
	srv1, _ := readProcIf(cfg.ServerPID)
	load1, _ := readProc("self")
	wg.Wait()
	rep.LoadAverage[1] = loadAverage()
	rep.Seconds, rep.Sent = round3(end.Sub(start).Seconds()), sent
	rep.Answers = map[string]int{}
	var errs errorCounts
	var took []time.Duration
	for _, r := range results[:sent] {
		if r.status == 0 {
			rep.Failed++
			errs.add(castErrorKind(r.err), r.err)
			continue
		}
		rep.Answers[strconv.Itoa(r.status)]++
		took = append(took, r.took)
	}
	rep.Answer = percentiles(took)
	rep.Errors, rep.ErrorExamples = errs.counts, errs.examples
	if rep.Errors == nil {
		rep.Errors = map[string]int{}
	}
	if cfg.ServerPID != 0 {
		rep.Server = procStats(cfg.ServerPID, srv0, srv0, srv1, 0)
	}
	if load1.cpuTicks != 0 {
		rep.Load = procStats(os.Getpid(), load0, load0, load1, 0)
	}
	return rep, ctx.Err()
}

// getCast asks for one cast and reads its answer whole.
func getCast(ctx context.Context, c *http.Client, url string) castResult {
	t0 := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return castResult{err: err}
	}
	r, err := c.Do(req)
	if err != nil {
		return castResult{err: err, took: time.Since(t0)}
	}
	_, err = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if err != nil {
		return castResult{err: err, took: time.Since(t0)}
	}
	return castResult{status: r.StatusCode, took: time.Since(t0)}
}

// castErrorKind sorts a request's failure: timeout, refused, reset, or other.
func castErrorKind(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case err != nil && strings.Contains(err.Error(), "connection refused"):
		return "refused"
	case err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "EOF")):
		return "reset"
	}
	return "other"
}

// readCastsFile reads the ids of the casts file, one a line.
func readCastsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			ids = append(ids, id)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no ids", path)
	}
	return ids, nil
}

// writeText prints the report for a person.
func (r *CastsReport) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	ids := "random ids (no replay's)"
	if r.IDs > 0 {
		ids = fmt.Sprintf("%d casts in turn", r.IDs)
	}
	row("target", "%s (%s mode): %s", r.Addr, r.Mode, ids)
	row("requests", "%d from %d addresses at %.1f/s each over %.1f s", r.Sent, r.Addrs, r.Rate, r.Seconds)
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(r.Answers)) {
		parts = append(parts, fmt.Sprintf("%s: %d", s, r.Answers[s]))
	}
	row("answers", "%s  failed %d", strings.Join(parts, ", "), r.Failed)
	for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
		row("  "+k, "%d: %s", r.Errors[k], r.ErrorExamples[k])
	}
	if p := r.Answer; p.Count > 0 {
		row("answer", "p50 %.1f  p95 %.1f  p99 %.1f  max %.1f ms  (%d)", p.P50, p.P95, p.P99, p.Max, p.Count)
	}
	for _, p := range []struct {
		name string
		s    *ProcStats
	}{{"server", r.Server}, {"load tool", r.Load}} {
		if p.s != nil {
			row(p.name, "pid %d: CPU %.0f%%, RSS %.1f MiB (was %.1f, peak %.1f)",
				p.s.PID, p.s.CPUPercent, kib2mib(p.s.RSSKB), kib2mib(p.s.RSSBaselineKB), kib2mib(p.s.RSSPeakKB))
		}
	}
	row("load average", "%.2f → %.2f", r.LoadAverage[0], r.LoadAverage[1])
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// runCastsMode runs the casts mode and prints its report; it returns the exit code: 0
// when every request was answered, 1 otherwise, 2 for bad flags.
func runCastsMode(ctx context.Context, cfg CastsConfig, asJSON bool, stdout, stderr io.Writer) int {
	rep, err := RunCasts(ctx, cfg)
	if rep == nil {
		fmt.Fprintln(stderr, "orthanc-load:", err)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-load: stopped early:", err)
	}
	if err := writeReport(stdout, rep, asJSON); err != nil {
		fmt.Fprintln(stderr, "orthanc-load:", err)
		return 1
	}
	if rep.Failed > 0 {
		return 1
	}
	return 0
}
