// Package realm is what lets several servers, each a realm with its own dungeon, share
// one set of knights kept in etcd while a knight plays in one realm at a time, always.
//
// A realm holds an etcd lease while it lives. Claiming a knight at login is one
// transaction that puts the knight's claim key on that lease if no claim exists, and
// reads the knight's last checkpoint in the same revision. The claim key's create
// revision is the fencing token: every write of the knight (a checkpoint, a death, a
// retirement, fame) goes through Fenced, one transaction conditioned on the claim key
// still having that create revision, so a realm that lost its claim writes nothing.
//
// The keys under the realm's prefix (default "/orthanc/"):
//
//	realm/NAME      NAME, on the realm's lease: the realm is up (one process per name)
//	claim/KNIGHT    the holding realm's NAME, on its lease; create revision = the token
//	release/KNIGHT  the asking realm's NAME, on its lease: "please let this knight go"
//	knight/KNIGHT   the knight's last checkpoint, written only through Fenced
//
// A realm that dies holds its knights until its lease lapses. A realm cut off from etcd
// stops (Done is closed, Err says ErrCutOff) before its lease can lapse: it knows the
// lease lives at least TTL from when it sent the last keep-alive that was answered, and
// stops Margin before that (lifeline.go). Once etcd answers again, Reopen starts a new
// term: the old lease revoked (its claims with it), the name put on a new one.
//
// Nothing here knows the game: a knight is an opaque id and its sheet opaque bytes.
// Realm's own state (the knights it holds) is shared by the caller's goroutines, the
// lease's and the release watch's, behind one mutex.
package realm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Why a realm stopped, as Err tells it once Done is closed.
var (
	// ErrCutOff: keep-alives went unanswered until the lease might lapse.
	ErrCutOff = errors.New("realm: cut off from etcd; stopped before its lease could lapse")
	// ErrLeaseLost: etcd says the lease is gone (it lapsed or was revoked).
	ErrLeaseLost = errors.New("realm: its lease is gone")
	// ErrClosed: the realm was closed.
	ErrClosed = errors.New("realm: closed")
)

// Config is what a realm is told when it opens.
type Config struct {
	// Name is the realm's name as players see it; one process holds a name at a time.
	Name string
	// Prefix is put before every key; "/orthanc/" when empty.
	Prefix string
	// TTL is the lease's time to live, in whole seconds; 10s when zero. A realm that
	// dies holds its knights this long.
	TTL time.Duration
	// Margin is how long before its lease could lapse a cut-off realm stops; TTL/4
	// when zero.
	Margin time.Duration
	// Clock tells the time; the wall clock when nil.
	Clock Clock
	// OnRelease is called when another realm asks for a knight this realm holds. It
	// must not block: it hands the request to whoever plays the knight, who saves it
	// and calls CheckIn (or Release).
	OnRelease func(Request)
}

// Request is another realm asking for a knight this realm holds.
type Request struct {
	// Knight is held here through Fenced.
	Knight *Fenced
	// By is the asking realm's name, where the knight is going.
	By string
}

// Realm is one server's place among the realms: its name, and the term it runs in
// now. Its methods may be called from any goroutine.
type Realm struct {
	cfg  Config
	cli  *clientv3.Client
	keys layout

	mu     sync.Mutex
	t      *term // the term now, stopped or running
	closed bool  // Close was called: no term opens again
}

// term is one lease's life in a realm, from its registration to its stop: the lease,
// the knights claimed on it, the keep-alive and the watch for requests. A knight
// claimed in a term is written only in it (Fenced keeps its term), so a realm that
// opens a new term (Reopen) never writes a knight under a claim of the old one; etcd's
// fence refuses it as well. Its maps and err are guarded by the realm's mutex.
type term struct {
	r     *Realm
	lease clientv3.LeaseID

	ctx    context.Context // ends when the term stops; in-flight calls end with it
	cancel context.CancelFunc
	done   chan struct{}
	wg     sync.WaitGroup

	err      error               // why it stopped, set before done is closed
	held     map[string]*Fenced  // the knights held in this term, by id
	claiming map[string]struct{} // claims in flight
	early    map[string]string   // requests that came while their claim was in flight
}

