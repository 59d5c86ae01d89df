package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// checkpointEvery is how much wall time may pass between saves of a moving knight.
const checkpointEvery = 2 * time.Second

// walkLossBound is the most walking a crash (kill -9) takes back, as README and
// OPERATIONS state and TestKillLoop holds: the checkpoint interval, and the moment the
// checkpoint takes to reach the disk (the kill loop measured at most 1.98 s over 50 kills
// on a busy 2-core box, median 1.0 s).
const walkLossBound = checkpointEvery + 500*time.Millisecond

// defaultBattleGrace is how long a hero who holds up the other heroes of its battle has to
// choose before it loses that chance to act (-battle-grace, DESIGN §3): one who has gone
// quiet never freezes the others' fight. A knight alone is never hurried.
const defaultBattleGrace = 30 * time.Second

// safeArrival is the longest a knight that joins is left alone to read its first screen
// (world.DefaultSafeTurns, DESIGN §12 "Fair play"); its first action ends it sooner.
const safeArrival = 10 * time.Second

// chatWindow is the window of chat flood control: a key may send world.ChatLines lines
// within it (the engine counts it in turns of the configured tick).
const chatWindow = 10 * time.Second

// A player that sends nothing for idleAfter is idle, and its screen shows what others do
// only every idleRefresh (world.DefaultIdleTurns, DESIGN §12 "Crowds"): a crowd of idle
// players then costs few frames. An active player's shows it within activeRefresh.
const (
	idleAfter     = 10 * time.Second
	idleRefresh   = time.Second
	activeRefresh = 50 * time.Millisecond
)

// farewellMessage is what every player's screen says when the server goes down.
const farewellMessage = "The server is going down for now. Your knight is saved where it stands."

// farewellWait is how long shutdown lets sessions close themselves after the farewell
// before it closes every connection.
const farewellWait = 2 * time.Second

// shutdownGrace bounds how long shutdown waits for sessions to save and close.
const shutdownGrace = 5 * time.Second

// errHostKey marks an error of loading or creating the host key, for the advice at start.
var errHostKey = errors.New("host key")

// server is the running game: store, world engine and SSH listener.
type server struct {
	cfg    config
	log    *slog.Logger
	store  *store.Store
	saver  *store.Saver
	engine *world.Engine
	admins *keys.AllowList
	ssh    *ssh.Server
	live   *registry // open sessions, for the admin's who and stats
	obs    *observer // tick and save times, metrics
	// limits admits connections (limits.go); set by serve before it accepts any.
	limits *limitListener
	crash  chan crashed // a panic of the world or the saver, for serve (capacity 1)
	hooks  testHooks

	sessions sync.WaitGroup
	games    gameSessions // game sessions' models, from the program handler to finish
	perKey   keyCounter   // open sessions per key, for the per-key limit
	names    nameBook     // knights' names, kept unique (names.go)
	// metrics is the listener /metrics is served on, nil when metrics are off. It is
	// opened with the server, so a bad address fails at start.
	metrics net.Listener
}

