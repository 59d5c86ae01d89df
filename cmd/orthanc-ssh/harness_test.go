package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/ssh"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The harness of the cmd tests, in one file: the real server started in the test (or as
// its own process), keys and SSH clients for each identity (a player, an admin, an
// attacker offering the admin's key first), commands run over SSH, terminals read through
// an emulator as a player sees them, waiting (poll is the one polling loop: every wait is a
// use of it), the server's clock (a fake one the test moves), knights seeded into a data
// folder or joined straight into the world, ways through the default dungeon, and reading
// parts of a screen.

// Servers.

// testServer is the real server, started in the test on 127.0.0.1:0.
type testServer struct {
	addr string
	dir  string
	stop func() error
}

// testTick is faster than production so a walk takes milliseconds, not seconds.
const testTick = 5 * time.Millisecond

// testConfig is the server's configuration in tests: loopback, a fast tick, default limits.
func testConfig(dir string, seed uint64) config {
	return config{addr: "127.0.0.1:0", data: dir, adminKeys: filepath.Join(dir, "admin_keys"),
		seed: seed, tick: testTick, battleGrace: defaultBattleGrace, chatHistory: defaultChatHistory, limits: defaultLimits,
		name: "Orthanc", publicAddr: "localhost", guests: true}
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
func hardened(t *testing.T, tweak func(*limits)) *testServer {
	t.Helper()
	cfg := testConfig(t.TempDir(), defaultSeed)
	tweak(&cfg.limits)
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
		out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binPath, ".").CombinedOutput()
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
	cmd := exec.Command(serverBinary(t), "-addr", "127.0.0.1:0", "-data", dir, "-tick", "5ms")
	cmd.Env = append(os.Environ(), "ORTHANC_SEED=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, a
	case <-time.After(20 * time.Second):
		t.Fatal("server did not report its address")
	}
	return nil, ""
}

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

// Keys and clients.

// newKey is a new player's key.
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

// publicKey is the signer's public key as the SSH server sees a session's.
func publicKey(t testing.TB, s gossh.Signer) ssh.PublicKey {
	t.Helper()
	k, err := ssh.ParsePublicKey(s.PublicKey().Marshal())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// clientConfig is how a test's client logs in: as "player", with the keys auth offers.
func clientConfig(auth gossh.AuthMethod) *gossh.ClientConfig {
	return &gossh.ClientConfig{User: "player", Auth: []gossh.AuthMethod{auth},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
}

// dial connects with key.
func dial(t testing.TB, addr string, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return c
}

// foreignSigner offers someone else's public key, which it cannot sign for: the server
// accepts the offer (every key may play), and the "signature" that follows is refused as
// a failed attempt (x/crypto drops the connection on a signature that does not verify,
// so the forgery names an algorithm the server does not take; the attempt then fails and
// the client goes on to its next key, as an attacker's client would).
type foreignSigner struct {
	pub    gossh.PublicKey
	signed atomic.Bool
}

func (f *foreignSigner) PublicKey() gossh.PublicKey { return f.pub }

func (f *foreignSigner) Sign(io.Reader, []byte) (*gossh.Signature, error) {
	f.signed.Store(true)
	return &gossh.Signature{Format: "forged", Blob: []byte("not a signature")}, nil
}

// dialOfferingFirst connects offering first the foreign signer (the admin's public key,
// which it cannot sign for), then its own key.
func dialOfferingFirst(t *testing.T, addr string, foreign *foreignSigner, own gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		return []gossh.Signer{foreign, own}, nil
	})))
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return c
}

// dialBanner connects with key and returns the login banner the server sent, and the
// error of a login it refused.
func dialBanner(t *testing.T, addr string, key gossh.Signer) (banner string, err error) {
	t.Helper()
	var mu sync.Mutex
	cfg := clientConfig(gossh.PublicKeys(key))
	cfg.BannerCallback = func(msg string) error { mu.Lock(); banner += msg; mu.Unlock(); return nil }
	c, err := gossh.Dial("tcp", addr, cfg)
	if err == nil {
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	return banner, err
}

// newKeyFile makes a player's key and writes it as an OpenSSH private key file (mode
// 0600) in a temporary folder, for the real clients.
func newKeyFile(t *testing.T) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "test player")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return signer, path
}

