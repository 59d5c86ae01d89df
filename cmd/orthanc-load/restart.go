package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A restart with N players (-restart-after): during the window the tool sends SIGTERM to
// the server (-pid), waits for it to exit, starts it again with the command line it had
// (read from /proc: its program, arguments, working folder and environment, its output
// and errors going where the old one's went), and every session reconnects at once with
// its key: a returning knight, which the server saved as it went down, comes back where
// it stood. Sessions dial again and again until the new server takes them (a refused
// dial or a failed login is tried again after redialEvery), each within -walk-timeout of
// the new server's start. The tool stops the server it started when the run ends.
//
// Tuning of a restart:
//
//	constant     value   effect
//	redialEvery  50 ms   pause between a session's tries while the server is away (±20 %)
//	exitWait     60 s    longest the old server may take to exit after SIGTERM
//	stopWait     15 s    at the end, longest the new server may take to stop before SIGKILL
const (
	redialEvery = 50 * time.Millisecond
	exitWait    = 60 * time.Second
	stopWait    = 15 * time.Second
)

// Restart is what a restart measured.
type Restart struct {
	PID    int `json:"pid"`
	NewPID int `json:"new_pid"`
	// AtSeconds is when SIGTERM was sent, from the window's start.
	AtSeconds float64 `json:"at_seconds"`
	// ExitMs is from SIGTERM to the old server's exit.
	ExitMs float64 `json:"exit_ms"`
	// Sessions is how many were in the dungeon when SIGTERM was sent, and so came back;
	// Back made it, Failed did not within -walk-timeout.
	Sessions int `json:"sessions"`
	Back     int `json:"back"`
	Failed   int `json:"failed"`
	// BackTime is each session's time from the new server's start to being in the
	// dungeon again; AllBackMs is until the last one (the slowest session's BackTime).
	BackTime  Percentiles `json:"back_time"`
	AllBackMs float64     `json:"all_back_ms"`
	// FirstHandshakeMs is from the new server's start to the first finished handshake:
	// how long it took to listen.
	FirstHandshakeMs float64 `json:"first_handshake_ms"`
	// Handshakes finished during the reconnect storm; HandshakesPerSecond is their rate
	// from the first to the last, PeakHandshakesPerSecond the most in any one second.
	Handshakes              int     `json:"handshakes"`
	HandshakesPerSecond     float64 `json:"handshakes_per_second"`
	PeakHandshakesPerSecond int     `json:"peak_handshakes_per_second"`
	// Retries counts the tries that failed while the server was away (refused dials,
	// handshakes or logins the new server was not ready for).
	Retries int `json:"retries"`
	// SameLevel came back on the level they were on before (game mode).
	SameLevel int `json:"same_level"`
}

// procCommand is how a process was started, as /proc tells it.
type procCommand struct {
	path           string
	args           []string
	dir            string
	env            []string
	stdout, stderr *os.File // reopened for appending; nil when they cannot be
}

// commandOf reads how the process pid was started, to start it again. It must be read
// while the process runs: its output files are reopened here.
func commandOf(pid int) (*procCommand, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	cmdline, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return nil, fmt.Errorf("read the server's command line: %w", err)
	}
	c := &procCommand{args: splitNul(cmdline)}
	if len(c.args) == 0 {
		return nil, fmt.Errorf("pid %d has no command line", pid)
	}
	if c.path, err = os.Readlink(dir + "/exe"); err != nil {
		return nil, fmt.Errorf("read the server's program: %w", err)
	}
	if strings.HasSuffix(c.path, " (deleted)") {
		return nil, fmt.Errorf("the server's program %s was replaced since it started", strings.TrimSuffix(c.path, " (deleted)"))
	}
	if c.dir, err = os.Readlink(dir + "/cwd"); err != nil {
		return nil, fmt.Errorf("read the server's folder: %w", err)
	}
	environ, err := os.ReadFile(dir + "/environ")
	if err != nil {
		return nil, fmt.Errorf("read the server's environment: %w", err)
	}
	c.env = splitNul(environ)
	c.stdout, _ = os.OpenFile(dir+"/fd/1", os.O_WRONLY|os.O_APPEND, 0)
	c.stderr, _ = os.OpenFile(dir+"/fd/2", os.O_WRONLY|os.O_APPEND, 0)
	return c, nil
}

