package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Finder is how an admin's command (kick, knight, rename, ban, silence) finds the knight
// it names: by a key's fingerprint, by the knight's id, or by name among the knights
// online here first, then those of other realms, then every kept one.
type Finder struct {
	Log *slog.Logger
	// World is who is online here, and which knights the other realms told of.
	World *world.Engine
	// Knights are the kept knights, their names and their keys.
	Knights knights.Keeper
	// Arrivals tells which knight a key plays.
	Arrivals *knights.Arrivals
	// Sessions are the open sessions: a guest's address, and the key of a knight so new
	// that only its session knows it.
	Sessions *edge.Registry
}

// errNoKnight and errSeveral are resolveBan's failures.
var (
	errNoKnight = errors.New("no knight")
	errSeveral  = errors.New("several knights")
)

// banTarget is what a ban names: the keys to ban and their knight, or for a guest
// (which has no key) or an address given as such, the address prefix to ban.
type banTarget struct {
	fps    []string
	knight string
	name   string
	addr   string // an address prefix, for a guest or an address
}

// keyAndName is a key or a knight as an admin command names it: "Kay (SHA256:...)", or
// the key alone.
func keyAndName(fp, name string) string {
	if name == "" {
		return fp
	}
	return fmt.Sprintf("%s (%s)", name, fp)
}

// resolveKnight finds the knight an admin command (knight, rename, silence, unsilence)
// names, as ban does (resolveBan): by a key's fingerprint, or by name among the knights
// online first, then among the stored ones. An address names no knight. It reports a
// failure itself.
func (f Finder) resolveKnight(c *Call, target, verb string) (banTarget, bool) {
	if _, ok := parseAddrOrPrefix(target); ok {
		c.UsageError("%s names a knight or a key, not an address", verb)
		return banTarget{}, false
	}
	t, err := f.resolveBan(c.Ctx, target)
	switch {
	case errors.Is(err, errNoKnight):
		c.Fail("no knight %q, online or stored; %s by fingerprint", Printable(target), verb)
		return banTarget{}, false
	case errors.Is(err, errSeveral):
		c.Fail("several knights are named %q; %s one by fingerprint: %s", Printable(target), verb, strings.TrimPrefix(err.Error(), errSeveral.Error()+": "))
		return banTarget{}, false
	case err != nil:
		f.Log.Error("admin: "+verb+" lookup", "target", Printable(target), "err", err)
		c.Fail("could not look the knight up: %v", err)
		return banTarget{}, false
	case t.knight == "":
		c.Fail("%s plays no knight", Printable(target))
		return banTarget{}, false
	}
	return t, true
}

// resolveBan finds what a ban names: an address or address prefix as given; a
// fingerprint as given; or the knight with the id or the name, among the knights online
// first, then among the stored ones, and every key of it (a guest online: its address).
func (f Finder) resolveBan(ctx context.Context, target string) (banTarget, error) {
	if p, ok := parseAddrOrPrefix(target); ok {
		return banTarget{addr: p.String()}, nil
	}
	who, err := f.World.Who(ctx)
	if err != nil {
		return banTarget{}, fmt.Errorf("ask the world who is online: %w", err)
	}
	if strings.HasPrefix(target, "SHA256:") {
		return f.keyTarget(target, who)
	}
	ids, name, err := f.knightsNamed(ctx, target, who)
	switch {
	case err != nil:
		return banTarget{}, err
	case len(ids) == 0:
		return banTarget{}, errNoKnight
	case len(ids) > 1:
		return banTarget{}, fmt.Errorf("%w: %s", errSeveral, strings.Join(ids, ", "))
	}
	t := banTarget{knight: ids[0], name: name}
	if knights.IsGuest(t.knight) {
		ls, ok := f.Sessions.Game(t.knight)
		if !ok {
			return banTarget{}, errNoKnight
		}
		p, _ := parseAddrOrPrefix(ls.Host())
		t.addr = p.String()
		return t, nil
	}
	if t.fps, err = KeysOfKnight(f.Knights, f.Sessions, t.knight); err != nil {
		return banTarget{}, err
	}
	return t, nil
}

