package server

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands that keep the peace: kick, bans, silences, and the players' reports.

// kickGrace is how long a banned key's sessions stay open after the ban, so the game's
// last screen ("An admin has removed you...") reaches the player before the line drops.
const kickGrace = time.Second

// actionJSON is the --json output of kick, ban and unban.
type actionJSON struct {
	Fingerprint string `json:"fingerprint,omitempty"`
	// Fingerprints are every key a ban of a knight banned, Addr the address prefix a
	// ban of a guest or an address banned.
	Fingerprints []string `json:"fingerprints,omitempty"`
	Addr         string   `json:"addr,omitempty"`
	Name         string   `json:"name,omitempty"`
	Kicked       bool     `json:"kicked"`
	// Realm is the realm a knight kicked plays on, when another.
	Realm  string `json:"realm,omitempty"`
	Banned bool   `json:"banned"`
	// Until is when a timed ban lapses; left out for a ban without an end.
	Until time.Time `json:"until,omitzero"`
	// Reason is what the knight removed was told, after world.KickedMessage.
	Reason string `json:"reason,omitempty"`
}

// keyAndName is a key or a knight as an admin command names it: "Kay (SHA256:...)", or
// the key alone.
func keyAndName(fp, name string) string {
	if name == "" {
		return fp
	}
	return fmt.Sprintf("%s (%s)", name, fp)
}

// resolveKnight finds the knight an admin command (silence, unsilence) names, as ban
// does (resolveBan): by a key's fingerprint, or by name among the knights online first,
// then among the stored ones. An address names no knight. It reports a failure itself;
// with notAdmin, the knight of an admin's key is refused too.
func (s *Server) resolveKnight(c *command.Call, target, verb string, notAdmin bool) (banTarget, bool) {
	if _, ok := parseAddrOrPrefix(target); ok {
		c.UsageError("%s names a knight or a key, not an address", verb)
		return banTarget{}, false
	}
	t, err := s.resolveBan(c.Ctx, target)
	switch {
	case errors.Is(err, errNoKnight):
		c.Fail("no knight %q, online or stored; %s by fingerprint", command.Printable(target), verb)
		return banTarget{}, false
	case errors.Is(err, errSeveral):
		c.Fail("several knights are named %q; %s one by fingerprint: %s", command.Printable(target), verb, strings.TrimPrefix(err.Error(), errSeveral.Error()+": "))
		return banTarget{}, false
	case err != nil:
		s.log.Error("admin: "+verb+" lookup", "target", command.Printable(target), "err", err)
		c.Fail("could not look the knight up: %v", err)
		return banTarget{}, false
	case t.knight == "":
		c.Fail("%s plays no knight", command.Printable(target))
		return banTarget{}, false
	}
	if notAdmin && !knights.IsGuest(t.knight) {
		fps, err := s.keysOfKnight(t.knight)
		if err != nil {
			c.Fail("could not read the knight's keys: %v", err)
			return banTarget{}, false
		}
		for _, fp := range fps {
			if slices.Contains(s.admins.Load().Fingerprints(), fp) {
				c.Fail("%s is played by an admin's key; take it out of the admin keys file first", keyAndName(t.knight, t.name))
				return banTarget{}, false
			}
		}
	}
	return t, true
}

func (s *Server) adminKick(c *command.Call) int {
	who := strings.Join(c.Args, " ")
	if who == "" {
		return c.UsageError("name the knight")
	}
	if c.HasReason && c.Reason == "" {
		return c.UsageError("--reason needs a text")
	}
	target := who
	if strings.HasPrefix(who, "SHA256:") { // a key: its knight
		knight, err := s.knightOf(who)
		if err != nil {
			return c.Fail("could not look the key up: %v", err)
		}
		target = knight
	}
	kicked, err := s.engine.Kick(c.Ctx, target, c.Reason)
	var far string
	if err == nil && !kicked {
		far = s.kickFar(c, target)
	}
	switch {
	case errors.Is(err, world.ErrAmbiguousName):
		return c.Fail("several knights online are named %q; kick by fingerprint (see who)", command.Printable(who))
	case err != nil:
		return c.Fail("the world is not answering: %v", err)
	case !kicked && far == "":
		return c.Fail("no knight %q is online", command.Printable(who))
	}
	c.Result = "kicked " + command.Printable(who)
	if c.JSON {
		return c.WriteJSON(actionJSON{Name: who, Kicked: true, Reason: c.Reason, Realm: far})
	}
	where := ""
	if far != "" {
		where = " of realm " + far
	}
	if c.Reason != "" {
		fmt.Fprintf(c.Out, "Removed %s from the dungeon%s, telling it why: %s\n", command.Printable(who), where, c.Reason)
		return 0
	}
	fmt.Fprintf(c.Out, "Removed %s from the dungeon%s.\n", command.Printable(who), where)
	return 0
}

