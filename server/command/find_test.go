package command

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// modWorld is the moderation commands' table on the in-memory keeper and a real world,
// with an admin's key, a clock that stands still, and what the other realms were told.
type modWorld struct {
	t      *testing.T
	keeper *memory.Keeper
	world  *world.Engine
	live   *edge.Registry
	admins atomic.Pointer[keys.AllowList]
	admin  gossh.PublicKey
	guests GuestSilences
	names  *knights.NameBook
	now    time.Time
	table  *Table

	mu   sync.Mutex
	told []talk.Moderation
}

// modStart is a modWorld whose world runs until the test ends.
func modStart(t *testing.T) *modWorld { return modStartKeeping(t, nil) }

// modStartKeeping is a modWorld whose commands keep the knights in what wrap makes of
// the in-memory keeper (nil: the keeper itself).
func modStartKeeping(t *testing.T, wrap func(*memory.Keeper) knights.Keeper) *modWorld {
	t.Helper()
	m := &modWorld{t: t, keeper: memory.NewKeeper(), live: edge.NewRegistry(), admin: modKey(t, 1),
		now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	list, errs := keys.ParseAllowList(bytes.NewReader(gossh.MarshalAuthorizedKey(m.admin)))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m.admins.Store(list)
	m.world = world.New(world.Config{Seed: 7, Depth: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.world.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	m.names = knights.NewNameBook(m.keeper.KnightNames, func(err error) { t.Error(err) })
	log := quietLog()
	var kept knights.Keeper = m.keeper
	if wrap != nil {
		kept = wrap(m.keeper)
	}
	arrivals := knights.NewArrivals(kept, 0, nil)
	find := Finder{Log: log, World: m.world, Knights: kept, Arrivals: arrivals, Sessions: m.live}
	clock := func() time.Time { return m.now }
	mod := Moderation{Finder: find, Admins: &m.admins, Guests: &m.guests, TellRealms: m.tell, Now: clock,
		WorldSilence: func(sl knights.Silence, now time.Time) world.Silence {
			return world.Silence{Knight: sl.Knight, Turns: uint64(sl.Until.Sub(now) / time.Second), Until: UntilText(sl.Until), Reason: sl.Reason}
		}}
	one := KnightAdmin{Finder: find, Guests: &m.guests, Names: m.names, TellRealms: m.tell, Now: clock,
		CheckName: func(raw, id string) (string, string) {
			name, err := world.CleanName(raw)
			switch {
			case err != nil:
				return "", "a bad name"
			case m.names.Taken(name, id):
				return "", "taken"
			}
			return name, ""
		}, TakenName: "taken"}
	gate := Gate{Log: log, IsAdmin: func(k ssh.PublicKey) bool { return m.admins.Load().Contains(k) }, KnightOf: arrivals.KnightOf,
		SSH: modSSH}
	m.table = NewTable(gate, mod.Kick(), one.Knight(), one.Rename(), mod.Ban(), mod.Unban(), mod.Bans(),
		mod.Silence(), mod.Unsilence(), mod.Silences())
	return m
}

// modSSH is the command that reaches the server of the tests.
func modSSH(flags ...string) string {
	return strings.Join(append(append([]string{"ssh"}, flags...), "-p", "2222", "host"), " ")
}

// modKey is a key made from seed, the same for the same seed.
func modKey(t *testing.T, seed byte) gossh.PublicKey {
	t.Helper()
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)).Public()
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (m *modWorld) tell(msg talk.Moderation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.told = append(m.told, msg)
}

// toldRealms is what the other realms were told, in order.
func (m *modWorld) toldRealms() []talk.Moderation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]talk.Moderation(nil), m.told...)
}

// run runs an admin's command line and returns its output, its errors and its status.
func (m *modWorld) run(line string) (out, errOut string, code int) {
	return m.runAs(m.admin, line)
}

// runAs runs a command line as the key (nil: a guest).
func (m *modWorld) runAs(key gossh.PublicKey, line string) (out, errOut string, code int) {
	var o, e bytes.Buffer
	code = m.table.Run(context.Background(), Session{Key: key, Out: &o, ErrOut: &e}, strings.Fields(line))
	return o.String(), e.String(), code
}

// want runs line and checks its output, its errors and its status.
func (m *modWorld) want(line, out, errOut string, code int) {
	m.t.Helper()
	gotOut, gotErr, gotCode := m.run(line)
	if gotOut != out || gotErr != errOut || gotCode != code {
		m.t.Errorf("%s:\n got %q, %q, %d\nwant %q, %q, %d", line, gotOut, gotErr, gotCode, out, errOut, code)
	}
}

