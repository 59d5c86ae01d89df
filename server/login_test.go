package server

import (
	"crypto/rand"
	"crypto/rsa"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// Regression (issue 17): "server full" and "too many connections" were written before
// the SSH banner, so OpenSSH showed only "kex_exchange_identification: Connection
// closed"; and the auth failure log line and its counter never fired for a banned key, a
// forged signature or a refused method.

// sshRun runs OpenSSH's ssh with the key file to run cmd, and returns what it printed.
func sshRun(t *testing.T, addr, keyPath, cmd string) (string, error) {
	t.Helper()
	ssh := clientBinary(t, "ssh", "openssh-client")
	host, port, _ := net.SplitHostPort(addr)
	return client(t, ssh, append(opensshOptions(keyPath), "-p", port, "player@"+host, cmd)...)
}

// OpenSSH shows why a login is refused: the server is full, too many connections from
// the address, a banned key.
func TestRefusalsShownByOpenSSH(t *testing.T) {
	clientBinary(t, "ssh", "openssh-client")
	for _, tc := range []struct {
		name  string
		tweak func(*Limits)
		setup func(t *testing.T, ts *testServer, srv *Server, key gossh.Signer)
		want  string
	}{
		{"server full", func(l *Limits) { l.MaxSessions = 1 }, func(t *testing.T, ts *testServer, _ *Server, _ gossh.Signer) {
			openTerminal(t, ts.addr, newKey(t), 80, 24, nil).waitFor("Press Enter to begin")
		}, "the server is full"},
		{"too many from the address", func(l *Limits) { l.MaxPerIP = 1 }, func(t *testing.T, ts *testServer, _ *Server, _ gossh.Signer) {
			c := dial(t, ts.addr, newKey(t))
			t.Cleanup(func() { c.Close() })
		}, "too many connections from your address"},
		{"banned", func(*Limits) {}, func(t *testing.T, _ *testServer, srv *Server, key gossh.Signer) {
			if err := srv.store.Ban(knights.Ban{Fingerprint: keys.Fingerprint(key.PublicKey()), By: "SHA256:test", At: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}, edge.BannedMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t.TempDir(), defaultSeed)
			tc.tweak(&cfg.Limits)
			ts, srv := startConfigured(t, cfg)
			key, keyPath := newKeyFile(t)
			tc.setup(t, ts, srv, key)
			out, err := sshRun(t, ts.addr, keyPath, "help")
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("ssh: %v, it printed:\n%s", err, out)
			}
			if strings.Contains(out, "kex_exchange_identification") {
				t.Fatalf("refused before SSH began:\n%s", out)
			}
		})
	}
}