// kickFar kicks the one knight of another realm with the name or id target, through
// that realm: it returns the realm, "" when no other realm has one such knight.
func (s *Server) kickFar(c *command.Call, target string) string {
	var found []world.FarKnight
	for _, k := range s.farWho(c.Ctx) {
		if !k.Guest && (k.ID == target || strings.EqualFold(k.Name, strings.TrimSpace(target))) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return ""
	}
	s.talk.moderate(talk.Moderation{Kind: talk.ModKick, Knight: found[0].ID, Reason: c.Reason})
	return found[0].Realm
}

// errNoKnight and errSeveral are resolveKey's failures.
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

// resolveBan finds what a ban names: an address or address prefix as given; a
// fingerprint as given; or the knight with the id or the name, among the knights online
// first, then among the stored ones, and every key of it (a guest online: its address).
func (s *Server) resolveBan(ctx context.Context, target string) (banTarget, error) {
	if p, ok := parseAddrOrPrefix(target); ok {
		return banTarget{addr: p.String()}, nil
	}
	who, err := s.engine.Who(ctx)
	if err != nil {
		return banTarget{}, fmt.Errorf("ask the world who is online: %w", err)
	}
	if strings.HasPrefix(target, "SHA256:") {
		return s.keyTarget(target, who)
	}
	ids, name, err := s.knightsNamed(ctx, target, who)
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
		ls, ok := s.live.Game(t.knight)
		if !ok {
			return banTarget{}, errNoKnight
		}
		p, _ := parseAddrOrPrefix(ls.Host())
		t.addr = p.String()
		return t, nil
	}
	if t.fps, err = s.keysOfKnight(t.knight); err != nil {
		return banTarget{}, err
	}
	return t, nil
}

// keyTarget is a ban of the key fp, with its knight and the knight's name if it has one.
func (s *Server) keyTarget(fp string, who []world.WhoEntry) (banTarget, error) {
	t := banTarget{fps: []string{fp}}
	var err error
	if t.knight, err = s.knightOf(fp); err != nil || t.knight == "" {
		return t, err
	}
	for _, w := range who {
		if w.ID == t.knight {
			t.name = w.Name
		}
	}
	if rec, err := s.knights.Knight(t.knight); t.name == "" && err == nil {
		t.name = rec.Name
	}
	return t, nil
}

// knightsNamed is the ids of the knights target names (an id or a name), looked for in
// turn among the knights online, a kept knight's id, the knights of other realms and
// the kept names, and the name of the one found.
func (s *Server) knightsNamed(ctx context.Context, target string, who []world.WhoEntry) (ids []string, name string, err error) {
	for _, w := range who {
		if (w.ID == target || strings.EqualFold(w.Name, strings.TrimSpace(target))) && !slices.Contains(ids, w.ID) {
			ids, name = append(ids, w.ID), w.Name
		}
	}
	if len(ids) == 0 && strings.HasPrefix(target, "K-") { // a kept knight's id, as reports and knight show it
		if rec, err := s.knights.Knight(target); err == nil {
			ids, name = []string{target}, rec.Name
		}
	}
	if len(ids) == 0 { // a knight playing in another realm
		ids, name = s.farNamed(ctx, target)
	}
	if len(ids) > 0 {
		return ids, name, nil
	}
	if ids, err = s.knightsByName(target); err != nil || len(ids) != 1 {
		return ids, "", err
	}
	if rec, err := s.knights.LoadAdventurer(ids[0]); err == nil {
		name = rec.Name
	}
	return ids, name, nil
}