// keyTarget is a ban of the key fp, with its knight and the knight's name if it has one.
func (f Finder) keyTarget(fp string, who []world.WhoEntry) (banTarget, error) {
	t := banTarget{fps: []string{fp}}
	var err error
	if t.knight, err = f.Arrivals.KnightOf(fp); err != nil || t.knight == "" {
		return t, err
	}
	for _, w := range who {
		if w.ID == t.knight {
			t.name = w.Name
		}
	}
	if rec, err := f.Knights.Knight(t.knight); t.name == "" && err == nil {
		t.name = rec.Name
	}
	return t, nil
}

// knightsNamed is the ids of the knights target names (an id or a name), looked for in
// turn among the knights online, a kept knight's id, the knights of other realms and
// the kept names, and the name of the one found.
func (f Finder) knightsNamed(ctx context.Context, target string, who []world.WhoEntry) (ids []string, name string, err error) {
	for _, w := range who {
		if (w.ID == target || strings.EqualFold(w.Name, strings.TrimSpace(target))) && !slices.Contains(ids, w.ID) {
			ids, name = append(ids, w.ID), w.Name
		}
	}
	if len(ids) == 0 && strings.HasPrefix(target, "K-") { // a kept knight's id, as reports and knight show it
		if rec, err := f.Knights.Knight(target); err == nil {
			ids, name = []string{target}, rec.Name
		}
	}
	if len(ids) == 0 { // a knight playing in another realm
		ids, name = f.farNamed(ctx, target)
	}
	if len(ids) > 0 {
		return ids, name, nil
	}
	if ids, err = f.knightsByName(target); err != nil || len(ids) != 1 {
		return ids, "", err
	}
	if rec, err := f.Knights.LoadAdventurer(ids[0]); err == nil {
		name = rec.Name
	}
	return ids, name, nil
}

// knightsByName lists the knights kept with the name (without regard to case).
func (f Finder) knightsByName(name string) ([]string, error) {
	if err := f.Knights.Flush(); err != nil {
		return nil, fmt.Errorf("write pending knights before the search: %w", err)
	}
	names, err := f.Knights.KnightNames()
	if err != nil {
		return nil, fmt.Errorf("read the knights' names: %w", err)
	}
	return knights.Named(names, name), nil
}

// farWho lists the knights of the other realms the world heard of, none without talk.
func (f Finder) farWho(ctx context.Context) []world.FarKnight {
	far, err := f.World.FarWho(ctx)
	if err != nil {
		return nil
	}
	return far
}

// farRealmOf is the realm of another realm's knight id playing now, "" for none.
func (f Finder) farRealmOf(ctx context.Context, id string) string {
	for _, k := range f.farWho(ctx) {
		if k.ID == id {
			return k.Realm
		}
	}
	return ""
}

// farNamed is the ids of the knights of other realms with the name or id (no guest).
func (f Finder) farNamed(ctx context.Context, target string) (ids []string, name string) {
	for _, k := range f.farWho(ctx) {
		if !k.Guest && (k.ID == target || strings.EqualFold(k.Name, strings.TrimSpace(target))) && !slices.Contains(ids, k.ID) {
			ids, name = append(ids, k.ID), k.Name
		}
	}
	return ids, name
}

// KeysOfKnight lists every key of the knight: the stored ones, and those its open
// sessions play it with. A new knight's key is written with its first record, so for a
// moment after it enters the game only its session knows the key (a ban then banned no
// key at all). The server asks it too, of a knight banned on another realm.
func KeysOfKnight(kept knights.Keeper, live *edge.Registry, knight string) ([]string, error) {
	keys, err := kept.KeysOf(knight)
	if err != nil {
		return nil, fmt.Errorf("read the knight's keys: %w", err)
	}
	fps := live.KeysOf(knight)
	for _, k := range keys {
		if !slices.Contains(fps, k.Fingerprint) {
			fps = append(fps, k.Fingerprint)
		}
	}
	return fps, nil
}

// parseAddrOrPrefix reads an address ("203.0.113.7", "2001:db8::1") or a prefix
// ("203.0.113.0/24"); an address alone is its /32, or for IPv6 its /64, as the limits
// count an address.
func parseAddrOrPrefix(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, false
	}
	a = a.WithZone("").Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.Prefix(bits)
	return p, true
}
