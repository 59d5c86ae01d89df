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
	// Scenario is how the active sessions walk in game mode: ScenarioWalk (the default)
	// or ScenarioRooms.
	Scenario string

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

func (c *Config) check() error {
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
	case c.Mode != ModeGame && c.Mode != ModeBare:
		return fmt.Errorf("-mode %q: must be %s or %s", c.Mode, ModeGame, ModeBare)
	case len(c.Keys) > 0 && len(c.Keys) < c.N:
		return fmt.Errorf("-n %d: the keys file has only %d keys", c.N, len(c.Keys))
	case len(c.Keys) > 0 && c.Mode != ModeGame:
		return fmt.Errorf("-keys: returning players need -mode %s", ModeGame)
	case c.RestartAfter < 0:
		return fmt.Errorf("-restart-after %s: must not be negative", c.RestartAfter)
	case c.RestartAfter > 0 && c.ServerPID == 0:
		return errors.New("-restart-after needs -pid, the server to restart")
	case c.RestartAfter >= c.Duration:
		return fmt.Errorf("-restart-after %s: must fall inside the window (-duration %s)", c.RestartAfter, c.Duration)
	}
	if c.Scenario == "" {
		c.Scenario = ScenarioWalk
	}
	switch {
	case c.Scenario != ScenarioWalk && c.Scenario != ScenarioRooms:
		return fmt.Errorf("-scenario %q: must be %s or %s", c.Scenario, ScenarioWalk, ScenarioRooms)
	case c.Scenario != ScenarioWalk && c.Mode != ModeGame:
		return fmt.Errorf("-scenario %s needs -mode %s", c.Scenario, ModeGame)
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

// isActive spreads the active sessions evenly over the N (and so over the ramp).
func isActive(i, active, n int) bool { return (i+1)*active/n > i*active/n }

// Run opens the sessions, walks them in, measures the window and closes everything. It
// returns within about Ramp + WalkTimeout + Duration + Drain + 10 s, sooner when ctx ends
// (the report then covers what was measured).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	pid := strconv.Itoa(cfg.ServerPID)
	var srvBase, loadBase procSample
	var err error
	if cfg.ServerPID != 0 {
		if srvBase, err = readProc(pid); err != nil {
			return nil, fmt.Errorf("server pid %d: %w", cfg.ServerPID, err)
		}
	}
	loadBase, _ = readProc("self")

	win := &window{}
	sessions := make([]*session, cfg.N)
	for i := range sessions {
		s := newSession(i, isActive(i, cfg.Active, cfg.N), win)
		s.stallAfterArrival = !s.active && stalledSoFar(sessions[:i]) < cfg.Stalled
		if err := s.setUp(cfg); err != nil {
			return nil, err
		}
		sessions[i] = s
	}
	var (
		errMu sync.Mutex
		errs  errorCounts
	)
	record := func(err error) {
		kind := "other"
		if f, ok := errors.AsType[*failure](err); ok {
			kind = f.kind
		}
		errMu.Lock()
		errs.add(kind, err)
		errMu.Unlock()
	}

	var rs *restarter
	if cfg.RestartAfter > 0 {
		if rs, err = newRestarter(cfg, win, record); err != nil {
			return nil, err
		}
	}

	keysCtx, stopKeys := context.WithCancel(ctx)
	defer stopKeys()
	var walked, playing sync.WaitGroup
	start := time.Now()
	walked.Add(cfg.N)
	rampDone := make(chan struct{})
	go func() { // the ramp: start the sessions evenly over cfg.Ramp
		defer close(rampDone)
		for i, s := range sessions {
			at := start.Add(time.Duration(int64(cfg.Ramp) * int64(i) / int64(cfg.N)))
			if d := time.Until(at); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
				}
			}
			if ctx.Err() != nil {
				walked.Add(-(cfg.N - i))
				return
			}
			playing.Add(1)
			go func() {
				defer playing.Done()
				ok := s.walkIn(ctx, cfg, record, &walked)
				if ok && s.active {
					rng := rand.New(rand.NewPCG(cfg.Seed, uint64(s.id)))
					if err := s.play(keysCtx, cfg.Rate, rng); err != nil {
						record(err)
					}
				}
			}()
		}
	}()
	stopProgress := progress(cfg.Progress, sessions, start)
	waitCtx(ctx, &walked)
	stopProgress()

	// The window.
	var rep Report
	rep.LoadAverage[0] = loadAverage()
	win.start.Store(time.Now().UnixNano())
	srv0, _ := readProcIf(cfg.ServerPID)
	load0, _ := readProc("self")
	bytes0 := make([]int64, len(sessions))
	for i, s := range sessions {
		bytes0[i] = s.bytes.Load()
	}
	var (
		samples  []statsSample
		statErrs int
		statsWG  sync.WaitGroup
	)
	statsCtx, stopStats := context.WithCancel(ctx)
	sample := func() {
		st, err := fetchStats(ctx, cfg.Addr, cfg.AdminKey)
		if err != nil {
			statErrs++
			record(fail("stats", err))
			return
		}
		samples = append(samples, st)
	}
	if rs != nil {
		go rs.run(ctx, keysCtx, sessions, &playing)
	}
	if cfg.AdminKey != nil {
		statsWG.Add(1)
		go func() {
			defer statsWG.Done()
			sample()
			t := time.NewTicker(cfg.StatsEvery)
			defer t.Stop()
			for {
				select {
				case <-statsCtx.Done():
					return
				case <-t.C:
					sample()
				}
			}
		}()
	}
	select {
	case <-time.After(cfg.Duration):
	case <-ctx.Done():
	}
	winEnd := time.Now()
	win.end.Store(winEnd.UnixNano())
	stopKeys()
	srvPID := cfg.ServerPID
	if rs != nil {
		// The window's server is then the new one: its CPU from its start, its memory
		// against the old one's before the first connection.
		if pid, base := rs.newServer(); pid != 0 {
			srvPID, srv0 = pid, base
		}
	}
	srv1, _ := readProcIf(srvPID)
	load1, _ := readProc("self")
	bytes1 := make([]int64, len(sessions))
	for i, s := range sessions {
		bytes1[i] = s.bytes.Load()
		if rs != nil {
			if b := rs.session(i); b != nil {
				bytes1[i] += b.bytes.Load()
			}
		}
	}
	stopStats()
	statsWG.Wait()
	if cfg.AdminKey != nil && ctx.Err() == nil {
		sample() // the last sample, after the window's last step
	}
	rep.LoadAverage[1] = loadAverage()
	winSecs := winEnd.Sub(time.Unix(0, win.start.Load())).Seconds()

	// Answers to the last keys, then close everything.
	select {
	case <-time.After(cfg.Drain):
	case <-ctx.Done():
	}
	var rst *Restart
	if rs != nil {
		rst = rs.wait() // sessions still coming back finish first
	}
	for i, s := range sessions {
		s.close()
		if rs != nil {
			if b := rs.session(i); b != nil {
				b.close()
			}
		}
	}
	<-rampDone // no session starts after this, so playing.Wait cannot race an Add
	done := make(chan struct{})
	go func() { playing.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		record(fail("close", errors.New("sessions still running 10 s after close")))
	}

	rep.Addr, rep.Mode, rep.N, rep.Active, rep.Rate = cfg.Addr, cfg.Mode, cfg.N, cfg.Active, cfg.Rate
	if cfg.Mode == ModeGame {
		rep.Scenario = cfg.Scenario
		rep.Fights = &Fights{}
	}
	if len(cfg.Keys) > 0 {
		rep.Returning = &Returning{Keys: cfg.N, Depths: map[int]int{}}
	}
	var fightRates []float64
	rep.RampSeconds, rep.WindowSeconds = round3(cfg.Ramp.Seconds()), round3(winSecs)
	var first, arrival, lat []time.Duration
	var bActive, bIdle, uActive, uIdle []float64
	for i, s := range sessions {
		r := s.result()
		if !r.established {
			rep.Failed++
			continue
		}
		if rs != nil {
			if b := rs.session(i); b != nil {
				r.add(b.result())
			}
		}
		rep.Established++
		if rt := rep.Returning; rt != nil {
			rt.Depths[r.depth]++
			if r.depth == cfg.Keys[i].depth {
				rt.OnStoredLevel++
			}
		}
		if f := rep.Fights; f != nil && r.reads {
			f.Sessions++
			f.Started += r.fights.started
			f.Won += r.fights.won
			f.Lost += r.fights.lost
			f.Other += r.fights.other
			f.Deaths += r.fights.deaths
			if winSecs > 0 {
				fightRates = append(fightRates, float64(r.fights.started)/winSecs*60)
			}
		}
		if r.dropped {
			rep.Dropped++
			record(fail("disconnected", r.readErr))
		}
		first = append(first, r.firstFrame)
		arrival = append(arrival, r.arrival)
		lat = append(lat, r.latencies...)
		rep.Keys.Sent += r.sent
		rep.Keys.Answered += len(r.latencies)
		rep.Keys.Unanswered += r.unanswered
		rep.Keys.Recoveries += r.recoveries
		rep.Keys.Overlapped += r.overlapped
		if winSecs > 0 {
			bps := float64(bytes1[i]-bytes0[i]) / winSecs
			burst := float64(r.bursts) / winSecs
			if s.active {
				bActive, uActive = append(bActive, bps), append(uActive, burst)
			} else {
				bIdle, uIdle = append(bIdle, bps), append(uIdle, burst)
			}
		}
	}
	rep.FirstFrame, rep.Arrival, rep.Latency = percentiles(first), percentiles(arrival), percentiles(lat)
	rep.BytesActive, rep.BytesIdle = rates(bActive), rates(bIdle)
	rep.BurstsActive, rep.BurstsIdle = rates(uActive), rates(uIdle)
	if f := rep.Fights; f != nil && winSecs > 0 {
		f.PerMinute = round3(float64(f.Started) / winSecs * 60)
		f.PerSession = rates(fightRates)
	}
	if srvPID != 0 {
		rep.Server = procStats(srvPID, srvBase, srv0, srv1, rep.Established)
	}
	if rs != nil {
		if err := rs.stop(); err != nil {
			record(fail("restart", err))
		}
	}
	if rst != nil {
		rep.Restart = rst
		// Samples of the old server are of another process: the world's figures are the
		// new one's, from when every session was back.
		back := rs.allBack()
		samples = slices.DeleteFunc(samples, func(st statsSample) bool { return st.at.Before(back) })
	}
	if load1.cpuTicks != 0 {
		rep.Load = procStats(os.Getpid(), loadBase, load0, load1, rep.Established)
	}
	if cfg.AdminKey != nil {
		rep.World = summariseWorld(samples, statErrs)
	}
	errMu.Lock()
	rep.Errors, rep.ErrorExamples = errs.counts, errs.examples
	errMu.Unlock()
	if rep.Errors == nil {
		rep.Errors = map[string]int{}
	}
	return &rep, ctx.Err()
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
	}
	return ps
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
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
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
		}
	}()
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