// knightsByName lists the knights kept with the name (without regard to case).
func (s *Server) knightsByName(name string) ([]string, error) {
	if err := s.knights.Flush(); err != nil {
		return nil, fmt.Errorf("write pending knights before the search: %w", err)
	}
	names, err := s.knights.KnightNames()
	if err != nil {
		return nil, fmt.Errorf("read the knights' names: %w", err)
	}
	return knights.Named(names, name), nil
}

// keysOfKnight lists every key of the knight: the stored ones, and those its open
// sessions play it with. A new knight's key is written with its first record, so for a
// moment after it enters the game only its session knows the key (a ban then banned no
// key at all).
func (s *Server) keysOfKnight(knight string) ([]string, error) {
	keys, err := s.knights.KeysOf(knight)
	if err != nil {
		return nil, fmt.Errorf("read the knight's keys: %w", err)
	}
	fps := s.live.KeysOf(knight)
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

func (s *Server) adminBan(c *command.Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight, the key or the address")
	}
	t, err := s.resolveBan(c.Ctx, target)
	switch {
	case errors.Is(err, errNoKnight):
		return c.Fail("no knight %q, online or stored; ban by fingerprint", command.Printable(target))
	case errors.Is(err, errSeveral):
		return c.Fail("several knights are named %q; ban one by fingerprint: %s", command.Printable(target), strings.TrimPrefix(err.Error(), errSeveral.Error()+": "))
	case err != nil:
		s.log.Error("admin: ban lookup", "target", command.Printable(target), "err", err)
		return c.Fail("could not look the knight up: %v", err)
	}
	for _, fp := range t.fps {
		if slices.Contains(s.admins.Load().Fingerprints(), fp) {
			return c.Fail("%s is an admin's key; take it out of the admin keys file first", fp)
		}
	}
	// A ban for a time (--for) puts the same end on every ban it writes: the knight's
	// keys, or the address of a guest.
	now := s.now().UTC()
	var until time.Time
	if c.HasFor {
		until = now.Add(c.Span)
	}
	if t.addr != "" {
		if err := s.knights.Ban(knights.Ban{Addr: t.addr, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: until}); err != nil {
			s.log.Error("admin: ban", "addr", t.addr, "err", err)
			return c.Fail("the ban could not be saved: %v", err)
		}
	}
	for _, fp := range t.fps {
		if err := s.knights.Ban(knights.Ban{Fingerprint: fp, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: until}); err != nil {
			s.log.Error("admin: ban", "fingerprint", fp, "err", err)
			return c.Fail("the ban could not be saved: %v", err)
		}
	}
	kicked := false
	if t.knight != "" {
		if kicked, err = s.engine.Kick(c.Ctx, t.knight, c.Reason); err != nil {
			s.log.Error("admin: kick the banned knight", "knight", t.knight, "err", err)
		}
	}
	s.tellRealms(talk.Moderation{Kind: talk.ModBan, Knight: t.knight, Reason: c.Reason})
	for _, fp := range t.fps {
		s.live.CloseKey(fp, kickGrace) // sessions still on the title screen, or running commands
	}
	if t.addr != "" {
		s.live.CloseAddr(t.addr, kickGrace)
	}
	ends := ""
	if c.HasFor {
		ends = " until " + untilText(until)
	}
	banned := strings.TrimSpace(strings.Join(append(slices.Clone(t.fps), t.addr), " "))
	c.Result = fmt.Sprintf("banned %s (%s)%s, kicked %v", banned, t.name, ends, kicked)
	if c.JSON {
		fp := ""
		if len(t.fps) > 0 {
			fp = t.fps[0]
		}
		return c.WriteJSON(actionJSON{Fingerprint: fp, Fingerprints: t.fps, Addr: t.addr, Name: t.name, Kicked: kicked, Banned: true, Until: until})
	}
	fmt.Fprintf(c.Out, "Banned %s%s.", keyAndName(banned, t.name), ends)
	if kicked {
		fmt.Fprint(c.Out, " Its knight was removed from the dungeon.")
	}
	fmt.Fprintln(c.Out)
	return 0
}

