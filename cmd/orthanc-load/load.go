package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Modes: how a session knows it has arrived.
const (
	ModeGame = "game" // walk the game's start screens into the dungeon
	ModeBare = "bare" // the bare reference: the first frame is the arrival
)

// Scenarios: how the active sessions walk in game mode.
const (
	ScenarioWalk  = "walk"  // at random, turning at walls
	ScenarioRooms = "rooms" // towards doors and through them, into rooms and their guards' fights
	ScenarioType  = "type"  // standing still, typing a long line on the chat line (typer.go)
)

// Config is one load run.
type Config struct {
	Addr   string
	N      int // sessions to open
	Active int // how many of them send keys; the rest stay idle
	// Stalled is how many idle sessions stop reading their output once in the dungeon, as
	// a hung client would: the server's frames then pile up unread for them.
	Stalled int
	Rate    float64 // keys a second per active session
	// Duration is the measured window, which starts when every session has arrived or
	// failed; Ramp spreads the N connection starts evenly over its length.
	Duration time.Duration
	Ramp     time.Duration
	// WalkTimeout bounds one session's way from the dial to the dungeon.
	WalkTimeout time.Duration
	// Drain is how long answers to the window's last keys are waited for.
	Drain time.Duration
	Mode  string
	Seed  uint64 // seeds the keys each session chooses
	// Keys, when set, are the keys of returning players (a keys file of the seed
	// command): session i plays Keys[i], which the server knows, and walks in as a
	// returning knight. Without them every session is a new player with a new key.
	Keys []loadKey
	// Scenario is how the active sessions walk in game mode: ScenarioWalk (the default),
	// ScenarioRooms or ScenarioType.
	Scenario string
	// TypeBurst is how many keys a typist (ScenarioType) writes at once, in one SSH
	// packet: Rate keys a second go as Rate/TypeBurst packets. 0 is 1, a key a packet.
	TypeBurst int

	// Web, when set, is the game server's web page (http://host:port): Browsers of the
	// N sessions open its play socket instead of an SSH session, as guests
	// (websession.go), spread evenly over the active sessions and over the idle ones.
	// Browsers -1 is all of them.
	Web      string
	Browsers int

	// ServerPID, when not zero, is the server process read from /proc for CPU and RSS.
	ServerPID int
	// AdminKey, when set, signs in to the game server as an admin to read `stats
	// --json` at the window's start, every StatsEvery, and at its end.
	AdminKey   gossh.Signer
	StatsEvery time.Duration

	// RestartAfter, when not zero, restarts the server (ServerPID) this long into the
	// window, and every session comes back (restart.go).
	RestartAfter time.Duration

	// Progress, when set, gets a line every few seconds while sessions connect.
	Progress io.Writer
}

// check checks the run's figures, its mode and way in, the restart and the scenario, in
// that order, and fills in the defaults of what was left unset.
func (c *Config) check() error {
	for _, check := range []func() error{c.checkLoad, c.checkMode, c.checkRestart, c.checkScenario, c.checkWeb} {
		if err := check(); err != nil {
			return err
		}
	}
	if c.WalkTimeout <= 0 {
		c.WalkTimeout = 30 * time.Second
	}
	if c.Drain <= 0 {
		c.Drain = 2 * time.Second
	}
	if c.StatsEvery <= 0 {
		c.StatsEvery = 20 * time.Second
	}
	return nil
}

// checkLoad checks the address, the sessions, the key rate and the times.
func (c *Config) checkLoad() error {
	switch {
	case c.Addr == "":
		return errors.New("no address")
	case c.N < 1:
		return fmt.Errorf("-n %d: need at least one session", c.N)
	case c.Active < 0 || c.Active > c.N:
		return fmt.Errorf("-active %d: must be between 0 and -n (%d)", c.Active, c.N)
	case c.Active > 0 && c.Rate <= 0:
		return fmt.Errorf("-rate %g: active sessions need a positive key rate", c.Rate)
	case c.Duration <= 0:
		return fmt.Errorf("-duration %s: must be positive", c.Duration)
	case c.Ramp < 0:
		return fmt.Errorf("-ramp %s: must not be negative", c.Ramp)
	}
	return nil
}

