package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
)

// The tests' servers: the real server started in the test (or as its own process), its
// configuration, its fake clock and its log.

// Servers.

// testServer is the real server, started in the test on 127.0.0.1:0.
type testServer struct {
	addr string
	dir  string
	stop func() error
}

// testTick is faster than production so a walk takes milliseconds, not seconds.
const testTick = 5 * time.Millisecond

// testConfig is the server's configuration in tests: loopback, a fast tick, default limits
// but for new knights, which the tests make by the dozen from one address (testLimits).
func testConfig(dir string, seed uint64) Config {
	return Config{Addr: "127.0.0.1:0", Data: dir, AdminKeys: filepath.Join(dir, "admin_keys"), MOTDFile: filepath.Join(dir, "motd"),
		Seed: seed, Tick: testTick, BattleGrace: defaultBattleGrace, ChatHistory: defaultChatHistory, Limits: testLimits(),
		Web: webpage.DefaultConfig, Name: "Orthanc", PublicAddr: "localhost", Guests: true, ReplayMB: defaultReplayMB,
		Version: testVersion}
}

// testVersion is the version a test server is given, as the command gives its build's.
const testVersion = "v0.0.0-test"

// testKnightsPerHour is the new knights a test server takes from one address in an hour.
const testKnightsPerHour = 1000

// testLimits are the default limits with testKnightsPerHour.
func testLimits() Limits {
	l := defaultLimits
	l.NewKnightsPerHour = testKnightsPerHour
	return l
}

// startServer starts the real server on the data folder, on the default dungeon.
func startServer(t *testing.T, dir string) *testServer {
	t.Helper()
	return startServerSeed(t, dir, defaultSeed)
}

// startServerSeed starts the server on a dungeon of another seed.
func startServerSeed(t *testing.T, dir string, seed uint64) *testServer {
	t.Helper()
	ts, _ := startConfigured(t, testConfig(dir, seed))
	return ts
}

// startConfigured starts the real server with cfg on a free loopback port and returns it
// too, so a test can reach its internals (the metrics listener, the engine).
func startConfigured(t testing.TB, cfg Config) (*testServer, *Server) {
	t.Helper()
	return startLogging(t, cfg, io.Discard)
}

// startLogging is startConfigured with the server's log written to log.
func startLogging(t testing.TB, cfg Config, log io.Writer) (*testServer, *Server) {
	t.Helper()
	return startLogger(t, cfg, slog.New(slog.NewTextHandler(log, nil)))
}

// startLogger is startConfigured with the server logging to log.
func startLogger(t testing.TB, cfg Config, log *slog.Logger) (*testServer, *Server) {
	t.Helper()
	return startChanged(t, cfg, log, func(*Server) {})
}

// startWrapped is startConfigured with change made to the server before it serves (a
// keeper wrapped, say).
func startWrapped(t testing.TB, cfg Config, change func(*Server)) *testServer {
	t.Helper()
	ts, _ := startChanged(t, cfg, slog.New(slog.DiscardHandler), change)
	return ts
}

// startChanged starts a server of cfg logging to log, change made to it before it serves.
func startChanged(t testing.TB, cfg Config, log *slog.Logger, change func(*Server)) (*testServer, *Server) {
	t.Helper()
	srv, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	change(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var stopErr error
	ts := &testServer{addr: ln.Addr().String(), dir: cfg.Data}
	ts.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(15 * time.Second):
				stopErr = errors.New("server did not stop within 15 s")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { _ = ts.stop() })
	return ts, srv
}

// hookedServer is a real server started with test hooks, as the command starts one: its
// log is read as the command's would be, and what Serve returns is the exit code's
// ground (the command exits 1 on an error, 0 on nil).
type hookedServer struct {
	addr   string
	log    *lockedBuffer
	srv    *Server
	stop   context.CancelFunc // as SIGTERM does
	served <-chan error       // what Serve returned, once it has
}

// startHooked starts the real server with cfg and hooks on a free loopback port.
func startHooked(t *testing.T, cfg Config, hooks testHooks) hookedServer {
	t.Helper()
	h := hookedServer{log: &lockedBuffer{}}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(h.log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv.hooks = hooks
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	waitUntil(t, "the server to listen", func() bool { return listeningAddr.MatchString(h.log.String()) })
	h.addr, h.srv, h.stop, h.served = ln.Addr().String(), srv, cancel, served
	return h
}

// startWorld makes the server with the admins' keys and runs its world, without
// listening: a test calls the server's functions (the command gate, the console) itself.
func startWorld(t testing.TB, admins ...gossh.Signer) *Server {
	t.Helper()
	dir := t.TempDir()
	writeAdminKeys(t, dir, admins...)
	srv, err := New(testConfig(dir, defaultSeed), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.engine.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done; srv.Close() })
	return srv
}

