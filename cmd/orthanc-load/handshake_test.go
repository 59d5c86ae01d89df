package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/rawssh"
)

// The handshake mode against the raw reference server in this process, through the
// command line: every connection logs in, the server counts as many logins, and the
// JSON report says so.
func TestHandshakesRaw(t *testing.T) {
	t.Parallel()
	srv, err := rawssh.New(0)
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, srv.Serve)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-mode", "handshake", "-addr", addr, "-n", "40", "-concurrency", "4",
		"-pid", strconv.Itoa(os.Getpid()), "-json", "-quiet"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stderr.String(), stdout.String())
	}
	var rep HandshakeReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	t.Logf("%+v", rep)
	checkHandshakes(t, &rep, 40, 4)
	// The server counts a login once its side of the handshake has returned, which may be
	// after the client's side has.
	deadline := time.Now().Add(10 * time.Second)
	for srv.Logins() < 40 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if n := srv.Logins(); n != 40 {
		t.Errorf("the server counted %d logins, want 40", n)
	}
	if rep.Server == nil || rep.Server.PID != os.Getpid() || rep.Server.RSSKB <= 0 {
		t.Errorf("server stats %+v", rep.Server)
	}
	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil || !strings.Contains(text.String(), "handshakes/s") {
		t.Errorf("text report (%v):\n%s", err, text.String())
	}
}

// The handshake mode against the game server, built and run as its own process as the
// capacity script runs it: every connection logs in, though none opens a session.
func TestHandshakesGame(t *testing.T) {
	t.Parallel()
	cmd, addr := startGame(t, "-max-per-ip", "100")
	rep, err := RunHandshakes(t.Context(), HandshakeConfig{Addr: addr, N: 30, Concurrency: 5, ServerPID: cmd.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	checkHandshakes(t, rep, 30, 5)
	if rep.Server == nil || rep.Server.PID != cmd.Process.Pid || rep.Server.RSSKB <= 0 {
		t.Errorf("server stats %+v", rep.Server)
	}
}

// The game's per-address limit shows in the errors: past -max-per-ip and the few let
// through to be told why, a connection is refused before SSH begins.
func TestHandshakesGameRefusals(t *testing.T) {
	t.Parallel()
	_, addr := startGame(t, "-max-per-ip", "1")
	// Hold the address's places (one, and the four let through to be told) open.
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil { // the server's version: admitted
			t.Fatal(err)
		}
	}
	rep, err := RunHandshakes(t.Context(), HandshakeConfig{Addr: addr, N: 3, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.LoggedIn != 0 || rep.Failed != 3 || rep.Errors["refused"] != 3 {
		t.Fatalf("logged in %d, failed %d, errors %v %v", rep.LoggedIn, rep.Failed, rep.Errors, rep.ErrorExamples)
	}
	if ex := rep.ErrorExamples["refused"]; !strings.Contains(ex, "too many connections") {
		t.Errorf("refusal %q does not give the server's line", ex)
	}
}

func checkHandshakes(t *testing.T, rep *HandshakeReport, n, concurrency int) {
	t.Helper()
	if rep.Mode != ModeHandshake || rep.N != n || rep.Concurrency != concurrency {
		t.Errorf("mode %q n %d concurrency %d", rep.Mode, rep.N, rep.Concurrency)
	}
	if rep.LoggedIn != n || rep.Failed != 0 || len(rep.Errors) != 0 {
		t.Fatalf("logged in %d, failed %d, errors %v %v", rep.LoggedIn, rep.Failed, rep.Errors, rep.ErrorExamples)
	}
	h, d := rep.Handshake, rep.Dial
	if h.Count != n || d.Count != n || h.P50 <= 0 || h.P50 > h.P95 || h.P95 > h.P99 || h.P99 > h.Max || d.P50 > h.P50 || d.Max > h.Max {
		t.Errorf("handshake %+v, dial %+v", h, d)
	}
	if rep.Seconds <= 0 || rep.HandshakesPerSecond <= 0 || rep.SteadyPerSecond <= 0 {
		t.Errorf("%.3f s, %.1f/s, steady %.1f/s", rep.Seconds, rep.HandshakesPerSecond, rep.SteadyPerSecond)
	}
	// At most Concurrency at once, each taking at least the median's share: the whole run
	// cannot be shorter than the handshakes' total time spread over them.
	if total := h.P50 * float64(n/2) / 1000 / float64(concurrency); rep.Seconds < total*0.9 {
		t.Errorf("run of %.3f s shorter than half the handshakes at the median over %d at once (%.3f s)", rep.Seconds, concurrency, total)
	}
	if rep.Load == nil || rep.Load.PID != os.Getpid() {
		t.Errorf("load tool stats %+v", rep.Load)
	}
}

// Each way a handshake fails is counted under its own kind.
func TestHandshakeErrorKinds(t *testing.T) {
	t.Parallel()
	listen := func(t *testing.T, handle func(net.Conn)) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
		wg.Go(func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				wg.Go(func() { defer c.Close(); handle(c) })
			}
		})
		return ln.Addr().String()
	}
	closedPort := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return addr
	}
	for _, c := range []struct {
		kind string
		addr string
	}{
		{"dial", closedPort(t)},
		{"refused", listen(t, func(c net.Conn) { _, _ = io.WriteString(c, busyLine) })},
		{"closed", listen(t, func(net.Conn) {})},
		{"timeout", listen(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })}, // says nothing until the client goes
		{"auth", listen(t, refuseEveryKey(t))},
	} {
		t.Run(c.kind, func(t *testing.T) {
			rep, err := RunHandshakes(t.Context(), HandshakeConfig{Addr: c.addr, N: 2, Concurrency: 2, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed != 2 || rep.Errors[c.kind] != 2 || rep.LoggedIn != 0 {
				t.Fatalf("failed %d, errors %v %v; want 2 of %s", rep.Failed, rep.Errors, rep.ErrorExamples, c.kind)
			}
		})
	}
}

// busyLine is what the game's limits write before closing a connection they refuse.
const busyLine = "orthanc: the server is busy; try again in a moment\r\n"

// refuseEveryKey is an SSH server's connection handler that refuses every login.
func refuseEveryKey(t *testing.T) func(net.Conn) {
	t.Helper()
	conf := &gossh.ServerConfig{
		PublicKeyCallback: func(gossh.ConnMetadata, gossh.PublicKey) (*gossh.Permissions, error) {
			return nil, errors.New("no")
		},
	}
	conf.AddHostKey(hostSigner(t))
	return func(c net.Conn) { _, _, _, _ = gossh.NewServerConn(c, conf) }
}

func TestSteadyRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var ts []time.Time
	// 10 at once at the start, then one every 10 ms, then 10 at once at the end.
	for range 10 {
		ts = append(ts, t0)
	}
	for i := range 80 {
		ts = append(ts, t0.Add(time.Duration(i+1)*10*time.Millisecond))
	}
	for range 10 {
		ts = append(ts, t0.Add(time.Second))
	}
	if got := steadyRate(ts); got != 100 {
		t.Errorf("steady rate %.3f, want 100 a second", got)
	}
	if got := steadyRate(ts[:19]); got != 0 {
		t.Errorf("steady rate of 19: %.3f, want 0", got)
	}
}

