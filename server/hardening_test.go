package server

import (
	"crypto/rand"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Connections over the per-address limit are refused at login, with a banner saying why;
// when one closes, a new one is let in.
func TestPerAddressLimit(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxPerIP = 2 })
	a, b := dial(t, ts.addr, newKey(t)), dial(t, ts.addr, newKey(t))
	banner, err := dialBanner(t, ts.addr, newKey(t))
	if err == nil || !strings.Contains(banner, "too many connections from your address") {
		t.Fatalf("third connection from one address: banner %q, err %v", banner, err)
	}
	a.Close()
	b.Close()
	waitUntil(t, "a place to free up", func() bool {
		_, err := dialBanner(t, ts.addr, newKey(t))
		return err == nil
	})
}

// Past the per-address limit, a few connections go through the handshake to be told why;
// more are closed at once with a line of text.
func TestPerAddressFloodIsClosedAtOnce(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxPerIP = 1 })
	defer dial(t, ts.addr, newKey(t)).Close()
	holdSilent(t, ts.addr, edge.RefusalsPerAddr) // they hold their handshake places
	if line := firstLine(t, ts.addr); !strings.Contains(line, "too many connections from your address") {
		t.Fatalf("a connection past the refusals got %q", line)
	}
}

// The server as a whole has at most max-sessions connections with a session open; one
// more is refused at login with a banner. Connections without a session take no
// player's place.
func TestServerFull(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxSessions = 1 })
	idle := dial(t, ts.addr, newKey(t)) // logged in, no session: no player's place
	defer idle.Close()
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).waitFor("Press Enter to begin")
	banner, err := dialBanner(t, ts.addr, newKey(t))
	if err == nil || !strings.Contains(banner, "the server is full") {
		t.Fatalf("a connection to a full server: banner %q, err %v", banner, err)
	}
}

// A connection that logged in before the server filled up is refused at its first
// session, on stderr, and its place is not taken.
func TestServerFillsUpDuringTheLogin(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxSessions = 1 })
	late := dial(t, ts.addr, newKey(t))
	defer late.Close()
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).waitFor("Press Enter to begin")
	_, errOut, code := runOn(t, late, "help")
	if code != 1 || !strings.Contains(errOut, "the server is full") {
		t.Fatalf("a session on a full server: exit %d, stderr %q", code, errOut)
	}
}

// Connections in the handshake have places of their own (max-handshakes): when they are
// all taken, a player already in plays on, and the next connection is told the server
// is busy.
func TestHandshakesHaveTheirOwnPlaces(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxHandshakes = 3 })
	key := newKey(t)
	tm := openTerminal(t, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Steady")
	holdSilent(t, ts.addr, 3)
	if line := firstLine(t, ts.addr); !strings.Contains(line, "the server is busy") {
		t.Fatalf("a connection with every handshake place taken got %q", line)
	}
	tm.stepOut("the player already in to walk", whoamiLive(t, tm), func() command.Whoami { return whoamiLive(t, tm) })
}

// Regression (issue 17): a session's context is its connection's, shared by every
// session on it; a command run beside a game on one connection (as a multiplexing
// OpenSSH client runs it) found the game's model there when it finished, and took the
// knight out of the world. The game now plays on.
func TestACommandBesideAGameLeavesTheGameAlone(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	key := newKey(t)
	tm := openTerminal(t, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Beside")
	for range 2 {
		if w := whoamiLive(t, tm); !w.Online {
			t.Fatal("the knight left the world when a command beside it finished")
		}
	}
	before := whoamiLive(t, tm)
	_, k := openDir(t)
	tm.press(k)
	waitUntil(t, "the game to play on", func() bool {
		w := whoamiLive(t, tm)
		return w.Online && (w.X != before.X || w.Y != before.Y)
	})
}

// A connection may have at most max-per-key session channels open; one more is refused,
// so one connection cannot hold the input buffers of many.
func TestSessionChannelsPerConnection(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxPerKey = 2 })
	c := dial(t, ts.addr, newKey(t))
	defer c.Close()
	for range 2 {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	if s, err := c.NewSession(); err == nil {
		s.Close()
		t.Fatal("a third session channel was opened")
	}
}