func (s *Server) adminUnban(c *command.Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight, the key or the address")
	}
	fps := []string{target}
	name := ""
	if p, ok := parseAddrOrPrefix(target); ok {
		fps = []string{"addr:" + p.String()}
	} else if !strings.HasPrefix(target, "SHA256:") {
		bans, err := s.knights.Bans(s.now())
		if err != nil {
			return c.Fail("could not read the bans: %v", err)
		}
		fps = nil
		for _, b := range bans {
			if strings.EqualFold(b.Name, strings.TrimSpace(target)) {
				fps, name = append(fps, banKeyOf(b)), b.Name
			}
		}
		if len(fps) == 0 {
			return c.Fail("no banned knight is named %q; `bans` lists the bans", command.Printable(target))
		}
		// A ban of a knight by name banned each of its keys: they are lifted together.
	}
	for _, fp := range fps {
		found, err := s.knights.Unban(fp)
		if err != nil {
			return c.Fail("the ban could not be lifted: %v", err)
		}
		if !found {
			return c.Fail("%s is not banned", command.Printable(fp))
		}
	}
	c.Result = "unbanned " + strings.Join(fps, " ")
	if c.JSON {
		return c.WriteJSON(actionJSON{Fingerprint: fps[0], Fingerprints: fps, Name: name})
	}
	fmt.Fprintf(c.Out, "Lifted the ban on %s.\n", strings.Join(fps, ", "))
	return 0
}

// banKeyOf is how bans and unban name a ban: its key's fingerprint, or "addr:" and its
// address prefix.
func banKeyOf(b knights.Ban) string {
	if b.Addr != "" {
		return "addr:" + b.Addr
	}
	return b.Fingerprint
}