// Open starts a realm on cli: it registers the name on a lease of its own (waiting,
// until ctx ends, for an earlier process of the same name to let go of it or for its
// lease to lapse; refusing at once a name another process keeps alive) and starts
// keeping the lease alive and watching for requests.
func Open(ctx context.Context, cli *clientv3.Client, cfg Config) (*Realm, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &Realm{cfg: cfg, cli: cli, keys: layout(cfg.Prefix)}
	if err := r.begin(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// begin registers the realm on a new lease and starts a term on it.
func (r *Realm) begin(ctx context.Context) error {
	reg, err := r.register(ctx)
	if err != nil {
		return err
	}
	t := &term{r: r, lease: reg.lease, done: make(chan struct{}),
		held: map[string]*Fenced{}, claiming: map[string]struct{}{}, early: map[string]string{}}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		t.cancel()
		revokeQuietly(r.cli, reg.lease)
		return ErrClosed
	}
	r.t = t
	r.mu.Unlock()
	l := newLifeline(r.cfg.TTL, r.cfg.Margin, reg.sentAt, reg.granted)
	t.wg.Add(2)
	go t.keepAlive(l)
	go t.watchRequests(reg.rev + 1)
	return nil
}

func (c Config) withDefaults() (Config, error) {
	if c.Name == "" || strings.ContainsAny(c.Name, "/\x00") {
		return c, fmt.Errorf("realm: bad name %q", c.Name)
	}
	if c.Prefix == "" {
		c.Prefix = "/orthanc/"
	}
	if c.TTL == 0 {
		c.TTL = 10 * time.Second
	}
	c.TTL = c.TTL.Round(time.Second)
	if c.TTL < 2*time.Second {
		return c, fmt.Errorf("realm: TTL %v is under 2s", c.TTL)
	}
	if c.Margin == 0 {
		c.Margin = c.TTL / 4
	}
	if c.Margin <= 0 || c.Margin >= c.TTL/2 {
		return c, fmt.Errorf("realm: margin %v is not between 0 and TTL/2", c.Margin)
	}
	if c.Clock == nil {
		c.Clock = wallClock{}
	}
	if c.OnRelease == nil {
		c.OnRelease = func(Request) {}
	}
	return c, nil
}

// Name is the realm's name.
func (r *Realm) Name() string { return r.cfg.Name }

// current is the term now.
func (r *Realm) current() *term {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.t
}

// Done is closed when the realm's term now stops: closed, cut off or its lease lost.
// Its sessions select on it to tell their players and disconnect them. After Reopen,
// Done is the new term's.
func (r *Realm) Done() <-chan struct{} { return r.current().done }

// Err says why the realm stopped, or nil while it runs.
func (r *Realm) Err() error { return r.current().Err() }

// Err says why the term stopped, or nil while it runs.
func (t *term) Err() error {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.err
}

// Reopen starts a new term in a realm that stopped for another reason than Close (cut
// off, or its lease lost): it revokes the old lease, which ends every
// claim of the old term at once, registers the name on a new lease and starts keeping
// it. It waits for etcd until ctx ends; a realm running is left as it is. Call it once
// the old term's sessions have ended: their knights are written no more.
func (r *Realm) Reopen(ctx context.Context) error {
	r.mu.Lock()
	old, closed := r.t, r.closed
	r.mu.Unlock()
	switch err := old.Err(); {
	case closed || errors.Is(err, ErrClosed):
		return ErrClosed
	case err == nil:
		return nil
	}
	old.wg.Wait()
	if err := r.revoke(ctx, old.lease); err != nil {
		return fmt.Errorf("realm: end the lease of the stopped term: %w", err)
	}
	return r.begin(ctx)
}

// revoke revokes a lease, trying again until ctx ends; a lease gone already is revoked.
func (r *Realm) revoke(ctx context.Context, id clientv3.LeaseID) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, r.cfg.TTL/4)
		_, err := r.cli.Revoke(cctx, id)
		cancel()
		if err == nil || errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-r.cfg.Clock.After(r.cfg.TTL / retryDivisor):
		}
	}
}

// Close stops the realm and revokes its lease, which ends every claim it still holds:
// check the knights in first. It waits for the realm's goroutines.
func (r *Realm) Close() error {
	r.mu.Lock()
	r.closed = true
	t := r.t
	r.mu.Unlock()
	t.halt(ErrClosed)
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.TTL)
	defer cancel()
	_, err := r.cli.Revoke(ctx, t.lease)
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return nil
	}
	return err
}

// halt stops the realm's term without a word to etcd, as a crash would (the lease lives
// on until it lapses), and waits for its goroutines.
func (r *Realm) halt(why error) { r.current().halt(why) }

// halt stops the term without a word to etcd and waits for its goroutines.
func (t *term) halt(why error) {
	t.stop(why)
	t.wg.Wait()
}

// stop records why the term stopped and ends its work; the first reason wins.
func (t *term) stop(why error) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.err != nil {
		return
	}
	t.err = why
	t.held = map[string]*Fenced{}
	t.cancel()
	close(t.done)
}

func revokeQuietly(cli *clientv3.Client, id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = cli.Revoke(ctx, id)
}