// A key may have at most max-per-key sessions at once.
func TestPerKeyLimit(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxPerKey = 1 })
	key := newKey(t)
	openTerminal(t, ts.addr, key, 80, 24, nil).waitFor("Press Enter to begin")
	_, errOut, code := runCmd(t, ts.addr, key, "whoami")
	if code != 1 || !strings.Contains(errOut, "Too many sessions with this key") {
		t.Fatalf("second session of a key: exit %d %q", code, errOut)
	}
	if _, _, code := runCmd(t, ts.addr, newKey(t), "help"); code != 0 {
		t.Fatal("another key was refused")
	}
}

// A client that opens a connection and never finishes the handshake is dropped.
func TestHandshakeTimeout(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.HandshakeTimeout = 300 * time.Millisecond })
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, c); err != nil || time.Since(start) > 3*time.Second {
		t.Fatalf("silent client kept for %v (%v)", time.Since(start), err)
	}
}

// A game session with no keystroke for the idle timeout is closed with a message and the
// knight is saved; output alone (other knights moving) does not count as activity.
func TestIdleTimeout(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.IdleTimeout = 800 * time.Millisecond })
	key := newKey(t)
	tm := openTerminal(t, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Sleepy")
	if !tm.ended(10 * time.Second) {
		t.Fatal("an idle session was not closed")
	}
	if !strings.Contains(tm.rawOutput(), "You were idle for") {
		t.Fatal("the idle player was not told why")
	}
	waitUntil(t, "the idle knight to be saved and out of the world", func() bool {
		w := whoamiJSON(t, ts.addr, key)
		return !w.Online && w.Name == "Sleepy"
	})
}

// Keys keep a session: one typing more often than the idle timeout stays for many times
// the timeout, and is closed a timeout after its last key.
func TestKeysKeepASessionFromIdling(t *testing.T) {
	const idle = 600 * time.Millisecond
	ts := hardened(t, func(l *Limits) { l.IdleTimeout = idle })
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Awake")
	typing := time.NewTicker(idle / 3)
	defer typing.Stop()
	for range 12 { // four timeouts' worth of keys
		<-typing.C
		if tm.ended(0) {
			t.Fatal("a session typing every third of the idle timeout was closed")
		}
		tm.press("?", "x") // the help, and back
	}
	typing.Stop()
	last := time.Now()
	if !tm.ended(10 * time.Second) {
		t.Fatal("the session was not closed once the keys stopped")
	}
	if waited := time.Since(last); waited < idle {
		t.Fatalf("closed %v after the last key, before the idle timeout (%v)", waited, idle)
	}
}

// No connection lives longer than max-lifetime.
func TestMaxLifetime(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.MaxLifetime = 700 * time.Millisecond })
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	if !tm.ended(10 * time.Second) {
		t.Fatal("the connection outlived max-lifetime")
	}
}