// clientBinary finds a client program, or skips the test saying which package brings it.
func clientBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (Debian package %s); .ci/run installs it", name, pkg)
	}
	return p
}

// client runs a real SSH client program with a deadline and returns what it printed.
func client(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	return out.String(), err
}

// opensshOptions are the ssh options of a test: this key only, no agent, no config, no
// known hosts.
func opensshOptions(keyPath string) []string {
	return []string{"-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "ConnectTimeout=10",
		"-i", keyPath}
}

// holdSilent opens n connections that never send a byte of SSH, closed at the end of the
// test.
func holdSilent(t *testing.T, addr string, n int) {
	t.Helper()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
}

// firstLine connects without speaking SSH and returns the first line the server sends.
func firstLine(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, _ := bufio.NewReader(c).ReadString('\n')
	return line
}

// Commands over SSH.

// runCmd runs a non-PTY command on a new connection with key and returns its output and
// exit status.
func runCmd(t testing.TB, addr string, key gossh.Signer, cmd string) (stdout, stderr string, code int) {
	t.Helper()
	c := dial(t, addr, key)
	defer c.Close()
	return runOn(t, c, cmd)
}

// mustRun runs a non-PTY command on a new connection with key and returns its output;
// the test fails unless it succeeds.
func mustRun(t testing.TB, addr string, key gossh.Signer, cmd string) string {
	t.Helper()
	out, errOut, code := runCmd(t, addr, key, cmd)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
	}
	return out
}

// runOn runs a command on an open client.
func runOn(t testing.TB, c *gossh.Client, cmd string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code, err := runSession(c, cmd)
	if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	return stdout, stderr, code
}

// runCmdQuiet runs a command without failing the test on a connection error (code -1).
func runCmdQuiet(addr string, key gossh.Signer, cmd string) (string, string, int) {
	c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
	if err != nil {
		return "", err.Error(), -1
	}
	defer c.Close()
	out, errOut, code, err := runSession(c, cmd)
	if err != nil {
		return out, err.Error(), -1
	}
	return out, errOut, code
}

// runSession runs cmd in a new session of c: its output, its exit status, and an error
// when it gave none (the connection failed).
func runSession(c *gossh.Client, cmd string) (stdout, stderr string, code int, err error) {
	s, err := c.NewSession()
	if err != nil {
		return "", "", -1, err
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	var exit *gossh.ExitError
	if err := s.Run(cmd); errors.As(err, &exit) {
		code = exit.ExitStatus()
	} else if err != nil {
		return out.String(), errb.String(), -1, err
	}
	return out.String(), errb.String(), code, nil
}

// runJSON runs cmd, which prints one line of JSON, on an open client and reads it as T.
func runJSON[T any](t testing.TB, c *gossh.Client, cmd string) T {
	t.Helper()
	out, errOut, code := runOn(t, c, cmd)
	var v T
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: %v in %q", cmd, err, out)
	}
	return v
}

// whoamiJSON is `whoami --json` for the key, on a new connection.
func whoamiJSON(t testing.TB, addr string, key gossh.Signer) whoami {
	t.Helper()
	c := dial(t, addr, key)
	defer c.Close()
	return runJSON[whoami](t, c, "whoami --json")
}

// whoamiLive is `whoami --json` on the terminal's own connection (a new connection would
// need a handshake place).
func whoamiLive(t *testing.T, tm *terminal) whoami {
	t.Helper()
	return runJSON[whoami](t, tm.client, "whoami --json")
}

// statsJSONOf runs `stats --json` as the admin.
func statsJSONOf(t *testing.T, addr string, admin gossh.Signer) statsJSON {
	t.Helper()
	c := dial(t, addr, admin)
	defer c.Close()
	return runJSON[statsJSON](t, c, "stats --json")
}

// whereIs is a knight's square as whoami tells it.
func whereIs(t *testing.T, addr string, key gossh.Signer) world.Pos {
	t.Helper()
	w := whoamiJSON(t, addr, key)
	return world.Pos{X: w.X, Y: w.Y}
}

// scrape reads /metrics into name → value, for the samples without labels.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// Terminals: a session with a PTY, read through a terminal emulator.

