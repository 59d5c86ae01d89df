package server

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// Realms as processes: the binary run three times on loopback with one embedded etcd,
// so that kill -9 hits a realm as it would in production.

// realmProcess is a realm server run as its own process, with its log.
type realmProcess struct {
	cmd  *exec.Cmd
	spec realmSpec
	addr string
	mu   sync.Mutex
	log  strings.Builder
}

// logged reports whether a line of the realm's log has every one of want.
func (p *realmProcess) logged(want ...string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, line := range strings.Split(p.log.String(), "\n") {
		if containsAll(line, want) {
			return true
		}
	}
	return false
}

// startRealmProcess runs the binary as realm name on etcd, its dungeon of seed, with a
// lease of 5 s (a dead realm holds its knights 3.3 to 5 s: time enough for the test to
// see the claim held on a slow machine), and waits for it to listen.
func startRealmProcess(t *testing.T, name, etcd string, seed uint64) *realmProcess {
	t.Helper()
	p, err := launchRealm(t, realmSpec{name: name, etcd: etcd, dir: t.TempDir(), seed: seed, ttl: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// realmSpec is how a realm process is run: its name, etcd (an address or a proxy's),
// data folder (kept across restarts), dungeon seed and lease.
type realmSpec struct {
	name, etcd, dir string
	seed            uint64
	ttl             time.Duration
	extra           []string // more flags
}

// launchRealm runs the binary as spec says and waits, 30 s at most, for it to listen;
// the test's end kills it. It does not fail the test, so a goroutine may call it.
func launchRealm(t *testing.T, spec realmSpec) (*realmProcess, error) {
	cmd := exec.Command(serverBinary(t), "-addr", "127.0.0.1:0", "-data", spec.dir, "-tick", "5ms",
		"-seed", fmt.Sprint(spec.seed), "-realm", spec.name, "-etcd", spec.etcd, "-realm-ttl", spec.ttl.String(),
		"-new-knights-per-hour", fmt.Sprint(testKnightsPerHour))
	cmd.Args = append(cmd.Args, spec.extra...)
	cmd.Env = append(os.Environ(), "ORTHANC_SEED=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := &realmProcess{cmd: cmd, spec: spec}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := listeningAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case p.addr = <-addr:
		return p, nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		p.mu.Lock()
		defer p.mu.Unlock()
		return nil, fmt.Errorf("realm %s did not report its address:\n%s", spec.name, p.log.String())
	}
}

// Three realms as processes. A key plays on A; A is killed with SIGKILL while the
// knight walks; the same key on B is told the knight is in A and waits while A's lease
// holds its claim, then plays on B from A's last checkpoint; then C calls it from B.
func TestAKilledRealmsKnightPlaysElsewhereAfterItsLease(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	a := startRealmProcess(t, "A", etcd, defaultSeed)
	b := startRealmProcess(t, "B", etcd, defaultSeed+1)
	c := startRealmProcess(t, "C", etcd, defaultSeed+2)
	shared := sharedRecordsOf(t, etcd)
	key := newKey(t)
	ta, moved := stepAndCheckpoint(t, a.addr, key, "Lamorak", shared)
	_, k := openDir(t)
	ta.press(k, k, k) // on its way when the realm dies
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	if !claimHeld(t, etcd, moved.Knight) {
		t.Fatal("A's claim went with the process; it should hold until A's lease lapses")
	}
	last, err := shared.LoadAdventurer(moved.Knight)
	if err != nil {
		t.Fatal(err)
	}

	tb := openTerminal(t, b.addr, key, 80, 24, nil)
	tb.continueKnight()
	if !strings.Contains(tb.rawOutput(), "Your knight is in realm A; calling it here") {
		t.Errorf("B's player was not told to wait for realm A:\n%s", tb.rawOutput())
	}
	w := whoamiJSON(t, b.addr, key)
	if w.Knight != moved.Knight || w.Name != "Lamorak" || !w.Online || w.Depth != 1 ||
		w.Str != last.Str || w.Dex != last.Dex || w.MaxHits != last.MaxHits || w.Experience != last.Experience {
		t.Fatalf("on B: %+v; want A's last checkpoint %+v", w, last)
	}
	waitUntil(t, "B's log of the knight from A", func() bool {
		return b.logged("realm: a knight arrives", "knight="+moved.Knight, "from=A")
	})

	tc := openTerminal(t, c.addr, key, 80, 24, nil)
	if out := tb.finalOutput(); !strings.Contains(out, "Your knight was called to realm C; it is saved.") {
		t.Fatalf("B's player was not told where its knight went:\n%s", tb.screen())
	}
	tc.continueKnight()
	if w := whoamiJSON(t, c.addr, key); w.Knight != moved.Knight || !w.Online {
		t.Fatalf("on C: %+v", w)
	}
}

// claimHeld reports whether a realm holds knight's claim in etcd.
func claimHeld(t testing.TB, etcd, knight string) bool {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), "/orthanc/claim/"+knight)
	if err != nil {
		t.Fatal(err)
	}
	return len(resp.Kvs) > 0
}