// keep keeps a knight with one key (seed), offline, and returns the key's fingerprint.
func (m *modWorld) keep(id, name string, seed byte) string {
	m.t.Helper()
	fp := keys.Fingerprint(modKey(m.t, seed))
	a := world.NewAdventurer(id, name, world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	a.Created = m.now.Add(-48 * time.Hour)
	if err := m.keeper.AddKnight(a, knights.Key{Fingerprint: fp, Knight: id, Type: "ssh-ed25519", Added: a.Created}); err != nil {
		m.t.Fatal(err)
	}
	return fp
}

// join puts a knight into the world (kept first when it has a key seed, else a guest's
// with a session from addr), and returns what its screen is sent.
func (m *modWorld) join(id, name string, seed byte, addr string) *modScreen {
	m.t.Helper()
	if seed != 0 {
		m.keep(id, name, seed)
	} else {
		remove := m.live.Add(edge.LiveSession{Knight: id, Guest: true, Addr: addr, Game: true, Close: func() {}})
		m.t.Cleanup(remove)
	}
	a := world.NewAdventurer(id, name, world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	a.Guest = seed == 0
	screen := &modScreen{}
	if _, err := m.world.Join(context.Background(), a, screen); err != nil {
		m.t.Fatal(err)
	}
	return screen
}

// modScreen is a knight's screen: the last way its game ended.
type modScreen struct {
	mu    sync.Mutex
	ended string
}

// Deliver implements world.Subscriber.
func (s *modScreen) Deliver(v world.View) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.Ended != "" {
		s.ended = v.Ended
	}
}

func (s *modScreen) end() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

func TestAKnightIsFoundByNameKeyOrID(t *testing.T) {
	m := modStart(t)
	fp := m.keep("K-kay", "Kay", 2)
	m.keep("K-bors1", "Bors", 3)
	m.keep("K-bors2", "Bors", 4)
	m.join("K-gawain", "Gawain", 5, "")
	for _, target := range []string{"Kay", "kay", "K-kay", fp} {
		out, errOut, code := m.run("knight " + target)
		if code != 0 || !strings.HasPrefix(out, "knight        Kay (K-kay)\n") {
			t.Errorf("knight %s: %q %q %d", target, out, errOut, code)
		}
	}
	if out, _, _ := m.run("knight Gawain"); !strings.Contains(out, "status        online, level 1, depth 1\n") {
		t.Errorf("knight Gawain, online: %q", out)
	}
	m.want("knight Bors", "", "orthanc: several knights are named \"Bors\"; look up one by fingerprint: K-bors1, K-bors2\n", 1)
	m.want("knight Nobody", "", "orthanc: no knight \"Nobody\", online or stored; look up by fingerprint\n", 1)
	m.want("knight 203.0.113.7", "", "orthanc: look up names a knight or a key, not an address; usage: knight <name|fingerprint|id> [--json]\n", 1)
	stray := keys.Fingerprint(modKey(t, 9))
	m.want("knight "+stray, "", "orthanc: "+stray+" plays no knight\n", 1)
	m.want("knight", "", "orthanc: name the knight; usage: knight <name|fingerprint|id> [--json]\n", 1)
	m.want("knight Kay --bogus", "", "orthanc: unknown flag \"--bogus\"; usage: knight <name|fingerprint|id> [--json]\n", 1)
}

func TestModerationIsAdminsOnly(t *testing.T) {
	m := modStart(t)
	m.keep("K-kay", "Kay", 2)
	for _, line := range []string{"kick Kay", "knight Kay", "rename Kay Kai", "ban Kay", "unban Kay", "bans", "silence Kay 1h", "unsilence Kay", "silences"} {
		out, errOut, code := m.runAs(modKey(t, 2), line)
		if out != "" || errOut != PermissionDenied+"\n" || code != 1 {
			t.Errorf("%s by a player: %q %q %d", line, out, errOut, code)
		}
	}
	if bans, _ := m.keeper.Bans(m.now); len(bans) != 0 {
		t.Errorf("a player's ban was kept: %v", bans)
	}
}

func TestKeysOfAKnightAreItsKeptOnesAndItsSessions(t *testing.T) {
	m := modStart(t)
	fp := m.keep("K-kay", "Kay", 2)
	remove := m.live.Add(edge.LiveSession{Fingerprint: "SHA256:new", Knight: "K-kay", Game: true, Close: func() {}})
	defer remove()
	got, err := KeysOfKnight(m.keeper, m.live, "K-kay")
	if err != nil || len(got) != 2 || got[0] != "SHA256:new" || got[1] != fp {
		t.Errorf("KeysOfKnight = %v, %v", got, err)
	}
}

func TestAnAddressIsReadAsItsPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":        "203.0.113.7/32",
		"203.0.113.9/24":     "203.0.113.0/24",
		"::ffff:203.0.113.7": "203.0.113.7/32",
		"2001:db8::1":        "2001:db8::/64",
		"Kay":                "",
	} {
		p, ok := parseAddrOrPrefix(in)
		if got := p.String(); ok != (want != "") || ok && got != want {
			t.Errorf("parseAddrOrPrefix(%q) = %s, %v", in, got, ok)
		}
	}
}
