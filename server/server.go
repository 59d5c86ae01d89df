package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/webhook"
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
	activeRefresh = 100 * time.Millisecond
)

// crowdPerCore is how many active players a core shows others' doings to every
// activeRefresh: with more, the world shows them less often in proportion, up to once a
// round (world.Config.CrowdRefresh). On two cores 1000 walkers were drawn at 10 frames a
// second with a p99 of 43 ms, and 2000 at 10 with 167 ms, at 5 with 122; at 500 a core
// 2000 still passed 100 ms (103–117), at 400, a round's period from 2000 active on two
// cores, it is 68–73 (docs/PERFORMANCE.md).
const crowdPerCore = 400

// farewellMessage is what every player's screen says when the server goes down.
const farewellMessage = "The server is going down for now. Your knight is saved where it stands."

// farewellWait is how long shutdown lets sessions close themselves after the farewell
// before it closes every connection.
const farewellWait = 2 * time.Second

// shutdownGrace bounds how long shutdown waits for sessions to save and close.
const shutdownGrace = 5 * time.Second

// Errors New marks, for the advice at start: the host key could not be loaded or made;
// the metrics' or the web page's address could not be listened on.
var (
	ErrHostKey     = errors.New("host key")
	ErrMetricsAddr = errors.New("-metrics-addr")
	ErrHTTPAddr    = errors.New("-http-addr")
)

// Server is the running game: store, world engine and SSH listener.
type Server struct {
	cfg   Config
	log   *slog.Logger
	store *store.Store
	saver *store.Saver
	// knights is where the knights are kept, read and written: the store and its saver
	// for a server alone, etcd for a realm; chosen once, in New.
	knights knights.Keeper
	// keeperNeeds is what the keeper needs of the server beyond its contract (keeper.go).
	keeperNeeds keeperNeeds
	// realm is the server's place among the realms (realm.go); nil for a server alone.
	// Only the wiring reads it.
	realm *realmSide
	// talk is the talk with the other realms (realmtalk.go): noTalk without it.
	talk talker
	// recorder and replayWriter record the knights' play (replays.go); nil when replays
	// are off. Set before the server takes sessions.
	recorder     *replay.Recorder
	replayWriter *store.ReplayWriter
	engine       *world.Engine
	admins       atomic.Pointer[keys.AllowList] // read again on SIGHUP (reload)
	ssh          *ssh.Server
	live         *edge.Registry // open sessions, for the admin's who and stats
	commands     *command.Table // the command line (commands.go)
	obs          *observer      // tick and save times, metrics
	// limits admits connections (edge.Listener); set by serve before it accepts any.
	limits *edge.Listener
	crash  chan crashed // a panic of the world or the saver, for serve (capacity 1)
	hooks  testHooks

	sessions sync.WaitGroup
	games    gameSessions       // game sessions' models, from the program handler to finish
	plays    plays              // browsers' games (play.go)
	perKey   *edge.KeyLimits    // open sessions per key and guests', for their limits
	names    *knights.NameBook  // knights' names, kept unique; set by openKeeper
	ids      identities         // who each open session is (identity.go)
	codes    *knights.CodeBook  // one-time codes of keys add and guests' claims, set by openKeeper
	arrivals *knights.Arrivals  // which knight a key plays, new knights counted per address; set by openKeeper
	boards   *knights.Standings // the boards of the living, read from the knights; set by openKeeper
	// guestSilences are the silences of guests, which the store never keeps: the
	// moderation commands fill and read them (command.GuestSilences).
	guestSilences command.GuestSilences
	// metrics is the listener /metrics is served on, nil when metrics are off. It is
	// opened with the server, so a bad address fails at start.
	metrics net.Listener
	// httpLn is the listener of the web page, nil when it is off; opened with the server.
	// webPage is the page served on it, set before the SSH listener serves anyone.
	httpLn  net.Listener
	webPage *webpage.Page
	// hook posts the public events (webhook.go); nil without -webhook. Made in New,
	// started and stopped by Serve.
	hook *webhook.Poster
	// hostKey is the server's host key, for the web page's fingerprint.
	hostKey ssh.PublicKey
	// listening is the address the SSH listener has, once serve has it.
	listening atomic.Pointer[string]
	motdText  atomic.Pointer[string] // the message of the day, read at start and on reload
	motdFile  atomic.Pointer[string] // the file it came from, "" for the stored one (reload.go)
	reloading sync.Mutex             // one reload at a time, so each logs what it changed
	// drawers run the game sessions' Update and View (drawers.go).
	drawers *drawers
}

// now is the wall clock of the edge: the configured one, in tests, or the system's.
func (s *Server) now() time.Time {
	if s.cfg.clock != nil {
		return s.cfg.clock()
	}
	return time.Now()
}