func newServer(cfg config, log *slog.Logger) (*server, error) {
	signer, keyPath, created, err := keys.LoadOrCreateHostKey(cfg.data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errHostKey, err)
	}
	if created {
		log.Info("created host key", "path", keyPath, "fingerprint", keys.Fingerprint(signer.PublicKey()))
	}
	admins, bad, err := keys.LoadAllowList(cfg.adminKeys)
	if err != nil {
		return nil, fmt.Errorf("admin keys: %w", err)
	}
	for _, e := range bad {
		log.Warn("admin keys: skipped a bad line", "file", cfg.adminKeys, "err", e)
	}
	st, err := store.Open(filepath.Join(cfg.data, "orthanc.db"), store.Options{})
	if err != nil {
		return nil, err
	}
	for _, w := range permissionWarnings(cfg) {
		log.Warn("permissions: "+w.Problem, "path", w.Path, "mode", w.Mode, "fix", w.Fix)
	}
	levels, err := st.Levels()
	if err != nil {
		st.Close()
		return nil, err
	}
	s := &server{cfg: cfg, log: log, store: st, saver: store.NewSaver(st, log), admins: admins, live: newRegistry(),
		perKey: keyCounter{n: map[string]int{}}, crash: make(chan crashed, 1)}
	s.obs = newObserver(s)
	s.engine = world.New(world.Config{
		Levels:             levels,
		Seed:               cfg.seed,
		CheckpointTurns:    max(1, int(checkpointEvery/cfg.tick)),
		GraceTurns:         max(1, int(cfg.battleGrace/cfg.tick)),
		ChatWindowTurns:    max(1, int(chatWindow/cfg.tick)),
		IdleTurns:          max(1, int(idleAfter/cfg.tick)),
		SafeTurns:          max(1, int(safeArrival/cfg.tick)),
		IdleRefreshTurns:   max(1, int(idleRefresh/cfg.tick)),
		ActiveRefreshTurns: max(1, int(activeRefresh/cfg.tick)),
		Saver:              s.saver,
	})
	s.ssh, err = wish.NewServer(
		func(srv *ssh.Server) error {
			srv.AddHostKey(signer)
			srv.ConnCallback = s.wrapConn               // counts bytes sent
			srv.ServerConfigCallback = s.serverConfig   // algorithms, and the login's callbacks (login.go)
			srv.ConnectionFailedCallback = s.connFailed // counts failed handshakes and forged signatures
			srv.ConnectionCloseCallback = func(c net.Conn) { s.limits.forget(c.RemoteAddr().String()) }
			srv.HandshakeTimeout = cfg.limits.handshakeTimeout
			srv.MaxTimeout = cfg.limits.maxLifetime
			// Only plain sessions: no port, agent or X11 forwarding, and bounded requests.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			return nil
		},
		// Every key may play but a banned one; a connection the limits refuse is told why
		// in the login banner (login.go).
		wish.WithPublicKeyAuth(s.checkKey),
		wish.WithBannerHandler(s.loginBanner),
		wish.WithMiddleware(s.middleware()...), // middleware.go, in chain order
	)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("ssh server: %w", err)
	}
	if s.metrics, err = s.listenMetrics(); err != nil {
		st.Close()
		return nil, err
	}
	return s, nil
}

// serve runs the world, the saver and the SSH server on ln until ctx ends, then shuts
// down in order: stop accepting, close sessions (each saves its knight), save every
// knight still in the world, stop the world, write everything, close the store.
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	worldCtx, stopWorld := context.WithCancel(context.Background())
	worldDone := make(chan struct{})
	ticksDone := make(chan struct{})
	// The engine gets no ticker: runTicks steps it, timing each step at the edge.
	go s.keepGoing("world", worldDone, func() { s.engine.Run(worldCtx, nil) })
	go s.keepGoing("tick loop", ticksDone, func() { s.runTicks(worldCtx) })
	metricsCtx, stopMetrics := context.WithCancel(context.Background())
	defer stopMetrics()
	if s.metrics != nil {
		s.log.Info("metrics", "addr", s.metrics.Addr().String(), "path", "/metrics")
		go s.serveMetrics(metricsCtx, s.metrics)
	}
	saverCtx, stopSaver := context.WithCancel(context.Background())
	saverDone := make(chan struct{})
	go s.keepGoing("saver", saverDone, func() {
		if s.hooks.saverRun != nil {
			s.hooks.saverRun(saverCtx, s.saver)
			return
		}
		s.saver.Run(saverCtx)
	})

	s.log.Info("listening", "addr", ln.Addr().String(), "data", s.cfg.data, "seed", s.cfg.seed, "tick", s.cfg.tick)
	serveErr := make(chan error, 1)
	s.limits = newLimitListener(ln, s.cfg.limits, func(reason string, addr net.Addr) {
		// Closed before SSH begins, perhaps by the thousand: counted, logged quietly.
		s.obs.refusals.WithLabelValues(reason).Inc()
		s.log.Debug("connection refused", "reason", reason, "addr", addr.String())
	})
	go func() { serveErr <- s.ssh.Serve(s.limits) }()

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
		if errors.Is(err, ssh.ErrServerClosed) {
			err = nil
		}
	case c := <-s.crash:
		// Never a server that takes players in but does not tick or save: log the bug,
		// save what can be saved, and exit non-zero for the supervisor to restart it.
		s.log.Error(c.where+" panic: stopping", "panic", c.value, "stack", string(c.stack))
		err = fmt.Errorf("the %s panicked: %v", c.where, c.value)
	}
	s.log.Info("shutting down")
	waited := make(chan struct{})
	go func() { s.sessions.Wait(); close(waited) }()
	// Everyone is told first, so their screens say why; their sessions close themselves
	// and save. Whoever has not gone after farewellWait is cut off with the connections.
	told := s.farewell(farewellMessage)
	select {
	case <-waited:
	case <-time.After(farewellWait):
	}
	_ = s.ssh.Close() // closes the listener and every connection; sessions then leave the world
	select {
	case <-waited:
	case <-time.After(shutdownGrace):
		s.log.Warn("sessions still open after the grace period; saving from the world")
	}
	s.log.Info("sessions closed", "told", told)
	saveCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	n, _ := s.engine.SaveAll(saveCtx)
	cancel()
	stopWorld()
	<-worldDone
	<-ticksDone
	stopSaver()
	<-saverDone
	if ferr := s.finalFlush(); ferr != nil && err == nil {
		err = ferr
	}
	if cerr := s.store.Close(); cerr != nil && err == nil {
		err = cerr
	}
	s.log.Info("stopped", "saved_in_world", n)
	return err
}

