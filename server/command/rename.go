package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Rename is rename's row.
func (k KnightAdmin) Rename() Command {
	return Command{Name: "rename", Usage: "rename <name|fingerprint|id> NEW [--json]", Summary: "give a knight a new name (an offensive one, say); it is told",
		Help: "The knight is the first word (a name of several words: give its id, as knight shows it);\n" +
			"NEW is the rest, checked as the name prompt checks a name, and unique. A knight online is\n" +
			"told at once, one offline when it next plays. Letters reach it by its new name only.\n" +
			"A guest is not renamed (its name goes with its session), nor a dead or retired knight.",
		Admin: true, Takes: TakesWords | TakesJSON, Run: k.rename}
}

// renameJSON is rename --json's answer.
type renameJSON struct {
	Knight string `json:"knight"`
	Old    string `json:"old"`
	Name   string `json:"name"`
	Online bool   `json:"online"`
	// Realm is the realm the knight plays on, when another.
	Realm string `json:"realm,omitempty"`
}

// rename is rename KNIGHT NEW: the knight (one word: a name, a key's fingerprint or the
// knight's id) takes the name NEW, checked as the name prompt checks a name and kept
// unique by the name book and the keeper. A knight online is told at once, here or on
// the realm it plays on; one offline when it next plays.
func (k KnightAdmin) rename(c *Call) int {
	if len(c.Args) < 2 {
		return c.UsageError("name the knight, then its new name")
	}
	t, name, stored, ok := k.renameChecked(c)
	if !ok {
		return 1
	}
	far, err := k.renameKept(c, t, name, stored != nil)
	if err != nil {
		return 1
	}
	done, err := k.World.Rename(c.Ctx, t.knight, name, stored)
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
// playing in another realm is told there over the talk, and far is that realm. The other
// realms are told of a knight offline (not in the world here) too, so their worlds and
// name books know it by its new name at once: letters written there reach it. A refusal
// is reported, and the name book given back the old name.
func (k KnightAdmin) renameKept(c *Call, t banTarget, name string, offline bool) (far string, err error) {
	err = k.Knights.Rename(c.Ctx, t.knight, t.name, name)
	var away *knights.ElsewhereError
	switch {
	case errors.As(err, &away) && !away.Here:
		k.TellRealms(talk.Moderation{Kind: talk.ModRename, Knight: t.knight, Name: name})
		return away.Where, nil
	case err == nil:
		if offline {
			k.TellRealms(talk.Moderation{Kind: talk.ModRename, Knight: t.knight, Name: name})
		}
		return "", nil
	}
	k.Names.Rename(t.name, t.knight)
	if errors.Is(err, knights.ErrNameTaken) {
		c.Fail("cannot rename to %q: %s", name, k.TakenName)
		return "", err
	}
	c.Fail("the knight could not be renamed just now: %s", giveKeyLine(err))
	return "", err
}

// renameChecked finds the knight rename names and checks its new name, and takes the
// name in the name book; it reports a refusal itself. stored is the knight's record when
// it is not in the world.
func (k KnightAdmin) renameChecked(c *Call) (t banTarget, name string, stored *world.Adventurer, ok bool) {
	t, ok = k.resolveKnight(c, c.Args[0], "rename")
	if !ok {
		return t, "", nil, false
	}
	if knights.IsGuest(t.knight) {
		c.Fail("%s is a guest: its name goes with its session (kick it, or ban its address)", keyAndName(t.knight, t.name))
		return t, "", nil, false
	}
	raw := strings.Join(c.Args[1:], " ")
	name, refusal := k.CheckName(raw, t.knight)
	if refusal != "" {
		c.Fail("cannot rename to %q: %s", Printable(raw), refusal)
		return t, "", nil, false
	}
	stored, err := k.offlineRecord(c, t.knight)
	switch {
	case err != nil:
		c.Fail("could not read the knight: %v", err)
	case stored != nil && stored.Ended():
		c.Fail("%s has died or retired: rename changes a living knight", keyAndName(t.knight, stored.Name))
	case !k.Names.Rename(name, t.knight):
		c.Fail("cannot rename to %q: %s", name, k.TakenName)
	default:
		if stored != nil && t.name == "" {
			t.name = stored.Name
		}
		return t, name, stored, true
	}
	return t, "", nil, false
}

// offlineRecord is the knight's stored record when it is not in the world; nil when it is.
func (k KnightAdmin) offlineRecord(c *Call, id string) (*world.Adventurer, error) {
	if _, online, err := k.World.Lookup(c.Ctx, id); err != nil || online {
		return nil, err
	}
	rec, err := k.Knights.Knight(id)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}