// New opens what the server keeps (its data folder, host key and database; a realm's
// etcd and NATS) and the metrics' and web page's listeners, and makes the world; it
// logs to log. Serve then runs it; Close releases a server that will not serve.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if cfg.Data == "" || cfg.Tick <= 0 {
		return nil, errors.New("server: the configuration needs a data folder and a tick")
	}
	if cfg.AdminKeys == "" {
		cfg.AdminKeys = filepath.Join(cfg.Data, "admin_keys")
	}
	if cfg.MOTDFile == "" {
		cfg.MOTDFile = filepath.Join(cfg.Data, "motd")
	}
	if cfg.Version == "" {
		cfg.Version = "devel"
	}
	signer, keyPath, created, err := keys.LoadOrCreateHostKey(cfg.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrHostKey, err)
	}
	if created {
		log.Info("created host key", "path", keyPath, "fingerprint", keys.Fingerprint(signer.PublicKey()))
	}
	admins, bad, err := keys.LoadAllowList(cfg.AdminKeys)
	if err != nil {
		return nil, fmt.Errorf("admin keys: %w", err)
	}
	noteAdminKeys(log, cfg.AdminKeys, admins, bad)
	st, err := store.Open(filepath.Join(cfg.Data, "orthanc.db"), store.Options{})
	if err != nil {
		return nil, err
	}
	if m, ok := st.Migrated(); ok {
		log.Info("migrated the database", "from_schema", m.From, "to_schema", m.To, "backup", m.Backup)
	}
	for _, d := range st.Quarantined() {
		log.Warn("took a damaged value out of the database", "bucket", d.Bucket, "key", d.Key, "err", d.Err,
			"fix", "nothing to do: the game does without it (a report, a replay); if it comes back, check the disk")
	}
	for _, w := range permissionWarnings(cfg) {
		log.Warn("permissions: "+w.Problem, "path", w.Path, "mode", w.Mode, "fix", w.Fix)
	}
	levels, err := st.Levels()
	if err != nil {
		st.Close()
		return nil, err
	}
	s := &Server{cfg: cfg, log: log, store: st, saver: store.NewSaver(st, log), live: edge.NewRegistry(),
		crash: make(chan crashed, 1), drawers: newDrawers(drawerIdle, drawersKept())}
	s.admins.Store(admins)
	s.perKey = edge.NewKeyLimits(cfg.Limits.MaxPerKey, cfg.Limits.MaxGuestsPerIP, cfg.Limits.MaxGuests)
	if err := s.openKeeper(); err != nil {
		st.Close()
		return nil, err
	}
	if err := s.openWebhook(); err != nil {
		s.closeStores()
		return nil, err
	}
	s.obs = newObserver(s)
	s.hostKey = signer.PublicKey()
	motd, err := s.readMOTD()
	if err != nil {
		s.closeStores()
		return nil, err
	}
	s.useMOTD(motd)
	community, err := s.communityConfig(st)
	if err != nil {
		s.closeStores()
		return nil, err
	}
	community.Abroad = s.talk.abroad()
	s.engine = world.New(world.Config{
		Levels:             levels,
		Seed:               cfg.Seed,
		CheckpointTurns:    max(1, int(checkpointEvery/cfg.Tick)),
		GraceTurns:         max(1, int(cfg.BattleGrace/cfg.Tick)),
		ChatWindowTurns:    max(1, int(chatWindow/cfg.Tick)),
		IdleTurns:          max(1, int(idleAfter/cfg.Tick)),
		SafeTurns:          max(1, int(safeArrival/cfg.Tick)),
		Tick:               cfg.Tick,
		IdleRefreshTurns:   max(1, int(idleRefresh/cfg.Tick)),
		ActiveRefreshTurns: max(1, int(activeRefresh/cfg.Tick)),
		CrowdRefresh:       crowdPerCore * runtime.GOMAXPROCS(0),
		Saver:              worldSaver{s.knights, s.saver},
		Community:          community,
		Herald:             s.herald(),
		Week:               world.WeekOf(s.now()), // the boards' week; runTicks tells it the next
	})
	s.commands = s.newCommands()
	login := s.login()
	s.ssh, err = wish.NewServer(
		func(srv *ssh.Server) error {
			srv.AddHostKey(signer)
			srv.ConnCallback = s.wrapConn                   // counts bytes sent
			srv.ServerConfigCallback = login.ServerConfig   // algorithms, and the login's callbacks
			srv.ConnectionFailedCallback = login.ConnFailed // counts failed handshakes and forged signatures
			srv.ConnectionCloseCallback = func(c net.Conn) { s.limits.Forget(c.RemoteAddr().String()) }
			srv.HandshakeTimeout = cfg.Limits.HandshakeTimeout
			srv.MaxTimeout = cfg.Limits.MaxLifetime
			// Only plain sessions: no port, agent or X11 forwarding, and bounded requests.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": edge.SessionChannel}
			return nil
		},
		// Every key may play but a banned one; a connection the limits refuse is told why
		// in the login banner (edge.Login).
		wish.WithPublicKeyAuth(login.CheckKey),
		wish.WithKeyboardInteractiveAuth(login.Guest), // guests: no key (refused when -guests=false)
		wish.WithBannerHandler(login.Banner),
		wish.WithMiddleware(s.middleware()...), // middleware.go, in chain order
	)
	if err != nil {
		s.closeStores()
		return nil, fmt.Errorf("ssh server: %w", err)
	}
	if s.metrics, err = s.listenMetrics(); err != nil {
		s.closeStores()
		return nil, fmt.Errorf("%w: %w", ErrMetricsAddr, err)
	}
	if s.httpLn, err = s.listenHTTP(); err != nil {
		err = fmt.Errorf("%w: %w", ErrHTTPAddr, err)
		if s.metrics != nil {
			_ = s.metrics.Close()
		}
		s.closeStores()
		return nil, err
	}
	return s, nil
}