// crashed is a panic on the world's, the tick loop's or the saver's goroutine: the
// server cannot go on.
type crashed struct {
	where string
	value any
	stack []byte
}

// testHooks let a test make the world or the saver panic; nil in a real server, and no
// flag sets them.
type testHooks struct {
	step     func()                                     // runs on the world's goroutine before each tick's steps
	saverRun func(ctx context.Context, sv *store.Saver) // runs in place of the saver's Run
}

// keepGoing runs fn (the world's or the saver's loop) and closes done when it returns. A
// panic is recovered here, where its stack is still known, and handed to serve, which
// stops the server.
func (s *server) keepGoing(where string, done chan<- struct{}, fn func()) {
	defer close(done)
	defer func() {
		if r := recover(); r != nil {
			select {
			case s.crash <- crashed{where: where, value: r, stack: debug.Stack()}:
			default: // serve is stopping for another crash already
			}
		}
	}()
	fn()
}

// finalFlush writes what the saver holds when the server stops. After a panic in the
// saver, the same bug may strike again: that panic is an error here.
func (s *server) finalFlush() (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("saver panic in the final flush", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("final flush: the saver panicked: %v", r)
		}
	}()
	return s.saver.Flush()
}

// close releases what newServer opened, for a server that never served.
func (s *server) close() {
	if s.metrics != nil {
		_ = s.metrics.Close()
	}
	_ = s.store.Close()
}

// gameSessions keeps each game session's model, input and output guard from the program
// handler to finish. They cannot be kept in the session's context: that is its
// connection's, shared by every session on the connection, so a command run beside a
// game on one connection (as a multiplexing OpenSSH client does) found the game's model
// there when it finished, and took the knight out of the world.
type gameSessions struct {
	mu sync.Mutex
	m  map[ssh.Session]gameSession
}

// gameSession is what finish needs of a session the program handler took: its model and
// guard (nil for a session it refused with a message), and its input pump.
type gameSession struct {
	model *app.Model
	guard *ioGuard
	input *inputPump
	prog  *tea.Program // for the farewell at shutdown
}

// put records what the program handler made of a session.
func (g *gameSessions) put(sess ssh.Session, gs gameSession) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[ssh.Session]gameSession{}
	}
	g.m[sess] = gs
}

// programs lists the programs of the game sessions open now.
func (g *gameSessions) programs() []*tea.Program {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*tea.Program
	for _, gs := range g.m {
		if gs.prog != nil {
			out = append(out, gs.prog)
		}
	}
	return out
}