// A key banned while its connection is open is turned away at its next session there,
// with the line and status 1.
func TestBanOnAnOpenConnection(t *testing.T) {
	ts, srv := startConfigured(t, testConfig(t.TempDir(), defaultSeed))
	key := newKey(t)
	c := dial(t, ts.addr, key)
	defer c.Close()
	if err := srv.store.Ban(knights.Ban{Fingerprint: keys.Fingerprint(key.PublicKey()), By: "SHA256:test", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runOn(t, c, "whoami"); code != 1 || !strings.Contains(errOut, edge.BannedMessage) {
		t.Fatalf("a session of a key banned meanwhile: exit %d, %q", code, errOut)
	}
}

// A ban made while a session opens, after the session read its bans and before it was
// listed, finds no session to close; the session, finding that a close came meanwhile
// (edge.Registry.Closes), reads its bans again and is turned away.
func TestABanMadeWhileASessionReadsItsBansTurnsItAway(t *testing.T) {
	key := newKey(t)
	fp := keys.Fingerprint(key.PublicKey())
	var srv *Server
	ts := startWrapped(t, testConfig(t.TempDir(), defaultSeed), func(s *Server) {
		srv = s
		s.knights = &banningAfterRead{Keeper: s.knights}
	})
	c := dial(t, ts.addr, key)
	defer c.Close()
	srv.knights.(*banningAfterRead).arm(func() {
		if err := srv.store.Ban(knights.Ban{Fingerprint: fp, By: "SHA256:test", At: time.Now()}); err != nil {
			t.Error(err)
		}
		if n := srv.live.CloseKey(fp, 0); n != 0 { // as the ban command does
			t.Errorf("the ban closed %d sessions; the one opening is not listed yet", n)
		}
	})
	if _, errOut, code := runOn(t, c, "whoami"); code != 1 || !strings.Contains(errOut, edge.BannedMessage) {
		t.Fatalf("a session whose key was banned as it read its bans: exit %d, %q", code, errOut)
	}
}

// banningAfterRead is a keeper that runs a function once, after the next read of a
// key's ban it is armed for: a ban made just after that read.
type banningAfterRead struct {
	knights.Keeper
	mu   sync.Mutex
	then func()
}

func (b *banningAfterRead) arm(then func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.then = then
}

func (b *banningAfterRead) IsBanned(fp string, now time.Time) (bool, error) {
	banned, err := b.Keeper.IsBanned(fp, now)
	b.mu.Lock()
	then := b.then
	b.then = nil
	b.mu.Unlock()
	if then != nil {
		then()
	}
	return banned, err
}

// A login reads its key's ban and its address's at once, at the handshake and again as
// its session opens: records far away cost one round trip for the two, not two. Each
// read here waits for the other kind to be under way, which reads one after the other
// never are.
func TestALoginReadsItsBansAtOnce(t *testing.T) {
	var met *meeting
	ts := startWrapped(t, testConfig(t.TempDir(), defaultSeed), func(s *Server) {
		met = &meeting{Keeper: s.knights}
		s.knights = met
	})
	c := dial(t, ts.addr, newKey(t))
	defer c.Close()
	if _, errOut, code := runOn(t, c, "whoami"); code != 1 || !strings.Contains(errOut, "no knight for key") {
		t.Fatalf("whoami: exit %d, %q", code, errOut)
	}
	met.mu.Lock()
	defer met.mu.Unlock()
	if met.met != 4 || met.alone != 0 {
		t.Fatalf("of the ban reads, %d met one of the other kind under way and %d did not; want 4 and 0 (two of each)", met.met, met.alone)
	}
}

// meeting is a keeper whose reads of a key's ban and of an address's each wait, 5 s at
// most, until one of the other kind is under way too, and count whether one was.
type meeting struct {
	knights.Keeper
	mu         sync.Mutex
	waiting    [2]chan struct{} // by kind (0 a key's, 1 an address's): a read waiting
	met, alone int
}

func (m *meeting) meet(kind int) {
	m.mu.Lock()
	if w := m.waiting[1-kind]; w != nil {
		close(w)
		m.waiting[1-kind] = nil
		m.met += 2
		m.mu.Unlock()
		return
	}
	w := make(chan struct{})
	m.waiting[kind] = w
	m.mu.Unlock()
	select {
	case <-w:
	case <-time.After(5 * time.Second):
		m.mu.Lock()
		if m.waiting[kind] == w {
			m.waiting[kind] = nil
			m.alone++
		}
		m.mu.Unlock()
	}
}

func (m *meeting) IsBanned(fp string, now time.Time) (bool, error) {
	m.meet(0)
	return m.Keeper.IsBanned(fp, now)
}

func (m *meeting) IsAddrBanned(a netip.Addr, now time.Time) (bool, string, error) {
	m.meet(1)
	return m.Keeper.IsAddrBanned(a, now)
}

// forger offers pub and signs with another key: a signature of the right form that does
// not verify, as from someone offering another player's public key.
type forger struct {
	pub gossh.PublicKey
	by  gossh.Signer
}

func (f forger) PublicKey() gossh.PublicKey { return f.pub }
func (f forger) Sign(r io.Reader, data []byte) (*gossh.Signature, error) {
	return f.by.Sign(r, data)
}

// A banned key, a forged signature and a refused key algorithm each show in the auth
// failure log line and in orthanc_auth_failures_total, by reason, as OPERATIONS says; a
// client asking which methods there are ("none") does not.
func TestAuthFailuresAreLoggedAndCounted(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.MetricsAddr = "127.0.0.1:0"
	var log lockedBuffer
	ts, srv := startLogging(t, cfg, &log)

	banned := newKey(t)
	if err := srv.store.Ban(knights.Ban{Fingerprint: keys.Fingerprint(banned.PublicKey()), By: "SHA256:test", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := dialBanner(t, ts.addr, banned); err == nil {
		t.Fatal("a banned key logged in")
	}

	victim := newKey(t)
	if _, err := dialBanner(t, ts.addr, forger{pub: victim.PublicKey(), by: newKey(t)}); err == nil {
		t.Fatal("a forged signature logged in")
	}

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaSigner, err := gossh.NewSignerFromKey(rsaKey)
	if err != nil {
		t.Fatal(err)
	}
	sha1Only, err := gossh.NewSignerWithAlgorithms(rsaSigner.(gossh.AlgorithmSigner), []string{gossh.KeyAlgoRSA})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dialBanner(t, ts.addr, sha1Only); err == nil {
		t.Fatal("an RSA key signing with SHA-1 logged in")
	}

	want := map[string]string{
		edge.AuthBanned:    "fingerprint=" + keys.Fingerprint(banned.PublicKey()),
		edge.AuthSignature: "method=publickey",
		edge.AuthMethod:    "ssh-rsa",
	}
	waitUntil(t, "the three failures to be counted", func() bool {
		m := scrape(t, srv.metrics.Addr().String())
		for reason := range want {
			if m[`orthanc_auth_failures_total{reason="`+reason+`"}`] != 1 {
				return false
			}
		}
		return true
	})
	lines := strings.Split(log.String(), "\n")
	for reason, detail := range want {
		found := false
		for _, l := range lines {
			found = found || (strings.Contains(l, `msg="auth failure"`) && strings.Contains(l, "reason="+reason) && strings.Contains(l, detail))
		}
		if !found {
			t.Errorf("no auth failure line for %s with %s in the log:\n%s", reason, detail, log.String())
		}
	}
	if n := strings.Count(log.String(), `msg="auth failure"`); n != 3 {
		t.Errorf("%d auth failure lines, want 3:\n%s", n, log.String())
	}
	// A key that signs still plays.
	if _, _, code := runCmd(t, ts.addr, newKey(t), "help"); code != 0 {
		t.Fatal("a good key was refused")
	}
}