func splitNul(b []byte) []string {
	var out []string
	for f := range bytes.SplitSeq(bytes.TrimRight(b, "\x00"), []byte{0}) {
		out = append(out, string(f))
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

func (c *procCommand) close() {
	for _, f := range []*os.File{c.stdout, c.stderr} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// start starts the command again, in a process group of its own (a Ctrl-C to the tool
// does not reach it; the tool stops it).
func (c *procCommand) start() (*exec.Cmd, error) {
	cmd := &exec.Cmd{Path: c.path, Args: c.args, Dir: c.dir, Env: c.env, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if c.stdout != nil {
		cmd.Stdout = c.stdout
	}
	if c.stderr != nil {
		cmd.Stderr = c.stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the server again: %w", err)
	}
	return cmd, nil
}

// exited reports whether the process pid has exited: /proc has it no more, or only as a
// zombie waiting for its parent.
func exited(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state == 'Z' || state == 'X'
}

// waitExit waits until the process pid has exited, looking every 2 ms (it is not the
// tool's child, so it cannot be waited for).
func waitExit(ctx context.Context, pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for !exited(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d still running %s after SIGTERM", pid, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// stopServer stops a server the tool started: SIGTERM, then SIGKILL after stopWait.
func stopServer(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the restarted server (pid %d): %w", cmd.Process.Pid, err)
		}
		return nil
	case <-time.After(stopWait):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("the restarted server (pid %d) did not stop within %s of SIGTERM: killed", cmd.Process.Pid, stopWait)
	}
}

// restarter runs one restart of a run.
type restarter struct {
	cfg     Config
	command *procCommand
	win     *window
	record  func(error)

	mu     sync.Mutex
	server *exec.Cmd  // the server started again; nil until then
	base   procSample // the new server as it started
	// back are the sessions that came back, by index (nil for none); bytes of the
	// sessions being brought back are read by Run, under mu.
	back     []*session
	doneAt   time.Time // when the last session came back or gave up
	report   *Restart
	shakes   []time.Time
	retries  int
	finished chan struct{}
}

// newRestarter reads how the server was started (cfg.check has checked the flags).
func newRestarter(cfg Config, win *window, record func(error)) (*restarter, error) {
	c, err := commandOf(cfg.ServerPID)
	if err != nil {
		return nil, err
	}
	return &restarter{cfg: cfg, command: c, win: win, record: record, back: make([]*session, cfg.N), finished: make(chan struct{})}, nil
}

// run waits for the restart's time in the window, restarts the server and brings every
// session in the dungeon back; those that come back and are active play until keysCtx
// ends. It runs on its own goroutine; r.finished is closed when it is done.
func (r *restarter) run(ctx, keysCtx context.Context, sessions []*session, playing *sync.WaitGroup) {
	defer close(r.finished)
	select {
	case <-time.After(r.cfg.RestartAfter):
	case <-ctx.Done():
		return
	}
	rep := &Restart{PID: r.cfg.ServerPID}
	r.mu.Lock()
	r.report = rep
	r.mu.Unlock()
	going, depths := markGoing(sessions)
	rep.Sessions = len(going)
	started, ok := r.restartServer(ctx, rep, going)
	if !ok {
		return
	}
	backAt := r.bringAllBack(ctx, keysCtx, going, started, playing)
	r.summarise(rep, going, depths, backAt, started)
}

// markGoing tells the sessions in the dungeon that the server is going, and returns
// them with the level each was on, as far as it can tell.
func markGoing(sessions []*session) (going []*session, depths []int) {
	for _, s := range sessions {
		s.mu.Lock()
		if s.arrival > 0 && s.readErr == nil && !s.closing {
			s.serverGoing = true
			going = append(going, s)
			d := s.depth
			if s.walk != nil {
				if now := screenDepth(s.walk.screen()); now >= 0 {
					d = now
				}
			}
			depths = append(depths, d)
		}
		s.mu.Unlock()
	}
	return going, depths
}

// restartServer sends SIGTERM to the server, waits for it to exit and starts it again;
// it returns when the new one started, or false when the restart failed (recorded).
func (r *restarter) restartServer(ctx context.Context, rep *Restart, going []*session) (started time.Time, ok bool) {
	sent := time.Now()
	rep.AtSeconds = round3(sent.Sub(time.Unix(0, r.win.start.Load())).Seconds())
	if err := syscall.Kill(r.cfg.ServerPID, syscall.SIGTERM); err != nil {
		r.record(fail("restart", fmt.Errorf("SIGTERM to pid %d: %w", r.cfg.ServerPID, err)))
		for _, s := range going { // the server stays: so do they
			s.mu.Lock()
			s.serverGoing = false
			s.mu.Unlock()
		}
		return time.Time{}, false
	}
	if err := waitExit(ctx, r.cfg.ServerPID, exitWait); err != nil {
		r.record(fail("restart", err))
		return time.Time{}, false
	}
	rep.ExitMs = millis(time.Since(sent))
	cmd, err := r.command.start()
	if err != nil {
		r.record(fail("restart", err))
		return time.Time{}, false
	}
	started = time.Now()
	base, _ := readProc(strconv.Itoa(cmd.Process.Pid))
	r.mu.Lock()
	r.server, r.base = cmd, base
	r.mu.Unlock()
	rep.NewPID = cmd.Process.Pid
	return started, true
}

// bringAllBack brings every session of going back at once, each within -walk-timeout of
// the new server's start, and waits for them; an active one that came back plays until
// keysCtx ends. It returns each one's time from the start to being back in the dungeon.
func (r *restarter) bringAllBack(ctx, keysCtx context.Context, going []*session, started time.Time, playing *sync.WaitGroup) []time.Duration {
	deadline := started.Add(r.cfg.WalkTimeout)
	var wg sync.WaitGroup
	backAt := make([]time.Duration, len(going))
	for j, old := range going {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := r.bringBack(ctx, old, deadline)
			if s == nil {
				return
			}
			s.mu.Lock()
			backAt[j] = s.dialAt.Add(s.arrival).Sub(started)
			s.mu.Unlock()
			r.mu.Lock()
			r.back[old.id] = s
			r.mu.Unlock()
			if s.active {
				playing.Add(1)
				go r.play(keysCtx, s, playing)
			}
		}()
	}
	wg.Wait()
	return backAt
}

// play sends the keys of a session that came back until keysCtx ends.
func (r *restarter) play(keysCtx context.Context, s *session, playing *sync.WaitGroup) {
	defer playing.Done()
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(s.id)|1<<32))
	if err := s.play(keysCtx, r.cfg.Rate, rng); err != nil {
		r.record(err)
	}
}

// summarise fills in rep once every session of going came back or gave up: how many
// did, on the level they had been on (depths), how long it took them (backAt, from the
// new server's start), and the reconnect storm's handshakes.
func (r *restarter) summarise(rep *Restart, going []*session, depths []int, backAt []time.Duration, started time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.doneAt = time.Now()
	var times []time.Duration
	for j, old := range going {
		s := r.back[old.id]
		if s == nil {
			rep.Failed++
			continue
		}
		rep.Back++
		times = append(times, backAt[j])
		if s.depth == depths[j] && s.depth >= 0 {
			rep.SameLevel++
		}
	}
	rep.BackTime = percentiles(times)
	rep.AllBackMs = rep.BackTime.Max
	rep.Retries = r.retries
	rep.countHandshakes(r.shakes, started)
}

// countHandshakes counts the handshakes that finished at shakes (sorted in place) after
// the new server started at started: the first one's time, their rate, and the most in
// any one second.
func (rep *Restart) countHandshakes(shakes []time.Time, started time.Time) {
	slices.SortFunc(shakes, func(a, b time.Time) int { return a.Compare(b) })
	rep.Handshakes = len(shakes)
	if len(shakes) > 0 {
		rep.FirstHandshakeMs = millis(shakes[0].Sub(started))
	}
	if n := len(shakes); n > 1 {
		if secs := shakes[n-1].Sub(shakes[0]).Seconds(); secs > 0 {
			rep.HandshakesPerSecond = round3(float64(n-1) / secs)
		}
	}
	for i, j := 0, 0; j < len(shakes); j++ { // the most in any one second
		for shakes[j].Sub(shakes[i]) >= time.Second {
			i++
		}
		rep.PeakHandshakesPerSecond = max(rep.PeakHandshakesPerSecond, j-i+1)
	}
}

// bringBack reconnects one session until it is in the dungeon again, or deadline; it
// returns the new session, or nil. Each try is a new session with the old one's key.
func (r *restarter) bringBack(ctx context.Context, old *session, deadline time.Time) *session {
	rng := rand.New(rand.NewPCG(uint64(old.id), 0x6261636b)) // "back"
	var lastErr error
	for {
		s := newSession(old.id, old.active, old.win)
		s.signer, s.seekDoors, s.typist, s.typeBurst, s.stallAfterArrival = old.signer, old.seekDoors, old.typist, old.typeBurst, old.stallAfterArrival
		if old.script != nil {
			s.script = returningScript
		}
		err := s.connect(ctx, r.cfg.Addr, deadline)
		s.mu.Lock()
		shook := s.handshakeAt
		s.mu.Unlock()
		if !shook.IsZero() {
			r.mu.Lock()
			r.shakes = append(r.shakes, shook)
			r.mu.Unlock()
		}
		if err == nil {
			if err = s.waitArrival(ctx, deadline); err == nil {
				return s
			}
		}
		s.close()
		lastErr = err
		if ctx.Err() != nil {
			return nil
		}
		pause := time.Duration(float64(redialEvery) * (0.8 + 0.4*rng.Float64()))
		if time.Now().Add(pause).After(deadline) {
			r.record(fail("restart: not back", fmt.Errorf("session %d not back in the dungeon %s after the server started again: %w", old.id, r.cfg.WalkTimeout, lastErr)))
			return nil
		}
		r.mu.Lock()
		r.retries++
		r.mu.Unlock()
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil
		}
	}
}

