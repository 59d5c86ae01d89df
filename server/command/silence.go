package command

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Silence is silence's row.
func (m Moderation) Silence() Command {
	return Command{Name: "silence", Usage: "silence <name|fingerprint> <DURATION> [--reason TEXT] [--json]", Summary: "let a knight play but not talk, for a time",
		Help: "The knight is told why and until when; what it says, shouts, whispers, writes on a\n" +
			"channel or in a letter, or gives as an away reason, reaches no one. DURATION is 30m,\n" +
			"2h, 7d or 2w; the silence ends by itself then, across restarts, or with unsilence.\n" +
			"It is kept by the knight's id, so it holds whichever of the knight's keys plays; a\n" +
			"guest's lasts while the guest plays, not kept in the database (ban a guest to keep it out).\n" +
			"The knight is named as for ban. --reason takes the rest of the line, so it comes last.",
		Admin: true, Takes: TakesWords | TakesJSON | TakesReason, Run: m.silence}
}

// Unsilence is unsilence's row.
func (m Moderation) Unsilence() Command {
	return Command{Name: "unsilence", Usage: "unsilence <name|fingerprint> [--json]", Summary: "end a silence now",
		Admin: true, Takes: TakesWords | TakesJSON, Run: m.unsilence}
}

// Silences is silences' row.
func (m Moderation) Silences() Command {
	return Command{Name: "silences", Usage: "silences [--json]", Summary: "the knights silenced now, and until when",
		Admin: true, Takes: TakesJSON, Run: m.silences}
}

// SilenceJSON is the --json output of silence and unsilence, and a row of silences.
// Knight is the silenced knight's id: a silence holds whichever of its keys plays it.
type SilenceJSON struct {
	Knight string    `json:"knight"`
	Name   string    `json:"name,omitempty"`
	Until  time.Time `json:"until,omitzero"`
	Reason string    `json:"reason,omitempty"`
	Online bool      `json:"online"`
	Guest  bool      `json:"guest,omitempty"`
	// Realm is the realm the knight plays on, when another.
	Realm string `json:"realm,omitempty"`
}

// GuestSilences keeps the admins' silences of guests, in memory: a guest's knight id is
// its session's, so no keeper keeps them (the world runs them). It lives here, with the
// commands that fill and list it, as nothing of the server's is needed to keep it. It is
// safe for concurrent use; its zero value is empty.
type GuestSilences struct {
	mu sync.Mutex
	m  map[string]knights.Silence // by the guest's knight id
}

// Put keeps a guest's silence, in place of the one it had.
func (b *GuestSilences) Put(sl knights.Silence) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]knights.Silence{}
	}
	b.m[sl.Knight] = sl
}

// Remove forgets the silence of the guest id.
func (b *GuestSilences) Remove(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
}

// Running returns the silences still running at now of the guests online, soonest to
// end first, and forgets the others.
func (b *GuestSilences) Running(now time.Time, online map[string]bool) []knights.Silence {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []knights.Silence
	for id, sl := range b.m {
		if !online[id] || !now.Before(sl.Until) {
			delete(b.m, id)
			continue
		}
		out = append(out, sl)
	}
	slices.SortFunc(out, func(a, b knights.Silence) int { return a.Until.Compare(b.Until) })
	return out
}