// checkMode checks the mode, and the returning players' keys, which need the game's.
func (c *Config) checkMode() error {
	switch {
	case c.Mode != ModeGame && c.Mode != ModeBare:
		return fmt.Errorf("-mode %q: must be %s or %s", c.Mode, ModeGame, ModeBare)
	case len(c.Keys) > 0 && len(c.Keys) < c.N:
		return fmt.Errorf("-n %d: the keys file has only %d keys", c.N, len(c.Keys))
	case len(c.Keys) > 0 && c.Mode != ModeGame:
		return fmt.Errorf("-keys: returning players need -mode %s", ModeGame)
	}
	return nil
}

// checkRestart checks that a restart has its server and falls inside the window.
func (c *Config) checkRestart() error {
	switch {
	case c.RestartAfter < 0:
		return fmt.Errorf("-restart-after %s: must not be negative", c.RestartAfter)
	case c.RestartAfter > 0 && c.ServerPID == 0:
		return errors.New("-restart-after needs -pid, the server to restart")
	case c.RestartAfter >= c.Duration:
		return fmt.Errorf("-restart-after %s: must fall inside the window (-duration %s)", c.RestartAfter, c.Duration)
	}
	return nil
}

// checkScenario checks the scenario, ScenarioWalk when unset, which only game mode has.
func (c *Config) checkScenario() error {
	if c.Scenario == "" {
		c.Scenario = ScenarioWalk
	}
	switch {
	case c.Scenario != ScenarioWalk && c.Scenario != ScenarioRooms && c.Scenario != ScenarioType:
		return fmt.Errorf("-scenario %q: must be %s, %s or %s", c.Scenario, ScenarioWalk, ScenarioRooms, ScenarioType)
	case c.Scenario != ScenarioWalk && c.Mode != ModeGame:
		return fmt.Errorf("-scenario %s needs -mode %s", c.Scenario, ModeGame)
	case c.TypeBurst < 0:
		return fmt.Errorf("-type-burst %d: must not be negative", c.TypeBurst)
	case c.TypeBurst > 1 && c.Scenario != ScenarioType:
		return fmt.Errorf("-type-burst needs -scenario %s", ScenarioType)
	}
	c.TypeBurst = max(c.TypeBurst, 1)
	return nil
}

// checkWeb checks the browsers' sessions: the game's, new guests only, no restart; all
// N for Browsers -1, none without a web page.
func (c *Config) checkWeb() error {
	if c.Web == "" {
		if c.Browsers > 0 {
			return fmt.Errorf("-browsers %d needs -web, the game's web page", c.Browsers)
		}
		c.Browsers = 0
		return nil
	}
	if c.Browsers < 0 {
		c.Browsers = c.N
	}
	if _, _, err := webSocketURL(c.Web, termWidth, termHeight); err != nil {
		return fmt.Errorf("-web: %w", err)
	}
	switch {
	case c.Browsers > c.N:
		return fmt.Errorf("-browsers %d: must be between 0 and -n (%d)", c.Browsers, c.N)
	case c.Browsers > 0 && c.Mode != ModeGame:
		return fmt.Errorf("-web: browsers play the game: -mode %s", ModeGame)
	case c.Browsers > 0 && len(c.Keys) > 0:
		return errors.New("-web: browsers play as guests, with no key: no -keys")
	case c.Browsers > 0 && c.RestartAfter > 0:
		return errors.New("-web: browsers do not come back after a restart: no -restart-after")
	}
	return nil
}

// isActive spreads the active sessions evenly over the N (and so over the ramp).
func isActive(i, active, n int) bool { return (i+1)*active/n > i*active/n }

// browserSessions says which of the N sessions are browsers: cfg.Browsers of them,
// spread evenly over the active sessions and, apart, over the idle ones, so that in a
// mixed run each kind has its share of both.
func browserSessions(cfg Config) []bool {
	out := make([]bool, cfg.N)
	if cfg.Browsers == 0 {
		return out
	}
	activeBrowsers := (cfg.Browsers*cfg.Active + cfg.N/2) / cfg.N
	idle := cfg.N - cfg.Active
	activeBrowsers = max(min(activeBrowsers, cfg.Active), cfg.Browsers-idle)
	idleBrowsers := cfg.Browsers - activeBrowsers
	a, d := 0, 0 // the ranks among the active and among the idle
	for i := range out {
		if isActive(i, cfg.Active, cfg.N) {
			out[i] = isActive(a, activeBrowsers, cfg.Active)
			a++
		} else {
			out[i] = isActive(d, idleBrowsers, idle)
			d++
		}
	}
	return out
}