// waitArrival waits until the session is in the dungeon, its connection ends, or
// deadline.
func (s *session) waitArrival(ctx context.Context, deadline time.Time) error {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-s.arrived:
		return nil
	case <-s.readDone:
		s.mu.Lock()
		err := s.readErr
		s.mu.Unlock()
		if err == nil {
			err = errors.New("closed")
		}
		return fmt.Errorf("closed before arrival: %w", err)
	case <-t.C:
		return fmt.Errorf("not in the dungeon; the screen shows: %s", trimScreen(s.screen()))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait waits for the restart to finish, and returns it (nil when there was none).
func (r *restarter) wait() *Restart {
	<-r.finished
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.report
}

// newServer is the server started again and its reading as it started; pid 0 until then.
func (r *restarter) newServer() (pid int, base procSample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.server == nil {
		return 0, procSample{}
	}
	return r.server.Process.Pid, r.base
}

// allBack is when the last session came back or gave up; zero until then.
func (r *restarter) allBack() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.doneAt
}

// session returns the session that came back in slot i, or nil.
func (r *restarter) session(i int) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.back[i]
}

// stop stops the server the restart started, if it did.
func (r *restarter) stop() error {
	r.mu.Lock()
	cmd := r.server
	r.mu.Unlock()
	r.command.close()
	if cmd == nil {
		return nil
	}
	return stopServer(cmd)
}
