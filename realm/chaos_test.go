package realm

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/internal/realmcheck"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
)

var (
	chaosSeed = flag.Uint64("realm.seed", 34, "TestChaos's seed")
	chaosFor  = flag.Duration("realm.chaos", 15*time.Second, "how long TestChaos plays")
)

// TestChaos plays five knights on three realms, each behind a proxy, while realms
// crash, are cut off, stalled (what they send arrives late) or have their clocks
// stopped, then reads etcd's whole history of the test's keys: every write of a knight
// was made under the claim that held it then, and every checkpoint's number is above
// the one before it (none written from a stale sheet), so none acknowledged was lost.
// Half the checkpoints are written alone, half with the realm's others' (CommitAll).
// Players check too, at each claim, that the sheet read is no older than the last
// checkpoint acknowledged. With the fence's condition taken out of Fenced.txnOf, it
// fails: the stopped clocks' writes land under no claim.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("plays for seconds")
	}
	admin := newClient(t, etcdAddr)
	start, err := admin.Get(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &chaos{t: t, prefix: prefixOf(t), acked: map[string]int{}, ctx: ctx}
	c.knights = []string{"k0", "k1", "k2", "k3", "k4"}
	for i := range 3 {
		c.nodes = append(c.nodes, &node{name: fmt.Sprint("R", i), proxy: tcpproxy.New(t, etcdAddr),
			crash: make(chan struct{}, 1), sessions: map[string]*session{}, thaw: make(chan struct{}),
			batch: make(chan batched)})
		close(c.nodes[i].thaw)
	}
	t.Logf("seed %d (-realm.seed to change), playing %v", *chaosSeed, *chaosFor)
	c.play(*chaosSeed, *chaosFor, stop)
	c.checkHistory(admin, start.Header.Revision+1)
	t.Logf("%d claims, %d asked to let go, %d cut off, %d crashed, %d checkpoints acknowledged, %d refused by the fence",
		c.claims, c.released, c.cutOff, c.crashed, c.checkpoints, c.fenced)
	if c.claims < 10 || c.released == 0 || c.cutOff == 0 || c.crashed == 0 {
		t.Errorf("the run did too little to tell anything")
	}
}

// chaos is one run: its realms, its knights and what was acknowledged.
type chaos struct {
	t       *testing.T
	prefix  string
	nodes   []*node
	knights []string
	ctx     context.Context // ends with the run

	mu                                        sync.Mutex
	acked                                     map[string]int // knight → last checkpoint acknowledged
	claims, released, cutOff, crashed, fenced int
	checkpoints                               int
}

// node is one realm's place: its proxy to etcd and its current realm, if up.
type node struct {
	name  string
	proxy *tcpproxy.Proxy
	crash chan struct{}

	mu       sync.Mutex
	realm    *Realm
	thaw     chan struct{} // closed while its clock runs
	troubled bool          // cut, stalled or frozen
	sessions map[string]*session

	batch chan batched // checkpoints to write with others of the node (CommitAll)
}

// batched is a session's checkpoint sent to its node's batcher, and where its error goes.
type batched struct {
	f     *Fenced
	sheet []byte
	done  chan error
}

// session is a player playing a knight on a node; letGo asks it to check in.
type session struct {
	f     *Fenced
	letGo chan struct{}
	once  sync.Once
}

func (c *chaos) count(n *int) {
	c.mu.Lock()
	*n++
	c.mu.Unlock()
}

func (c *chaos) play(seed uint64, d time.Duration, stop context.CancelFunc) {
	var wg sync.WaitGroup
	batchers, stopBatchers := context.WithCancel(context.Background())
	defer stopBatchers()
	for _, n := range c.nodes {
		wg.Go(func() { c.supervise(n) })
		wg.Go(func() { n.batcher(batchers) })
	}
	var players sync.WaitGroup
	for i := range 4 {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		players.Go(func() { c.player(rng) })
	}
	c.strike(rand.New(rand.NewPCG(seed, 99)), d)
	stop()
	players.Wait()
	stopBatchers()
	for _, n := range c.nodes {
		n.proxy.SetCut(false)
		n.proxy.SetStalled(false)
		n.setFrozen(false)
	}
	wg.Wait()
}

// strike troubles the realms for d: every second, a cut, a stall, a frozen clock, a crash
// or nothing, to a realm not in trouble already; the first few are set, so that every
// run has each of them, the rest drawn at random.
func (c *chaos) strike(rng *rand.Rand, d time.Duration) {
	end := time.Now().Add(d)
	r0, r1, r2 := c.nodes[0], c.nodes[1], c.nodes[2]
	set := []func(){
		func() { c.trouble(r0, 3*time.Second, r0.proxy.SetCut) }, nil,
		func() { c.trouble(r2, 4*time.Second, r2.proxy.SetStalled) }, nil,
		func() { r1.crash <- struct{}{} }, nil,
		func() { c.trouble(r0, 2*testTTL, r0.setFrozen) }, nil,
	}
	for i := 0; time.Now().Before(end); i++ {
		<-time.After(time.Second)
		if i < len(set) {
			if set[i] != nil {
				set[i]()
			}
			continue
		}
		c.strikeOne(rng, c.nodes[rng.IntN(len(c.nodes))])
	}
}

