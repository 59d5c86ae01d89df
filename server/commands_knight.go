package server

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands about one knight: rename, and knight, which looks a knight up,
// online or not, here or on another realm.

// renameJSON is rename --json's answer.
type renameJSON struct {
	Knight string `json:"knight"`
	Old    string `json:"old"`
	Name   string `json:"name"`
	Online bool   `json:"online"`
	// Realm is the realm the knight plays on, when another.
	Realm string `json:"realm,omitempty"`
}

// adminRename is rename KNIGHT NEW: the knight (one word: a name, a key's fingerprint or
// the knight's id) takes the name NEW, checked as the name prompt checks a name and kept
// unique by the name book and the keeper. A knight online is told at once, here or on
// the realm it plays on; one offline when it next plays.
func (s *Server) adminRename(c *command.Call) int {
	if len(c.Args) < 2 {
		return c.UsageError("name the knight, then its new name")
	}
	t, name, stored, ok := s.renameChecked(c)
	if !ok {
		return 1
	}
	far, err := s.renameKept(c, t, name)
	if err != nil {
		return 1
	}
	done, err := s.engine.Rename(c.Ctx, t.knight, name, stored)
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	if done.Old == "" {
		done.Old = t.name
	}
	c.Result = fmt.Sprintf("renamed %s from %s to %s", t.knight, done.Old, name)
	if c.JSON {
		return c.WriteJSON(renameJSON{Knight: t.knight, Old: done.Old, Name: name, Online: done.Online || far != "", Realm: far})
	}
	told := "It will be told when it next plays."
	switch {
	case done.Online:
		told = "It has been told."
	case far != "":
		told = fmt.Sprintf("It plays in realm %s, which has been told.", far)
	}
	fmt.Fprintf(c.Out, "Renamed %s to %s. %s\n", keyAndName(t.knight, done.Old), name, told)
	return 0
}

// renameKept renames the knight where it is kept (knights.Keeper.Rename); a knight
// playing in another realm is told there over the talk, and far is that realm. A refusal
// is reported, and the name book given back the old name.
func (s *Server) renameKept(c *command.Call, t banTarget, name string) (far string, err error) {
	err = s.knights.Rename(c.Ctx, t.knight, t.name, name)
	var away *knights.ElsewhereError
	switch {
	case errors.As(err, &away) && !away.Here:
		s.talk.moderate(talk.Moderation{Kind: talk.ModRename, Knight: t.knight, Name: name})
		return away.Where, nil
	case err == nil:
		return "", nil
	}
	s.book().Rename(t.name, t.knight)
	if errors.Is(err, knights.ErrNameTaken) {
		c.Fail("cannot rename to %q: %s", name, app.TakenNameNote)
		return "", err
	}
	c.Fail("the knight could not be renamed just now: %s", giveKeyLine(err))
	return "", err
}

// renameChecked finds the knight rename names and checks its new name, and takes the
// name in the name book; it reports a refusal itself. stored is the knight's record when
// it is not in the world.
func (s *Server) renameChecked(c *command.Call) (t banTarget, name string, stored *world.Adventurer, ok bool) {
	t, ok = s.resolveKnight(c, c.Args[0], "rename", false)
	if !ok {
		return t, "", nil, false
	}
	if knights.IsGuest(t.knight) {
		c.Fail("%s is a guest: its name goes with its session (kick it, or ban its address)", keyAndName(t.knight, t.name))
		return t, "", nil, false
	}
	raw := strings.Join(c.Args[1:], " ")
	name, refusal := s.checkNewName(raw, t.knight)
	if refusal != "" {
		c.Fail("cannot rename to %q: %s", command.Printable(raw), refusal)
		return t, "", nil, false
	}
	stored, err := s.offlineRecord(c, t.knight)
	switch {
	case err != nil:
		c.Fail("could not read the knight: %v", err)
	case stored != nil && stored.Ended():
		c.Fail("%s has died or retired: rename changes a living knight", keyAndName(t.knight, stored.Name))
	case !s.book().Rename(name, t.knight):
		c.Fail("cannot rename to %q: %s", name, app.TakenNameNote)
	default:
		if stored != nil && t.name == "" {
			t.name = stored.Name
		}
		return t, name, stored, true
	}
	return t, "", nil, false
}

