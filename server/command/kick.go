package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Kick is kick's row.
func (m Moderation) Kick() Command {
	return Command{Name: "kick", Usage: "kick <name|fingerprint> [--json] [--reason TEXT]", Summary: "remove a knight from the dungeon (it is saved and may come back)",
		Help: "The knight's game ends with \"" + world.KickedMessage + "\", and with --reason,\n" +
			"\"Reason: \" and the text, cleaned, on its screen before the connection closes. --reason\n" +
			"takes the rest of the line, so it comes last.",
		Admin: true, Takes: TakesWords | TakesJSON | TakesReason, Run: m.kick}
}

// kick removes a knight from the dungeon, here or on the realm it plays on.
func (m Moderation) kick(c *Call) int {
	who := strings.Join(c.Args, " ")
	if who == "" {
		return c.UsageError("name the knight")
	}
	if c.HasReason && c.Reason == "" {
		return c.UsageError("--reason needs a text")
	}
	target := who
	if strings.HasPrefix(who, "SHA256:") { // a key: its knight
		knight, err := m.Arrivals.KnightOf(who)
		if err != nil {
			return c.Fail("could not look the key up: %v", err)
		}
		target = knight
	}
	kicked, err := m.World.Kick(c.Ctx, target, c.Reason)
	var far string
	if err == nil && !kicked {
		far = m.kickFar(c, target)
	}
	switch {
	case errors.Is(err, world.ErrAmbiguousName):
		return c.Fail("several knights online are named %q; kick by fingerprint (see who)", Printable(who))
	case err != nil:
		return c.Fail("the world is not answering: %v", err)
	case !kicked && far == "":
		return c.Fail("no knight %q is online", Printable(who))
	}
	c.Result = "kicked " + Printable(who)
	if c.JSON {
		return c.WriteJSON(actionJSON{Name: who, Kicked: true, Reason: c.Reason, Realm: far})
	}
	where := ""
	if far != "" {
		where = " of realm " + far
	}
	if c.Reason != "" {
		fmt.Fprintf(c.Out, "Removed %s from the dungeon%s, telling it why: %s\n", Printable(who), where, c.Reason)
		return 0
	}
	fmt.Fprintf(c.Out, "Removed %s from the dungeon%s.\n", Printable(who), where)
	return 0
}

// kickFar kicks the one knight of another realm with the name or id target, through
// that realm: it returns the realm, "" when no other realm has one such knight.
func (m Moderation) kickFar(c *Call, target string) string {
	var found []world.FarKnight
	for _, k := range m.farWho(c.Ctx) {
		if !k.Guest && (k.ID == target || strings.EqualFold(k.Name, strings.TrimSpace(target))) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return ""
	}
	m.TellRealms(talk.Moderation{Kind: talk.ModKick, Knight: found[0].ID, Reason: c.Reason})
	return found[0].Realm
}