func (s *Server) adminBans(c *command.Call) int {
	bans, err := s.knights.Bans(s.now())
	if err != nil {
		return c.Fail("could not read the bans: %v", err)
	}
	c.Result = fmt.Sprintf("%d bans", len(bans))
	if c.JSON {
		return c.WriteJSON(bans)
	}
	if len(bans) == 0 {
		fmt.Fprintln(c.Out, "No key is banned.")
		return 0
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT OR ADDRESS\tKNIGHT\tSINCE\tUNTIL\tREASON")
	for _, b := range bans {
		until := "unban"
		if !b.Until.IsZero() {
			until = untilText(b.Until)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", banKeyOf(b), b.Name, b.At.UTC().Format(time.DateTime), until, b.Reason)
	}
	_ = tw.Flush()
	return 0
}

// silenceJSON is the --json output of silence and unsilence, and a row of silences.
// Knight is the silenced knight's id: a silence holds whichever of its keys plays it.
type silenceJSON struct {
	Knight string    `json:"knight"`
	Name   string    `json:"name,omitempty"`
	Until  time.Time `json:"until,omitzero"`
	Reason string    `json:"reason,omitempty"`
	Online bool      `json:"online"`
	Guest  bool      `json:"guest,omitempty"`
}

// adminSilence is silence NAME DURATION: the knight plays on but cannot talk. A silence
// is kept by the knight's id, so it holds whichever of the knight's keys plays, across
// restarts; a guest's, which has no id beyond its session, lasts while it plays and is
// not kept.
func (s *Server) adminSilence(c *command.Call) int {
	if len(c.Args) < 2 {
		return c.UsageError("name the knight, then how long")
	}
	d, err := command.ParseSpan(c.Args[len(c.Args)-1])
	if err != nil {
		return c.UsageError("%v", err)
	}
	target := strings.Join(c.Args[:len(c.Args)-1], " ")
	t, ok := s.resolveKnight(c, target, "silence", true)
	if !ok {
		return 1
	}
	guest := knights.IsGuest(t.knight)
	now := s.now().UTC()
	sl := knights.Silence{Knight: t.knight, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: now.Add(d)}
	if guest {
		s.guestSilences.put(sl)
	} else if err := s.knights.Silence(sl); err != nil {
		s.log.Error("admin: silence", "knight", t.knight, "err", err)
		return c.Fail("the silence could not be saved: %v", err)
	}
	done, err := s.engine.Silence(c.Ctx, s.worldSilence(sl, now))
	if err != nil {
		return c.Fail("the silence is saved but the world is not answering: %v", err)
	}
	s.tellRealms(talk.Moderation{Kind: talk.ModSilence, Knight: t.knight, For: d, Until: untilText(sl.Until), Reason: sl.Reason})
	online := done.Online
	c.Result = fmt.Sprintf("silenced %s (%s) until %s", t.knight, t.name, untilText(sl.Until))
	if c.JSON {
		return c.WriteJSON(silenceJSON{Knight: t.knight, Name: t.name, Until: sl.Until, Reason: sl.Reason, Online: online, Guest: guest})
	}
	fmt.Fprintf(c.Out, "Silenced %s until %s.", keyAndName(t.knight, t.name), untilText(sl.Until))
	if online {
		fmt.Fprint(c.Out, " Its knight has been told.")
	}
	if guest {
		fmt.Fprint(c.Out, " A guest's silence lasts while it plays, not kept in the database; to keep it out, ban it (its address).")
	}
	fmt.Fprintln(c.Out)
	return 0
}

func (s *Server) adminUnsilence(c *command.Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight or the key")
	}
	t, ok := s.resolveKnight(c, target, "unsilence", false)
	if !ok {
		return 1
	}
	guest := knights.IsGuest(t.knight)
	found, err := s.knights.Unsilence(t.knight)
	if err != nil {
		return c.Fail("the silence could not be lifted: %v", err)
	}
	done, err := s.engine.Silence(c.Ctx, world.Silence{Knight: t.knight})
	if err != nil {
		return c.Fail("the silence is lifted in the store but the world is not answering: %v", err)
	}
	s.tellRealms(talk.Moderation{Kind: talk.ModUnsilence, Knight: t.knight})
	if !found && !done.Was { // a guest's silence is the world's alone
		return c.Fail("%s is not silenced", keyAndName(t.knight, t.name))
	}
	s.guestSilences.remove(t.knight)
	c.Result = "unsilenced " + t.knight
	if c.JSON {
		return c.WriteJSON(silenceJSON{Knight: t.knight, Name: t.name, Online: done.Online, Guest: guest})
	}
	fmt.Fprintf(c.Out, "Lifted the silence of %s.\n", keyAndName(t.knight, t.name))
	return 0
}

// adminSilences lists the silences running: the knights' from the store, then those of
// the guests online (kept in memory only, for their sessions).
func (s *Server) adminSilences(c *command.Call) int {
	now := s.now()
	list, err := s.knights.Silences(now)
	if err != nil {
		return c.Fail("could not read the silences: %v", err)
	}
	who, err := s.engine.Who(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	online := map[string]bool{}
	for _, w := range who {
		online[w.ID] = true
	}
	guests := s.guestSilences.running(now, online)
	rows := make([]silenceJSON, 0, len(list)+len(guests))
	for _, sl := range list {
		rows = append(rows, silenceJSON{Knight: sl.Knight, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: online[sl.Knight]})
	}
	for _, sl := range guests {
		rows = append(rows, silenceJSON{Knight: sl.Knight, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: true, Guest: true})
	}
	c.Result = fmt.Sprintf("%d silences", len(rows))
	if c.JSON {
		return c.WriteJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.Out, "No knight is silenced.")
		return 0
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KNIGHT\tNAME\tUNTIL\tREASON")
	for _, r := range rows {
		name := r.Name
		if r.Guest {
			name += " (a guest: for its session)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Knight, name, untilText(r.Until), r.Reason)
	}
	_ = tw.Flush()
	return 0
}

// reportedKnight is a knight as reports names it: "Kay (K-…)", "Guest Tom (guest-…, a
// guest)", or the name alone when its id is not known.
func reportedKnight(name, id string, guest bool) string {
	switch {
	case id == "":
		return name
	case guest:
		return fmt.Sprintf("%s (%s, a guest)", name, id)
	}
	return keyAndName(id, name)
}

// adminReports lists the reports filed, the open ones first, each with the lines it
// carries; reports older than reportKeep are forgotten first.
func (s *Server) adminReports(c *command.Call) int {
	if err := s.saver.Flush(); err != nil {
		s.log.Error("admin: flush before reports", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: reports filed in the last moments may be missing: %v\n", err)
	}
	if _, err := s.store.ForgetReportsBefore(s.now().Add(-reportKeep)); err != nil {
		s.log.Error("admin: forget old reports", "err", err)
	}
	list, err := s.store.Reports()
	if err != nil {
		return c.Fail("could not read the reports: %v", err)
	}
	c.Result = fmt.Sprintf("%d reports", len(list))
	if c.JSON {
		return c.WriteJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Out, "No reports.")
		return 0
	}
	replays := s.reportReplays(list)
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(c.Out)
		}
		fmt.Fprintf(c.Out, "#%d %s  %s  %s reported %s: %s\n", r.ID, reportState(r), r.Filed.UTC().Format(time.DateTime),
			reportedKnight(r.From, r.FromKnight, r.FromGuest), reportedKnight(r.About, r.AboutKnight, r.AboutGuest), r.Reason)
		if r.Times > 1 {
			fmt.Fprintf(c.Out, "  (reported %d times, last at %s)\n", r.Times, r.Updated.UTC().Format(time.DateTime))
		}
		if replays[r.ID] {
			fmt.Fprintf(c.Out, "  (what %s did in the %d minutes before: %s replay --report %d)\n",
				r.About, int(replay.ReportWindow.Minutes()), s.sshCommand("-t"), r.ID)
		}
		if len(r.Lines) == 0 {
			fmt.Fprintf(c.Out, "  (%s said nothing aloud in the %d minutes before)\n", r.About, int(reportWindow.Minutes()))
			continue
		}
		tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
		for _, l := range r.Lines {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", l.At.UTC().Format(time.TimeOnly), l.Where, l.Line)
		}
		_ = tw.Flush()
	}
	return 0
}

// reportState is a report's state as reports lists it.
func reportState(r store.Report) string {
	if r.Open() {
		return "open"
	}
	return fmt.Sprintf("%s by %s at %s", r.Outcome, r.ClosedBy, r.Closed.UTC().Format(time.DateTime))
}

// adminReportsResolve closes a report as dealt with.
func (s *Server) adminReportsResolve(c *command.Call) int { return s.closeReport(c, store.Resolved) }

// adminReportsDismiss closes a report as needing nothing.
func (s *Server) adminReportsDismiss(c *command.Call) int { return s.closeReport(c, store.Dismissed) }

// closeReport closes the report numbered in c's one word with outcome.
func (s *Server) closeReport(c *command.Call, outcome string) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the number of one report, as reports lists it")
	}
	id, err := strconv.ParseUint(strings.TrimPrefix(c.Args[0], "#"), 10, 64)
	if err != nil {
		return c.UsageError("%q is not a report's number", c.Args[0])
	}
	if err := s.saver.Flush(); err != nil {
		s.log.Error("admin: flush before closing a report", "err", err)
	}
	r, err := s.store.CloseReport(id, outcome, c.FP, s.now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.Fail("no report #%d", id)
	case errors.Is(err, store.ErrClosed):
		return c.Fail("report #%d is closed already", id)
	case err != nil:
		return c.Fail("could not close report #%d: %v", id, err)
	}
	c.Result = fmt.Sprintf("report #%d %s", id, outcome)
	if c.JSON {
		return c.WriteJSON(r)
	}
	fmt.Fprintf(c.Out, "Report #%d (%s about %s) is %s.\n", id, r.From, r.About, outcome)
	return 0
}