// checkNewName checks a new name for the knight id as the name prompt checks one: the
// name cleaned, or why it is refused, in the prompt's words.
func (s *Server) checkNewName(raw, id string) (string, string) {
	name, err := world.CleanName(raw)
	switch {
	case err != nil:
		return "", app.BadNameNote
	case looksLikeAGuest(name):
		return "", app.GuestNameNote
	case s.book().Taken(name, id):
		return "", app.TakenNameNote
	}
	return name, ""
}

// offlineRecord is the knight's stored record when it is not in the world; nil when it is.
func (s *Server) offlineRecord(c *command.Call, id string) (*world.Adventurer, error) {
	if _, online, err := s.engine.Lookup(c.Ctx, id); err != nil || online {
		return nil, err
	}
	rec, err := s.knights.Knight(id)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// knightJSON is knight --json's answer: who the knight is, its keys, and the bans and
// silences in force that hold it.
type knightJSON struct {
	Knight string `json:"knight"`
	Name   string `json:"name"`
	Guest  bool   `json:"guest,omitempty"`
	Status string `json:"status"` // online, offline, dead or retired
	// Realm is the realm the knight plays on, when another.
	Realm    string        `json:"realm,omitempty"`
	Level    int           `json:"level"`
	Depth    int           `json:"depth"`
	Created  time.Time     `json:"created,omitzero"`
	LastSeen time.Time     `json:"last_seen,omitzero"`
	LastAddr string        `json:"last_addr,omitempty"`
	Keys     []knights.Key `json:"keys"`
	Bans     []knights.Ban `json:"bans"`
	Silences []silenceJSON `json:"silences"`
}

// adminKnight is knight NAME: a knight, online or not, as an admin needs it.
func (s *Server) adminKnight(c *command.Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight")
	}
	t, ok := s.resolveKnight(c, target, "look up", false)
	if !ok {
		return 1
	}
	k, err := s.lookUpKnight(c, t.knight)
	if err != nil {
		return c.Fail("could not read the knight: %v", err)
	}
	c.Result = "shown " + t.knight
	if c.JSON {
		return c.WriteJSON(k)
	}
	writeKnight(c, k)
	return 0
}

// lookUpKnight gathers what knight shows of the knight id.
func (s *Server) lookUpKnight(c *command.Call, id string) (knightJSON, error) {
	rec, online, err := s.engine.Lookup(c.Ctx, id)
	if err == nil && !online {
		rec, err = s.knights.Knight(id)
	}
	if err != nil {
		return knightJSON{}, err
	}
	far := ""
	if !online {
		far = s.farRealmOf(c.Ctx, id)
	}
	k := knightJSON{Knight: id, Name: rec.Name, Guest: rec.Guest, Status: knightStatus(rec, online || far != ""),
		Realm: far, Level: rec.Level, Depth: rec.Depth, Created: rec.Created, Keys: []knights.Key{}}
	if !k.Guest {
		if k.Keys, err = s.knights.KeysOf(id); err != nil {
			return knightJSON{}, err
		}
	}
	for _, key := range k.Keys {
		if key.LastUsed.After(k.LastSeen) {
			k.LastSeen, k.LastAddr = key.LastUsed, key.LastAddr
		}
	}
	if ls, ok := s.live.Game(id); ok {
		k.LastSeen, k.LastAddr = s.now().UTC(), ls.Host()
	}
	if k.Bans, err = s.bansOf(k); err != nil {
		return knightJSON{}, err
	}
	k.Silences, err = s.silencesOf(id, online)
	return k, err
}

// knightStatus is a knight's state in one word.
func knightStatus(rec world.Adventurer, online bool) string {
	switch {
	case rec.Death != nil:
		return "dead"
	case rec.Retirement != nil:
		return "retired"
	case online:
		return "online"
	}
	return "offline"
}

// bansOf are the bans in force of the knight's keys, and of the addresses its keys were
// last used from.
func (s *Server) bansOf(k knightJSON) ([]knights.Ban, error) {
	all, err := s.knights.Bans(s.now())
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	for _, key := range k.Keys {
		if a, err := netip.ParseAddr(key.LastAddr); err == nil {
			addrs = append(addrs, a.Unmap())
		}
	}
	if a, err := netip.ParseAddr(k.LastAddr); err == nil {
		addrs = append(addrs, a.Unmap())
	}
	out := []knights.Ban{}
	for _, b := range all {
		p, perr := netip.ParsePrefix(b.Addr)
		if slices.ContainsFunc(k.Keys, func(key knights.Key) bool { return key.Fingerprint == b.Fingerprint && b.Addr == "" }) ||
			(perr == nil && slices.ContainsFunc(addrs, p.Contains)) {
			out = append(out, b)
		}
	}
	return out, nil
}