// Run opens the sessions, walks them in, measures the window and closes everything. It
// returns within about Ramp + WalkTimeout + Duration + Drain + 10 s, sooner when ctx ends
// (the report then covers what was measured).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	lr, err := newLoadRun(cfg)
	if err != nil {
		return nil, err
	}
	keysCtx, stopKeys := context.WithCancel(ctx)
	defer stopKeys()
	rampDone := lr.rampUp(ctx, keysCtx)
	m := lr.measure(ctx, keysCtx, stopKeys)
	rst := lr.closeAll(ctx, rampDone)
	rep := lr.report(m, rst)
	if lr.cfg.Browsers > 0 && ctx.Err() == nil {
		page, err := pageWeight(ctx, lr.cfg.Web)
		if err != nil {
			var e errorCounts
			e.counts, e.examples = rep.Errors, rep.ErrorExamples
			e.add("page", err)
			rep.Errors, rep.ErrorExamples = e.counts, e.examples
		}
		rep.Page = page
	}
	return rep, ctx.Err()
}

// loadRun is one Run under way: its sessions, the restart if there is one, and the
// errors met, counted by kind.
type loadRun struct {
	cfg      Config
	win      *window
	sessions []*session
	rs       *restarter // nil without -restart-after
	// srvBase and loadBase are the server and the tool before the first connection.
	srvBase, loadBase procSample
	// walked is done when every session has arrived or failed; playing when every
	// session's goroutine (walking in, then playing) has ended.
	walked, playing sync.WaitGroup

	errMu sync.Mutex
	errs  errorCounts
}

// newLoadRun reads the processes' baselines and makes the sessions, each with its key
// and its way in (cfg.check has checked cfg).
func newLoadRun(cfg Config) (*loadRun, error) {
	lr := &loadRun{cfg: cfg, win: &window{}, sessions: make([]*session, cfg.N)}
	if cfg.ServerPID != 0 {
		var err error
		if lr.srvBase, err = readProc(strconv.Itoa(cfg.ServerPID)); err != nil {
			return nil, fmt.Errorf("server pid %d: %w", cfg.ServerPID, err)
		}
	}
	lr.loadBase, _ = readProc("self")
	browsers := browserSessions(cfg)
	for i := range lr.sessions {
		s := newSession(i, isActive(i, cfg.Active, cfg.N), lr.win)
		if browsers[i] {
			s.webURL = cfg.Web
		}
		s.stallAfterArrival = !s.active && stalledSoFar(lr.sessions[:i]) < cfg.Stalled
		if err := s.setUp(cfg); err != nil {
			return nil, err
		}
		lr.sessions[i] = s
	}
	if cfg.RestartAfter > 0 {
		var err error
		if lr.rs, err = newRestarter(cfg, lr.win, lr.record); err != nil {
			return nil, err
		}
	}
	return lr, nil
}

// record counts an error under its failure's kind ("other" for one without).
func (lr *loadRun) record(err error) {
	kind := "other"
	if f, ok := errors.AsType[*failure](err); ok {
		kind = f.kind
	}
	lr.errMu.Lock()
	lr.errs.add(kind, err)
	lr.errMu.Unlock()
}

// rampUp starts the sessions evenly over cfg.Ramp, each walking in and then, if active,
// playing until keysCtx ends, and waits until every one has arrived or failed (or ctx
// ends). The channel it returns is closed once no session is left to start.
func (lr *loadRun) rampUp(ctx, keysCtx context.Context) <-chan struct{} {
	cfg := lr.cfg
	start := time.Now()
	lr.walked.Add(cfg.N)
	rampDone := make(chan struct{})
	go func() {
		defer close(rampDone)
		for i, s := range lr.sessions {
			sleepCtx(ctx, time.Until(start.Add(time.Duration(int64(cfg.Ramp)*int64(i)/int64(cfg.N)))))
			if ctx.Err() != nil {
				lr.walked.Add(-(cfg.N - i))
				return
			}
			lr.playing.Add(1)
			go lr.walkInAndPlay(ctx, keysCtx, s)
		}
	}()
	stopProgress := progress(cfg.Progress, lr.sessions, start)
	waitCtx(ctx, &lr.walked)
	stopProgress()
	return rampDone
}

