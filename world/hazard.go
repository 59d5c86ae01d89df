package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Hazards besides what a trap does when it goes off (trap.go): where traps, chutes and
// pits are put on a level, falling down a chute or a pit, and finding traps (a trap that
// goes off, Find Traps, Light) for the knight's map.

// placeHazards hides the level's traps and puts a chute and a pit on it (seed 000: "chutes
// (drop you one or more levels ...), pits"). It draws from a stream of its own, so the
// level's walls and doors are the same as without hazards.
func placeHazards(l *Level, bottom bool) {
	r := rand.New(rand.NewPCG(l.Seed, uint64(l.Depth)^0x74726170))
	free := func() (Pos, bool) {
		for range 500 {
			p := Pos{r.IntN(l.W), r.IntN(l.H)}
			if l.Terrain(p) != Rock && l.Feature(p) == FeatNone && l.Trap(p) == TrapNone && !l.nextToStairs(p) {
				return p, true
			}
		}
		return Pos{}, false
	}
	for range TrapCount(r, l.Depth) {
		if p, ok := free(); ok {
			l.SetTrap(p, TrapKind(1+r.IntN(int(NumTrapKinds)-1)))
		}
	}
	if bottom {
		return // nothing below the bottom level to fall to
	}
	for _, f := range []Feature{FeatChute, FeatPit} {
		for range 20 {
			// A knight without levitation cannot cross a chute or pit, so one never sits
			// where it would cut the way between the stairs.
			if p, ok := free(); ok && l.Terrain(p) == Corridor && l.stairsConnectedWithout(p) {
				l.SetFeature(p, f)
				break
			}
		}
	}
}

// stairsConnectedWithout reports whether the down stairs can still be reached from the up
// stairs (doors passable) with square block and every chute and pit closed off.
func (l *Level) stairsConnectedWithout(block Pos) bool {
	seen := make([]bool, l.W*l.H)
	closed := func(q Pos) bool {
		f := l.Feature(q)
		return q == block || f == FeatChute || f == FeatPit
	}
	queue := []Pos{l.Up}
	seen[l.idx(l.Up)] = true
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == l.Down {
			return true
		}
		for _, d := range Dirs {
			q := p.Step(d)
			if !l.In(q) || seen[l.idx(q)] || l.Edge(p, d) == EdgeWall || closed(q) {
				continue
			}
			seen[l.idx(q)] = true
			queue = append(queue, q)
		}
	}
	return !l.HasDown // the bottom level has no down stairs to reach
}

// nextToStairs keeps hazards off the squares around the stairs and the exit, so arriving
// knights are not dropped straight down again.
func (l *Level) nextToStairs(p Pos) bool {
	for _, s := range []Pos{l.Up, l.Down} {
		if absInt(p.X-s.X)+absInt(p.Y-s.Y) <= 1 {
			return true
		}
	}
	return false
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
		e.earn(p, DeedChute) // a chute does not hurt: every knight down one lives
		return true
	}
	n := 1 + e.rng.IntN(6) // ruling: a pit's fall hurts d6
	e.hurt(p, "a fall into a pit", n)
	e.say(p, fmt.Sprintf("You fall into a pit and land on level %d! (-%d hits)", depth, n))
	if p.rec.Hits <= 0 {
		e.die(p, "a fall into a pit")
	}
	return true
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

// findTrapsRange is how far Find Traps senses traps, in squares (seed 000: "Tells you what
// traps are around you").
const findTrapsRange = 3

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