// terminal is a real SSH session with a PTY whose output feeds a terminal emulator, so a
// test reads the screen the way a player sees it.
type terminal struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	proc   *exec.Cmd // a real client program's terminal (openSSHTerminal) in place of client and sess
	stdin  io.WriteCloser
	mu     sync.Mutex
	em     *vt.Emulator
	raw    bytes.Buffer // every byte the server sent
	done   chan struct{}
}

// openTerminal opens the game on a new connection with key, with env set for the
// session.
func openTerminal(t testing.TB, addr string, key gossh.Signer, w, h int, env map[string]string) *terminal {
	t.Helper()
	return terminalOn(t, dial(t, addr, key), w, h, env, "")
}

// openTerminalCmd is openTerminal for a command run with a terminal (ssh -t host CMD),
// or the game's shell when cmd is empty.
func openTerminalCmd(t testing.TB, addr string, key gossh.Signer, w, h int, cmd string) *terminal {
	t.Helper()
	return terminalOn(t, dial(t, addr, key), w, h, nil, cmd)
}

// terminalOn opens a terminal on a connected client: env set, cmd run (the game's shell
// when empty). The end of the test closes it and the client.
func terminalOn(t testing.TB, c *gossh.Client, w, h int, env map[string]string, cmd string) *terminal {
	t.Helper()
	tm, err := startTerminal(t, c, w, h, env, cmd)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(tm.close)
	return tm
}

// openTerminalNoCleanup opens a terminal for a goroutine that may outlive a server process
// (the kill loop): failures return nil instead of failing the test.
func openTerminalNoCleanup(t testing.TB, addr string, key gossh.Signer, w, h int) *terminal {
	c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
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

// startTerminal opens a session with a PTY on a connected client, runs cmd (the game's
// shell when empty), and feeds its output to a terminal emulator; the emulator's answers to
// terminal queries go back as input, as a real terminal's would.
func startTerminal(t testing.TB, c *gossh.Client, w, h int, env map[string]string, cmd string) (*terminal, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	return startTerminalIn(t, c, s, w, h, env, cmd)
}

// startTerminalIn is startTerminal in a session channel of c opened already.
func startTerminalIn(t testing.TB, c *gossh.Client, s *gossh.Session, w, h int, env map[string]string, cmd string) (*terminal, error) {
	var err error
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
	tm.pump(stdout)
	return tm, nil
}

// pump feeds what out shows to the emulator (and raw), closing done when out ends, and
// sends the emulator's answers to terminal queries back as input, as a real terminal's
// would.
func (tm *terminal) pump(out io.Reader) {
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := tm.em.Read(buf)
			if n > 0 {
				_, _ = tm.stdin.Write(buf[:n])
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
			n, err := out.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.raw.Write(buf[:n])
				_, _ = tm.em.Write(buf[:n])
				tm.mu.Unlock()
			}
			if err != nil { // the session or the client has ended (EIO on a pseudo-terminal)
				return
			}
		}
	}()
}

// openSSHTerminal runs the real OpenSSH client with args (opensshArgs' and more) in a
// pseudo-terminal of w×h, as a person runs it in a terminal window, and reads what it
// shows through the emulator. The end of the test ends the client.
func openSSHTerminal(t *testing.T, w, h int, args ...string) *terminal {
	t.Helper()
	bin := clientBinary(t, "ssh", "openssh-client")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(h), Cols: uint16(w)})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, proc: cmd, stdin: &lockedWriter{w: ptmx}, em: vt.NewEmulator(w, h), done: make(chan struct{})}
	tm.pump(ptmx)
	t.Cleanup(tm.close)
	return tm
}

// opensshArgs are the arguments of OpenSSH for a test's connection to addr: no config,
// no known hosts, no agent, the key file if one is given (else no key at all: a person
// who never made one), then more.
func opensshArgs(addr, keyPath string, more ...string) []string {
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "IdentityAgent=none", "-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR", "-p", port}
	if keyPath == "" {
		args = append(args, "-o", "PubkeyAuthentication=no")
	} else {
		args = append(args, "-o", "IdentitiesOnly=yes", "-i", keyPath)
	}
	return append(append(args, more...), "player@"+host)
}

// dialGuest connects with no key, as a guest (keyboard-interactive, which asks nothing).
func dialGuest(addr string) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, clientConfig(gossh.KeyboardInteractive(
		func(string, string, []string, []bool) ([]string, error) { return nil, nil })))
}