// walkInAndPlay is one session's life in the run: it walks in, and an active session
// that arrived plays until keysCtx ends.
func (lr *loadRun) walkInAndPlay(ctx, keysCtx context.Context, s *session) {
	defer lr.playing.Done()
	ok := s.walkIn(ctx, lr.cfg, lr.record, &lr.walked)
	if ok && s.active {
		rng := rand.New(rand.NewPCG(lr.cfg.Seed, uint64(s.id)))
		rate := lr.cfg.Rate
		if s.typist {
			rate /= float64(s.typeBurst) // the packets a second; each holds typeBurst keys
		}
		if err := s.play(keysCtx, rate, rng); err != nil {
			lr.record(err)
		}
	}
}

// windowReadings are what the run read at the window's start and end.
type windowReadings struct {
	secs        float64 // the window's length
	loadAverage [2]float64
	// srvPID is the window's server: after a restart the new one, whose srv0 is its
	// reading as it started.
	srvPID                   int
	srv0, srv1, load0, load1 procSample
	// bytes0 and bytes1 are each session's bytes read, a session that came back after
	// a restart included in bytes1.
	bytes0, bytes1 []int64
	stats          *statsSampler
}

// measure runs the window: it reads the processes and the sessions' bytes at its start,
// restarts the server within it (-restart-after) and samples the world's stats through
// it (-admin-key), and at its end stops the keys and reads them all again.
func (lr *loadRun) measure(ctx, keysCtx context.Context, stopKeys context.CancelFunc) *windowReadings {
	m := &windowReadings{srvPID: lr.cfg.ServerPID}
	m.loadAverage[0] = loadAverage()
	lr.win.start.Store(time.Now().UnixNano())
	m.srv0, _ = readProcIf(lr.cfg.ServerPID)
	m.load0, _ = readProc("self")
	m.bytes0 = lr.bytesRead()
	m.stats = newStatsSampler(ctx, lr.cfg, lr.record)
	if lr.rs != nil {
		go lr.rs.run(ctx, keysCtx, lr.sessions, &lr.playing)
	}
	if lr.cfg.AdminKey != nil {
		m.stats.start(lr.cfg.StatsEvery)
	}
	sleepCtx(ctx, lr.cfg.Duration)
	winEnd := time.Now()
	lr.win.end.Store(winEnd.UnixNano())
	stopKeys()
	if lr.rs != nil {
		// The window's server is then the new one: its CPU from its start, its memory
		// against the old one's before the first connection.
		if pid, base := lr.rs.newServer(); pid != 0 {
			m.srvPID, m.srv0 = pid, base
		}
	}
	m.srv1, _ = readProcIf(m.srvPID)
	m.load1, _ = readProc("self")
	m.bytes1 = lr.bytesRead()
	m.stats.stop()
	if lr.cfg.AdminKey != nil && ctx.Err() == nil {
		m.stats.sample() // the last sample, after the window's last step
	}
	m.loadAverage[1] = loadAverage()
	m.secs = winEnd.Sub(time.Unix(0, lr.win.start.Load())).Seconds()
	return m
}

// bytesRead is each session's bytes read so far, with those of the session that came
// back in its place after a restart.
func (lr *loadRun) bytesRead() []int64 {
	bytes := make([]int64, len(lr.sessions))
	for i, s := range lr.sessions {
		bytes[i] = s.bytes.Load()
		if b := lr.cameBack(i); b != nil {
			bytes[i] += b.bytes.Load()
		}
	}
	return bytes
}

// cameBack is the session that came back in slot i after a restart, or nil.
func (lr *loadRun) cameBack(i int) *session {
	if lr.rs == nil {
		return nil
	}
	return lr.rs.session(i)
}

