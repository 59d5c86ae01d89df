package webpage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// How much of the hall of fame and of the dead the page shows.
const (
	fameShown   = 10
	deathsShown = 10
)

// The web server's timeouts: a client that sends its request slowly, or reads the answer
// slowly, holds a connection no longer than these (and, when every place is taken, only
// as long as Listener's graces). No route reads a body, so none is waited for
// (web.Handler); readTimeout is the whole request's, handler included, which a cast
// waiting for its turn (5 s) and then drawn must fit in.
const (
	readHeaderTimeout = 2 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 10 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 8 << 10
)

// World is who plays, as the page asks it (*world.Engine).
type World interface {
	// Who is the knights playing here.
	Who(ctx context.Context) ([]world.WhoEntry, error)
	// FarWho is the knights playing on the other realms.
	FarWho(ctx context.Context) ([]world.FarKnight, error)
}

// Knights are the records the page lists (knights.Keeper): Flush first, so a death or
// retirement the saver still holds is shown.
type Knights interface {
	Fame() ([]knights.FameEntry, error)
	Tombstones() ([]knights.Tombstone, error)
	Flush() error
}

// Boards are the boards of the living as the page reads them (*knights.Standings).
type Boards interface {
	Board(b world.BoardID, week bool, knight string) (world.BoardPage, error)
}

// Replays are the kept replays the page links and draws.
type Replays interface {
	// Kept is the kept records keep accepts, with every record already made filed
	// first (a death's keep is queued before its tombstone is written).
	Kept(keep func(store.Replay) bool) ([]store.Replay, error)
	// Public reports whether anyone may see kept record r now: its knight kept it
	// public and keeps its replays public still.
	Public(ctx context.Context, r store.Replay) bool
	// Chunks is kept record r's chunks; an error wrapping store.ErrNotFound when it is
	// kept no more.
	Chunks(r store.Replay) ([]replay.Chunk, error)
}

// Page is the web page: what it is gathered from, as plain values and the few parts of
// the server it reads, never the server itself.
type Page struct {
	// Name is the server's name, Realm the realm's, shown on each knight playing here.
	Name, Realm string
	// Guests says whether guests may play.
	Guests bool
	// Started is when the server started; Version its build.
	Started time.Time
	Version string
	// HostKey is the server's host key, for its fingerprint and known_hosts line.
	HostKey ssh.PublicKey
	// MOTD is the message of the day, as last set.
	MOTD func() string
	// HostPort is the host and port players connect to.
	HostPort func() (host, port string)
	// SSHCommand is the ssh command line that plays here, with flags.
	SSHCommand func(flags ...string) string
	// World is who plays; Knights the records listed.
	World   World
	Knights Knights
	// Boards are the boards of the living (knights.Standings); nil shows none.
	Boards Boards
	// Replays are the kept replays; nil when the server records none.
	Replays Replays
	// Tick is the wall time of one game turn, the casts' pace.
	Tick time.Duration
	// Config is the page's rate caps and trusted proxies.
	Config Config
	// Log is where the page's server logs.
	Log *slog.Logger
	// Play runs a browser's game on the play page; nil serves none. PlayRefusal says why
	// a page may not take up a held game from its address (web.Options.PlayRefusal).
	Play        web.PlayFunc
	PlayRefusal func(netip.Addr) string
	// PlayLink links a browser's key to a knight with a code; nil serves no link.
	PlayLink web.PlayLinkFunc

	kept keptList // the kept records by id, for the casts
}

// Serve serves the page on ln until ctx ends.
func (p *Page) Serve(ctx context.Context, ln net.Listener) {
	hs := p.server()
	if l, ok := ln.(*Listener); ok {
		hs.ConnState = l.ConnState // which connections wait on their clients, to free a place from
	}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		p.Log.Error("web page server", "addr", ln.Addr().String(), "err", err)
	}
}

// server is the page's HTTP server, within its timeouts.
func (p *Page) server() *http.Server {
	return &http.Server{
		Handler: web.New(p.Status, p.Log.With("part", "web"), web.Options{
			RatePerSecond: float64(p.Config.Rate), RateBurst: p.Config.Burst, TrustedProxies: p.Config.Trusted,
			Cast: p.Cast, CastShown: p.CastShown, Play: p.Play, PlayOrigins: p.Config.Origins, PlayLink: p.PlayLink,
			PlayGrace: p.Config.PlayGrace, PlayRefusal: p.PlayRefusal}),
		ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout,
		IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
	}
}