// close closes the terminal's session and its client.
func (tm *terminal) close() {
	if tm.proc != nil {
		_ = tm.proc.Process.Kill()
		<-tm.done
		_ = tm.stdin.Close()
		return
	}
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

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
)

// press types keys, each as the terminal sends it.
func (tm *terminal) press(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(tm.stdin, k); err != nil {
			tm.t.Fatalf("send key %q: %v", k, err)
		}
	}
}

// chat opens the chat line, types a line and sends it.
func (tm *terminal) chat(line string) {
	tm.press(keyEnter, line, keyEnter)
}

// quit leaves the game as a player does (q, then y) and waits for the session to end.
func (tm *terminal) quit() {
	tm.t.Helper()
	tm.press("q")
	tm.waitFor("(y/n)")
	tm.press("y")
	if !tm.ended(10 * time.Second) {
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

// continueKnight takes a player whose knight is stored from the title screen back into
// the dungeon.
func (tm *terminal) continueKnight() string {
	tm.t.Helper()
	tm.waitFor("Press Enter to continue your adventure")
	tm.press(keyEnter)
	return tm.waitFor("Depth ")
}

// enterPlain takes a brand-new player in screen-reader mode (play --plain) from the title
// into the dungeon, naming the knight.
func (tm *terminal) enterPlain(name string) {
	tm.t.Helper()
	tm.waitRaw("Screen-reader mode is on", "Press Enter to begin.")
	tm.press(keyEnter)
	tm.waitRaw("The dice have spoken")
	tm.press(keyEnter)
	tm.waitRaw("Name your knight")
	tm.press(name, keyEnter)
	tm.waitRaw("Welcome, " + name + ".")
}

// log opens the message log, waits until it holds every want, and returns to the game.
func (tm *terminal) log(want ...string) string {
	tm.t.Helper()
	tm.press("M")
	s := tm.waitFor(append([]string{"MESSAGES AND CHAT"}, want...)...)
	tm.press("q")
	tm.waitScreen("the game again", func(s string) bool { return !strings.Contains(s, "MESSAGES AND CHAT") })
	return s
}

// exitStatus waits for the session to end and returns its exit status.
func (tm *terminal) exitStatus() int {
	tm.t.Helper()
	if !tm.ended(10 * time.Second) {
		tm.t.Fatalf("the session did not end:\n%s", tm.screen())
	}
	if tm.proc != nil {
		_ = tm.proc.Wait()
		return tm.proc.ProcessState.ExitCode()
	}
	var exit *gossh.ExitError
	switch err := tm.sess.Wait(); {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitStatus()
	default:
		tm.t.Fatalf("wait: %v", err)
		return -1
	}
}

// rawGame opens a game session with a PTY on a fresh connection whose screen is thrown
// away (no terminal emulator, whose goroutines would outlive the test's count).
func rawGame(t *testing.T, addr string) (*gossh.Client, *gossh.Session, io.WriteCloser) {
	t.Helper()
	c := dial(t, addr, newKey(t))
	s, in := rawShell(t, c)
	return c, s, in
}

// rawShell opens the game's shell with an 80×24 PTY on a connected client, its output
// thrown away, and returns the session and its input.
func rawShell(t *testing.T, c *gossh.Client) (*gossh.Session, io.WriteCloser) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.Stdout, s.Stderr = io.Discard, io.Discard
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	return s, in
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

// Waiting.

// pollEvery is how often a wait looks again.
const pollEvery = 20 * time.Millisecond

// poll calls cond every interval until it holds, for at most within, and reports whether
// it held. It is the one polling loop of the tests: the waits below are uses of it, and a
// test that must act between looks (a key to press again) does so in cond.
func poll(within, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
	return true
}

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(10*time.Second, pollEvery, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// waitFor waits until every want appears on screen and returns the screen.
func (tm *terminal) waitFor(want ...string) string {
	tm.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = tm.screen(); return containsAll(s, want) }) {
		tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
	}
	return s
}

// waitRaw waits until every want appears in the bytes the server sent (screen-reader mode
// prints whole lines, so its text is there as sent).
func (tm *terminal) waitRaw(want ...string) string {
	tm.t.Helper()
	return tm.waitRawFor(fmt.Sprintf("%q", want), func(s string) bool { return containsAll(s, want) })
}

// waitRawFor waits until cond holds for the bytes the server sent, and returns them.
func (tm *terminal) waitRawFor(what string, cond func(string) bool) string {
	tm.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = tm.rawOutput(); return cond(s) }) {
		tm.t.Fatalf("output never held %s; it holds:\n%s", what, s)
	}
	return s
}