// writeAdminKeys writes the admin allow-list into the data folder, as an operator would
// before starting the server.
func writeAdminKeys(t testing.TB, dir string, admins ...gossh.Signer) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# admins of this test server\n")
	for _, a := range admins {
		b.Write(gossh.MarshalAuthorizedKey(a.PublicKey()))
	}
	if err := os.WriteFile(filepath.Join(dir, "admin_keys"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startAdminServer starts the real server with one admin key.
func startAdminServer(t *testing.T) (*testServer, gossh.Signer) {
	t.Helper()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	return startServer(t, dir), admin
}

// hardened starts a server with the default limits changed by tweak.
func hardened(t *testing.T, tweak func(*Limits)) *testServer {
	t.Helper()
	cfg := testConfig(t.TempDir(), defaultSeed)
	tweak(&cfg.Limits)
	ts, _ := startConfigured(t, cfg)
	return ts
}

// listeningAddr finds the address in the log line of a server that listens.
var listeningAddr = regexp.MustCompile(`msg=listening addr=(\S+)`)

// The server binary, built once for the tests that run it as its own process.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// removeServerBinary removes what serverBinary built, once every test has run: a
// binary of some 40 MB a run would otherwise stay in the temporary folder.
func removeServerBinary() {
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
}

// serverBinary builds the server once and returns the binary's path.
func serverBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "orthanc-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "orthanc-ssh")
		// go test puts the go command that runs it first on the PATH.
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/orthanc-ssh").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build server: %v", buildErr)
	}
	return binPath
}

// startProcess runs the server binary on a free port and returns it with its address.
func startProcess(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd, addr, _ := startProcessWith(t, dir)
	return cmd, addr
}

// startProcessWith is startProcess with more flags; metrics is the address the server
// serves /metrics and the profiler on, when a flag asks for one ("" otherwise).
func startProcessWith(t *testing.T, dir string, flags ...string) (cmd *exec.Cmd, addr, metrics string) {
	t.Helper()
	args := append([]string{"-addr", "127.0.0.1:0", "-data", dir, "-tick", "5ms", "-new-knights-per-hour", fmt.Sprint(testKnightsPerHour)}, flags...)
	cmd = exec.Command(serverBinary(t), args...)
	cmd.Env = append(os.Environ(), "ORTHANC_SEED=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var metrics string // logged before "listening"
		for sc.Scan() {
			if m := metricsAddr.FindStringSubmatch(sc.Text()); m != nil {
				metrics = m[1]
			}
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				found <- [2]string{m[1], metrics}
			}
		}
	}()
	select {
	case a := <-found:
		return cmd, a[0], a[1]
	case <-time.After(20 * time.Second):
		t.Fatal("server did not report its address")
	}
	return nil, "", ""
}

// metricsAddr finds the address in the log line of a server that serves metrics.
var metricsAddr = regexp.MustCompile(`msg=metrics addr=(\S+)`)

// waitExit waits for the server process to exit, for at most within, and returns its
// exit status.
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("server still running %v after the signal", within)
		return -1
	}
}

// The clock.

// fakeClock is the server's wall clock in a test (config.clock): it stands still until
// the test moves it, so a timed ban lapses exactly when the test says.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

// clockedConfig is a test server's config in a new folder with one admin key, whose clock
// is a fake one standing at 2025-06-01 14:00 UTC, so moments (a silence's end, a timed
// ban's lapse) are exact.
func clockedConfig(t *testing.T) (Config, gossh.Signer, *fakeClock) {
	t.Helper()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	clock := newFakeClock(time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC))
	cfg := testConfig(dir, defaultSeed)
	cfg.clock = clock.now
	return cfg, admin, clock
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Logs.

// lockedBuffer is a buffer a server's log and a test's polling share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tableRows are the rows of a server's command table.
func tableRows(t testing.TB) []command.Command { return startWorld(t).commands.Rows() }

// runCommandLine runs a command line for key outside a session, through the gate.
func (s *Server) runCommandLine(ctx context.Context, key ssh.PublicKey, args []string, out, errOut io.Writer) int {
	return s.commands.Run(ctx, command.Session{Key: key, Out: out, ErrOut: errOut}, args)
}

// turnOf is the world's turn now: tests that count turns wait on it, not on the clock.
func turnOf(t testing.TB, game *Server) uint64 {
	t.Helper()
	c, err := game.engine.Census(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c.Turn
}
