package command

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands about one knight: knight, which looks a knight up, online or not,
// here or on another realm, and rename (rename.go).

// KnightAdmin is what knight and rename use: how to find the knight named, the bans and
// silences that hold it, and for rename the name book, the name prompt's rule and the
// other realms.
type KnightAdmin struct {
	Finder
	// Guests are the guests' silences, which no keeper keeps (Moderation's).
	Guests *GuestSilences
	// Names is the name book, which keeps the knights' names unique.
	Names *knights.NameBook
	// CheckName checks a knight's new name as the name prompt checks one: the name
	// cleaned, or why it is refused in the prompt's words. The server's, since the
	// prompt's words and its rule of a guest's name are the game's (package app).
	CheckName func(raw, knight string) (name, refusal string)
	// TakenName is the prompt's words for a name taken (app.TakenNameNote), for a name
	// taken meanwhile.
	TakenName string
	// TellRealms tells the other realms of a rename of a knight that is not in the world
	// here: the server's, since it holds the talk.
	TellRealms func(talk.Moderation)
	// Now is the wall clock.
	Now func() time.Time
}

// Knight is knight's row.
func (k KnightAdmin) Knight() Command {
	return Command{Name: "knight", Usage: "knight <name|fingerprint|id> [--json]", Summary: "a knight, online or not: keys, created, last seen and from where, bans and silences",
		Help: "The knight is found as for ban: by a key's fingerprint, by its id (K-…, as reports show it),\n" +
			"or by name among the knights online first, then among every stored knight. Last seen is\n" +
			"now for a knight in the game, else when its keys last opened a session or left the game.",
		Admin: true, Takes: TakesWords | TakesJSON, Run: k.knight}
}

// KnightJSON is knight --json's answer: who the knight is, its keys, and the bans and
// silences in force that hold it.
type KnightJSON struct {
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
	Silences []SilenceJSON `json:"silences"`
}

// knight is knight NAME: a knight, online or not, as an admin needs it.
func (k KnightAdmin) knight(c *Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight")
	}
	t, ok := k.resolveKnight(c, target, "look up")
	if !ok {
		return 1
	}
	found, err := k.lookUp(c.Ctx, t.knight)
	if err != nil {
		return c.Fail("could not read the knight: %v", err)
	}
	c.Result = "shown " + t.knight
	if c.JSON {
		return c.WriteJSON(found)
	}
	writeKnight(c, found)
	return 0
}

// lookUp gathers what knight shows of the knight id.
func (k KnightAdmin) lookUp(ctx context.Context, id string) (KnightJSON, error) {
	rec, online, err := k.World.Lookup(ctx, id)
	if err == nil && !online {
		rec, err = k.Knights.Knight(id)
	}
	if err != nil {
		return KnightJSON{}, err
	}
	far := ""
	if !online {
		far = k.farRealmOf(ctx, id)
	}
	out := KnightJSON{Knight: id, Name: rec.Name, Guest: rec.Guest, Status: knightStatus(rec, online || far != ""),
		Realm: far, Level: rec.Level, Depth: rec.Depth, Created: rec.Created, Keys: []knights.Key{}}
	if !out.Guest {
		if out.Keys, err = k.Knights.KeysOf(id); err != nil {
			return KnightJSON{}, err
		}
	}
	for _, key := range out.Keys {
		if key.LastUsed.After(out.LastSeen) {
			out.LastSeen, out.LastAddr = key.LastUsed, key.LastAddr
		}
	}
	if ls, ok := k.Sessions.Game(id); ok {
		out.LastSeen, out.LastAddr = k.Now().UTC(), ls.Host()
	}
	if out.Bans, err = k.bansOf(out); err != nil {
		return KnightJSON{}, err
	}
	out.Silences, err = k.silencesOf(id, online)
	return out, err
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
func (k KnightAdmin) bansOf(kn KnightJSON) ([]knights.Ban, error) {
	all, err := k.Knights.Bans(k.Now())
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	for _, key := range kn.Keys {
		if a, err := netip.ParseAddr(key.LastAddr); err == nil {
			addrs = append(addrs, a.Unmap())
		}
	}
	if a, err := netip.ParseAddr(kn.LastAddr); err == nil {
		addrs = append(addrs, a.Unmap())
	}
	out := []knights.Ban{}
	for _, b := range all {
		p, perr := netip.ParsePrefix(b.Addr)
		if slices.ContainsFunc(kn.Keys, func(key knights.Key) bool { return key.Fingerprint == b.Fingerprint && b.Addr == "" }) ||
			(perr == nil && slices.ContainsFunc(addrs, p.Contains)) {
			out = append(out, b)
		}
	}
	return out, nil
}

// silencesOf is the knight's silence in force, if any: the store's, or a guest's.
func (k KnightAdmin) silencesOf(id string, online bool) ([]SilenceJSON, error) {
	now := k.Now()
	list, err := k.Knights.Silences(now)
	if err != nil {
		return nil, err
	}
	out := []SilenceJSON{}
	for _, sl := range list {
		if sl.Knight == id {
			out = append(out, SilenceJSON{Knight: id, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: online})
		}
	}
	for _, sl := range k.Guests.Running(now, map[string]bool{id: online}) {
		if sl.Knight == id {
			out = append(out, SilenceJSON{Knight: id, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: true, Guest: true})
		}
	}
	return out, nil
}

// writeKnight prints what knight found.
func writeKnight(c *Call, k KnightJSON) {
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", key.Fingerprint, keyTypeText(key.Type, key.Kind), orDash(world.CleanLine(key.Comment)),
				key.Added.UTC().Format(time.DateOnly), whenOr(key.LastUsed, "-"), orDash(key.LastAddr))
		}
		_ = tw.Flush()
		fmt.Fprintln(c.Out)
	}
	writeHolds(c, k)
}

// writeHolds prints the bans and silences in force that hold the knight.
func writeHolds(c *Call, k KnightJSON) {
	if len(k.Bans) == 0 && len(k.Silences) == 0 {
		fmt.Fprintln(c.Out, "No ban or silence holds it.")
		return
	}
	for _, b := range k.Bans {
		until := "until unban"
		if !b.Until.IsZero() {
			until = "until " + UntilText(b.Until)
		}
		fmt.Fprintf(c.Out, "Banned: %s since %s, %s: %s\n", banKeyOf(b), b.At.UTC().Format(time.DateTime), until, orDash(b.Reason))
	}
	for _, sl := range k.Silences {
		fmt.Fprintf(c.Out, "Silenced until %s: %s\n", UntilText(sl.Until), orDash(sl.Reason))
	}
}

// whenOr is a moment as knight prints it, or none when it is zero.
func whenOr(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}