// Status gathers what the page shows (web.StatusFunc): who is online from the world; the
// hall of fame and the latest deaths from the records, after the saver has written what
// it holds, with the addresses of their replays.
func (p *Page) Status(ctx context.Context) (web.Status, error) {
	host, port := p.HostPort()
	portN, _ := strconv.Atoi(port)
	st := web.Status{
		Name: p.Name, MOTD: p.MOTD(), Host: host, Port: portN,
		SSH: p.SSHCommand(), Plain: p.SSHCommand("-t") + " play --plain",
		HostKey: keys.Fingerprint(p.HostKey), HostKeyType: p.HostKey.Type(),
		KnownHosts: knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort(host, port))}, p.HostKey),
		Guests:     p.Guests, Started: p.Started, Version: p.Version,
	}
	who, err := p.World.Who(ctx)
	if err != nil {
		return web.Status{}, fmt.Errorf("ask the world who is online: %w", err)
	}
	for _, w := range who {
		pl := web.Player{Name: w.Name, Level: w.Level, Depth: w.Depth, Guest: w.Guest, Realm: p.Realm}
		if !w.Guest { // a guest's deeds are its own: never told to others
			pl.Deeds = webDeeds(w.Deeds)
		}
		st.Online = append(st.Online, pl)
	}
	far, _ := p.World.FarWho(ctx) // the other realms' knights, by realm; none when they cannot be asked
	for _, k := range far {
		st.Online = append(st.Online, web.Player{Name: k.Name, Level: k.Level, Guest: k.Guest, Realm: k.Realm, Far: true})
	}
	if err := p.Knights.Flush(); err != nil {
		return web.Status{}, fmt.Errorf("write pending knights: %w", err)
	}
	if err := p.records(ctx, &st); err != nil {
		return web.Status{}, err
	}
	if err := p.boards(&st); err != nil {
		return web.Status{}, err
	}
	return st, nil
}

// boards fills in every board of the living, for all time and this week.
func (p *Page) boards(st *web.Status) error {
	if p.Boards == nil {
		return nil
	}
	for b, bd := range world.Boards {
		ever, err := p.Boards.Board(world.BoardID(b), false, "")
		if err != nil {
			return err
		}
		week, err := p.Boards.Board(world.BoardID(b), true, "")
		if err != nil {
			return err
		}
		st.Boards = append(st.Boards, web.Board{Name: bd.Name, Title: bd.Title, Column: english.Capital(strings.ToLower(bd.Column)), Week: week.Week,
			AllTime: webRows(ever.Rows), ThisWeek: webRows(week.Rows)})
	}
	return nil
}

// webRows are a board's rows as the page shows them.
func webRows(rows []world.BoardRow) []web.BoardRow {
	out := make([]web.BoardRow, len(rows))
	for i, r := range rows {
		out[i] = web.BoardRow{Rank: r.Rank, Name: r.Name, Level: r.Level, Value: r.Value}
	}
	return out
}

// records fills in the hall of fame and the latest deaths, each with its replay's
// address when a public one is kept.
func (p *Page) records(ctx context.Context, st *web.Status) error {
	kept, err := p.publicKept(ctx)
	if err != nil {
		return fmt.Errorf("list the replays: %w", err)
	}
	fame, err := p.Knights.Fame()
	if err != nil {
		return err
	}
	for i, f := range fame[:min(len(fame), fameShown)] {
		a := f.Adventurer
		st.Fame = append(st.Fame, web.Fame{Rank: i + 1, Name: a.Name, Level: a.Level, Experience: a.Experience,
			PercentKills: a.PercentKills(), Retired: f.Retired, Replay: castLink(kept, a, replay.KindRetired, f.Retired), Deeds: webDeeds(a.Deeds)})
	}
	tombs, err := p.Knights.Tombstones()
	if err != nil {
		return err
	}
	slices.SortStableFunc(tombs, func(a, b knights.Tombstone) int { return b.Died.Compare(a.Died) })
	for _, t := range tombs {
		d := t.Adventurer.Death
		if d == nil || d.Killer == knights.ReplacedKiller {
			continue // a knight its player retired for another is no death
		}
		st.Deaths = append(st.Deaths, web.Death{Name: t.Adventurer.Name, Level: d.Level, Killer: d.Killer, Depth: d.Depth, Died: t.Died,
			Replay: castLink(kept, t.Adventurer, replay.KindDeath, t.Died)})
		if len(st.Deaths) == deathsShown {
			break
		}
	}
	return nil
}

// webDeeds are the deeds as the page shows them, in the order earned; nil for none.
func webDeeds(deeds []world.Deed) []web.Deed {
	var out []web.Deed
	for _, r := range world.DeedRows(deeds) {
		out = append(out, web.Deed{ID: r.ID, Title: r.Title})
	}
	return out
}
