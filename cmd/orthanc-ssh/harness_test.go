package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/ssh"
	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// testServer is the real server, started in the test on 127.0.0.1:0.
type testServer struct {
	addr string
	dir  string
	stop func() error
}

// testTick is faster than production so a walk takes milliseconds, not seconds.
const testTick = 5 * time.Millisecond

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

// testConfig is the server's configuration in tests: loopback, a fast tick, default limits.
func testConfig(dir string, seed uint64) config {
	return config{addr: "127.0.0.1:0", data: dir, adminKeys: filepath.Join(dir, "admin_keys"),
		seed: seed, tick: testTick, battleGrace: defaultBattleGrace, limits: defaultLimits}
}

// startConfigured starts the real server with cfg on a free loopback port and returns it
// too, so a test can reach its internals (the metrics listener, the engine).
func startConfigured(t *testing.T, cfg config) (*testServer, *server) {
	t.Helper()
	return startLogging(t, cfg, io.Discard)
}

// startLogging is startConfigured with the server's log written to log.
func startLogging(t *testing.T, cfg config, log io.Writer) (*testServer, *server) {
	t.Helper()
	srv, err := newServer(cfg, slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.serve(ctx, ln) }()
	var once sync.Once
	var stopErr error
	ts := &testServer{addr: ln.Addr().String(), dir: cfg.data}
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

// startWorld makes the server with the admins' keys and runs its world, without
// listening: a test calls the server's functions (the command gate, the console) itself.
func startWorld(t testing.TB, admins ...gossh.Signer) *server {
	t.Helper()
	dir := t.TempDir()
	writeAdminKeys(t, dir, admins...)
	srv, err := newServer(testConfig(dir, defaultSeed), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.engine.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done; srv.close() })
	return srv
}

// publicKey is the signer's public key as the SSH server sees a session's.
func publicKey(t testing.TB, s gossh.Signer) ssh.PublicKey {
	t.Helper()
	k, err := ssh.ParsePublicKey(s.PublicKey().Marshal())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dial(t testing.TB, addr string, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            "player",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         5 * time.Second,
	})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return c
}

// runCmd runs a non-PTY command and returns its output and exit status.
func runCmd(t testing.TB, addr string, key gossh.Signer, cmd string) (stdout, stderr string, code int) {
	t.Helper()
	c := dial(t, addr, key)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	err = s.Run(cmd)
	var exit *gossh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitStatus()
	default:
		t.Fatalf("run %q: %v", cmd, err)
	}
	return out.String(), errb.String(), code
}

// whoamiJSON is `whoami --json` for the key.
func whoamiJSON(t testing.TB, addr string, key gossh.Signer) whoami {
	t.Helper()
	out, errOut, code := runCmd(t, addr, key, "whoami --json")
	if code != 0 {
		t.Fatalf("whoami exit %d: %s", code, errOut)
	}
	var w whoami
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		t.Fatalf("whoami --json: %v in %q", err, out)
	}
	return w
}

// terminal is a real SSH session with a PTY whose output feeds a terminal emulator, so a
// test reads the screen the way a player sees it.
type terminal struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser
	mu     sync.Mutex
	em     *vt.Emulator
	raw    bytes.Buffer // every byte the server sent
	done   chan struct{}
}

func openTerminal(t testing.TB, addr string, key gossh.Signer, w, h int, env map[string]string) *terminal {
	t.Helper()
	c := dial(t, addr, key)
	tm, err := startTerminal(t, c, w, h, env, "")
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(tm.close)
	return tm
}

// startTerminal opens a session with a PTY on a connected client, runs cmd (the game's
// shell when empty), and feeds its output to a terminal emulator; the emulator's answers to
// terminal queries go back as input, as a real terminal's would.
func startTerminal(t testing.TB, c *gossh.Client, w, h int, env map[string]string, cmd string) (*terminal, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		return nil, err
	}
	rawIn, err := s.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdin := &lockedWriter{w: rawIn} // keys and the emulator's answers share it
	stdout, err := s.StdoutPipe()
	if err != nil {
		return nil, err
	}
	tm := &terminal{t: t, client: c, sess: s, stdin: stdin, em: vt.NewEmulator(w, h), done: make(chan struct{})}
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		return nil, err
	}
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := tm.em.Read(buf)
			if n > 0 {
				_, _ = stdin.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(tm.done)
		buf := make([]byte, 32*1024)
		for {
			n, err := stdout.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.raw.Write(buf[:n])
				_, _ = tm.em.Write(buf[:n])
				tm.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return tm, nil
}

func (tm *terminal) close() {
	_ = tm.sess.Close()
	_ = tm.client.Close()
	// The emulator is not closed: its Close races with the goroutine reading its answers
	// (vt v0.1.0 reads its closed flag unguarded); that goroutine just stays parked.
}

// screen is the text on the emulated screen now.
func (tm *terminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.em.String()
}

// rawOutput is every byte received so far, escape sequences included.
func (tm *terminal) rawOutput() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.raw.String()
}

// waitFor waits until every want appears on screen and returns the screen.
func (tm *terminal) waitFor(want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := tm.screen()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
)

func (tm *terminal) press(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(tm.stdin, k); err != nil {
			tm.t.Fatalf("send key %q: %v", k, err)
		}
	}
}

// quit leaves the game as a player does (q, then y) and waits for the session to end.
func (tm *terminal) quit() {
	tm.t.Helper()
	tm.press("q")
	tm.waitFor("(y/n)")
	tm.press("y")
	select {
	case <-tm.done:
	case <-time.After(10 * time.Second):
		tm.t.Fatalf("q, y did not end the session:\n%s", tm.screen())
	}
}

// enterDungeon takes a brand-new player from the title screen into the dungeon, naming
// the knight (or pressing Enter at every prompt when name is empty).
func (tm *terminal) enterDungeon(name string) string {
	tm.t.Helper()
	tm.waitFor("Press Enter to begin")
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press(name, keyEnter)
	return tm.waitFor("level 1 of the dungeon", "Depth 1")
}

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openTerminalNoCleanup opens a terminal for a goroutine that may outlive a server process
// (the kill loop): failures return nil instead of failing the test.
func openTerminalNoCleanup(t testing.TB, addr string, key gossh.Signer, w, h int) *terminal {
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "player", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		return nil
	}
	tm, err := startTerminal(t, c, w, h, nil, "")
	if err != nil {
		c.Close()
		return nil
	}
	return tm
}

// waitQuiet waits for text on screen without failing the test.
func (tm *terminal) waitQuiet(want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(tm.screen(), want) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// runCmdQuiet runs a command without failing the test on a connection error.
func runCmdQuiet(addr string, key gossh.Signer, cmd string) (string, string, int) {
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "player", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		return "", err.Error(), -1
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		return "", err.Error(), -1
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	code := 0
	if err := s.Run(cmd); err != nil {
		code = -1
		var exit *gossh.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitStatus()
		}
	}
	return out.String(), errb.String(), code
}

// lockedWriter lets the test's key presses and the emulator's answers to terminal queries
// share the session's input without racing.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }
