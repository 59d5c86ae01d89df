package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What several families of commands say or do the same way.

// KickGrace is how long the sessions of a key that no longer plays (banned, removed or
// moved) stay open, so the game's last screen reaches the player before the line drops.
const KickGrace = time.Second

// orDash is s, or "-" for nothing, for a table's cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// UntilText is when something ends (a ban, a silence), as a player is told it.
func UntilText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") }

// giveKeyLine is why a key could not be given to a knight, in a player's words.
func giveKeyLine(err error) string {
	var away *knights.ElsewhereError
	switch {
	case errors.Is(err, knights.ErrSameKnight):
		return "this key already plays that knight"
	case errors.As(err, &away) && away.Here:
		return "the knight is leaving the game just now; try again in a moment"
	case errors.As(err, &away):
		return fmt.Sprintf("the knight plays in realm %s; leave the game there first, then try again", away.Where)
	case errors.Is(err, knights.ErrKeyMoved):
		return "the key changed on another realm meanwhile; try again"
	}
	return "the key could not be given to the knight just now; try again later"
}

// inTheGame reports whether a knight plays in the world now; a world that does not
// answer counts as yes, so nothing is changed under a knight that might be playing.
func inTheGame(ctx context.Context, w *world.Engine, knight string) bool {
	if knight == "" {
		return false
	}
	_, online, err := w.Lookup(ctx, knight)
	return err != nil || online
}

// forgetKnight lets go of a knight the records no longer have (a key given elsewhere
// entombed it): its names, in the name book, and the community's hold on it, so its name
// takes no more letters and the letters it had are gone with it.
func forgetKnight(ctx context.Context, log *slog.Logger, names *knights.NameBook, w *world.Engine, id string) {
	names.Forget(id)
	if err := w.ForgetKnight(ctx, id); err != nil {
		log.Error("forget a knight no longer stored", "knight", id, "err", err)
	}
}