// waitScreen waits until cond holds for the screen, and returns it.
func (tm *terminal) waitScreen(what string, cond func(string) bool) string {
	tm.t.Helper()
	var s string
	if !poll(15*time.Second, pollEvery, func() bool { s = tm.screen(); return cond(s) }) {
		tm.t.Fatalf("screen never showed %s; it shows:\n%s", what, s)
	}
	return s
}

// waitQuiet waits for text on screen without failing the test.
func (tm *terminal) waitQuiet(want string, d time.Duration) bool {
	return poll(d, pollEvery, func() bool { return strings.Contains(tm.screen(), want) })
}

// ended waits for the terminal's session to end, for at most within, and reports whether
// it did.
func (tm *terminal) ended(within time.Duration) bool {
	select {
	case <-tm.done:
		return true
	case <-time.After(within):
		return false
	}
}

// finalOutput is every byte the server sent, once the session has ended (as a shutdown
// ends it): the last bytes may still be on their way when the server has stopped.
func (tm *terminal) finalOutput() string {
	tm.t.Helper()
	if !tm.ended(10 * time.Second) {
		tm.t.Fatalf("the session did not end:\n%s", tm.screen())
	}
	return tm.rawOutput()
}

// containsAll reports whether s holds every one of want.
func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
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
func clockedConfig(t *testing.T) (config, gossh.Signer, *fakeClock) {
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

// Knights and the dungeon.

// seedKnight writes a knight for key into a data folder before the server starts, so an
// end-to-end test can begin from a given state.
func seedKnight(t *testing.T, dir string, key gossh.Signer, edit func(*world.Adventurer)) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The knight's id is its key's fingerprint, as for a knight from before keys were
	// several (store schema 1).
	fp := keys.Fingerprint(key.PublicKey())
	a := world.NewAdventurer(fp, "Seeded", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	edit(&a)
	if err := st.Save(store.Batch{Adventurers: []world.Adventurer{a}, Keys: []store.Key{{Fingerprint: fp, Knight: fp, Added: time.Now()}}}); err != nil {
		t.Fatal(err)
	}
}

// loadKnightOfKey reads the knight a key plays from a store.
func loadKnightOfKey(t *testing.T, st *store.Store, key gossh.Signer) (world.Adventurer, error) {
	t.Helper()
	k, err := st.KeyOf(keys.Fingerprint(key.PublicKey()))
	if err != nil {
		return world.Adventurer{}, err
	}
	return st.LoadAdventurer(k.Knight)
}

// seedFame puts retired knights into the hall of fame before the server starts.
func seedFame(t *testing.T, dir string, names ...string) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var fame []store.FameEntry
	for i, n := range names {
		a := world.NewAdventurer("SHA256:fame-"+n, n, world.Stats{Str: 12, Int: 12, Con: 12, Dex: 12}, 12)
		a.Level, a.Experience = 10-i, 900000-1000*i
		a.Retirement = &world.Retirement{Level: a.Level, Experience: a.Experience, PercentKills: 60}
		fame = append(fame, store.FameEntry{Retired: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Adventurer: a})
	}
	if err := st.Save(store.Batch{Fame: fame}); err != nil {
		t.Fatal(err)
	}
}

// viewBox keeps the newest view of a knight joined straight into the engine.
type viewBox struct {
	mu sync.Mutex
	v  world.View
}

func (b *viewBox) Deliver(v world.View) {
	b.mu.Lock()
	b.v = v
	b.mu.Unlock()
}

func (b *viewBox) last() world.View {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.v
}

// joinKnight puts a knight into the world with no connection, as a test's companion, and
// returns it and the box its views go to.
func joinKnight(t *testing.T, e *world.Engine, rec world.Adventurer) (*world.Player, *viewBox) {
	t.Helper()
	box := &viewBox{}
	pl, err := e.Join(context.Background(), rec, box)
	if err != nil {
		t.Fatal(err)
	}
	return pl, box
}

