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

// str is the knight's Strength less what poison has taken for now (seed 001).
func (e *Engine) str(p *player) int {
	s := p.rec.Str
	for _, st := range p.rec.Status {
		if st.Kind == StatusWeak {
			s--
		}
	}
	return max(1, s)
}

// status is the condition of a kind on the knight, if any.
func (p *player) status(k StatusKind) *Status {
	for i := range p.rec.Status {
		if p.rec.Status[i].Kind == k {
			return &p.rec.Status[i]
		}
	}
	return nil
}

func (p *player) addStatus(k StatusKind, left int) {
	p.rec.Status = append(p.rec.Status, Status{Kind: k, Left: left})
	p.changed, p.dirty = true, true
}

// levitating reports whether the knight floats (seed 000: boots of levitation, the spell).
func (e *Engine) levitating(p *player) bool {
	return wearing(p.rec.Items, ItemBootsOfLevitation) || p.has(SpellLevitation)
}

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

// tickStatus runs a round of the world clock on a knight's conditions: they count down,
// strangle weed chokes, and spent conditions end with a word.
func (e *Engine) tickStatus(p *player) {
	if len(p.rec.Status) == 0 {
		return
	}
	kept := p.rec.Status[:0]
	for _, st := range p.rec.Status {
		switch st.Kind {
		case StatusStuck:
			kept = append(kept, st) // only tries to move wear it down
			continue
		case StatusStrangle:
			// Seed 001: strangle weed — "stuck and loses 1 hit point each turn".
			p.rec.Hits--
			kept = append(kept, st)
			continue
		}
		st.Left--
		if st.Left > 0 {
			kept = append(kept, st)
			continue
		}
		switch st.Kind {
		case StatusConfused:
			e.say(p, "You feel less confused now.")
		case StatusBlind:
			e.say(p, "You can see again.")
		case StatusAsleep:
			e.say(p, "You wake up.")
		case StatusWeak:
			e.say(p, "You feel your strength coming back.")
		}
	}
	p.rec.Status = kept
	p.changed, p.dirty = true, true
	if p.rec.Depth > 0 && p.status(StatusBlind) == nil {
		e.look(p)
	}
	if p.rec.Hits <= 0 {
		e.die(p, "strangle weed")
	}
}

// held reports whether a condition keeps the knight from acting, and says so. A stuck
// knight trying to move uses up one of its tries (seed 001: "Player has to try to move for
// 5 to 9 turns to escape the trap").
func (e *Engine) held(p *player, c Command) (bool, float64) {
	if p.status(StatusAsleep) != nil {
		e.say(p, "You are asleep and cannot act.")
		return true, 0
	}
	if _, isMove := c.(Move); !isMove {
		return false, 0
	}
	for _, k := range []StatusKind{StatusStrangle, StatusStuck} {
		st := p.status(k)
		if st == nil {
			continue
		}
		st.Left--
		if st.Left <= 0 {
			p.rec.Status = slices.DeleteFunc(p.rec.Status, func(s Status) bool { return s.Kind == k })
			e.say(p, "You struggle free!")
		} else {
			e.say(p, "You struggle but are still stuck.")
		}
		p.changed = true
		return true, MoveCost(e.speed(p))
	}
	return false, 0
}
