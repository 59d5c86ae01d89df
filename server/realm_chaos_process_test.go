package server

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

var (
	realmChaosSeed = flag.Uint64("chaos.seed", 0, "TestRealmChaos's seed (0: from the clock; the seed is logged)")
	realmChaosFor  = flag.Duration("chaos.for", 25*time.Second, "how long TestRealmChaos troubles the realms")
)

// realmChaosTTL is the chaos realms' lease: short, so a run sees many lapse.
const realmChaosTTL = 3 * time.Second

// Three realm processes, each reaching etcd through its own proxy, and five players,
// each a key playing its knight through real SSH terminals: a player logs in on a realm
// at random, walks, and leaves by quitting, by dropping its connection, or by logging in
// on another realm (which calls its knight over). Meanwhile, at random (seeded:
// -chaos.seed), realms are killed with SIGKILL and restarted on their data, cut from
// etcd until they stop themselves, stalled (what they send reaches etcd late) or frozen
// with SIGSTOP past their lease. Then etcd's whole history is replayed
// (realmChaosCheck): every write of a knight was made while a claim of the realm that
// wrote it stood, no knight's moves ever went back (no sheet written from a stale one),
// and every save a player was told of ("Farewell ... saved where it stands", "called to
// realm X; it is saved") is the sheet the next claim read. With the fence's condition
// taken out of realm.Fenced.Commit it fails: a frozen realm, thawed, writes over the
// knight another realm has taken since.
func TestRealmChaos(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays for half a minute")
	}
	seed := *realmChaosSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-chaos.seed=%d repeats it), troubling the realms for %v", seed, seed, *realmChaosFor)
	serverBinary(t) // built here, before any goroutine needs it
	c := newRealmChaos(t, seed)
	c.run(*realmChaosFor)
	c.check()
}

// realmChaos is one run: its etcd, its realms, its players and what they were told.
type realmChaos struct {
	t     *testing.T
	seed  uint64
	etcd  string
	admin *clientv3.Client
	from  int64 // the history's first revision
	nodes []*chaosNode
	stop  chan struct{} // closed when the players are to finish

	mu     sync.Mutex
	acks   []chaosAck
	counts map[string]int
}

// chaosNode is one realm's place: its proxy to etcd, its data, its process when up.
type chaosNode struct {
	spec  realmSpec
	proxy *tcpproxy.Proxy

	mu       sync.Mutex
	proc     *realmProcess // nil while restarting
	troubled bool
	playing  int // the players' sessions on it
}

// chaosAck is a save a player was told of: its knight as the player last saw it.
type chaosAck struct {
	player        int
	knight, realm string
	depth, x, y   int
	after         int64 // a revision read before the player left: the check-in comes after it
	how           string
}

func newRealmChaos(t *testing.T, seed uint64) *realmChaos {
	etcd := etcdtest.Start(t)
	admin, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	c := &realmChaos{t: t, seed: seed, etcd: etcd, admin: admin, stop: make(chan struct{}), counts: map[string]int{}}
	c.from = c.revision() + 1
	for i, name := range []string{"A", "B", "C"} {
		n := &chaosNode{proxy: tcpproxy.New(t, etcd)}
		n.spec = realmSpec{name: name, etcd: n.proxy.Addr(), dir: t.TempDir(), seed: defaultSeed + uint64(i), ttl: realmChaosTTL}
		p, err := launchRealm(t, n.spec)
		if err != nil {
			t.Fatal(err)
		}
		n.proc = p
		c.nodes = append(c.nodes, n)
	}
	return c
}

// revision is etcd's revision now.
func (c *realmChaos) revision() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.admin.Get(ctx, "/orthanc/realm/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		c.t.Errorf("seed %d: read etcd's revision: %v", c.seed, err)
		return 0
	}
	return resp.Header.Revision
}

func (c *realmChaos) count(what string) {
	c.mu.Lock()
	c.counts[what]++
	c.mu.Unlock()
}

func (c *realmChaos) fail(format string, args ...any) {
	c.t.Errorf("seed %d: %s", c.seed, fmt.Sprintf(format, args...))
}

// run lets five players play while the realms are troubled for d, then ends the
// troubles, lets the players leave and stops every realm, so every check-in is done.
func (c *realmChaos) run(d time.Duration) {
	var players, troubles sync.WaitGroup
	for i := range 5 {
		p := &chaosPlayer{c: c, i: i, key: newKey(c.t), rng: rand.New(rand.NewPCG(c.seed, uint64(i)))}
		players.Go(p.play)
	}
	c.strike(rand.New(rand.NewPCG(c.seed, 99)), d, &troubles)
	close(c.stop)
	waitGroupWithin(c, &players, "the players to leave")
	waitGroupWithin(c, &troubles, "the troubles to end")
	for _, n := range c.nodes {
		if p := n.current(); p != nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			if !exitedWithin(p, 20*time.Second) {
				c.fail("realm %s did not stop within 20 s of SIGTERM", n.spec.name)
			}
		}
	}
}