// Only plain sessions are served: port forwarding, agent forwarding and X11 are refused.
func TestNoForwarding(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	c := dial(t, ts.addr, newKey(t))
	defer c.Close()
	if conn, err := c.Dial("tcp", "127.0.0.1:1"); err == nil {
		conn.Close()
		t.Fatal("a direct-tcpip channel was opened")
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, req := range []string{"auth-agent-req@openssh.com", "x11-req"} {
		if ok, err := s.SendRequest(req, true, nil); ok || err != nil {
			t.Fatalf("%s: ok=%v err=%v", req, ok, err)
		}
	}
}

// A client may set a bounded number of environment variables; the rest are refused and
// the session still works.
func TestEnvFlood(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	c := dial(t, ts.addr, newKey(t))
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	accepted := 0
	for i := range 100 {
		if s.Setenv("V"+strings.Repeat("x", i%3), strings.Repeat("y", 10)) == nil {
			accepted++
		}
	}
	if s.Setenv("BIG", strings.Repeat("z", 5000)) == nil {
		t.Fatal("a 5000-byte variable was accepted")
	}
	if accepted != edge.MaxEnvVars {
		t.Fatalf("%d variables accepted, want %d", accepted, edge.MaxEnvVars)
	}
	out, err := s.Output("help")
	if err != nil || !strings.Contains(string(out), "whoami") {
		t.Fatalf("help after the env flood: %v %q", err, out)
	}
}

// Regression: the SSH library kept one pending window size between the PTY request and the
// shell; a window-change sent in between blocked its request loop and the session hung. The
// filter holds it back until the shell has started.
func TestWindowChangeBeforeShellDoesNotHang(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	c := dial(t, ts.addr, newKey(t))
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{30, 100}, {40, 120}, {50, 160}} {
		if err := s.WindowChange(sz[0], sz[1]); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := s.StdoutPipe()
	shell := make(chan error, 1)
	go func() { shell <- s.Shell() }()
	select {
	case err := <-shell:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the shell request hung after a window-change")
	}
	got := make(chan bool, 1)
	go func() {
		buf := make([]byte, 64*1024)
		var all strings.Builder
		for {
			n, err := out.Read(buf)
			all.Write(buf[:n])
			if strings.Contains(all.String(), "Press Enter") {
				got <- true
				return
			}
			if err != nil {
				got <- false
				return
			}
		}
	}()
	select {
	case ok := <-got:
		if !ok {
			t.Fatal("no title screen")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no title screen after the window-changes")
	}
}

// Absurd window sizes and a flood of arbitrary bytes (invalid UTF-8, escape sequences,
// controls) neither crash the server nor disturb another player.
func TestAbsurdSizesAndByteFloods(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	other := newKey(t)
	calm := openTerminal(t, ts.addr, other, 80, 24, nil)
	calm.enterDungeon("Calm")
	wild := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	wild.enterDungeon("Wild")
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {10000, 10000}, {80, 24}} {
		if err := wild.sess.WindowChange(sz[1], sz[0]); err != nil {
			t.Fatal(err)
		}
	}
	junk := make([]byte, 200*1024)
	_, _ = rand.Read(junk)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _, _ = wild.stdin.Write(junk) }()
	// The calm player keeps playing meanwhile.
	calm.stepOut("the calm player to move", whoamiJSON(t, ts.addr, other), func() command.Whoami { return whoamiJSON(t, ts.addr, other) })
	wg.Wait()
	if _, _, code := runCmd(t, ts.addr, newKey(t), "help"); code != 0 {
		t.Fatal("the server stopped serving after the flood")
	}
}

// The same key connecting twice: the second connection takes the knight over, and the
// first is told and closed — never two sessions driving one knight.
func TestSameKeyTakeover(t *testing.T) {
	ts := hardened(t, func(*Limits) {})
	key := newKey(t)
	first := openTerminal(t, ts.addr, key, 80, 24, nil)
	first.enterDungeon("Twice")
	second := openTerminal(t, ts.addr, key, 80, 24, nil)
	second.waitFor("Welcome back, Twice")
	second.press(keyEnter)
	second.waitFor("Twice │ Level 1")
	if !first.ended(10 * time.Second) {
		t.Fatal("the first connection was not closed")
	}
	if !strings.Contains(first.rawOutput(), "taken over by another connection") {
		t.Fatal("the first connection was not told why")
	}
	out, _, _ := runCmd(t, ts.addr, newKey(t), "who")
	if strings.Count(out, "Twice") != 1 {
		t.Fatalf("who lists the knight %d times:\n%s", strings.Count(out, "Twice"), out)
	}
}

