package command

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
)

// Ban is ban's row.
func (m Moderation) Ban() Command {
	return Command{Name: "ban", Usage: "ban <name|fingerprint|address> [--for DURATION] [--reason TEXT] [--json]", Summary: "refuse a knight's keys (or an address) at login, and remove the knight now",
		Help: "A name is looked up among the knights online first, then among every stored knight\n" +
			"(without regard to case); when several share it, ban by fingerprint (see `who`). A name\n" +
			"bans every key of its knight; a guest's bans its address (a guest has no key); an address\n" +
			"or a prefix (203.0.113.7, 203.0.113.0/24) bans every connection from it.\n" +
			"With --for (30m, 2h, 7d, 2w) every ban it writes lapses by itself after that long;\n" +
			"without, it lasts until unban. --reason takes the rest of the line, so it comes last.\n" +
			"An admin's key cannot be banned: take it out of the admin keys file first.",
		Admin: true, Takes: TakesWords | TakesJSON | TakesReason | TakesFor, Run: m.ban}
}

// Unban is unban's row.
func (m Moderation) Unban() Command {
	return Command{Name: "unban", Usage: "unban <name|fingerprint|address> [--json]", Summary: "lift a ban",
		Admin: true, Takes: TakesWords | TakesJSON, Run: m.unban}
}

// Bans is bans' row.
func (m Moderation) Bans() Command {
	return Command{Name: "bans", Usage: "bans [--json]", Summary: "the banned keys and addresses, and until when",
		Admin: true, Takes: TakesJSON, Run: m.bans}
}

// ban refuses a knight's keys, a guest's address or an address at login, and removes
// the knight now, here and on the other realms.
func (m Moderation) ban(c *Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight, the key or the address")
	}
	t, err := m.resolveBan(c.Ctx, target)
	switch {
	case errors.Is(err, errNoKnight):
		return c.Fail("no knight %q, online or stored; ban by fingerprint", Printable(target))
	case errors.Is(err, errSeveral):
		return c.Fail("several knights are named %q; ban one by fingerprint: %s", Printable(target), strings.TrimPrefix(err.Error(), errSeveral.Error()+": "))
	case err != nil:
		m.Log.Error("admin: ban lookup", "target", Printable(target), "err", err)
		return c.Fail("could not look the knight up: %v", err)
	}
	for _, fp := range t.fps {
		if m.adminKey(fp) {
			return c.Fail("%s is an admin's key; take it out of the admin keys file first", fp)
		}
	}
	// A ban for a time (--for) puts the same end on every ban it writes: the knight's
	// keys, or the address of a guest.
	now := m.Now().UTC()
	var until time.Time
	if c.HasFor {
		until = now.Add(c.Span)
	}
	if t.addr != "" {
		if err := m.Knights.Ban(knights.Ban{Addr: t.addr, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: until}); err != nil {
			m.Log.Error("admin: ban", "addr", t.addr, "err", err)
			return c.Fail("the ban could not be saved: %v", err)
		}
	}
	for _, fp := range t.fps {
		if err := m.Knights.Ban(knights.Ban{Fingerprint: fp, Name: t.name, Reason: c.Reason, By: c.FP, At: now, Until: until}); err != nil {
			m.Log.Error("admin: ban", "fingerprint", fp, "err", err)
			return c.Fail("the ban could not be saved: %v", err)
		}
	}
	kicked, far := false, ""
	if t.knight != "" {
		if kicked, err = m.World.Kick(c.Ctx, t.knight, c.Reason); err != nil {
			m.Log.Error("admin: kick the banned knight", "knight", t.knight, "err", err)
		}
		if !kicked {
			far = m.farRealmOf(c.Ctx, t.knight)
		}
	}
	m.TellRealms(talk.Moderation{Kind: talk.ModBan, Knight: t.knight, Reason: c.Reason})
	for _, fp := range t.fps {
		m.Sessions.CloseKey(fp, KickGrace) // sessions still on the title screen, or running commands
	}
	if t.addr != "" {
		m.Sessions.CloseAddr(t.addr, KickGrace)
	}
	ends := ""
	if c.HasFor {
		ends = " until " + UntilText(until)
	}
	banned := strings.TrimSpace(strings.Join(append(slices.Clone(t.fps), t.addr), " "))
	c.Result = fmt.Sprintf("banned %s (%s)%s, kicked %v", banned, t.name, ends, kicked)
	if c.JSON {
		fp := ""
		if len(t.fps) > 0 {
			fp = t.fps[0]
		}
		return c.WriteJSON(actionJSON{Fingerprint: fp, Fingerprints: t.fps, Addr: t.addr, Name: t.name, Kicked: kicked || far != "", Realm: far, Banned: true, Until: until})
	}
	fmt.Fprintf(c.Out, "Banned %s%s.", keyAndName(banned, t.name), ends)
	switch {
	case kicked:
		fmt.Fprint(c.Out, " Its knight was removed from the dungeon.")
	case far != "":
		fmt.Fprintf(c.Out, " It plays in realm %s, which has been told.", far)
	}
	fmt.Fprintln(c.Out)
	return 0
}

// unban lifts a ban: of a key, of an address, or every ban of a knight by its name.
func (m Moderation) unban(c *Call) int {
	target := strings.Join(c.Args, " ")
	if target == "" {
		return c.UsageError("name the knight, the key or the address")
	}
	fps := []string{target}
	name := ""
	if p, ok := parseAddrOrPrefix(target); ok {
		fps = []string{"addr:" + p.String()}
	} else if !strings.HasPrefix(target, "SHA256:") {
		bans, err := m.Knights.Bans(m.Now())
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
			return c.Fail("no banned knight is named %q; `bans` lists the bans", Printable(target))
		}
		// A ban of a knight by name banned each of its keys: they are lifted together.
	}
	for _, fp := range fps {
		found, err := m.Knights.Unban(fp)
		if err != nil {
			return c.Fail("the ban could not be lifted: %v", err)
		}
		if !found {
			return c.Fail("%s is not banned", Printable(fp))
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

// bans lists the bans in force.
func (m Moderation) bans(c *Call) int {
	bans, err := m.Knights.Bans(m.Now())
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
			until = UntilText(b.Until)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", banKeyOf(b), b.Name, b.At.UTC().Format(time.DateTime), until, b.Reason)
	}
	_ = tw.Flush()
	return 0
}
