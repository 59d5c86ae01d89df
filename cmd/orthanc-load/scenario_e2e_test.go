package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The scenarios' tests run the game server itself (gameBinary builds it once for the
// package's tests) as a process: a restart is of a process.

// gameProcess is a game server running as a process of the test.
type gameProcess struct {
	cmd  *exec.Cmd
	addr string
	web  string // the web page's address, with -http-addr

	mu        sync.Mutex
	log       []string
	listening chan string // the address of each "listening" line, in order
}

// runGame starts the game server on data, listening on addr, and waits until it
// listens. Its errors go to a pipe the test reads, which a server started again from it
// (its standard error reopened) writes to as well. The test ends it if it still runs.
func runGame(t *testing.T, data, addr string, flags ...string) *gameProcess {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g := &gameProcess{listening: make(chan string, 4)}
	// Every session dials from loopback, and a restart's sessions come back at once:
	// the limits of one address are a crowd's here.
	g.cmd = exec.Command(gameBinary(t), append([]string{"-addr", addr, "-data", data, "-max-per-ip", "200", "-max-handshakes-per-ip", "200"}, flags...)...)
	g.cmd.Stderr = w
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	exited := make(chan struct{})
	go func() { _ = g.cmd.Wait(); close(exited) }()
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := sc.Text()
			g.mu.Lock()
			g.log = append(g.log, line)
			g.mu.Unlock()
			if _, web, ok := strings.Cut(line, `msg="web page" addr=`); ok { // logged before "listening"
				g.mu.Lock()
				g.web, _, _ = strings.Cut(web, " ")
				g.mu.Unlock()
			}
			if strings.Contains(line, "msg=listening") {
				_, a, _ := strings.Cut(line, " addr=")
				a, _, _ = strings.Cut(a, " ")
				g.listening <- a
			}
		}
		_ = r.Close()
	}()
	t.Cleanup(func() {
		_ = g.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = g.cmd.Process.Kill()
			t.Error("the game server did not stop")
		}
	})
	select {
	case g.addr = <-g.listening:
	case <-exited:
		t.Fatalf("the game server ended:\n%s", g.logText())
	case <-time.After(30 * time.Second):
		t.Fatalf("the game server does not listen:\n%s", g.logText())
	}
	return g
}

// webAddr is the web page's address, once the server listens.
func (g *gameProcess) webAddr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.web
}

func (g *gameProcess) logText() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Join(g.log, "\n")
}

// adminKey makes an admin's key and lists it in the folder's admin_keys.
func adminKey(t *testing.T, data string) gossh.Signer {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "admin_keys"), gossh.MarshalAuthorizedKey(sshPub), 0o600); err != nil {
		t.Fatal(err)
	}
	return signer
}

func checkClean(t *testing.T, rep *Report, n int) {
	t.Helper()
	if rep.Established != n || rep.Failed != 0 || rep.Dropped != 0 || len(rep.Errors) != 0 {
		t.Fatalf("established %d of %d, failed %d, dropped %d, errors %v %v", rep.Established, n, rep.Failed, rep.Dropped, rep.Errors, rep.ErrorExamples)
	}
}

// A seeded folder's knights come back where they stood: every session, with its line's
// key, skips the roll and the name and arrives on the level the keys file gives, two on
// each of the ten; the server counts them all online.
func TestSeededKnightsReturn(t *testing.T) {
	t.Parallel()
	const n = 20
	data, ks := seedTestFolder(t, n, placeFloor, 10)
	admin := adminKey(t, data)
	g := runGame(t, data, "127.0.0.1:0")
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: n, Active: 2, Rate: 4, Duration: time.Second, Ramp: 500 * time.Millisecond,
		Mode: ModeGame, Keys: ks, AdminKey: admin, Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	checkClean(t, rep, n)
	ret := rep.Returning
	if ret == nil || ret.Keys != n || ret.OnStoredLevel != n || len(ret.Depths) != 10 {
		t.Fatalf("returning %+v", ret)
	}
	for d := 1; d <= 10; d++ {
		if ret.Depths[d] != 2 {
			t.Errorf("%d knights arrived on level %d, want 2: %v", ret.Depths[d], d, ret.Depths)
		}
	}
	if rep.World == nil || rep.World.PlayersOnline != n {
		t.Errorf("world %+v: want %d players online", rep.World, n)
	}
	// The arrival is the dungeon's screen: Enter at the title, and the knight is in.
	if rep.Arrival.Max > 10000 {
		t.Errorf("arrival %+v", rep.Arrival)
	}
}