// stallConn is a client connection that stops reading when told: the server's frames
// then pile up in the SSH window and the socket, as with a client that hung.
type stallConn struct {
	net.Conn
	mu      sync.Mutex
	stalled bool
	release chan struct{}
}

func (c *stallConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	stalled := c.stalled
	c.mu.Unlock()
	if stalled {
		<-c.release
		return 0, io.EOF
	}
	return c.Conn.Read(p)
}

func (c *stallConn) stall() { c.mu.Lock(); c.stalled = true; c.mu.Unlock() }

// stallablePlayer connects key through a connection that can be made to stop reading, and
// presses Enter through the start screens into the dungeon.
func stallablePlayer(t *testing.T, addr string, key gossh.Signer) (*stallConn, *gossh.Session) {
	t.Helper()
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	sc := &stallConn{Conn: raw, release: make(chan struct{})}
	t.Cleanup(func() { close(sc.release) })
	cc, chans, reqs, err := gossh.NewClientConn(sc, addr, &gossh.ClientConfig{User: "p",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(key)}, HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	client := gossh.NewClient(cc, chans, reqs)
	t.Cleanup(func() { client.Close() })
	s, in := rawShell(t, client)
	time.Sleep(300 * time.Millisecond)
	for range 3 {
		_, _ = io.WriteString(in, "\r")
		time.Sleep(200 * time.Millisecond)
	}
	return sc, s
}

// A client that stops reading its screen never holds up the world or anyone else: with one
// client stalled in the dungeon, another walks and is answered at once.
func TestStalledClientHoldsUpNoOne(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.StallTimeout = time.Second })
	sc, s := stallablePlayer(t, ts.addr, newKey(t))
	waitUntil(t, "the knight to enter", func() bool {
		o, _, _ := runCmd(t, ts.addr, newKey(t), "who")
		return strings.Contains(o, "depth 1")
	})
	sc.stall()
	for i := range 50 { // the stalled client keeps resizing: frames pile up for it
		_ = s.WindowChange(24+i%2*176, 80+i%2*320)
	}
	healthy := newKey(t)
	h := openTerminal(t, ts.addr, healthy, 80, 24, nil)
	h.enterDungeon("Healthy")
	before := whoamiJSON(t, ts.addr, healthy)
	start := time.Now()
	h.stepOut("the healthy player to move", before, func() command.Whoami { return whoamiJSON(t, ts.addr, healthy) })
	t.Logf("with a stalled client in the dungeon, a move showed in whoami after %v", time.Since(start).Round(time.Millisecond))
}

// Shutting down with players connected, one of them stalled: everyone is told, everyone is
// saved, and the server is gone within a bounded time.
func TestShutdownWithAStalledClient(t *testing.T) {
	dir := t.TempDir()
	ts, _ := startConfigured(t, testConfig(dir, defaultSeed))
	stalledKey := newKey(t)
	sc, _ := stallablePlayer(t, ts.addr, stalledKey)
	healthyKey := newKey(t)
	h := openTerminal(t, ts.addr, healthyKey, 80, 24, nil)
	h.enterDungeon("Healthy")
	waitUntil(t, "both knights in the dungeon", func() bool {
		o, _, _ := runCmd(t, ts.addr, newKey(t), "who")
		return strings.Count(o, "depth 1") == 2
	})
	sc.stall()
	start := time.Now()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("shutdown with a stalled client took %v", d)
	}
	if !strings.Contains(h.finalOutput(), farewellMessage) {
		t.Fatal("the healthy player was not told the server is going down")
	}
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, k := range []gossh.Signer{stalledKey, healthyKey} {
		if a, err := loadKnightOfKey(t, st, k); err != nil || a.Depth != 1 {
			t.Fatalf("a knight was not saved: %+v %v", a, err)
		}
	}
	t.Logf("shutdown with a stalled client took %v", time.Since(start).Round(10*time.Millisecond))
}