// kickCommand is the row of kick.
func (s *Server) kickCommand() command.Command {
	return command.Command{Name: "kick", Usage: "kick <name|fingerprint> [--json] [--reason TEXT]", Summary: "remove a knight from the dungeon (it is saved and may come back)",
		Help: "The knight's game ends with \"" + world.KickedMessage + "\", and with --reason,\n" +
			"\"Reason: \" and the text, cleaned, on its screen before the connection closes. --reason\n" +
			"takes the rest of the line, so it comes last.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON | command.TakesReason, Run: s.adminKick}
}

// banCommand is the row of ban.
func (s *Server) banCommand() command.Command {
	return command.Command{Name: "ban", Usage: "ban <name|fingerprint|address> [--for DURATION] [--reason TEXT] [--json]", Summary: "refuse a knight's keys (or an address) at login, and remove the knight now",
		Help: "A name is looked up among the knights online first, then among every stored knight\n" +
			"(without regard to case); when several share it, ban by fingerprint (see `who`). A name\n" +
			"bans every key of its knight; a guest's bans its address (a guest has no key); an address\n" +
			"or a prefix (203.0.113.7, 203.0.113.0/24) bans every connection from it.\n" +
			"With --for (30m, 2h, 7d, 2w) every ban it writes lapses by itself after that long;\n" +
			"without, it lasts until unban. --reason takes the rest of the line, so it comes last.\n" +
			"An admin's key cannot be banned: take it out of the admin keys file first.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON | command.TakesReason | command.TakesFor, Run: s.adminBan}
}

// unbanCommand is the row of unban.
func (s *Server) unbanCommand() command.Command {
	return command.Command{Name: "unban", Usage: "unban <name|fingerprint|address> [--json]", Summary: "lift a ban",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminUnban}
}

// bansCommand is the row of bans.
func (s *Server) bansCommand() command.Command {
	return command.Command{Name: "bans", Usage: "bans [--json]", Summary: "the banned keys and addresses, and until when",
		Admin: true, Takes: command.TakesJSON, Run: s.adminBans}
}

// silenceCommand is the row of silence.
func (s *Server) silenceCommand() command.Command {
	return command.Command{Name: "silence", Usage: "silence <name|fingerprint> <DURATION> [--reason TEXT] [--json]", Summary: "let a knight play but not talk, for a time",
		Help: "The knight is told why and until when; what it says, shouts, whispers, writes on a\n" +
			"channel or in a letter, or gives as an away reason, reaches no one. DURATION is 30m,\n" +
			"2h, 7d or 2w; the silence ends by itself then, across restarts, or with unsilence.\n" +
			"It is kept by the knight's id, so it holds whichever of the knight's keys plays; a\n" +
			"guest's lasts while the guest plays, not kept in the database (ban a guest to keep it out).\n" +
			"The knight is named as for ban. --reason takes the rest of the line, so it comes last.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON | command.TakesReason, Run: s.adminSilence}
}

// unsilenceCommand is the row of unsilence.
func (s *Server) unsilenceCommand() command.Command {
	return command.Command{Name: "unsilence", Usage: "unsilence <name|fingerprint> [--json]", Summary: "end a silence now",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminUnsilence}
}

// silencesCommand is the row of silences.
func (s *Server) silencesCommand() command.Command {
	return command.Command{Name: "silences", Usage: "silences [--json]", Summary: "the knights silenced now, and until when",
		Admin: true, Takes: command.TakesJSON, Run: s.adminSilences}
}

// reportsCommand is the row of reports.
func (s *Server) reportsCommand() command.Command {
	return command.Command{Name: "reports", Usage: "reports [--json]", Summary: "the reports players filed, open ones first, with the lines the reported knight said",
		Help: "Each report has a number and says who reported whom, when and why, and carries what the\n" +
			"reported knight said aloud in the 10 minutes before (says, emotes, shouts, channels) and its\n" +
			"whispers to the reporter. Knights are named with their ids; a guest (\"guest-…\") is marked so.\n" +
			"A reporter has one open report about a knight: reporting it again updates that one.\n" +
			"Open reports come first; `reports resolve N` or `reports dismiss N` closes one.\n" +
			"An admin in the game is told of a new report by a line in its messages.\n" +
			"What a keyed knight did in the 2 minutes before is kept with the report: with a terminal,\n" +
			"`replay --report N` plays it (what anyone may see: no whispers, party talk or channels).\n" +
			"Reports are kept 30 days, and all of them in 256 KiB: past it the oldest closed go first.",
		Admin: true, Takes: command.TakesJSON, Run: s.adminReports}
}

// reportsResolveCommand is the row of reports resolve.
func (s *Server) reportsResolveCommand() command.Command {
	return command.Command{Name: "reports resolve", Usage: "reports resolve <number> [--json]", Summary: "close a report: dealt with",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminReportsResolve}
}

// reportsDismissCommand is the row of reports dismiss.
func (s *Server) reportsDismissCommand() command.Command {
	return command.Command{Name: "reports dismiss", Usage: "reports dismiss <number> [--json]", Summary: "close a report: nothing to do",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminReportsDismiss}
}