// openDir is a direction the knight can walk from the entrance of the default dungeon.
func openDir(t testing.TB) (world.Dir, string) {
	t.Helper()
	l := world.Generate(1, world.LevelSeed(defaultSeed, 1), false)
	keys := map[world.Dir]string{world.North: keyUp, world.South: keyDown, world.East: keyRight, world.West: keyLeft}
	for _, d := range world.Dirs {
		if l.Edge(l.Up, d) == world.EdgeOpen {
			return d, keys[d]
		}
	}
	t.Fatal("the entrance of the default dungeon has no open side")
	return 0, ""
}

// pathTo finds the shortest walk on level 1 of the default dungeon from the entrance to a
// square that goal accepts, through corridor squares free of hazards, as the keys a player
// presses (shifted where the step crosses a door), with the square each key should reach.
func pathTo(t *testing.T, seed uint64, goal func(e *world.Engine, l *world.Level, q world.Pos) bool) (keys []string, squares []world.Pos) {
	t.Helper()
	keys, squares, ok := findPath(seed, goal)
	if !ok {
		t.Fatal("no such square reachable on level 1 of the dungeon")
	}
	return keys, squares
}

func findPath(seed uint64, goal func(e *world.Engine, l *world.Level, q world.Pos) bool) (keys []string, squares []world.Pos, ok bool) {
	e := world.New(world.Config{Seed: seed}) // all levels: the bottom one is built differently
	l := e.Level(1)
	type step struct {
		from world.Pos
		dir  world.Dir
	}
	came := map[world.Pos]step{l.Up: {}}
	queue := []world.Pos{l.Up}
	var end world.Pos
	found := false
	for len(queue) > 0 && !found {
		p := queue[0]
		queue = queue[1:]
		for _, d := range world.Dirs {
			q := p.Step(d)
			if _, seen := came[q]; seen || !l.In(q) || l.Edge(p, d) == world.EdgeWall {
				continue
			}
			came[q] = step{p, d}
			if goal(e, l, q) {
				end, found = q, true
				break
			}
			if !guarded(e, l, q) && l.Trap(q) == world.TrapNone && l.Feature(q) != world.FeatChute && l.Feature(q) != world.FeatPit {
				queue = append(queue, q)
			}
		}
	}
	if !found {
		return nil, nil, false
	}
	arrows := map[world.Dir]string{world.North: "A", world.South: "B", world.East: "C", world.West: "D"}
	for p := end; p != l.Up; {
		s := came[p]
		k := "\x1b[" + arrows[s.dir]
		if l.Edge(s.from, s.dir) != world.EdgeOpen {
			k = "\x1b[1;2" + arrows[s.dir] // shift+arrow opens the door
		}
		keys = append([]string{k}, keys...)
		squares = append([]world.Pos{p}, squares...)
		p = s.from
	}
	return keys, squares, true
}

// guarded reports whether q lies in a room with a monster in it.
func guarded(e *world.Engine, l *world.Level, q world.Pos) bool {
	r := l.RoomAt(q)
	if r < 0 {
		return false
	}
	for _, m := range e.Monsters(1) {
		if l.RoomAt(m.Pos) == r {
			return true
		}
	}
	return false
}

// pathToGuard is the way into the nearest room with a monster in it.
func pathToGuard(t *testing.T) ([]string, []world.Pos) {
	return pathTo(t, defaultSeed, guarded)
}

// stepOut presses the key that leads off the entrance of the default dungeon and waits
// until ask, a whoami of the knight, shows it has left from's square; it returns that
// whoami.
func (tm *terminal) stepOut(what string, from whoami, ask func() whoami) whoami {
	tm.t.Helper()
	_, k := openDir(tm.t)
	tm.press(k)
	var w whoami
	waitUntil(tm.t, what, func() bool { w = ask(); return w.X != from.X || w.Y != from.Y })
	return w
}