// waitGroupWithin waits for wg, failing the test after two minutes.
func waitGroupWithin(c *realmChaos, wg *sync.WaitGroup, what string) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		c.t.Fatalf("seed %d: timed out waiting for %s", c.seed, what)
	}
}

// strike troubles a realm every second for d: the first few troubles are set, each to
// a realm free of trouble by then, so that every run has each kind; the rest are drawn
// at random, never to a realm in trouble already, nor to a third realm while two are.
func (c *realmChaos) strike(rng *rand.Rand, d time.Duration, wg *sync.WaitGroup) {
	a, b, cc := c.nodes[0], c.nodes[1], c.nodes[2]
	force := func(n *chaosNode, do func(*chaosNode)) func() { return func() { c.troubleOf(wg, n, do, 3) } }
	set := []func(){
		nil, nil, // the players log in
		func() { c.troubleOf(wg, c.busiest(), c.pause(realmChaosTTL+2*time.Second, true), 3) },
		force(b, c.stall(realmChaosTTL+1500*time.Millisecond, true)), nil,
		force(a, c.freeze(realmChaosTTL+2*time.Second, true)), nil, nil, nil, nil,
		force(cc, c.cut(time.Second, false)), nil, nil, nil, nil, nil,
		force(b, c.kill),
	}
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		<-time.After(time.Second)
		if i < len(set) {
			if set[i] != nil {
				set[i]()
			}
			continue
		}
		c.strikeOne(rng, wg)
	}
}

// strikeOne does one of the troubles, or nothing, to a realm drawn at random.
func (c *realmChaos) strikeOne(rng *rand.Rand, wg *sync.WaitGroup) {
	n := c.nodes[rng.IntN(len(c.nodes))]
	extra := time.Duration(rng.IntN(2500)) * time.Millisecond
	graceful := rng.IntN(2) == 0
	switch rng.IntN(7) {
	case 0:
		c.trouble(wg, n, c.kill)
	case 1:
		c.trouble(wg, n, c.freeze(realmChaosTTL+time.Second+extra, graceful))
	case 2:
		c.trouble(wg, n, c.cut(extra, graceful))
	case 3:
		c.trouble(wg, n, c.stall(realmChaosTTL+time.Second+extra*3/5, graceful))
	case 4:
		c.trouble(wg, c.busiest(), c.pause(realmChaosTTL+time.Second+extra, graceful))
	}
}

// trouble runs do on n in the background, unless n or two others are in trouble.
func (c *realmChaos) trouble(wg *sync.WaitGroup, n *chaosNode, do func(*chaosNode)) {
	c.troubleOf(wg, n, do, 2)
}

// troubleOf runs do on n in the background, unless n is in trouble, or most others are.
func (c *realmChaos) troubleOf(wg *sync.WaitGroup, n *chaosNode, do func(*chaosNode), most int) {
	troubled := 0
	for _, m := range c.nodes {
		m.mu.Lock()
		if m.troubled {
			troubled++
		}
		m.mu.Unlock()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.troubled || troubled >= most || n.proc == nil {
		return
	}
	n.troubled = true
	wg.Go(func() {
		do(n)
		n.mu.Lock()
		n.troubled = false
		n.mu.Unlock()
	})
}

// busiest is the realm with the most players' sessions: a pause there most likely
// catches a checkpoint on its way.
func (c *realmChaos) busiest() *chaosNode {
	best, most := c.nodes[0], -1
	for _, n := range c.nodes {
		n.mu.Lock()
		if n.playing > most && !n.troubled {
			best, most = n, n.playing
		}
		n.mu.Unlock()
	}
	return best
}

// plays counts a player's session on n starting (1) or ending (-1).
func (n *chaosNode) plays(d int) {
	n.mu.Lock()
	n.playing += d
	n.mu.Unlock()
}

func (n *chaosNode) current() *realmProcess {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc
}

func (n *chaosNode) set(p *realmProcess) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.proc = p
}

// kill kills the realm with SIGKILL and starts it again on its data.
func (c *realmChaos) kill(n *chaosNode) {
	c.count("killed")
	p := n.current()
	n.set(nil)
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	c.restart(n)
}

// cut cuts the realm from etcd until it stops itself (its lifeline, before its lease
// could lapse), and for extra more, then heals the cut and restarts the realm.
func (c *realmChaos) cut(extra time.Duration, graceful bool) func(*chaosNode) {
	return func(n *chaosNode) {
		c.count("cut off")
		n.proxy.SetCut(true)
		c.awaitStopped(n, "cut off")
		<-time.After(extra)
		n.proxy.SetCut(false)
		c.replace(n, graceful)
	}
}

