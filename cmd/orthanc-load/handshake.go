package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// ModeHandshake measures logins a second: connections that dial, do the SSH handshake,
// log in with a public key and close, as fast as a bounded number at once allows.
const ModeHandshake = "handshake"

// HandshakeConfig is one run of the handshake mode.
type HandshakeConfig struct {
	Addr        string
	N           int // connections in all
	Concurrency int // connections in the handshake at once
	// Timeout bounds one connection from the start of its dial to logged in.
	Timeout   time.Duration
	ServerPID int // when not zero, the server process read from /proc for CPU and RSS
	Progress  io.Writer
}

func (c *HandshakeConfig) check() error {
	switch {
	case c.Addr == "":
		return errors.New("no address")
	case c.N < 1:
		return fmt.Errorf("-n %d: need at least one connection", c.N)
	case c.Concurrency < 1:
		return fmt.Errorf("-concurrency %d: need at least one", c.Concurrency)
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	return nil
}

// HandshakeReport is the result of a handshake run.
type HandshakeReport struct {
	Addr        string `json:"addr"`
	Mode        string `json:"mode"`
	N           int    `json:"n"`
	Concurrency int    `json:"concurrency"`
	// LoggedIn connections finished the handshake and the public-key login; Failed did
	// not, by kind in Errors (ErrorExamples keeps the first message of each).
	LoggedIn      int               `json:"logged_in"`
	Failed        int               `json:"failed"`
	Errors        map[string]int    `json:"errors"`
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	// Seconds runs from the first dial to the last connection's end.
	// HandshakesPerSecond is LoggedIn over Seconds. SteadyPerSecond leaves out the
	// start and the end, where fewer than Concurrency connections are under way: it is
	// the logins between the first tenth and the last tenth of them over the time
	// between those two (0 with fewer than 20 logins).
	Seconds             float64 `json:"seconds"`
	HandshakesPerSecond float64 `json:"handshakes_per_second"`
	SteadyPerSecond     float64 `json:"steady_handshakes_per_second"`
	// Handshake is one connection's time from the start of its TCP dial to logged in
	// (the SSH version exchange, key exchange, host key check and public-key login);
	// Dial is the TCP connect alone. Failed connections are in neither.
	Handshake Percentiles `json:"handshake"`
	Dial      Percentiles `json:"dial"`

	Server *ProcStats `json:"server,omitempty"`
	Load   *ProcStats `json:"load_tool,omitempty"`
	// LoadAverage is the box's one-minute load average at the start and at the end.
	LoadAverage [2]float64 `json:"load_average"`
}

// handshakeResult is one connection's outcome.
type handshakeResult struct {
	ok         bool
	dial, full time.Duration
	done       time.Time // when it logged in
	err        error
}

// RunHandshakes opens cfg.N connections, at most cfg.Concurrency at once, each with its
// own ed25519 key (all made before the first dial, so making them is not timed), each
// dialling, logging in and closing without opening a session. It returns the report and
// ctx's error when ctx ended the run early.
func RunHandshakes(ctx context.Context, cfg HandshakeConfig) (*HandshakeReport, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	signers := make([]gossh.Signer, cfg.N)
	for i := range signers {
		_, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			return nil, fmt.Errorf("generate key: %w", err)
		}
		if signers[i], err = gossh.NewSignerFromKey(priv); err != nil {
			return nil, fmt.Errorf("key signer: %w", err)
		}
	}
	var rep HandshakeReport
	srv0, err := readProcIf(cfg.ServerPID)
	if err != nil {
		return nil, fmt.Errorf("server pid %d: %w", cfg.ServerPID, err)
	}
	load0, _ := readProc("self")
	rep.LoadAverage[0] = loadAverage()

	results := make([]handshakeResult, cfg.N)
	var next, finished atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range min(cfg.Concurrency, cfg.N) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= cfg.N {
					return
				}
				results[i] = handshake(ctx, cfg.Addr, signers[i], cfg.Timeout)
				finished.Add(1)
			}
		})
	}
	stopProgress := handshakeProgress(cfg.Progress, &finished, cfg.N, start)
	wg.Wait()
	stopProgress()
	end := time.Now()

	srv1, _ := readProcIf(cfg.ServerPID)
	load1, _ := readProc("self")
	rep.LoadAverage[1] = loadAverage()
	rep.Addr, rep.Mode, rep.N, rep.Concurrency = cfg.Addr, ModeHandshake, cfg.N, cfg.Concurrency
	rep.Seconds = round3(end.Sub(start).Seconds())
	var errs errorCounts
	var full, dial []time.Duration
	var done []time.Time
	for _, r := range results[:min(int(next.Load()), cfg.N)] {
		if !r.ok {
			if r.err == nil { // never started: the run ended first
				continue
			}
			rep.Failed++
			kind := "other"
			if f, ok := errors.AsType[*failure](r.err); ok {
				kind = f.kind
			}
			errs.add(kind, r.err)
			continue
		}
		rep.LoggedIn++
		full, dial, done = append(full, r.full), append(dial, r.dial), append(done, r.done)
	}
	rep.Handshake, rep.Dial = percentiles(full), percentiles(dial)
	if s := end.Sub(start).Seconds(); s > 0 {
		rep.HandshakesPerSecond = round3(float64(rep.LoggedIn) / s)
	}
	rep.SteadyPerSecond = steadyRate(done)
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
	return &rep, ctx.Err()
}

