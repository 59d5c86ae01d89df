package server

import (
	"context"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/realmcheck"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
)

// TestRealmChaos's checker, on etcd's history of the run (internal/realmcheck).

// chaosHistory is what the replay has seen.
type chaosHistory struct {
	c        *realmChaos
	claimsOf map[string][]realmcheck.Claimed
	last     map[string][]byte
	moves    map[string]int  // each knight's moves in its last sheet
	ended    map[string]bool // its last sheet is its end (dead, retired): a new roll starts anew
	claims   int
	writes   int
}

func newChaosHistory(c *realmChaos) *chaosHistory {
	return &chaosHistory{c: c, claimsOf: map[string][]realmcheck.Claimed{}, moves: map[string]int{}, ended: map[string]bool{}}
}

// replay reads the run's history: every write of a knight is checked as it comes.
func (h *chaosHistory) replay() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	last, err := realmcheck.Replay(ctx, h.c.admin, "/orthanc/", h.c.from, realmcheck.Judge{Wrote: h.wrote, Claimed: h.claimed})
	if err != nil {
		h.c.t.Fatalf("seed %d: %v", h.c.seed, err)
	}
	h.last = last
}

// wrote checks one write: made under a claim, by the realm holding it, and (a sheet)
// never with fewer moves than the sheet before it, which a sheet written from a stale
// one would have.
func (h *chaosHistory) wrote(w realmcheck.Write) {
	h.writes++
	if w.Claim.Token == 0 {
		h.c.fail("knight %s's %s written (delete %v) at revision %d under no claim", w.Knight, w.Kind, w.Delete, w.Rev)
		return
	}
	if w.Kind != "knight" || w.Delete {
		return
	}
	a, by, err := records.DecodeSheet(w.Knight, w.Value)
	if err != nil {
		h.c.fail("knight %s's sheet at revision %d: %v", w.Knight, w.Rev, err)
		return
	}
	if by != w.Claim.Holder {
		h.c.fail("knight %s written at revision %d by realm %s under realm %s's claim (token %d)", w.Knight, w.Rev, by, w.Claim.Holder, w.Claim.Token)
	}
	if prev, ok := h.moves[w.Knight]; ok && !h.ended[w.Knight] && a.Moves < prev {
		h.c.fail("knight %s's sheet at revision %d (by %s) has %d moves, the one before %d: written from a stale sheet", w.Knight, w.Rev, by, a.Moves, prev)
	}
	h.moves[w.Knight], h.ended[w.Knight] = a.Moves, a.Ended()
}

func (h *chaosHistory) claimed(c realmcheck.Claimed) {
	h.claims++
	h.claimsOf[c.Knight] = append(h.claimsOf[c.Knight], c)
}

// checkAcks checks every save a player was told of: the next claim of the knight after
// it read that sheet (the realm's, the knight where the player last saw it), or, with no
// claim after it, the last sheet is it.
func (h *chaosHistory) checkAcks(acks []chaosAck) {
	for _, a := range acks {
		sheet, at := h.last[a.knight], "the last sheet"
		for _, c := range h.claimsOf[a.knight] {
			if c.Rev > a.after {
				sheet, at = c.Sheet, "the sheet "+c.Claim.Holder+"'s next claim read"
				break
			}
		}
		got, by, err := records.DecodeSheet(a.knight, sheet)
		if err != nil || by != a.realm || got.Depth != a.depth || got.X != a.x || got.Y != a.y {
			h.c.fail("player %d was told (%s) that knight %s was saved on %s at depth %d (%d,%d); %s is %s's at depth %d (%d,%d) (%v): the save was lost",
				a.player, a.how, a.knight, a.realm, a.depth, a.x, a.y, at, by, got.Depth, got.X, got.Y, err)
		}
	}
}