// strikeOne does one of the troubles to n, or nothing, at random.
func (c *chaos) strikeOne(rng *rand.Rand, n *node) {
	d := time.Duration(500+rng.IntN(3000)) * time.Millisecond
	switch rng.IntN(8) {
	case 0:
		c.trouble(n, d, n.proxy.SetCut)
	case 1:
		c.trouble(n, d, n.proxy.SetStalled)
	case 2:
		c.trouble(n, 2*testTTL, n.setFrozen)
	case 3:
		select {
		case n.crash <- struct{}{}:
		default:
		}
	}
}

// trouble cuts or stalls (set) a node's way to etcd for d, in the background, unless
// it is in trouble already.
func (c *chaos) trouble(n *node, d time.Duration, set func(bool)) {
	n.mu.Lock()
	troubled := n.troubled
	n.troubled = true
	n.mu.Unlock()
	if troubled {
		return
	}
	set(true)
	time.AfterFunc(d, func() {
		set(false)
		n.mu.Lock()
		n.troubled = false
		n.mu.Unlock()
	})
}

// supervise keeps a realm up on the node, opening it again after a cut or a crash.
func (c *chaos) supervise(n *node) {
	for {
		select {
		case <-c.ctx.Done():
			return
		default:
		}
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{n.proxy.Addr()},
			DialTimeout: time.Second, Logger: zapNop})
		if err != nil {
			continue
		}
		c.live(n, cli)
		// The process lives on after its realm stops: what it sent in a stall still
		// reaches etcd when the stall ends.
		select {
		case <-n.proxy.Gate():
		case <-c.ctx.Done():
		}
		cli.Close()
	}
}

// live opens a realm on cli and runs it until it stops, crashes or the run ends.
func (c *chaos) live(n *node, cli *clientv3.Client) {
	ctx, cancel := context.WithTimeout(c.ctx, 6*testTTL)
	defer cancel()
	r, err := Open(ctx, cli, Config{Name: n.name, Prefix: c.prefix, TTL: testTTL,
		Clock: frozenClock{n}, OnRelease: func(q Request) { go c.asked(n, q) }})
	if err != nil {
		return
	}
	n.set(r)
	defer n.set(nil)
	select {
	case <-r.Done():
		if r.Err() == ErrCutOff {
			c.count(&c.cutOff)
		}
	case <-n.crash:
		r.halt(ErrClosed)
		c.count(&c.crashed)
	case <-c.ctx.Done():
		_ = r.Close()
	}
}

func (n *node) set(r *Realm) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.realm = r
}

func (n *node) current() *Realm {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.realm
}

// asked answers a request: the session playing the knight checks it in; a knight held
// with no session (its check-in failed) is released.
func (c *chaos) asked(n *node, q Request) {
	c.count(&c.released)
	n.mu.Lock()
	s := n.sessions[q.Knight.Knight()]
	n.mu.Unlock()
	if s != nil && s.f == q.Knight {
		s.once.Do(func() { close(s.letGo) })
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTTL)
		defer cancel()
		_ = q.Knight.Release(ctx)
	}()
}

// player plays random knights on random realms until the run ends.
func (c *chaos) player(rng *rand.Rand) {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		n := c.nodes[rng.IntN(len(c.nodes))]
		if r := n.current(); r != nil {
			c.session(rng, n, r, c.knights[rng.IntN(len(c.knights))])
		}
	}
}

// session takes a knight on r, checkpoints it a few times and checks it in, unless
// it is asked to let go first, or its realm stops, or a write fails.
func (c *chaos) session(rng *rand.Rand, n *node, r *Realm, knight string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 3*testTTL)
	defer cancel()
	f, err := r.Take(ctx, knight)
	if err != nil {
		return
	}
	seq := c.claimed(f)
	s := &session{f: f, letGo: make(chan struct{})}
	n.mu.Lock()
	n.sessions[knight] = s
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		if n.sessions[knight] == s {
			delete(n.sessions, knight)
		}
		n.mu.Unlock()
	}()
	for range rng.IntN(8) + 1 {
		if !c.pause(s, r) {
			break
		}
		seq++ // used even if the write fails: it may have been written
		if err := n.checkpoint(ctx, rng, f, sheetOf(f.Token(), seq)); err != nil {
			if errors.Is(err, ErrFenced) {
				c.count(&c.fenced)
			}
			break
		}
		c.ack(knight, seq)
	}
	if r.Err() != nil {
		return // its realm stopped: it writes nothing more
	}
	seq++
	if f.CheckIn(ctx, sheetOf(f.Token(), seq)) == nil {
		c.ack(knight, seq)
	}
}