// closeAll waits cfg.Drain for the answers to the window's last keys and for the restart
// to finish, then closes every session and waits (at most 10 s) for their goroutines. It
// returns what the restart measured, nil without one.
func (lr *loadRun) closeAll(ctx context.Context, rampDone <-chan struct{}) *Restart {
	sleepCtx(ctx, lr.cfg.Drain)
	var rst *Restart
	if lr.rs != nil {
		rst = lr.rs.wait() // sessions still coming back finish first
	}
	for i, s := range lr.sessions {
		s.close()
		if b := lr.cameBack(i); b != nil {
			b.close()
		}
	}
	<-rampDone // no session starts after this, so playing.Wait cannot race an Add
	done := make(chan struct{})
	go func() { lr.playing.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		lr.record(fail("close", errors.New("sessions still running 10 s after close")))
	}
	return rst
}

// report is the run's report from the sessions' results, the window's readings m and
// the restart's rst (nil without one). It stops the server a restart started.
func (lr *loadRun) report(m *windowReadings, rst *Restart) *Report {
	cfg := lr.cfg
	rep := &Report{Addr: cfg.Addr, Mode: cfg.Mode, N: cfg.N, Active: cfg.Active, Rate: cfg.Rate,
		RampSeconds: round3(cfg.Ramp.Seconds()), WindowSeconds: round3(m.secs), LoadAverage: m.loadAverage}
	if cfg.Mode == ModeGame {
		rep.Scenario = cfg.Scenario
		rep.Fights = &Fights{}
	}
	if len(cfg.Keys) > 0 {
		rep.Returning = &Returning{Keys: cfg.N, Depths: map[int]int{}}
	}
	results := make([]result, len(lr.sessions))
	var t tally
	for i, s := range lr.sessions {
		r := s.result()
		results[i] = r
		if !r.established {
			rep.Failed++
			continue
		}
		if b := lr.cameBack(i); b != nil {
			r.add(b.result())
			results[i] = r
		}
		if r.dropped {
			lr.record(fail("disconnected", r.readErr))
		}
		if rt := rep.Returning; rt != nil {
			rt.add(r.depth, cfg.Keys[i].depth)
		}
		t.add(rep, r, s.active, m.secs, m.bytes1[i]-m.bytes0[i])
	}
	// Cut before summarise sorts the latencies apart from their times.
	rep.timeline = slicesOf(lr.win.start.Load(), lr.win.end.Load(), sliceLen, t.answered, t.latency)
	rep.SlowKeys = slowKeys(rep.timeline, slowAfter, sliceLen)
	t.summarise(rep, m.secs)
	rep.Browsers = cfg.Browsers
	rep.Kinds = lr.kinds(results, m)
	if m.srvPID != 0 {
		rep.Server = procStats(m.srvPID, lr.srvBase, m.srv0, m.srv1, rep.Established)
	}
	samples := m.stats.samples
	if lr.rs != nil {
		if err := lr.rs.stop(); err != nil {
			lr.record(fail("restart", err))
		}
	}
	if rst != nil {
		rep.Restart = rst
		// Samples of the old server are of another process: the world's figures are the
		// new one's, from when every session was back.
		back := lr.rs.allBack()
		samples = slices.DeleteFunc(samples, func(st statsSample) bool { return st.at.Before(back) })
	}
	if m.load1.cpuTicks != 0 {
		rep.Load = procStats(os.Getpid(), lr.loadBase, m.load0, m.load1, rep.Established)
	}
	if cfg.AdminKey != nil {
		rep.World = summariseWorld(samples, m.stats.errs)
	}
	lr.errMu.Lock()
	rep.Errors, rep.ErrorExamples = lr.errs.counts, lr.errs.examples
	lr.errMu.Unlock()
	if rep.Errors == nil {
		rep.Errors = map[string]int{}
	}
	return rep
}

// kinds are the report's figures for each kind of session, SSH's and browsers', when the
// run had browsers.
func (lr *loadRun) kinds(results []result, m *windowReadings) []KindStats {
	if lr.cfg.Browsers == 0 {
		return nil
	}
	var out []KindStats
	for _, web := range []bool{false, true} {
		sub := &Report{}
		var t tally
		n := 0
		for i, s := range lr.sessions {
			r := results[i]
			if r.web != web {
				continue
			}
			n++
			if !r.established {
				sub.Failed++
				continue
			}
			t.add(sub, r, s.active, m.secs, m.bytes1[i]-m.bytes0[i])
		}
		if n == 0 {
			continue
		}
		t.summarise(sub, m.secs)
		out = append(out, sub.kindStats(web, n))
	}
	return out
}

