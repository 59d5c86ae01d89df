package talk

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The talk package's test harness: clusters of embedded servers on free loopback ports,
// realms (a world engine and its bus) on them, knights in those worlds whose views the
// tests read, a stand-in world for the bus's own tests, and the waits.

func TestMain(m *testing.M) { testtools.Main(m) }

// waitLimit is how long a wait gives what it waits for.
const waitLimit = 15 * time.Second

// waitFor polls until ok, failing the test with what after waitLimit.
func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for !ok() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("waited %v for %s", waitLimit, what)
		}
	}
}

// testSecret is the cluster's credential in the tests.
const testSecret = "0123456789abcdef0123456789abcdef"

// cluster starts an embedded server for each realm named, joined by routes with the
// cluster's secret, and waits until every one has a route to every other.
func cluster(t testing.TB, names ...string) []*Server {
	t.Helper()
	var srvs []*Server
	n := len(names)
	for i, name := range names {
		cfg := ServerConfig{Name: name, Cluster: "127.0.0.1:0", Secret: testSecret}
		if i > 0 {
			cfg.Routes = []string{srvs[0].ClusterAddr()}
		}
		s, err := StartServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		srvs = append(srvs, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, s := range srvs {
		if err := s.WaitRoutes(ctx, n-1); err != nil {
			t.Fatal(err)
		}
	}
	return srvs
}

// testRealm is a realm under test: a world engine running on a fast ticker, its bus, and
// its knights.
type testRealm struct {
	name    string
	e       *world.Engine
	bus     *Bus
	players map[string]*world.Player
	views   map[string]*lastView
}

// newRealm opens a realm on its embedded server srv (nil: tweak says which external
// server), its world stepping every few milliseconds until the test ends.
func newRealm(t testing.TB, name string, srv *Server, tweak ...func(*Config)) *testRealm {
	t.Helper()
	cfg := Config{Realm: name, Addr: strings.ToLower(name) + ".example:2222", Server: srv, AnnounceEvery: time.Hour}
	for _, f := range tweak {
		f(&cfg)
	}
	bus, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := world.New(world.Config{Seed: 1, Depth: 1, Community: world.CommunityConfig{Abroad: bus}})
	ctx, cancel := context.WithCancel(context.Background())
	tick := time.NewTicker(2 * time.Millisecond)
	done := make(chan struct{})
	go func() { e.Run(ctx, tick.C); close(done) }()
	if err := bus.Start(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close(); cancel(); <-done; tick.Stop() })
	return &testRealm{name: name, e: e, bus: bus, players: map[string]*world.Player{}, views: map[string]*lastView{}}
}

// join brings a knight into the realm's world.
func (r *testRealm) join(t testing.TB, id, name string) {
	t.Helper()
	r.views[id] = &lastView{}
	p, err := r.e.Join(context.Background(), world.NewAdventurer(id, name, world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10), r.views[id])
	if err != nil {
		t.Fatal(err)
	}
	r.players[id] = p
}

// chat sends a line of the knight's.
func (r *testRealm) chat(t testing.TB, id string, c world.Chat) {
	t.Helper()
	if err := r.players[id].Chat(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// waitLine waits until the knight's messages hold the line.
func (r *testRealm) waitLine(t testing.TB, id, line string) {
	t.Helper()
	waitFor(t, r.name+"'s "+id+" to read "+strconv.Quote(line)+"; it read:\n"+r.views[id].text(), func() bool {
		return slices.Contains(r.views[id].lines(), line)
	})
}

// knows waits until the realm's world knows that the knight named plays in other, which
// announces itself while it waits (a new subscription takes a moment to cross the routes).
func (r *testRealm) knows(t testing.TB, other *testRealm, name string) {
	t.Helper()
	waitFor(t, r.name+" to know "+name+" plays in "+other.name, func() bool {
		_ = other.bus.Announce(context.Background())
		far, err := r.e.FarWho(context.Background())
		return err == nil && slices.ContainsFunc(far, func(k world.FarKnight) bool { return k.Name == name && k.Realm == other.name })
	})
}

// lastView keeps a knight's newest view.
type lastView struct {
	mu sync.Mutex
	v  world.View
}

func (l *lastView) Deliver(v world.View) { l.mu.Lock(); l.v = v; l.mu.Unlock() }

func (l *lastView) lines() []string { l.mu.Lock(); defer l.mu.Unlock(); return l.v.Log.Lines() }

func (l *lastView) ended() string { l.mu.Lock(); defer l.mu.Unlock(); return l.v.Ended }

func (l *lastView) text() string { return strings.Join(l.lines(), "\n") }

// realmConn is a plain NATS client connected as srv's realm, for what a misbehaving
// realm might send: what its server lets it.
func realmConn(t testing.TB, srv *Server) *nats.Conn {
	t.Helper()
	quiet := nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}) // its refusals are read with LastError
	nc, err := nats.Connect("", append(srv.clientOptions(), nats.CustomInboxPrefix(inboxPrefix(srv.realm)), quiet)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// external is a realm's connection to an external server at url, as its user.
func external(url, password string) func(*Config) {
	return func(c *Config) { c.URL, c.Password = url, password }
}

// fakeWorld stands in for the world in the bus's own tests: it counts what it hears, and
// holds HearFar up while hold is open.
type fakeWorld struct {
	heard     atomic.Int64 // lines heard
	presences atomic.Int64 // presences set
	hold      chan struct{}
	mu        sync.Mutex
	lines     []world.FarLine
	presence  map[string][]world.FarKnight
}

func newFakeWorld() *fakeWorld { return &fakeWorld{presence: map[string][]world.FarKnight{}} }

func (f *fakeWorld) Who(context.Context) ([]world.WhoEntry, error) {
	return []world.WhoEntry{{Name: "Percival", ID: "percival", Level: 2}}, nil
}

func (f *fakeWorld) HearFar(ctx context.Context, l world.FarLine) (world.FarAnswer, error) {
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return world.FarAnswer{}, ctx.Err()
		}
	}
	f.heard.Add(1)
	f.mu.Lock()
	if len(f.lines) < 100 {
		f.lines = append(f.lines, l)
	}
	f.mu.Unlock()
	return world.FarAnswer{}, nil
}

func (f *fakeWorld) WhisperAnswered(context.Context, world.FarLine, world.FarAnswer) error {
	return nil
}

func (f *fakeWorld) SetPresence(_ context.Context, realm string, ks []world.FarKnight) error {
	f.presences.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if ks == nil {
		delete(f.presence, realm)
	} else {
		f.presence[realm] = ks
	}
	return nil
}

func (f *fakeWorld) knows(realm string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.presence[realm]
	return ok
}

func (f *fakeWorld) Silence(context.Context, world.Silence) (world.Silenced, error) {
	return world.Silenced{}, nil
}

func (f *fakeWorld) Kick(context.Context, string, string) (bool, error) { return false, nil }

// fakeBus opens a bus on its embedded server srv for a stand-in world.
func fakeBus(t testing.TB, name string, srv *Server, w World, tweak ...func(*Config)) *Bus {
	t.Helper()
	cfg := Config{Realm: name, Server: srv, AnnounceEvery: time.Hour}
	for _, f := range tweak {
		f(&cfg)
	}
	b, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func (f *fakeWorld) Broadcast(context.Context, string) (int, error) { return 0, nil }
