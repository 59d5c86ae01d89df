package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Rulings on seed 001 (docs/DESIGN.md): a MAG "turn" is one round of the world clock (ten
// engine turns, the time a knight at speed 0 takes for one action); being stuck counts
// tries to move, as the seed says. Monsters always set off the traps they step on.

// findTrapsRange is how far Find Traps senses traps, in squares (seed 000: "Tells you what
// traps are around you").
const findTrapsRange = 3

// knowTrap puts a trap on the knight's map of its level (seed 000: "Traps ... show on the
// map as dots").
func (e *Engine) knowTrap(p *player, sq int) {
	if p.mapIdx < 0 {
		return
	}
	m := &p.rec.Maps[p.mapIdx]
	if !slices.Contains(m.Traps, sq) {
		m.Traps = append(m.Traps, sq)
		p.changed, p.dirty = true, true
	}
}

// fallThrough handles chutes and pits under a knight who just arrived on a square (seed
// 000: chutes "drop you one or more levels", pits drop you one level with a fall; "Allows
// you to levitate over traps in the dungeon, such as pits and chutes. You are given the
// choice of using a chute, however.").
func (e *Engine) fallThrough(p *player, chosen bool) bool {
	l := e.levels[p.rec.Depth-1]
	f := l.Feature(p.rec.Pos())
	if f != FeatChute && f != FeatPit {
		return false
	}
	if e.levitating(p) && !chosen {
		if f == FeatChute {
			e.say(p, "You float over a chute. Press > to drop down it.")
		} else {
			e.say(p, "You float over a pit.")
		}
		return false
	}
	drop := 1
	if f == FeatChute && e.rng.IntN(3) == 0 {
		drop = 2 // ruling: a chute drops two levels one time in three
	}
	depth := min(len(e.levels), p.rec.Depth+drop)
	e.place(p, depth, e.nearestOpen(depth, p.rec.Pos()))
	if f == FeatChute {
		e.say(p, fmt.Sprintf("You slide down a chute to level %d!", depth))
		return true
	}
	n := 1 + e.rng.IntN(6) // ruling: a pit's fall hurts d6
	p.rec.Hits -= n
	e.say(p, fmt.Sprintf("You fall into a pit and land on level %d! (-%d hits)", depth, n))
	if p.rec.Hits <= 0 {
		e.die(p, "a fall into a pit")
	}
	return true
}

// findTraps is Find Traps at work: the traps near the knight go on its map and it is told
// where they are.
func (e *Engine) findTraps(p *player, announce bool) {
	l := e.levels[p.rec.Depth-1]
	at := p.rec.Pos()
	var found []string
	for y := at.Y - findTrapsRange; y <= at.Y+findTrapsRange; y++ {
		for x := at.X - findTrapsRange; x <= at.X+findTrapsRange; x++ {
			q := Pos{x, y}
			if t := l.Trap(q); t != TrapNone {
				e.knowTrap(p, l.idx(q))
				found = append(found, english.A(t.String())+" "+direction(at, q))
			}
		}
	}
	switch {
	case len(found) > 0:
		e.say(p, "You sense "+strings.Join(found, "; ")+".")
	case announce:
		e.say(p, "You sense no traps around you.")
	}
}

// direction says where q lies from p: "2 squares north-east", "here".
func direction(p, q Pos) string {
	dx, dy := q.X-p.X, q.Y-p.Y
	if dx == 0 && dy == 0 {
		return "here"
	}
	ns, ew := "", ""
	if dy < 0 {
		ns = "north"
	} else if dy > 0 {
		ns = "south"
	}
	if dx < 0 {
		ew = "west"
	} else if dx > 0 {
		ew = "east"
	}
	way := ns + ew
	if ns != "" && ew != "" {
		way = ns + "-" + ew
	}
	return fmt.Sprintf("%d squares %s", max(absInt(dx), absInt(dy)), way)
}

// lightTraps shows the traps on lit, visible squares (ruling: Light reveals traps as it
// reveals secret doors).
func (e *Engine) lightTraps(p *player) {
	if !e.lit(p) {
		return
	}
	l := e.levels[p.rec.Depth-1]
	for i, t := range l.trap {
		if t != TrapNone && Bit(p.visible, i) {
			e.knowTrap(p, i)
		}
	}
}