// In the rooms scenario knights seeded outside guarded rooms go through the doors, and
// the guards' fights are seen and counted.
func TestRoomsScenarioFights(t *testing.T) {
	t.Parallel()
	const n = 4
	data, ks := seedTestFolder(t, n, placeDoors, 1)
	g := runGame(t, data, "127.0.0.1:0")
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: n, Active: n, Rate: 4, Duration: 6 * time.Second, Ramp: 200 * time.Millisecond,
		Mode: ModeGame, Keys: ks, Scenario: ScenarioRooms, Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v %+v", *rep, *rep.Fights)
	checkClean(t, rep, n)
	f := rep.Fights
	if f == nil || f.Sessions != n || f.Started == 0 || f.Won+f.Lost+f.Other > f.Started || f.PerMinute <= 0 || f.PerSession.Sessions != n {
		t.Fatalf("fights %+v", f)
	}
}

// freePort is a loopback address no one listens on now, for a server that must listen
// on the same one again after a restart.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// A restart with players: the tool stops the server with SIGTERM, starts it again as it
// was started, and every session comes back with its key to the level it was on; the
// tool stops the server it started at the end.
func TestRestartBringsEveryoneBack(t *testing.T) {
	t.Parallel()
	const n = 10
	data, ks := seedTestFolder(t, n, placeFloor, 10)
	g := runGame(t, data, freePort(t))
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: n, Active: 3, Rate: 4, Duration: 4 * time.Second, Ramp: 200 * time.Millisecond,
		Mode: ModeGame, Keys: ks, ServerPID: g.cmd.Process.Pid, RestartAfter: time.Second,
		Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	checkClean(t, rep, n)
	rs := rep.Restart
	if rs == nil {
		t.Fatal("no restart in the report")
	}
	t.Logf("%+v", *rs)
	if rs.PID != g.cmd.Process.Pid || rs.NewPID == 0 || rs.NewPID == rs.PID || rs.ExitMs <= 0 {
		t.Errorf("restart of pid %d: %+v", g.cmd.Process.Pid, *rs)
	}
	if rs.Sessions != n || rs.Back != n || rs.Failed != 0 || rs.SameLevel != n || rs.BackTime.Count != n ||
		rs.AllBackMs != rs.BackTime.Max || rs.AllBackMs <= 0 || rs.Handshakes < n || rs.FirstHandshakeMs <= 0 {
		t.Errorf("restart %+v", *rs)
	}
	if rs.AtSeconds < 0.9 || rs.AtSeconds > 2 {
		t.Errorf("SIGTERM at %.2f s into the window, want about 1", rs.AtSeconds)
	}
	// The new server wrote to the old one's standard error, and listened on the address.
	select {
	case again := <-g.listening:
		if again != g.addr {
			t.Errorf("the new server listened on %s, want %s", again, g.addr)
		}
	default:
		t.Errorf("the new server said nothing on the old one's standard error:\n%s", g.logText())
	}
	if !exited(rs.NewPID) {
		t.Errorf("the restarted server (pid %d) still runs after the run", rs.NewPID)
	}
	if rep.Keys.Sent == 0 || rep.Server == nil || rep.Server.PID != rs.NewPID {
		t.Errorf("keys %+v, server %+v", rep.Keys, rep.Server)
	}
}

// The casts mode through the real server: seed -kept keeps deaths whose casts the page
// makes, every request answered 200; random ids are no replay's, and each of the three
// addresses may ask for web.castMisses (3) casts not kept before it is answered 429, one
// of them taken already by the first cast it asked for (address i asks for cast i).
func TestCastsMode(t *testing.T) {
	t.Parallel()
	data, _ := seedTestFolder(t, 1, placeFloor, 1)
	casts := filepath.Join(data, castsFileName)
	if err := seedKept(filepath.Join(data, "orthanc.db"), casts, serverDefaultSeed, 3); err != nil {
		t.Fatal(err)
	}
	ids, err := readCastsFile(casts)
	if err != nil || len(ids) != 3 {
		t.Fatalf("the casts file: %v, %v", ids, err)
	}
	g := runGame(t, data, "127.0.0.1:0", "-http-addr", "127.0.0.1:0")
	cfg := CastsConfig{Addr: g.webAddr(), Addrs: 3, Rate: 4, Duration: 1500 * time.Millisecond, IDs: ids, ServerPID: g.cmd.Process.Pid}
	rep, err := RunCasts(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	if rep.Sent != 18 || rep.Answers["200"] != 18 || rep.Failed != 0 || rep.Server == nil || rep.IDs != 3 {
		t.Fatalf("the kept casts: sent %d, answers %v, failed %d %v, server %v", rep.Sent, rep.Answers, rep.Failed, rep.Errors, rep.Server)
	}
	cfg.IDs = nil
	if rep, err = RunCasts(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if rep.Answers["404"] != 6 || rep.Answers["429"] != 12 {
		t.Fatalf("random ids from 3 addresses: answers %v, want 6 404 (2 each) and 12 429", rep.Answers)
	}
	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil || !strings.Contains(text.String(), "random ids") || !strings.Contains(text.String(), "404: 6, 429: 12") {
		t.Errorf("the report: %v\n%s", err, text.String())
	}
}