var (
	gameOnce sync.Once
	gamePath string
	gameErr  error
)

// gameBinary builds the game server once for this package's tests.
// TestMain removes the game server gameBinary built, once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if gamePath != "" {
		_ = os.RemoveAll(filepath.Dir(gamePath))
	}
	os.Exit(code)
}

func gameBinary(t *testing.T) string {
	t.Helper()
	gameOnce.Do(func() {
		dir, err := os.MkdirTemp("", "orthanc-load-game")
		if err != nil {
			gameErr = err
			return
		}
		gamePath = filepath.Join(dir, "orthanc-ssh")
		// go test puts the go command that runs it first on the PATH.
		out, err := exec.Command("go", "build", "-o", gamePath, "../orthanc-ssh").CombinedOutput()
		if err != nil {
			gameErr = errors.New(err.Error() + ": " + string(out))
		}
	})
	if gameErr != nil {
		t.Fatalf("build the game server: %v", gameErr)
	}
	return gamePath
}

var listeningLine = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startGame runs the game server on a free loopback port with an empty data folder until
// the test ends and returns it with its address.
func startGame(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(gameBinary(t), append([]string{"-addr", "127.0.0.1:0", "-data", t.TempDir()}, args...)...)
	cmd.Env = append(os.Environ(), "ORTHANC_SEED=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	var logged sync.WaitGroup
	logged.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() { // read to the end, so the server never blocks on its log
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	})
	t.Cleanup(func() { _ = cmd.Process.Kill(); logged.Wait(); _ = cmd.Wait() })
	select {
	case a := <-addr:
		return cmd, a
	case <-time.After(30 * time.Second):
		t.Fatal("the game server did not say where it listens")
	}
	return nil, ""
}

// hostSigner is a fresh ed25519 host key.
func hostSigner(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
