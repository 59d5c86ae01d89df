package command

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// KeysMove is keys move's row.
func (o Operations) KeysMove() Command {
	return Command{Name: "keys move", Usage: "keys move OLD NEW", Summary: "for a player who lost a key: key NEW (a fingerprint) takes OLD's place",
		Help: "NEW must play no living knight (a dead one's record goes). NEW is a fingerprint as ssh-keygen -l\n" +
			"prints it: have the player send it, with `ssh-keygen -lf ~/.ssh/id_ed25519.pub`.\n" +
			"A game open with OLD ends, telling its player why; the knight is saved.",
		Admin: true, Takes: TakesWords | TakesJSON, Run: o.keysMove}
}

// KeyMovedMessage is what the old key's game reads last when keys move gives its knight
// to another key.
const KeyMovedMessage = "An admin has moved your knight to another key: this key no longer plays it. Your knight is saved where it stands."

// keysMoveJSON is the --json output of keys move.
type keysMoveJSON struct {
	Old    string `json:"old"`
	New    string `json:"new"`
	Knight string `json:"knight"`
	Name   string `json:"name"`
}

// keysMove is keys move OLD NEW: for a player who lost a key, the key NEW takes OLD's
// place with OLD's knight.
func (o Operations) keysMove(c *Call) int {
	if len(c.Args) != 2 || !strings.HasPrefix(c.Args[0], "SHA256:") || !strings.HasPrefix(c.Args[1], "SHA256:") {
		return c.UsageError("give two key fingerprints, SHA256:...")
	}
	oldFP, newFP := c.Args[0], c.Args[1]
	if oldFP == newFP {
		return c.Fail("the two keys are the same")
	}
	old, err := o.Knights.KeyOf(oldFP) // a key bound and not yet written counts
	if errors.Is(err, knights.ErrNotFound) {
		return c.Fail("%s plays no knight", Printable(oldFP))
	} else if err != nil {
		return c.Fail("could not read the key: %v", err)
	}
	newKey, err := o.Knights.KeyOf(newFP) // none (ErrNotFound) plays no knight
	if err != nil && !errors.Is(err, knights.ErrNotFound) {
		return c.Fail("could not read the key: %v", err)
	}
	if inTheGame(c.Ctx, o.World, newKey.Knight) {
		return c.Fail("%s's knight is in the dungeon; kick it first", Printable(newFP))
	}
	rec, err := o.Knights.Knight(old.Knight)
	if err != nil {
		return c.Fail("could not read the knight: %v", err)
	}
	given, err := o.Knights.Give(c.Ctx, knights.Give{
		Key:    knights.Key{Fingerprint: newFP, Knight: old.Knight, Comment: "moved from " + oldFP[:min(len(oldFP), 15)] + "… by an admin", Added: time.Now().UTC()},
		Remove: oldFP, At: o.Now().UTC(),
	})
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		return c.Fail("%s plays a living knight of its own; it cannot take another", Printable(newFP))
	case errors.Is(err, knights.ErrSameKnight):
		return c.Fail("%s plays that knight already", Printable(newFP))
	case err != nil:
		return c.Fail("the key could not be moved: %s", giveKeyLine(err))
	}
	if given.Gone {
		forgetKnight(c.Ctx, o.Log, o.Names, o.World, given.Left) // the dead knight NEW played before
	}
	return o.keyMoved(c, oldFP, newFP, old.Knight, rec.Name)
}

// keyMoved ends keys move once NEW plays OLD's knight: OLD's games end, saying why, and
// the admin is told.
func (o Operations) keyMoved(c *Call, oldFP, newFP, knight, name string) int {
	o.EndGames(oldFP, KeyMovedMessage)
	o.Sessions.CloseKey(oldFP, KickGrace)
	c.Result = fmt.Sprintf("moved %s's key %s to %s", name, oldFP, newFP)
	if c.JSON {
		return c.WriteJSON(keysMoveJSON{Old: oldFP, New: newFP, Knight: knight, Name: name})
	}
	fmt.Fprintf(c.Out, "%s is now played by %s in place of %s.\n", name, newFP, oldFP)
	return 0
}