// walkIn connects the session and waits until it is in the dungeon, it fails, or
// cfg.WalkTimeout has passed since it started; walked is done either way. It reports
// whether the session arrived.
func (s *session) walkIn(ctx context.Context, cfg Config, record func(error), walked *sync.WaitGroup) bool {
	defer walked.Done()
	deadline := time.Now().Add(cfg.WalkTimeout)
	if err := s.connect(ctx, cfg.Addr, deadline); err != nil {
		record(err)
		return false
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-s.arrived:
		return true
	case <-s.readDone:
		s.mu.Lock()
		err := s.readErr
		s.mu.Unlock()
		if err == nil {
			err = errors.New("closed by the run")
		}
		record(fail("closed before arrival", err))
	case <-t.C:
		record(fail("walk-in timeout", fmt.Errorf("not in the dungeon after %s; the screen shows: %s", cfg.WalkTimeout, trimScreen(s.screen()))))
	case <-ctx.Done():
	}
	s.close()
	return false
}

// setUp gives the session its key and its way in: a returning player's key of cfg.Keys
// and returningScript, or (made at its first connection) a new key and gameScript.
func (s *session) setUp(cfg Config) error {
	if cfg.Mode != ModeGame {
		return nil
	}
	s.script = gameScript
	if len(cfg.Keys) > 0 {
		signer, err := cfg.Keys[s.id].signer()
		if err != nil {
			return fmt.Errorf("key %d: %w", s.id, err)
		}
		s.signer, s.script = signer, returningScript
	}
	s.seekDoors = s.active && cfg.Scenario == ScenarioRooms
	s.typist = s.active && cfg.Scenario == ScenarioType
	s.typeBurst = max(cfg.TypeBurst, 1)
	return nil
}

// readProcIf reads the process when pid is not zero.
func readProcIf(pid int) (procSample, error) {
	if pid == 0 {
		return procSample{}, nil
	}
	return readProc(strconv.Itoa(pid))
}

// procStats summarises a process over the window: base is before the first connection,
// a and b the window's start and end.
func procStats(pid int, base, a, b procSample, sessions int) *ProcStats {
	ps := &ProcStats{PID: pid, CPUPercent: cpuPercent(a, b), RSSBaselineKB: base.rssKB, RSSKB: b.rssKB, RSSPeakKB: b.hwmKB}
	if sessions > 0 {
		ps.RSSPerSessionKB = round3(float64(b.rssKB-base.rssKB) / float64(sessions))
		ps.AnonPerSessionKB = round3(float64(b.anonKB-base.anonKB) / float64(sessions))
		ps.FilePerSessionKB = round3(float64(b.fileKB-base.fileKB) / float64(sessions))
	}
	return ps
}

// sleepCtx waits for d, or for ctx to end.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// waitCtx waits for wg, or for ctx to end.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// progress prints how many sessions have connected and arrived every five seconds until
// the returned function is called.
func progress(w io.Writer, sessions []*session, start time.Time) (stop func()) {
	return everyFiveSeconds(w, func() {
		framed, arrived := 0, 0
		for _, s := range sessions {
			s.mu.Lock()
			if s.firstFrame > 0 {
				framed++
			}
			if s.arrival > 0 {
				arrived++
			}
			s.mu.Unlock()
		}
		fmt.Fprintf(w, "%5.0fs  %d/%d drew a frame, %d in the dungeon\n", time.Since(start).Seconds(), framed, len(sessions), arrived)
	})
}

// everyFiveSeconds runs line every five seconds, on a goroutine of its own, until the
// returned function is called; nothing when w, where line writes, is nil.
func everyFiveSeconds(w io.Writer, line func()) (stop func()) {
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				line()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// stalledSoFar counts the sessions already chosen to stall.
func stalledSoFar(ss []*session) int {
	n := 0
	for _, s := range ss {
		if s.stallAfterArrival {
			n++
		}
	}
	return n
}