// stall holds what the realm and etcd send each other for d (longer than the lease, so
// the realm stops), then delivers it late and restarts the realm. A write sent early in
// the stall, its deadline (5 s) not passed at its end, reaches etcd after the realm's
// lease lapsed and another realm took the knight: only the fence refuses it.
func (c *realmChaos) stall(d time.Duration, graceful bool) func(*chaosNode) {
	return func(n *chaosNode) {
		c.count("stalled")
		n.proxy.SetStalled(true)
		<-time.After(d)
		n.proxy.SetStalled(false)
		c.awaitStopped(n, "stalled")
		c.replace(n, graceful)
	}
}

// freeze stops the realm's process with SIGSTOP for d, past its lease, as a pause of the
// whole machine would: thawed, it does not know at once that its claims are gone, and
// only the fence refuses what it writes then.
func (c *realmChaos) freeze(d time.Duration, graceful bool) func(*chaosNode) {
	return func(n *chaosNode) {
		c.count("frozen")
		p := n.current()
		_ = p.cmd.Process.Signal(syscall.SIGSTOP)
		<-time.After(d)
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		c.awaitStopped(n, "frozen past its lease")
		c.replace(n, graceful)
	}
}

// pause stalls the realm's way to etcd, then, before the realm could know it (its
// lifeline stops it TTL×3/4 after its last keep-alive answered), freezes it for d with
// SIGSTOP, as a virtual machine paused mid-flight: what it sent in the stall reaches
// etcd when the stall ends, half a second before the realm thaws, its claims gone by
// then, so it cannot take it back. Only the fence refuses it.
func (c *realmChaos) pause(d time.Duration, graceful bool) func(*chaosNode) {
	return func(n *chaosNode) {
		c.count("paused")
		p := n.current()
		n.proxy.SetStalled(true)
		<-time.After(realmChaosTTL * 3 / 5)
		_ = p.cmd.Process.Signal(syscall.SIGSTOP)
		<-time.After(d)
		n.proxy.SetStalled(false)
		<-time.After(500 * time.Millisecond)
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
		c.awaitStopped(n, "paused past its lease")
		c.replace(n, graceful)
	}
}

// awaitStopped waits for the realm to log that it stopped, as it must when cut off or
// frozen past its lease.
func (c *realmChaos) awaitStopped(n *chaosNode, why string) {
	p := n.current()
	if !poll(20*time.Second, pollEvery, func() bool { return p.logged("realm stopped") }) {
		c.fail("realm %s, %s, never stopped", n.spec.name, why)
	}
}

// replace stops the realm's process, with SIGTERM when graceful (SIGKILL if that takes
// 15 s) or SIGKILL, and starts it again on its data.
func (c *realmChaos) replace(n *chaosNode, graceful bool) {
	p := n.current()
	n.set(nil)
	if graceful {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if exitedWithin(p, 15*time.Second) {
			c.restart(n)
			return
		}
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	c.restart(n)
}

// exitedWithin waits for the process to exit, for at most d.
func exitedWithin(p *realmProcess, d time.Duration) bool {
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// restart starts the realm again on its data: it waits for its old lease to go first.
func (c *realmChaos) restart(n *chaosNode) {
	p, err := launchRealm(c.t, n.spec)
	if err != nil {
		c.fail("restart: %v", err)
		return
	}
	n.set(p)
}

// check replays etcd's history of the run and checks it (realmChaosCheck).
func (c *realmChaos) check() {
	h := newChaosHistory(c)
	h.replay()
	c.mu.Lock()
	defer c.mu.Unlock()
	h.checkAcks(c.acks)
	counts, _ := json.Marshal(c.counts)
	c.t.Logf("seed %d: %s; %d claims, %d writes of knights checked, %d saves told to players checked",
		c.seed, counts, h.claims, h.writes, len(c.acks))
	if c.counts["killed"] == 0 || c.counts["cut off"] == 0 || c.counts["frozen"]+c.counts["paused"] == 0 || h.claims < 8 || len(c.acks) == 0 {
		c.fail("the run did too little to tell anything")
	}
}

// dialWithin connects with key, the handshake bounded: a frozen realm accepts the TCP
// connection and never answers.
func dialWithin(addr string, key gossh.Signer, d time.Duration) (*gossh.Client, error) {
	conn, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(d))
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, clientConfig(gossh.PublicKeys(key)))
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return gossh.NewClient(cc, chans, reqs), nil
}

// whoamiWithin runs whoami --json on c, for at most d.
func whoamiWithin(c *gossh.Client, d time.Duration) (command.Whoami, bool) {
	type answer struct {
		w  command.Whoami
		ok bool
	}
	got := make(chan answer, 1)
	go func() {
		out, _, code, err := runSession(c, "whoami --json")
		var w command.Whoami
		got <- answer{w, err == nil && code == 0 && json.Unmarshal([]byte(out), &w) == nil}
	}()
	select {
	case a := <-got:
		return a.w, a.ok
	case <-time.After(d):
		return command.Whoami{}, false
	}
}