// checkpoint writes a session's checkpoint alone or, one time in two, with the node's
// other sessions' in one transaction (CommitAll), as a realm's saver does.
func (n *node) checkpoint(ctx context.Context, rng *rand.Rand, f *Fenced, sheet []byte) error {
	if rng.IntN(2) == 0 {
		return f.Checkpoint(ctx, sheet)
	}
	q := batched{f: f, sheet: sheet, done: make(chan error, 1)}
	select {
	case n.batch <- q:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-q.done
}

// batcher writes the checkpoints sent to n together: those that come within a few
// milliseconds of the first, one CommitAll.
func (n *node) batcher(ctx context.Context) {
	for {
		var qs []batched
		select {
		case q := <-n.batch:
			qs = append(qs, q)
		case <-ctx.Done():
			return
		}
		gather := time.After(5 * time.Millisecond)
	collect:
		for {
			select {
			case q := <-n.batch:
				qs = append(qs, q)
			case <-gather:
				break collect
			}
		}
		es := make([]Entry, len(qs))
		for i, q := range qs {
			es[i] = Entry{Knight: q.f, Writes: []Write{{Key: "knight/" + q.f.Knight(), Value: q.sheet}}}
		}
		wctx, cancel := context.WithTimeout(context.Background(), 3*testTTL)
		for i, err := range CommitAll(wctx, es) {
			qs[i].done <- err
		}
		cancel()
	}
}

// pause waits a moment between checkpoints; false if the session is to end first.
func (c *chaos) pause(s *session, r *Realm) bool {
	select {
	case <-s.letGo:
	case <-r.Done():
	case <-c.ctx.Done():
	case <-time.After(20 * time.Millisecond):
		return true
	}
	return false
}

// thawed is closed while the node's clock runs.
func (n *node) thawed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.thaw
}

// setFrozen stops or starts the clock of the node's realm: frozen, the realm neither
// renews its lease nor sees it run out, and its sessions write on after the lease is
// gone, as they could in a realm whose keep-alive starved: only the fence refuses
// those writes.
func (n *node) setFrozen(frozen bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	select {
	case <-n.thaw:
		if frozen {
			n.thaw = make(chan struct{})
		}
	default:
		if !frozen {
			close(n.thaw)
		}
	}
}

// frozenClock is the wall clock as a node's realm reads it: not at all while frozen.
type frozenClock struct{ n *node }

func (c frozenClock) Now() time.Time {
	<-c.n.thawed()
	return time.Now()
}

func (c frozenClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// claimed checks a new claim's sheet against the last checkpoint acknowledged and
// returns its number.
func (c *chaos) claimed(f *Fenced) int {
	c.count(&c.claims)
	_, seq := parseSheet(c.t, f.Sheet())
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq < c.acked[f.Knight()] {
		c.t.Errorf("%s claimed at %d with checkpoint %d; %d was acknowledged", f.Knight(), f.Token(), seq, c.acked[f.Knight()])
	}
	return seq
}

func (c *chaos) ack(knight string, seq int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkpoints++
	c.acked[knight] = max(c.acked[knight], seq)
}

func sheetOf(token int64, seq int) []byte { return fmt.Appendf(nil, "%d %d", token, seq) }

func parseSheet(t *testing.T, b []byte) (token int64, seq int) {
	if b == nil {
		return 0, 0
	}
	if _, err := fmt.Sscanf(string(b), "%d %d", &token, &seq); err != nil {
		t.Errorf("sheet %q: %v", b, err)
	}
	return token, seq
}

// checkHistory replays every change of the test's keys since rev: each sheet written
// carries the token of the claim that stood at that revision, and its number is above
// the one before it; the last sheets hold every acknowledged checkpoint.
func (c *chaos) checkHistory(admin *clientv3.Client, rev int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	last := map[string]int{}
	_, err := realmcheck.Replay(ctx, admin, c.prefix, rev, realmcheck.Judge{Wrote: func(w realmcheck.Write) {
		if w.Kind != "knight" {
			return
		}
		token, seq := parseSheet(c.t, w.Value)
		if token == 0 || token != w.Claim.Token {
			c.t.Errorf("%s written at %d under claim %d; the claim then was %d", w.Knight, w.Rev, token, w.Claim.Token)
		}
		if seq <= last[w.Knight] {
			c.t.Errorf("%s's checkpoint %d at %d follows %d", w.Knight, seq, w.Rev, last[w.Knight])
		}
		last[w.Knight] = seq
	}})
	if err != nil {
		c.t.Fatal(err)
	}
	c.checkAcked(last)
}

func (c *chaos) checkAcked(last map[string]int) {
	for k, seq := range c.acked {
		if last[k] < seq {
			c.t.Errorf("%s's last sheet is %d; %d was acknowledged", k, last[k], seq)
		}
	}
}