// steadyRate is the rate of the events at times between the first tenth and the last
// tenth of them (ts in any order; it is sorted in place); 0 with fewer than 20.
func steadyRate(ts []time.Time) float64 {
	if len(ts) < 20 {
		return 0
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	lo, hi := len(ts)/10, len(ts)-1-len(ts)/10
	secs := ts[hi].Sub(ts[lo]).Seconds()
	if secs <= 0 {
		return 0
	}
	return round3(float64(hi-lo) / secs)
}

// handshake dials addr, logs in with signer and closes. Errors are failures of a kind:
// dial, refused (the server wrote a line that is not SSH's and closed: the game's
// connection limits do that), closed (the server closed the connection before its SSH
// version), timeout, auth (the login was refused), handshake (anything else in the
// handshake).
func handshake(ctx context.Context, addr string, signer gossh.Signer, timeout time.Duration) handshakeResult {
	start := time.Now()
	dctx, cancel := context.WithDeadline(ctx, start.Add(timeout))
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		kind := "dial"
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			kind = "timeout"
		}
		return handshakeResult{err: fail(kind, err)}
	}
	dialled := time.Now()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() }) // Ctrl-C ends a handshake at once
	defer stop()
	_ = conn.SetDeadline(start.Add(timeout))
	fc := &firstLineConn{Conn: conn}
	cc, chans, reqs, err := gossh.NewClientConn(fc, addr, &gossh.ClientConfig{
		User:            "load",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // loopback load test: any host key
	})
	if err != nil {
		_ = conn.Close()
		kind, first := handshakeKind(err, fc.line()), fc.line()
		if kind == "refused" {
			err = fmt.Errorf("the server said %q before SSH: %w", first, err)
		}
		return handshakeResult{err: fail(kind, fmt.Errorf("ssh handshake: %w", err))}
	}
	loggedIn := time.Now()
	go gossh.DiscardRequests(reqs)
	go func() {
		for ch := range chans {
			_ = ch.Reject(gossh.Prohibited, "load tool")
		}
	}()
	_ = cc.Close()
	return handshakeResult{ok: true, dial: dialled.Sub(start), full: loggedIn.Sub(start), done: loggedIn}
}

// handshakeKind names a failed handshake from its error and the server's first line.
func handshakeKind(err error, first string) string {
	ne, isNet := errors.AsType[net.Error](err)
	switch {
	case first != "" && !strings.HasPrefix(first, "SSH-"):
		return "refused"
	case isNet && ne.Timeout():
		return "timeout"
	case first == "":
		return "closed"
	case strings.Contains(err.Error(), "unable to authenticate"):
		return "auth"
	}
	return "handshake"
}

// firstLineConn keeps the start of what the server sent, up to its first line's end
// (the SSH version, or a refusal written before SSH begins).
type firstLineConn struct {
	net.Conn
	mu    sync.Mutex
	first []byte
	whole bool
}

func (c *firstLineConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if !c.whole && n > 0 {
		c.first = append(c.first, p[:n]...)
		if i := bytes.IndexByte(c.first, '\n'); i >= 0 || len(c.first) >= 256 {
			if i >= 0 {
				c.first = c.first[:i]
			}
			c.first, c.whole = c.first[:min(len(c.first), 256)], true
		}
	}
	c.mu.Unlock()
	return n, err
}

func (c *firstLineConn) line() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimRight(string(c.first), "\r")
}

// handshakeProgress prints how many connections have finished every five seconds until
// the returned function is called.
func handshakeProgress(w io.Writer, finished *atomic.Int64, n int, start time.Time) (stop func()) {
	return everyFiveSeconds(w, func() {
		fmt.Fprintf(w, "%5.0fs  %d/%d connections done\n", time.Since(start).Seconds(), finished.Load(), n)
	})
}

// writeText prints the report for a person.
func (r *HandshakeReport) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	pct := func(p Percentiles) string {
		if p.Count == 0 {
			return "none"
		}
		return fmt.Sprintf("p50 %.1f  p95 %.1f  p99 %.1f  max %.1f ms  (%d)", p.P50, p.P95, p.P99, p.Max, p.Count)
	}
	row("target", "%s (%s mode)", r.Addr, r.Mode)
	row("connections", "%d, %d at once", r.N, r.Concurrency)
	row("logged in", "%d  failed %d", r.LoggedIn, r.Failed)
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
	row("handshakes/s", "%.1f over %.1f s, %.1f steady", r.HandshakesPerSecond, r.Seconds, r.SteadyPerSecond)
	row("dial to login", "%s", pct(r.Handshake))
	row("dial", "%s", pct(r.Dial))
	for _, p := range []struct {
		name string
		s    *ProcStats
	}{{"server", r.Server}, {"load tool", r.Load}} {
		if p.s == nil {
			continue
		}
		row(p.name, "pid %d: CPU %.0f%%, RSS %.1f MiB (was %.1f, peak %.1f)",
			p.s.PID, p.s.CPUPercent, kib2mib(p.s.RSSKB), kib2mib(p.s.RSSBaselineKB), kib2mib(p.s.RSSPeakKB))
	}
	row("load average", "%.2f → %.2f", r.LoadAverage[0], r.LoadAverage[1])
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// runHandshakeMode runs the handshake mode for run and prints its report; it returns the
// exit code: 0 when every connection logged in, 1 otherwise, 2 for bad flags.
func runHandshakeMode(ctx context.Context, cfg HandshakeConfig, asJSON bool, stdout, stderr io.Writer) int {
	rep, err := RunHandshakes(ctx, cfg)
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
	if rep.Failed > 0 || rep.LoggedIn < rep.N {
		return 1
	}
	return 0
}