// walk presses the keys of a path, waiting for whoami to show each square (a locked door
// may hold: the knight throws itself at it again).
func walk(t *testing.T, tm *terminal, addr string, key gossh.Signer, keys []string, squares []world.Pos) {
	t.Helper()
	for i, k := range keys {
		want := squares[i]
		var w whoami
		if !poll(20*time.Second, 60*time.Millisecond, func() bool {
			if w = whoamiJSON(t, addr, key); w.X == want.X && w.Y == want.Y {
				return true
			}
			tm.press(k)
			return false
		}) {
			t.Fatalf("step %d: stuck at %d,%d on the way to %v\n%s", i, w.X, w.Y, want, tm.screen())
		}
	}
}

// walkSurely presses the keys of a path one at a time, each only once the knight stands
// where the one before took it, so a slow machine never makes it step twice.
func walkSurely(t *testing.T, tm *terminal, addr string, key gossh.Signer, keys []string, squares []world.Pos) {
	t.Helper()
	at := whereIs(t, addr, key)
	for i, k := range keys {
		want := squares[i]
		if !poll(20*time.Second, 0, func() bool {
			if at == want {
				return true
			}
			tm.press(k)
			poll(time.Second, pollEvery, func() bool { // the step, or a second more for it
				if now := whereIs(t, addr, key); now != at && now != want {
					t.Fatalf("step %d: the knight went to %v, not %v\n%s", i, now, want, tm.screen())
				} else {
					at = now
				}
				return at == want
			})
			return at == want
		}) {
			t.Fatalf("step %d: stuck at %v on the way to %v\n%s", i, at, want, tm.screen())
		}
	}
}

// seedAtTheGuardsDoor writes a knight for key, made by edit, standing on the square
// before the nearest room with a monster in it, and returns the step into the room: its
// key and its square.
func seedAtTheGuardsDoor(t *testing.T, dir string, key gossh.Signer, edit func(*world.Adventurer)) (in []string, room []world.Pos) {
	t.Helper()
	keys, squares := pathToGuard(t)
	door := squares[len(squares)-2]
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		edit(a)
		a.X, a.Y = door.X, door.Y
	})
	return keys[len(keys)-1:], squares[len(squares)-1:]
}

// firstMarket is the surface's first market (the one every server stocks with potions:
// every other market does, from the first) and a common space beside it, with the keys
// that step from one to the other.
func firstMarket(t *testing.T, seed uint64) (market, common world.Pos, there, back string) {
	t.Helper()
	g := world.GenerateSurface(seed, world.DefaultSurfaceSize)
	steps := []struct {
		dx, dy      int
		there, back string
	}{{1, 0, keyRight, keyLeft}, {-1, 0, keyLeft, keyRight}, {0, 1, keyDown, keyUp}, {0, -1, keyUp, keyDown}}
	for i, k := range g.Cells {
		if k != world.SurfaceMarket {
			continue
		}
		market = world.Pos{X: i % g.W, Y: i / g.W}
		for _, s := range steps {
			if c := (world.Pos{X: market.X + s.dx, Y: market.Y + s.dy}); g.At(c) == world.SurfaceCommon {
				return market, c, s.there, s.back
			}
		}
		t.Fatalf("the first market at %v has no common space beside it", market)
	}
	t.Fatal("the surface has no market")
	return
}

// Reading part of a screen.

// screenWords is text with its whitespace made single spaces.
func screenWords(s string) string { return strings.Join(strings.Fields(s), " ") }

// screenArea is columns [x0, x1) of every line of a screen, the lines joined with spaces:
// a text wrapped within those columns reads whole in it.
func screenArea(screen string, x0, x1 int) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		r := []rune(l)
		b.WriteString(string(r[min(x0, len(r)):min(x1, len(r))]))
		b.WriteByte(' ')
	}
	return screenWords(b.String())
}

// panelArea is the columns inside the battle panel of a screen (none when it has none).
func panelArea(screen string) (x0, x1 int) {
	for _, l := range strings.Split(screen, "\n") {
		for _, title := range []string{"┌─ BATTLE", "┌─ FIGHT"} {
			if i := strings.Index(l, title); i >= 0 {
				x := len([]rune(l[:i]))
				return x + 2, x + len([]rune(l[i:])) - 2 // the panel's corner ends the line
			}
		}
	}
	return 0, 0
}

// panelText is the text inside the battle panel of a screen, its lines joined with spaces
// and its whitespace made single: a log line the panel wraps reads whole in it.
func panelText(screen string) string {
	x0, x1 := panelArea(screen)
	return screenArea(screen, x0, x1)
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
