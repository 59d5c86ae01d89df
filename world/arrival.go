package world

import (
	"math"
	"time"
)

// A safe arrival (DESIGN §12, "Fair play"): a knight that joins the world, new, returning
// or rolled after a death, that takes its knight over from another connection, that a
// rebuilt level moves, or that comes onto a level by any way (stairs down or up, down
// from the surface, a chute, a pit), has not read its screen yet. Until it first acts or SafeTurns pass,
// no wanderer appears on or next to its square or steps onto it, and no monster starts a
// fight with it. A knight that got away from a fight has the same time before a wanderer
// starts another (respiteUntil), so the one it fled does not catch it on the next step.
//
//	constant           value   effect at the default 25 ms tick
//	DefaultSafeTurns   400     a safe arrival lasts at most 10 s (a screen-reader player's, until it acts); so does the respite after a run
//	PlainPlaceWords    45      a screen-reader player's respite begins once its answer is heard: the run's line and
//	                           about this many words of where it now stands, at PlainListenWPM (a run line and 45
//	                           words: about 21 s, then the 10 s)
const (
	DefaultSafeTurns = 400
	PlainPlaceWords  = 45
)

// keepSafe starts a knight's safe arrival. A screen-reader player's lasts until it first
// acts, however long: its arrival's lines take 20 s and more to hear.
func (e *Engine) keepSafe(p *player) {
	if p.rec.Options.ScreenReader() {
		p.safeUntil = math.MaxUint64
		return
	}
	p.safeUntil = e.turn + uint64(e.cfg.SafeTurns)
}

// respiteTurns is how long after a run no wanderer starts a fight with the knight:
// SafeTurns, and for a screen-reader player counted from the end of its answer's speech,
// the run's line (said) and its session's words of where it now stands, which a
// sighted player reads at a glance and a listener hears for a quarter of a minute.
func (e *Engine) respiteTurns(p *player, said string) int {
	if !p.rec.Options.ScreenReader() {
		return e.cfg.SafeTurns
	}
	hear := time.Duration(words(said)+PlainPlaceWords) * time.Minute / PlainListenWPM
	return e.turns(hear) + e.cfg.SafeTurns
}

// safe reports whether the knight is in its safe arrival.
func (e *Engine) safe(p *player) bool { return e.turn < p.safeUntil }

// mayAmbush reports whether a monster coming to the knight may start a fight with it:
// not while it is invisible (seed 000, ring of invisibility: "You are safe from attack"),
// in its safe arrival, or in the respite after it got away from a fight.
func (e *Engine) mayAmbush(p *player) bool {
	return !e.invisible(p) && !e.safe(p) && e.turn >= p.respiteUntil
}

// safeKnightNear reports whether a knight in its safe arrival stands within reach squares
// (counting diagonals) of q on the level.
func (e *Engine) safeKnightNear(depth int, q Pos, reach int) bool {
	for _, p := range e.onLevel(depth) {
		at := p.rec.Pos()
		if e.safe(p) && absInt(at.X-q.X) <= reach && absInt(at.Y-q.Y) <= reach {
			return true
		}
	}
	return false
}

// arrived ends a knight's safe arrival, because it acts or its time is up. A knight that
// stands in a room whose guard lives (it left the game in the middle of that fight, say)
// is then attacked before its action: leaving and coming back is no way out of a room,
// from which seed 000 allows no running. It reports whether a fight started.
func (e *Engine) arrived(p *player) bool {
	p.safeUntil = 0
	if p.rec.Depth < 1 || e.invisible(p) {
		return false
	}
	l := e.levels[p.rec.Depth-1]
	r := l.RoomAt(p.rec.Pos())
	if r < 0 {
		return false
	}
	g := e.roomGuard(l.Depth, r)
	if g == nil {
		return false
	}
	e.startFight(p, g)
	return p.fight != nil
}