// take returns and forgets what the program handler made of a session; ok is false for a
// session it left to the command line.
func (g *gameSessions) take(sess ssh.Session) (gs gameSession, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gs, ok = g.m[sess]
	delete(g.m, sess)
	return gs, ok
}

// farewell tells every game session, whatever screen it is on, that the server is going
// down; each closes itself (its knight leaves the world and is saved). It returns how
// many were told. Send waits until the program takes the message, so each is sent on its
// own goroutine, which ends when the program does.
func (s *server) farewell(reason string) int {
	told := 0
	for _, prog := range s.games.programs() {
		go prog.Send(app.Farewell{Reason: reason})
		told++
	}
	return told
}

// program builds the game for a session with a terminal; sessions without one (or with a
// command other than play) get nil and go on to the command line.
func (s *server) program(sess ssh.Session) *tea.Program {
	ptyReq, _, isPty := sess.Pty()
	cmd := sess.Command()
	if isPty && len(cmd) > 0 && cmd[0] == "watch" {
		return s.watchProgram(sess, cmd[1:]) // spectate.go
	}
	if !isPty || (len(cmd) > 0 && cmd[0] != "play") {
		return nil
	}
	plain, ok := playArgs(cmd)
	if !ok {
		s.refuse(sess, "usage: play [--plain]   (--plain: screen-reader mode)")
		s.games.put(sess, gameSession{})
		return nil
	}
	key := sess.PublicKey() // the key that authenticated, not one the client only offered
	fp := keys.Fingerprint(key)
	var saved *world.Adventurer
	// A knight already in the world (the same key playing elsewhere) is the newest record;
	// joining then takes it over. Otherwise the saver has the newest.
	rec, online, err := s.engine.Lookup(sess.Context(), fp)
	if err == nil && !online {
		rec, err = s.saver.Load(fp)
	}
	switch {
	case err == nil:
		saved = &rec // a dead or retired knight's record: the title offers a new roll
	case !errors.Is(err, store.ErrNotFound):
		s.log.Error("load adventurer", "fingerprint", fp, "err", err)
		wish.Fatalln(sess, "Your knight could not be loaded just now; nothing was changed. Please try again later.")
		s.games.put(sess, gameSession{})
		return nil
	}
	g := s.guardIO(sess)
	m := app.New(sess.Context(), app.Params{
		Fingerprint: fp,
		Saved:       saved,
		Engine:      s.engine,
		Width:       ptyReq.Window.Width,
		Height:      ptyReq.Window.Height,
		Rand:        rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Fame: func() []string {
			list, err := s.scores(fp)
			if err != nil {
				s.log.Error("scores", "err", err)
				return []string{"The hall of fame could not be read just now."}
			}
			return scoreLines(list)
		},
		Admin: s.consoleHook(sess.Context(), key), // nil unless the key is an admin's
		Plain: plain,
		Names: s.namesFor(fp),
		Out:   g,
		Term:  ptyReq.Term,
		Tick:  s.cfg.tick,
	})
	return s.newProgram(sess, m, g)
}

// newProgram makes the Bubble Tea program of a game session. Its renderer is off: the
// model draws its own frames as the cells that changed (app's terminal), where Bubble
// Tea's renderer parses each whole frame back into cells and compares them all, which
// cost two thirds of the server's CPU at 1000 players (docs/PERFORMANCE.md). Its input
// is off too: the session's keys come through an input pump (input.go), which finish
// stops when the program has ended.
func (s *server) newProgram(sess ssh.Session, m *app.Model, g *ioGuard) *tea.Program {
	opts := append(bubbletea.MakeOptions(sess), tea.WithoutSignalHandler(), tea.WithoutRenderer(),
		// The render ticker runs even without a renderer: once a second is its least.
		tea.WithFPS(1),
		tea.WithInput(nil), tea.WithOutput(g)) // after MakeOptions: these input and output win
	prog := tea.NewProgram(m, opts...)
	ptyReq, _, _ := sess.Pty()
	s.games.put(sess, gameSession{model: m, guard: g, input: startInput(g, ptyReq.Term, prog.Send), prog: prog})
	return prog
}
