package world

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Rulings on seed 001 (docs/DESIGN.md): a MAG "turn" is one round of the world clock (ten
// engine turns, the time a knight at speed 0 takes for one action); being stuck counts
// tries to move, as the seed says. Monsters always set off the traps they step on.

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

// String is the trap's name, as the trap table has it.
func (t TrapKind) String() string {
	if t < NumTrapKinds {
		return traps[t].name
	}
	return "trap?"
}

// trap is one row of the trap table: seed 001's entry for a trap, what it does to a knight
// and what to a monster. springTrap and monsterTrap read the rows; a trap with a rule of
// its own that numbers cannot say has a function for it.
type trap struct {
	name    string
	knight  onKnight
	monster onMonster
}

// onKnight is a trap's entry for a knight. springTrap takes its steps in this order, which
// is the order of the random draws the seeded tests rely on: the chance to miss, the hits,
// then, the hold.
type onKnight struct {
	slips   string // told when a ring of free action carries the knight past it; "" tells nothing
	springs string // told when it goes off; "" tells nothing

	chance func(level int) int // if set: thousandths of a draw of a thousand that it hurts, by experience level
	misses string              // told when the chance says it does not

	hurt   between // the hits it takes
	killer string  // what a knight it kills died of

	then func(e *Engine, p *player) // its own rule, after the hits

	holds    StatusKind // the condition it leaves the knight in,
	holdsFor between    // for as many tries or rounds; zero leaves none
	freeHold between    // if set, a ring of free action does not carry the knight past: it holds it this long
}

// onMonster is a trap's entry for a monster, taken in this order: stuck or asleep, the
// hits, then, what those who see it are told.
type onMonster struct {
	stuck  bool
	asleep bool
	hurt   between
	then   func(e *Engine, m *monster)
	seen   string // told to the knights who see the monster, its name for %s; they learn where the trap is
}

// between is a number of the trap table: a draw from lo to hi inclusive (seed 001's "5 to
// 9"), times draws added where times is more than one (the spear's "2d3"), and the level's
// depth added where deep (the pendulum's "5 + dungeon_level"). When lo is hi nothing is
// drawn, so the zero value is none at all.
type between struct {
	lo, hi int
	times  int
	deep   bool
}

func (b between) draw(r *rand.Rand, depth int) int {
	n := b.lo * max(1, b.times)
	if b.lo != b.hi {
		n = 0
		for range max(1, b.times) {
			n += rangeRoll(r, b.lo, b.hi)
		}
	}
	if b.deep {
		n += depth
	}
	return n
}

// traps is the trap table (seed 001), in TrapKind's order. A new trap is a TrapKind and a
// row here, with a function of its own only where its rule is more than the row can say.
var traps = [NumTrapKinds]trap{
	TrapWeb: {
		name: "spider web",
		knight: onKnight{
			slips:   "Wait! The web melts and you pass through it.",
			springs: "You are caught in a sticky, strandy spider web!",
			holds:   StatusStuck, holdsFor: between{lo: 5, hi: 9},
		},
		monster: onMonster{stuck: true, seen: "%s gets caught in a spider web!"},
	},
	TrapStun: {
		name: "stun trap",
		knight: onKnight{
			springs: "<<ZZRRRRAAAPP>> An electric burning rips through your body!",
			hurt:    between{lo: 1, hi: 5}, killer: "a stun trap",
			then: stunKnight,
		},
		// "Monster loses 1 hit point"; stunMonster says the rest.
		monster: onMonster{hurt: between{lo: 1, hi: 1}, then: stunMonster},
	},
	TrapPendulum: {
		name: "pendulum",
		knight: onKnight{
			springs: "A huge sharp pendulum blade swings down from above...",
			chance:  pendulumPerMille, misses: "...and misses you by a hair.",
			hurt: between{lo: 5, hi: 9, deep: true}, killer: "a pendulum",
		},
		monster: onMonster{
			hurt: between{lo: 5, hi: 9, deep: true},
			seen: "A pendulum swings down and slices into %s!",
		},
	},
	TrapStrangleWeed: {
		name: "strangle weed",
		knight: onKnight{
			slips:   "You manage to slip from its grasp!",
			springs: "A weed snakes out and wraps around your neck!",
			// The hit a round it takes is tickStatus's, while it holds.
			holds: StatusStrangle, holdsFor: between{lo: 5, hi: 9},
		},
		monster: onMonster{
			stuck: true, hurt: between{lo: 1, hi: 4},
			seen: "A weed snakes out and wraps around %s!",
		},
	},
	TrapPoisonNeedle: {
		name: "poison needle",
		knight: onKnight{
			springs: "Ouch! A poison needle stabbed you in the foot.",
			hurt:    between{lo: 5, hi: 9}, killer: "a poison needle",
			then: poisonKnight,
		},
		monster: onMonster{hurt: between{lo: 5, hi: 9}, seen: "A needle jabs %s."},
	},
	TrapSleepingGas: {
		name: "sleeping gas trap",
		knight: onKnight{
			springs: "A curious white mist encircles you...you fall asleep.",
			holds:   StatusAsleep, holdsFor: between{lo: 5, hi: 9},
		},
		monster: onMonster{asleep: true, seen: "A faint white wisp of mist encircles %s."},
	},
	TrapBear: {
		name: "bear trap",
		knight: onKnight{
			springs: "A bear trap snaps shut on your foot!",
			hurt:    between{lo: 1, hi: 6}, killer: "a bear trap",
			holds: StatusStuck, holdsFor: between{lo: 5, hi: 9},
			// "Player stuck for 1 turn if wearing a ring of free action."
			freeHold: between{lo: 1, hi: 1},
		},
		monster: onMonster{
			stuck: true, hurt: between{lo: 1, hi: 6},
			seen: "A bear trap snaps shut on %s.",
		},
	},
	TrapFlyingSpear: {
		name: "flying spear trap",
		// Seed 001: "Has no effect when in a maze room"; this dungeon has no maze rooms.
		knight: onKnight{
			springs: "A spear shoots out from a hole in the wall!",
			hurt:    between{lo: 0, hi: 2, times: 2}, killer: "a flying spear",
		},
		monster: onMonster{}, // "Monster: not affected by this trap"
	},
	TrapTeleport: {
		name: "teleportation trap",
		// Seed 001: "teleported to a random square on the current dungeon level and is
		// confused for 1 to 3 turns"; "Message: no message".
		knight: onKnight{
			then:  teleportKnight,
			holds: StatusConfused, holdsFor: between{lo: 1, hi: 3},
		},
		monster: onMonster{then: teleportMonster},
	},
}

// springTrap runs the trap on the square a knight just stepped onto (seed 001), by its row
// of the table.
func (e *Engine) springTrap(p *player) {
	l := e.levels[p.rec.Depth-1]
	pos := p.rec.Pos()
	t := l.Trap(pos)
	if t == TrapNone {
		return
	}
	k := &traps[t].knight
	r := e.rng
	freeAction := wearing(p.rec.Items, ItemRingOfFreeAction)
	if freeAction && k.freeHold == (between{}) {
		// Seed 001: "A ring of free action allows the player to avoid all traps", with
		// its two messages.
		if k.slips != "" {
			e.say(p, k.slips)
			e.knowTrap(p, l.idx(pos))
		}
		return
	}
	if r.IntN(1000) < avoidPerMille {
		return // seed 001: "A player avoids traps 47.5 percent of the time"; no message
	}
	e.knowTrap(p, l.idx(pos))
	if k.springs != "" {
		e.say(p, k.springs)
	}
	if k.chance != nil && r.IntN(1000) >= k.chance(p.rec.Level) {
		e.say(p, k.misses)
		return
	}
	if k.hurt != (between{}) {
		e.hurt(p, k.killer, k.hurt.draw(r, p.rec.Depth))
		if p.rec.Hits <= 0 {
			e.die(p, k.killer)
			return
		}
	}
	if k.then != nil {
		k.then(e, p)
	}
	if k.holdsFor != (between{}) {
		left := k.holdsFor
		if freeAction {
			left = k.freeHold
		}
		p.addStatus(k.holds, left.draw(r, p.rec.Depth))
	}
}

// stunKnight is the stun trap's rule: the knight is confused, blinded or knocked out, one
// of the three as often as each, as seed 001's table says: "Confused for 10 to 19 turns if
// not already confused", "Blind for 5 to 14 turns if not already confused" (so a confused
// knight is not blinded, and a blind one that is not confused is blinded again: the longer
// blindness holds), "Sleep for 5 to 9 turns if not already sleeping".
func stunKnight(e *Engine, p *player) {
	r := e.rng
	switch r.IntN(3) {
	case 0:
		if p.status(StatusConfused) == nil {
			p.addStatus(StatusConfused, rangeRoll(r, 10, 19))
		}
	case 1:
		if p.status(StatusConfused) == nil {
			e.say(p, "You can't see anything!")
			p.lengthenStatus(StatusBlind, rangeRoll(r, 5, 14))
			e.look(p)
		}
	default:
		if p.status(StatusAsleep) == nil {
			e.say(p, "You go unconscious!")
			p.addStatus(StatusAsleep, rangeRoll(r, 5, 9))
		}
	}
}

// poisonKnight is the poison needle's rule: Strength lost for a while.
func poisonKnight(e *Engine, p *player) {
	if wearing(p.rec.Items, ItemRingOfSustainStrength) {
		return // "Strength is not lost if player is wearing a ring of sustain strength."
	}
	r := e.rng
	first := rangeRoll(r, 500, 999)
	p.addStatus(StatusWeak, first)
	// "down 2 points for 500 to 999 turns and then be down 1 point for an additional
	// 500 to 999 turns", half the time: one draw of a thousand, 500..999 being both
	// the chance and the additional turns.
	if more := r.IntN(1000); more >= 500 {
		p.addStatus(StatusWeak, first+more)
	}
	e.say(p, "You feel weaker.")
}

// teleportKnight is the teleportation trap's rule: a random square of the same level.
func teleportKnight(e *Engine, p *player) {
	e.place(p, p.rec.Depth, e.randomSquare(p.rec.Depth))
}

// monsterTrap runs the trap a monster stepped on, by its row of the table (seed 001: "A
// monster can be affected by a trap even when the monster is not visible to the player";
// its messages reach only those who see it).
func (e *Engine) monsterTrap(m *monster) {
	l := e.levels[m.depth-1]
	t := l.Trap(m.pos)
	if t == TrapNone {
		return
	}
	k := &traps[t].monster
	if k.stuck {
		m.stuck = true
	}
	if k.asleep {
		m.asleep = true
	}
	if k.hurt != (between{}) {
		m.hits -= k.hurt.draw(e.rng, m.depth)
	}
	if k.then != nil {
		k.then(e, m)
	}
	if k.seen != "" {
		msg := english.Capital(fmt.Sprintf(k.seen, theName(m.Kind())))
		for _, p := range e.sayWhereSeen(m.depth, m.pos, msg) {
			e.knowTrap(p, l.idx(m.pos)) // "hidden until ... a monster steps on it when the monster is visible"
		}
	}
	if m.hits <= 0 {
		e.sayWhereSeen(m.depth, m.pos, english.Capital(theName(m.Kind()))+" dies.")
		e.removeMonster(m)
	}
}

// stunMonster is the stun trap's rule for a monster: "has a 50 percent chance to become
// stuck or 50 percent chance to become confused" (ruling: confused for 10 to 19 rounds, as
// a stunned knight is), and "You hear a zapping sound." reaches everyone on the level.
func stunMonster(e *Engine, m *monster) {
	// One draw of twenty: 0..9 stuck, 10..19 confused for as many rounds.
	if n := e.rng.IntN(20); n < 10 {
		m.stuck = true
	} else {
		m.confused = n
	}
	for _, p := range e.order {
		if p.rec.Depth == m.depth {
			e.say(p, "You hear a zapping sound.")
		}
	}
}

// teleportMonster is the teleportation trap's rule for a monster: a random corridor square
// of the same level, without a word.
func teleportMonster(e *Engine, m *monster) {
	from := m.pos
	m.pos = e.randomCorridor(m.depth)
	e.monsterMoved(m.depth, from)
	e.monsterMoved(m.depth, m.pos)
}

// sayWhereSeen tells the knights who can see square q of a level, and returns them.
func (e *Engine) sayWhereSeen(depth int, q Pos, msg string) []*player {
	who := slices.Collect(e.watchersOf(depth, q, false))
	for _, p := range who {
		e.say(p, msg)
	}
	return who
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
// 2 plus another random number from 0 to 2" (0..4), as the trap table has it.
func SpearDamage(r *rand.Rand) int { return traps[TrapFlyingSpear].knight.hurt.draw(r, 0) }