// silence is silence NAME DURATION: the knight plays on but cannot talk. A silence is
// kept by the knight's id, so it holds whichever of the knight's keys plays, across
// restarts; a guest's, which has no id beyond its session, lasts while it plays and is
// not kept.
func (m Moderation) silence(c *Call) int {
	if len(c.Args) < 2 {
		return c.UsageError("name the knight, then how long")
	}
	d, err := ParseSpan(c.Args[len(c.Args)-1])
	if err != nil {
		return c.UsageError("%v", err)
	}
	target := strings.Join(c.Args[:len(c.Args)-1], " ")
	t, ok := m.resolveKnight(c, target, "silence")
	if !ok || !m.notAnAdmin(c, t) {
		return 1
	}
	guest := knights.IsGuest(t.knight)
	now := m.Now().UTC()
	sl := knights.Silence{Knight: t.knight, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: now.Add(d)}
	if guest {
		m.Guests.Put(sl)
	} else if err := m.Knights.Silence(sl); err != nil {
		m.Log.Error("admin: silence", "knight", t.knight, "err", err)
		return c.Fail("the silence could not be saved: %v", err)
	}
	done, err := m.World.Silence(c.Ctx, m.WorldSilence(sl, now))
	if err != nil {
		return c.Fail("the silence is saved but the world is not answering: %v", err)
	}
	m.TellRealms(talk.Moderation{Kind: talk.ModSilence, Knight: t.knight, For: d, Until: UntilText(sl.Until), Reason: sl.Reason})
	far := ""
	if !done.Online {
		far = m.farRealmOf(c.Ctx, t.knight)
	}
	c.Result = fmt.Sprintf("silenced %s (%s) until %s", t.knight, t.name, UntilText(sl.Until))
	if c.JSON {
		return c.WriteJSON(SilenceJSON{Knight: t.knight, Name: t.name, Until: sl.Until, Reason: sl.Reason, Online: done.Online || far != "", Guest: guest, Realm: far})
	}
	fmt.Fprintf(c.Out, "Silenced %s until %s.", keyAndName(t.knight, t.name), UntilText(sl.Until))
	switch {
	case done.Online:
		fmt.Fprint(c.Out, " Its knight has been told.")
	case far != "":
		fmt.Fprintf(c.Out, " It plays in realm %s, which has been told.", far)
	}
	if guest {
		fmt.Fprint(c.Out, " A guest's silence lasts while it plays, not kept in the database; to keep it out, ban it (its address).")
	}
	fmt.Fprintln(c.Out)
	return 0
}

// notAnAdmin reports whether no key of the knight t is an admin's, as silence asks; it
// reports a refusal itself.
func (m Moderation) notAnAdmin(c *Call, t banTarget) bool {
	if knights.IsGuest(t.knight) {
		return true
	}
	fps, err := KeysOfKnight(m.Knights, m.Sessions, t.knight)
	if err != nil {
		c.Fail("could not read the knight's keys: %v", err)
		return false
	}
	for _, fp := range fps {
		if m.adminKey(fp) {
			c.Fail("%s is played by an admin's key; take it out of the admin keys file first", keyAndName(t.knight, t.name))
			return false
		}
	}
	return true
}

// unsilence ends a knight's silence now, here and on the other realms.
func (m Moderation) unsilence(c *Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight or the key")
	}
	t, ok := m.resolveKnight(c, target, "unsilence")
	if !ok {
		return 1
	}
	guest := knights.IsGuest(t.knight)
	found, err := m.Knights.Unsilence(t.knight)
	if err != nil {
		return c.Fail("the silence could not be lifted: %v", err)
	}
	done, err := m.World.Silence(c.Ctx, world.Silence{Knight: t.knight})
	if err != nil {
		return c.Fail("the silence is lifted in the store but the world is not answering: %v", err)
	}
	m.TellRealms(talk.Moderation{Kind: talk.ModUnsilence, Knight: t.knight})
	if !found && !done.Was { // a guest's silence is the world's alone
		return c.Fail("%s is not silenced", keyAndName(t.knight, t.name))
	}
	m.Guests.Remove(t.knight)
	c.Result = "unsilenced " + t.knight
	if c.JSON {
		return c.WriteJSON(SilenceJSON{Knight: t.knight, Name: t.name, Online: done.Online, Guest: guest})
	}
	fmt.Fprintf(c.Out, "Lifted the silence of %s.\n", keyAndName(t.knight, t.name))
	return 0
}

// silences lists the silences running: the knights' from the store, then those of the
// guests online (kept in memory only, for their sessions).
func (m Moderation) silences(c *Call) int {
	now := m.Now()
	list, err := m.Knights.Silences(now)
	if err != nil {
		return c.Fail("could not read the silences: %v", err)
	}
	who, err := m.World.Who(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	online := map[string]bool{}
	for _, w := range who {
		online[w.ID] = true
	}
	guests := m.Guests.Running(now, online)
	rows := make([]SilenceJSON, 0, len(list)+len(guests))
	for _, sl := range list {
		rows = append(rows, SilenceJSON{Knight: sl.Knight, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: online[sl.Knight]})
	}
	for _, sl := range guests {
		rows = append(rows, SilenceJSON{Knight: sl.Knight, Name: sl.Name, Until: sl.Until, Reason: sl.Reason, Online: true, Guest: true})
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Knight, name, UntilText(r.Until), r.Reason)
	}
	_ = tw.Flush()
	return 0
}
