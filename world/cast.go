package world

import (
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Cast casts a spell (seed 000 keys 1–4). Dir is the direction ESP looks in.
type Cast struct {
	Spell SpellID
	Dir   Dir
}

func (Cast) isCommand() {}

// espRange is how far ESP looks through walls, in squares.
const espRange = 8

// LightRange is how far a knight's light reaches beyond its sight, in squares each way and
// through walls: the monsters and hoards within it show as shadows (seed 000, Light: "You
// are able to see all secret doors and detect monsters and treasures (which appear as
// shadows)"). Ruling: the seed gives the light no reach; four squares show the room
// beyond a wall, half of ESP's look in one direction.
const LightRange = 4

// inLight reports whether square q of the knight's level is within its light's reach.
func (e *Engine) inLight(p *player, q Pos) bool {
	at := p.rec.Pos()
	return e.lit(p) && absInt(q.X-at.X) <= LightRange && absInt(q.Y-at.Y) <= LightRange
}

// shadows lists what the knight's light shows on the squares within its reach that it
// does not see: every monster, and the hoard of each room's guard (hoardSquare). A blind
// knight sees no shadows; outside the dungeon there is daylight and no need of them.
func (e *Engine) shadows(p *player) []Shadow {
	if p.rec.Depth < 1 || !e.lit(p) || p.status(StatusBlind) != nil {
		return nil
	}
	l := e.levels[p.rec.Depth-1]
	dark := func(q Pos) bool { return e.inLight(p, q) && !Bit(p.visible, l.idx(q)) }
	var out []Shadow
	for _, m := range e.state[p.rec.Depth-1].monsters {
		if dark(m.pos) {
			out = append(out, Shadow{Pos: m.pos, Glyph: m.Kind().Glyph})
		}
		if m.room >= 0 {
			if h := hoardSquare(l.Rooms[m.room], m.pos); h != m.pos && dark(h) {
				out = append(out, Shadow{Pos: h, Treasure: true})
			}
		}
	}
	return out
}

// hoardSquare is where a guard's hoard lies in its room, for Light to show: across the
// room from the guard (the square mirrored through the room's middle), or beside it when
// the guard stands in the middle, or under it in a room of one square. The hoard is the
// guard's treasure, taken when the guard falls wherever the blow is struck; the square
// only shows it.
func hoardSquare(r RoomRect, guard Pos) Pos {
	h := Pos{2*r.X + r.W - 1 - guard.X, 2*r.Y + r.H - 1 - guard.Y}
	if h != guard {
		return h
	}
	for _, d := range Dirs {
		if q := guard.Step(d); r.Contains(q) {
			return q
		}
	}
	return guard
}

// cast carries out a Cast command in or out of a fight and returns its cost.
func (e *Engine) cast(p *player, c Cast) float64 {
	info := c.Spell.Info()
	if info == nil {
		return 0
	}
	fighting := p.fight != nil
	if !c.Spell.CastableIn(fighting) {
		if fighting {
			e.say(p, fmt.Sprintf("%s cannot be cast in a fight.", info.Name))
		} else {
			e.say(p, fmt.Sprintf("%s can be cast only in a fight.", info.Name))
		}
		return 0
	}
	cost := UnitCost(c.Spell)
	if p.rec.SpellUnits < cost {
		e.say(p, fmt.Sprintf("%s needs %d spell units; you have %d.", info.Name, cost, p.rec.SpellUnits))
		return 0
	}
	if ok, why := e.canCast(p, c.Spell); !ok {
		e.say(p, why)
		return 0
	}
	p.rec.SpellUnits -= cost
	p.changed = true
	p.espDir = c.Dir
	e.castEffect(p, c)
	return CastEnergy(c.Spell, p.rec.Int)
}

// canCast refuses, before any unit is spent, a spell that cannot work where the knight is.
func (e *Engine) canCast(p *player, s SpellID) (bool, string) {
	switch s {
	case SpellPassFloor:
		if p.rec.Depth >= len(e.levels) {
			return false, "There is no level below this one."
		}
	case SpellPassWall, SpellESP, SpellDepth, SpellLight, SpellContinuousLight, SpellLevitation, SpellFindTraps, SpellPassCeiling:
		if p.rec.Depth == 0 {
			return false, "That spell is for the dungeon."
		}
	case SpellCure:
		if p.rec.Hits >= p.rec.MaxHits {
			return false, "You are at full hits: Cure would heal nothing."
		}
	}
	return true, ""
}

// logOrSay writes a line to the fight log when the knight is fighting, else to its messages.
func (e *Engine) logOrSay(p *player, format string, args ...any) {
	if p.fight != nil {
		p.fight.logf(format, args...)
		return
	}
	e.say(p, fmt.Sprintf(format, args...))
}

func (e *Engine) castEffect(p *player, c Cast) {
	s := c.Spell
	info := s.Info()
	name := p.rec.Name
	if p.fight != nil && info.OnMonster {
		e.castOnMonster(p, p.fight, s)
		return
	}
	switch s {
	case SpellCure:
		// Seed 000: "Heals wounds. Replenishes hits in doses of 2-7, modified by your intelligence."
		n := min(CureAmount(e.rng, p.rec.Int), p.rec.MaxHits-p.rec.Hits)
		p.rec.Hits += n
		e.say(p, fmt.Sprintf("You cast Cure and recover %s.", english.Count(n, "hit")))
	case SpellDepth:
		e.say(p, fmt.Sprintf("You cast Depth: you are on level %d of the dungeon.", p.rec.Depth))
	case SpellFindTraps:
		p.addEffect(s)
		e.say(p, "You cast Find Traps.")
		e.findTraps(p, true)
	case SpellESP:
		e.esp(p)
	case SpellPassWall:
		p.passWall = true
		e.say(p, "You cast Pass Wall: your next step may go through a wall.")
	case SpellPassFloor, SpellPassCeiling:
		e.passLevel(p, s == SpellPassFloor)
	case SpellPray:
		p.addEffect(s)
		p.fight.logf("%s prays. Blows will land more surely in this fight.", name)
	default: // the lasting effects: Levitation, Light, Speed, Protection, Continuous Light, Invisibility
		p.addEffect(s)
		e.logOrSay(p, "%s casts %s.", name, info.Name)
		if p.rec.Depth > 0 {
			e.look(p) // light shows secret doors at once
		}
	}
}

// castOnMonster casts a spell aimed at the knight's target in a battle.
func (e *Engine) castOnMonster(p *player, enc *encounter, s SpellID) {
	m := e.targetOf(p, enc)
	if m == nil {
		return
	}
	k := m.Kind()
	info := s.Info()
	who := p.rec.Name
	// Seed 000: "Only level 4 spells affect animated type monsters", and each spell's own
	// classes and levels.
	if !Affects(s, k) {
		enc.logf("%s casts %s, but it has no effect on %s.", who, info.Name, theName(k))
		return
	}
	if SpellFails(e.rng, s, p.rec.Int) {
		if s == SpellTeleport {
			// Seed 000: Teleport "fails by teleporting you (guaranteeing survival)".
			enc.logf("%s casts Teleport; it goes astray and carries %s away!", who, who)
			e.leaveFight(p)
			if p.rec.Depth > 0 {
				e.place(p, p.rec.Depth, e.refuge(p.rec.Depth, p.rec.Pos()))
			}
			return
		}
		enc.logf("%s casts %s, but the spell fails.", who, info.Name)
		return
	}
	switch s {
	case SpellMagicMissile, SpellBlastbolt:
		dmg := MissileDamage(e.rng, s, k.Class)
		// Seed 002: "Monsters have a base dodge chance, allowing them to occasionally
		// avoid taking damage from an attack or a spell."
		if e.dodges(k.Dex) {
			enc.logf("%s casts %s at %s, but it dodges.", who, info.Name, theName(k))
			return
		}
		m.hits -= dmg
		if m.hits <= 0 {
			enc.logf("%s casts %s at %s for %d. %s is dead!", who, info.Name, theName(k), dmg, english.Capital(theName(k)))
			e.monsterKilled(enc, m, p)
			return
		}
		enc.logf("%s casts %s at %s for %d.", who, info.Name, theName(k), dmg)
	case SpellCharm, SpellHoldPerson, SpellHoldMonster, SpellSleep:
		m.held = true
		verb := map[SpellID]string{SpellCharm: "is charmed", SpellHoldPerson: "is held", SpellHoldMonster: "is held", SpellSleep: "falls asleep"}[s]
		enc.logf("%s casts %s. %s %s and will not fight back.", who, info.Name, english.Capital(theName(k)), verb)
	case SpellDimensionDoor, SpellTeleport:
		// Seed 000: the monster is moved away, not killed: "You may encounter the monster
		// again". In the dungeon it becomes a wanderer somewhere else on the level; a
		// monster made for a surface battle is simply gone.
		enc.logf("%s casts %s. %s vanishes!", who, info.Name, english.Capital(theName(k)))
		e.monsterGone(enc, m)
		if m.depth > 0 {
			from := m.pos
			m.room, m.pos = -1, e.randomCorridor(m.depth)
			e.monsterMoved(m.depth, from)
		}
		if len(enc.standing()) == 0 {
			// Nothing was killed, so no battle was won: no magic is lost, but the fainted
			// come to as after a victory.
			for _, q := range enc.players {
				if q.fainted {
					q.rec.Hits = max(1, q.rec.Hits)
				}
			}
			e.endFight(enc)
		}
	}
}

// esp looks through walls along the chosen direction (seed 000: "You are able to detect
// monsters and treasures. You choose the direction in which to look.").
func (e *Engine) esp(p *player) {
	dir := p.espDir
	from := p.rec.Pos()
	l := e.levels[p.rec.Depth-1]
	var seen []string
	for n := 1; n <= espRange; n++ {
		q := Pos{from.X + n*deltaX(dir), from.Y + n*deltaY(dir)}
		if !l.In(q) {
			break
		}
		if m := e.monsterAt(p.rec.Depth, q); m != nil {
			what := english.A(m.Kind().Name)
			if m.room >= 0 {
				what += " guarding treasure"
			}
			seen = append(seen, fmt.Sprintf("%s %d squares %s", what, n, dir))
		}
	}
	if len(seen) == 0 {
		e.say(p, fmt.Sprintf("You cast ESP and look %s through the walls: nothing stirs.", dir))
		return
	}
	e.say(p, "You cast ESP and sense "+strings.Join(seen, "; ")+".")
}

func deltaX(d Dir) int { dx, _ := d.Delta(); return dx }
func deltaY(d Dir) int { _, dy := d.Delta(); return dy }

// passLevel moves the knight through the floor or the ceiling (seed 000, level 4: "Allows
// you to pass either up or down to the next level") to the nearest open square there.
// Through the ceiling of level 1 is out of the dungeon: a successful exit.
func (e *Engine) passLevel(p *player, down bool) {
	depth := p.rec.Depth + 1
	if !down {
		depth = p.rec.Depth - 1
	}
	if depth == 0 {
		e.place(p, 0, Pos{})
		e.say(p, "You rise through the ceiling into the daylight.")
		e.successfulExit(p)
		return
	}
	to := e.nearestOpen(depth, p.rec.Pos())
	e.place(p, depth, to)
	if down {
		e.say(p, fmt.Sprintf("You sink through the floor to level %d.", depth))
	} else {
		e.say(p, fmt.Sprintf("You rise through the ceiling to level %d.", depth))
	}
}