// silencesOf is the knight's silence in force, if any: the store's, or a guest's.
func (s *Server) silencesOf(id string, online bool) ([]silenceJSON, error) {
	now := s.now()
	list, err := s.knights.Silences(now)
	if err != nil {
		return nil, err
	}
	out := []silenceJSON{}
	for _, sl := range list {
		if sl.Knight == id {
			out = append(out, silenceJSON{Knight: id, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: online})
		}
	}
	for _, sl := range s.guestSilences.running(now, map[string]bool{id: online}) {
		if sl.Knight == id {
			out = append(out, silenceJSON{Knight: id, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: true, Guest: true})
		}
	}
	return out, nil
}

// writeKnight prints what knight found.
func writeKnight(c *command.Call, k knightJSON) {
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	row := func(key, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{key}, args...)...)
	}
	row("knight", "%s", keyAndName(k.Knight, k.Name))
	if k.Guest {
		row("guest", "yes: not stored, its name and silence go with its session")
	}
	if k.Realm != "" {
		row("status", "%s in realm %s, level %d", k.Status, k.Realm, k.Level)
	} else {
		row("status", "%s, level %d, depth %d", k.Status, k.Level, k.Depth)
	}
	row("created", "%s", whenOr(k.Created, "unknown (made before it was kept)"))
	row("last seen", "%s", whenOr(k.LastSeen, "never since it was made"))
	row("last address", "%s", orDash(k.LastAddr))
	_ = tw.Flush()
	fmt.Fprintln(c.Out)
	if len(k.Keys) > 0 {
		tw = tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tTYPE\tCOMMENT\tADDED\tLAST USED\tLAST ADDRESS")
		for _, key := range k.Keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", key.Fingerprint, orDash(key.Type), orDash(world.CleanLine(key.Comment)),
				key.Added.UTC().Format(time.DateOnly), whenOr(key.LastUsed, "-"), orDash(key.LastAddr))
		}
		_ = tw.Flush()
		fmt.Fprintln(c.Out)
	}
	writeHolds(c, k)
}

// writeHolds prints the bans and silences in force that hold the knight.
func writeHolds(c *command.Call, k knightJSON) {
	if len(k.Bans) == 0 && len(k.Silences) == 0 {
		fmt.Fprintln(c.Out, "No ban or silence holds it.")
		return
	}
	for _, b := range k.Bans {
		until := "until unban"
		if !b.Until.IsZero() {
			until = "until " + untilText(b.Until)
		}
		fmt.Fprintf(c.Out, "Banned: %s since %s, %s: %s\n", banKeyOf(b), b.At.UTC().Format(time.DateTime), until, orDash(b.Reason))
	}
	for _, sl := range k.Silences {
		fmt.Fprintf(c.Out, "Silenced until %s: %s\n", untilText(sl.Until), orDash(sl.Reason))
	}
}

// whenOr is a moment as knight prints it, or none when it is zero.
func whenOr(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}

// knightCommand is the row of knight.
func (s *Server) knightCommand() command.Command {
	return command.Command{Name: "knight", Usage: "knight <name|fingerprint|id> [--json]", Summary: "a knight, online or not: keys, created, last seen and from where, bans and silences",
		Help: "The knight is found as for ban: by a key's fingerprint, by its id (K-…, as reports show it),\n" +
			"or by name among the knights online first, then among every stored knight. Last seen is\n" +
			"now for a knight in the game, else when its keys last opened a session or left the game.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminKnight}
}

// renameCommand is the row of rename.
func (s *Server) renameCommand() command.Command {
	return command.Command{Name: "rename", Usage: "rename <name|fingerprint|id> NEW [--json]", Summary: "give a knight a new name (an offensive one, say); it is told",
		Help: "The knight is the first word (a name of several words: give its id, as knight shows it);\n" +
			"NEW is the rest, checked as the name prompt checks a name, and unique. A knight online is\n" +
			"told at once, one offline when it next plays. Letters reach it by its new name only.\n" +
			"A guest is not renamed (its name goes with its session), nor a dead or retired knight.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminRename}
}
