package command

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// playerDesk is the player's commands in a table as the server builds it, over an
// in-memory keeper and a running world, for the tests of whoami, who, scores, motd,
// keys, link, claim, play and watch.
type playerDesk struct {
	t        *testing.T
	ctx      context.Context
	world    *world.Engine
	keeper   *memory.Keeper
	codes    *knights.CodeBook
	names    *knights.NameBook
	sessions *edge.Registry
	motd     string
	admin    ssh.PublicKey // the one key in the admin allow-list; nil for none
	player   Player
	keyring  Keyring
	table    *Table
}

// playerSSH is the command that reaches the desk's server.
func playerSSH(flags ...string) string {
	return strings.Join(append(append([]string{"ssh"}, flags...), "-p", "2222", "host"), " ")
}

// newPlayerDesk starts a world and builds the table, of a realm named realm ("" for a
// server alone).
func newPlayerDesk(t *testing.T, realm string) *playerDesk {
	t.Helper()
	d := &playerDesk{t: t, world: world.New(world.Config{Seed: 1}), keeper: memory.NewKeeper(), sessions: edge.NewRegistry()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.world.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	d.ctx = ctx
	d.codes = knights.NewCodeBook(d.keeper, nil)
	d.names = knights.NewNameBook(d.keeper.KnightNames, func(err error) { t.Errorf("read knights' names: %v", err) })
	log := quietLog()
	d.player = Player{Log: log, World: d.world, Knights: d.keeper, Boards: knights.NewStandings(d.keeper, time.Now), Sessions: d.sessions, Tick: time.Second, Realm: realm,
		MessageOfTheDay: func() string { return d.motd }}
	d.keyring = Keyring{Log: log, World: d.world, Knights: d.keeper, Codes: d.codes, Names: d.names, Sessions: d.sessions,
		Now: time.Now, ClaimName: func(name, knight string) bool {
			ok, err := d.keeper.ClaimName(name, knight)
			return ok && err == nil && d.names.Claim(name, knight)
		}}
	arrivals := knights.NewArrivals(d.keeper, 0, nil)
	gate := Gate{Log: log, KnightOf: arrivals.KnightOf, SSH: playerSSH,
		IsAdmin: func(key ssh.PublicKey) bool { return d.admin != nil && bytes.Equal(key.Marshal(), d.admin.Marshal()) }}
	d.table = NewTable(gate, d.player.Whoami(), d.player.Who(), d.player.Scores(), d.player.MOTD(),
		d.keyring.Keys(), d.keyring.Link(), d.keyring.Claim(), Play(), Watch())
	return d
}

// run runs a command line from key (nil: a guest) over ssh, and returns what it wrote
// to its output and its errors, and its exit status.
func (d *playerDesk) run(key ssh.PublicKey, line string) (out, errOut string, code int) {
	d.t.Helper()
	var o, e bytes.Buffer
	code = d.table.Run(d.ctx, Session{Key: key, Addr: "192.0.2.1", Out: &o, ErrOut: &e}, strings.Fields(line))
	return o.String(), e.String(), code
}

// console runs a line as an admin types it in the game's console: output and errors
// together.
func (d *playerDesk) console(key ssh.PublicKey, line string) (out string, code int) {
	d.t.Helper()
	var o bytes.Buffer
	code = d.table.Run(d.ctx, Session{Key: key, Out: &o, ErrOut: &o, Console: true}, strings.Fields(line))
	return o.String(), code
}

// knight keeps a first-level knight named name, with key as its one key, added at
// added; it returns the knight's id.
func (d *playerDesk) knight(name string, key ssh.PublicKey, added time.Time) string {
	d.t.Helper()
	id := knights.NewKnightID()
	rec := world.NewAdventurer(id, name, world.Stats{Str: 12, Int: 11, Con: 10, Dex: 9}, 10)
	if err := d.keeper.AddKnight(rec, knights.Key{Fingerprint: keys.Fingerprint(key), Knight: id, Type: key.Type(), Added: added}); err != nil {
		d.t.Fatal(err)
	}
	if ok, err := d.keeper.ClaimName(name, id); !ok || err != nil {
		d.t.Fatalf("claim %s: %v %v", name, ok, err)
	}
	return id
}

// join puts the kept knight id into the world, as its game session does.
func (d *playerDesk) join(id string) *world.Player {
	d.t.Helper()
	rec, err := d.keeper.Knight(id)
	if err != nil {
		d.t.Fatal(err)
	}
	p, err := d.world.Join(d.ctx, rec, deafSubscriber{})
	if err != nil {
		d.t.Fatal(err)
	}
	return p
}

// deafSubscriber is a session that reads no views.
type deafSubscriber struct{}

func (deafSubscriber) Deliver(world.View) {}

// wantRun runs line from key and checks its whole output, errors and exit status.
func (d *playerDesk) wantRun(key ssh.PublicKey, line, wantOut, wantErr string, wantCode int) {
	d.t.Helper()
	out, errOut, code := d.run(key, line)
	if out != wantOut || errOut != wantErr || code != wantCode {
		d.t.Errorf("%s: exit %d, out:\n%s\nerrors:\n%s\nwant exit %d, out:\n%s\nerrors:\n%s", line, code, out, errOut, wantCode, wantOut, wantErr)
	}
}

// playerGuestRefusal is what a guest reads of a command that needs a key, from the desk.
func playerGuestRefusal() string {
	return strings.ReplaceAll(GuestNeedsKey, "ssh -p PORT host", playerSSH()) + "\n"
}
