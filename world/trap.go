package world

import (
	"fmt"
	"math/rand/v2"
)

// TrapKind is one of the nine traps of Mike's Adventure Game (seed 001).
type TrapKind uint8

// The nine traps, in the seed's order. TrapNone marks a square without one.
const (
	TrapNone TrapKind = iota
	TrapWeb
	TrapStun
	TrapPendulum
	TrapStrangleWeed
	TrapPoisonNeedle
	TrapSleepingGas
	TrapBear
	TrapFlyingSpear
	TrapTeleport
	NumTrapKinds
)

var trapNames = [NumTrapKinds]string{"", "spider web", "stun trap", "pendulum", "strangle weed",
	"poison needle", "sleeping gas trap", "bear trap", "flying spear trap", "teleportation trap"}

func (t TrapKind) String() string {
	if t < NumTrapKinds {
		return trapNames[t]
	}
	return "trap?"
}

// rnd is seed 001's rnd(X): "(rand() MOD X)", a number from 0 to X-1.
func rnd(r *rand.Rand, x int) int { return r.IntN(x) }

// TrapCount is how many traps a dungeon level holds (seed 001: "1 - 10 | 1 | 2 | 1 +
// rnd(2)", "11 - 20 | 1 | 5 | 1 + rnd(2) + rnd(4)", "21+ | 1 | 8 | 1 + rnd(2) + rnd(4) +
// rnd(4)"). The deeper formulas are kept for deeper or generated dungeons.
func TrapCount(r *rand.Rand, depth int) int {
	n := 1 + rnd(r, 2)
	if depth > 10 {
		n += rnd(r, 4)
	}
	if depth > 20 {
		n += rnd(r, 4)
	}
	return n
}

// AvoidChance is seed 001's "A player avoids traps 47.5 percent of the time."
const AvoidChance = 0.475

// avoidPerMille is AvoidChance in thousandths, the draw springTrap makes: 475 of 1000.
const avoidPerMille = 475

// PendulumChance is the chance a pendulum damages a knight of the given experience level
// (seed 001's table: 45.0% at level 1, 2.5 points less each level, 0 from level 19).
func PendulumChance(level int) float64 { return float64(pendulumPerMille(level)) / 1000 }

// pendulumPerMille is PendulumChance in thousandths, the draw springTrap makes: the
// table's steps of 2.5% are whole thousandths.
func pendulumPerMille(level int) int { return max(0, 450-25*(max(1, level)-1)) }

// rangeRoll is a number from lo to hi inclusive.
func rangeRoll(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// SpearDamage is seed 001's flying spear, "2d3" in MAG's sense: "a random number from 0 to
// 2 plus another random number from 0 to 2" (0..4).
func SpearDamage(r *rand.Rand) int { return rnd(r, 3) + rnd(r, 3) }

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

// StatusKind is a condition on a knight from a trap (seed 001).
type StatusKind uint8

// The conditions. Stuck counts tries to move; the others count rounds of the world clock.
const (
	StatusStuck StatusKind = iota
	StatusConfused
	StatusBlind
	StatusAsleep
	StatusWeak     // one point of Strength lost until it wears off
	StatusStrangle // stuck in strangle weed: a hit a round besides being stuck
)

var statusNames = [...]string{"stuck", "confused", "blind", "asleep", "weak", "strangled"}

func (s StatusKind) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status?"
}

// Status is one condition on a knight: Left is tries to move (stuck) or rounds (the rest).
type Status struct {
	Kind StatusKind `json:"kind"`
	Left int        `json:"left"`
}

// String is the condition as the status line and whoami show it.
func (s Status) String() string {
	if s.Kind == StatusStuck || s.Kind == StatusStrangle {
		return fmt.Sprintf("%s (%d tries)", s.Kind, s.Left)
	}
	return fmt.Sprintf("%s (%d turns)", s.Kind, s.Left)
}