// Serve runs the world, the saver and the SSH server on ln until ctx ends, then shuts
// down in order: stop accepting, close sessions (each saves its knight), save every
// knight still in the world, stop the world, write everything, close the store.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	worldCtx, stopWorld := context.WithCancel(context.Background())
	worldDone := make(chan struct{})
	ticksDone := make(chan struct{})
	s.hook.Start() // before the world, whose tidings it takes
	// The engine gets no ticker: runTicks steps it, timing each step at the edge.
	go s.keepGoing("world", worldDone, func() { s.engine.Run(worldCtx, nil) })
	go s.keepGoing("tick loop", ticksDone, func() { s.runTicks(worldCtx) })
	metricsCtx, stopMetrics := context.WithCancel(context.Background())
	defer stopMetrics()
	if s.metrics != nil {
		s.log.Info("metrics", "addr", s.metrics.Addr().String(), "path", "/metrics")
		go s.serveMetrics(metricsCtx, s.metrics)
	}
	replayCtx, stopReplays := context.WithCancel(context.Background())
	replaysDone := s.startReplays(replayCtx)
	if s.httpLn != nil { // after the replays' writer is made: the page reads it
		s.log.Info("web page", "addr", s.httpLn.Addr().String()) // before "listening", which tools wait for
		s.webPage = s.page()
	}
	realmCtx, stopRealm := context.WithCancel(context.Background())
	defer stopRealm()
	for _, run := range s.keeperNeeds.background {
		go run(realmCtx)
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

	listening := ln.Addr().String()
	s.listening.Store(&listening)
	s.log.Info("listening", "addr", ln.Addr().String(), "data", s.cfg.Data, "seed", s.cfg.Seed, "tick", s.cfg.Tick)
	serveErr := make(chan error, 1)
	s.limits = edge.NewListener(ln, s.cfg.Limits.Limits, func(reason string, addr net.Addr) {
		// Closed before SSH begins, perhaps by the thousand: counted, logged quietly.
		s.obs.refusals.WithLabelValues(reason).Inc()
		s.log.Debug("connection refused", "reason", reason, "addr", addr.String())
	})
	if s.webPage != nil { // after the limits: its games take places in them
		go s.webPage.Serve(metricsCtx, s.httpLn)
	}
	s.talk.start(realmCtx, s) // once the address players reach it at is known
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
	// A disk that cannot be written to (full, say) is retried for -save-retry, the players
	// told and still playing, before anyone is sent away; what is left then is retried
	// until the same deadline after they have gone.
	saveUntil := time.Now().Add(s.cfg.SaveRetry)
	if ferr := s.flushRetrying(saveUntil, s.tellUnsaved); ferr != nil {
		s.log.Error("shutting down with unsaved records", "err", ferr)
	}
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
	s.talk.close() // the other realms told this one is going
	saveCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	n, _ := s.engine.SaveAll(saveCtx)
	cancel()
	stopWorld()
	<-worldDone
	<-ticksDone
	s.hook.Stop(webhookGrace) // the world's last tidings, and any broadcast, posted if they can be
	stopReplays()
	replaysDone()
	stopSaver()
	<-saverDone
	if ferr := s.flushRetrying(saveUntil, nil); ferr != nil && err == nil {
		err = ferr
	}
	stopRealm()
	if rerr := s.closeKeeper(); rerr != nil {
		// Checking in, the letters or the lease's revoke did not reach etcd: a knight
		// still claimed is free once the lease lapses, at its last checkpoint.
		s.log.Error("the stop did not reach the knights' records; knights still claimed are freed when the lease lapses, at their last checkpoints", "err", rerr)
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
	flush    func() error                               // runs before each flush of shutdown; an error stands for a failed write (a full disk)
}

// keepGoing runs fn (the world's or the saver's loop) and closes done when it returns. A
// panic is recovered here, where its stack is still known, and handed to serve, which
// stops the server.
func (s *Server) keepGoing(where string, done chan<- struct{}, fn func()) {
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

// flushRetrying writes what the saver holds, retrying a failed write every second or so
// until it succeeds or until; tell, when set, is called at the first failure and then
// every 30 s. It returns the last failure.
func (s *Server) flushRetrying(until time.Time, tell func(left time.Duration, err error)) error {
	told := time.Time{}
	for {
		err := s.finalFlush()
		if err == nil || !time.Now().Before(until) {
			return err
		}
		left := time.Until(until).Round(time.Second)
		s.log.Error("cannot save: retrying", "records", s.saver.Pending(), "for", left, "err", err)
		if tell != nil && time.Since(told) >= 30*time.Second {
			tell(left, err)
			told = time.Now()
		}
		time.Sleep(min(time.Second, time.Until(until)))
	}
}

// tellUnsaved tells the players that the server, stopping, cannot save yet.
func (s *Server) tellUnsaved(left time.Duration, _ error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = s.engine.Broadcast(ctx, fmt.Sprintf("The server is stopping but cannot save just now (its disk may be full); "+
		"it keeps trying for up to %v. Your knight is safe in the game meanwhile: play on.", left))
}

// finalFlush writes what the saver holds when the server stops. After a panic in the
// saver, the same bug may strike again: that panic is an error here.
func (s *Server) finalFlush() (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("saver panic in the final flush", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("final flush: the saver panicked: %v", r)
		}
	}()
	if s.hooks.flush != nil {
		if err := s.hooks.flush(); err != nil {
			return err
		}
	}
	return s.saver.Flush()
}

// Reload reads the admin keys and the message of the day's file again, logging what
// changed (SIGHUP's; the admin's reload command does the same).
func (s *Server) Reload() { s.reload() }

// Close releases what New opened, for a server that never served: Serve releases it
// all itself when it returns.
func (s *Server) Close() {
	if s.metrics != nil {
		_ = s.metrics.Close()
	}
	if s.httpLn != nil {
		_ = s.httpLn.Close()
	}
	s.closeStores()
}

// closeStores closes the keeper (its knights checked in) and the store.
func (s *Server) closeStores() {
	s.talk.close()
	if err := s.closeKeeper(); err != nil {
		s.log.Error("close the knights' records", "err", err)
	}
	_ = s.store.Close()
}

// worldSaver is where the world hands its records: the knights to the keeper, the
// levels to the saver.
type worldSaver struct {
	knights knights.Keeper
	levels  *store.Saver
}

func (w worldSaver) Put(recs ...world.Adventurer)         { w.knights.Put(recs...) }
func (w worldSaver) PutLevels(states ...world.LevelState) { w.levels.PutLevels(states...) }

// farewell tells every game session, whatever screen it is on, that the server is going
// down; each closes itself (its knight leaves the world and is saved). It returns how
// many were told. Send waits until the program takes the message, so each is sent on its
// own goroutine, which ends when the program does.
func (s *Server) farewell(reason string) int {
	told := 0
	for _, loop := range s.games.programs() {
		go loop.Send(app.Farewell{Reason: reason})
		told++
	}
	for _, prog := range s.plays.programs() {
		go prog.Send(app.Farewell{Reason: reason})
		told++
	}
	return told
}

// sshCommand is how a player connects, as messages and the web page show it: "ssh -p
// PORT HOST" (without -p for port 22), from -public-addr, else this machine's name and
// the port the server listens on.
func (s *Server) sshCommand(flags ...string) string {
	host, port := s.publicHostPort()
	cmd := strings.Join(append([]string{"ssh"}, flags...), " ")
	if port == "22" {
		return cmd + " " + host
	}
	return cmd + " -p " + port + " " + host
}

// publicHostPort is the host and port players connect to.
func (s *Server) publicHostPort() (host, port string) {
	_, port, _ = net.SplitHostPort(s.cfg.Addr)
	if a := s.listening.Load(); a != nil {
		_, port, _ = net.SplitHostPort(*a)
	}
	host = s.cfg.PublicAddr
	if h, p, err := net.SplitHostPort(host); err == nil {
		host, port = h, p
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "2222"
	}
	return host, port
}

// motd is the message of the day, as last set ("" for none).
func (s *Server) motd() string {
	if m := s.motdText.Load(); m != nil {
		return *m
	}
	return ""
}

// setMOTD saves the message of the day and shows it from now on.
func (s *Server) setMOTD(m store.MOTD) error {
	if err := s.store.SetMOTD(m); err != nil {
		return err
	}
	s.motdText.Store(&m.Text)
	return nil
}
