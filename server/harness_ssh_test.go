package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The tests' SSH clients: keys and clients for each identity (a player, an admin, an
// attacker offering the admin's key first, a guest), real client programs, and commands
// run over SSH with their output read back.

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

// clientBinary finds a client program, or skips the test saying which package brings it
// (and notes the skip for the run's summary, testtools.Main).
func clientBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	return testtools.Need(t, pkg, name)
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
func whoamiJSON(t testing.TB, addr string, key gossh.Signer) command.Whoami {
	t.Helper()
	c := dial(t, addr, key)
	defer c.Close()
	return runJSON[command.Whoami](t, c, "whoami --json")
}

// whoamiLive is `whoami --json` on the terminal's own connection (a new connection would
// need a handshake place).
func whoamiLive(t *testing.T, tm *terminal) command.Whoami {
	t.Helper()
	return runJSON[command.Whoami](t, tm.client, "whoami --json")
}

// statsJSONOf runs `stats --json` as the admin.
func statsJSONOf(t *testing.T, addr string, admin gossh.Signer) command.StatsJSON {
	t.Helper()
	c := dial(t, addr, admin)
	defer c.Close()
	return runJSON[command.StatsJSON](t, c, "stats --json")
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
