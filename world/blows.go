package world

import (
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// A battle's actions: a hero's command (a blow, a run, an arrow), and a monster's attack.

// fightAct carries out a knight's command in a fight and returns its cost.
func (e *Engine) fightAct(p *player, enc *encounter, c Command) float64 {
	m := e.targetOf(p, enc)
	if m == nil {
		return 0
	}
	k := m.Kind()
	switch c := c.(type) {
	case UseItem:
		return e.useItem(p, c.Index) // seed 002: drinking a potion or equipping is a move in a battle
	case Fight:
		// Seed 000: "Your die has the number of sides corresponding to your dexterity,
		// adjusted for the weight you carry ... You will hit the monster if ... the roll
		// of your die is greater than 6."
		// Seed 000: with "pray" the knight hits on more than 3, and always against Undead.
		cost := BlowCost(Blows(p.rec.Dex, p.rec.Level))
		if !PlayerHits(e.rng, e.dieSides(p), p.has(SpellPray), k.Class) {
			enc.logf("%s misses %s.", p.rec.Name, theName(k))
			return cost
		}
		if e.dodges(k.Dex) {
			enc.logf("%s swings at %s, but it dodges.", p.rec.Name, theName(k))
			return cost
		}
		// Seed 000: "adjusted further by the 'plus' value of your sword".
		dmg := PlayerDamage(e.rng, p.rec.Level, best(p.rec.Items, ItemSword), e.str(p))
		m.hits -= dmg
		if m.hits <= 0 {
			enc.logf("%s hits %s for %d. %s is dead!", p.rec.Name, theName(k), dmg, english.Capital(theName(k)))
			e.monsterKilled(enc, m, p)
		} else {
			enc.logf("%s hits %s for %d.", p.rec.Name, theName(k), dmg)
		}
		return cost
	case Run:
		return e.run(p, enc)
	case Shoot:
		return e.shoot(p, enc, m)
	case Cast:
		return e.cast(p, c)
	default:
		if e.roomFight(p, enc) {
			e.say(p, "You are in a fight! f fights; there is no running from a room.")
		} else {
			e.say(p, "You are in a fight! f fights, r runs.")
		}
		return 0
	}
}

// dodges rolls a dodge for a combatant with this Dexterity (DodgePercent).
func (e *Engine) dodges(dex int) bool { return e.rng.IntN(100) < DodgePercent(dex) }

// run tries to leave the battle (seed 000: running only in corridors, failing more often
// each try). From monsters that are all charmed, held or asleep a hero may always walk
// away, even in a room.
func (e *Engine) run(p *player, enc *encounter) float64 {
	cost := MoveCost(e.speed(p))
	held := true
	for _, m := range enc.standing() {
		held = held && m.held
	}
	foes := "the monsters"
	if st := enc.standing(); len(st) == 1 {
		foes = theName(st[0].Kind())
	}
	switch {
	case held:
		enc.logf("%s leaves %s behind.", p.rec.Name, foes)
	case e.roomFight(p, enc):
		// Seed 000: "If you are in a room, you may not run."
		e.say(p, "You may not run from a fight in a room.")
		return 0
	case !RunSucceeds(e.rng, p.runTries):
		p.runTries++
		enc.logf("%s tries to run, but %s blocks the way.", p.rec.Name, foes)
		return cost
	default:
		enc.logf("%s runs away from %s!", p.rec.Name, foes)
	}
	e.leaveFight(p)
	p.respiteUntil = e.turn + uint64(e.respiteTurns(p, enc.log[len(enc.log)-1])) // the monster does not follow at once
	if p.rec.Depth > 0 {
		if to, ok := e.fleeSquare(p, enc.pos); ok {
			e.place(p, p.rec.Depth, to)
		}
	}
	return cost
}

// roomFight reports whether the knight fights in a room (the battle was met in one, or the
// knight stands in one), where seed 000 allows no running.
func (e *Engine) roomFight(p *player, enc *encounter) bool {
	return enc.inRoom || (p.rec.Depth > 0 && e.levels[p.rec.Depth-1].RoomAt(p.rec.Pos()) >= 0)
}

// fleeSquare is where a knight who ran ends up: back where it came from if it can get
// there, else any open neighbouring square without the monster.
func (e *Engine) fleeSquare(p *player, monsterAt Pos) (Pos, bool) {
	l := e.levels[p.rec.Depth-1]
	from := p.rec.Pos()
	for _, d := range Dirs {
		if from.Step(d) == p.prev && l.Edge(from, d) != EdgeWall && !l.Edge(from, d).IsSecret() && p.prev != monsterAt {
			return p.prev, true
		}
	}
	for _, d := range Dirs {
		if q := from.Step(d); l.Edge(from, d) == EdgeOpen && q != monsterAt {
			return q, true
		}
	}
	return Pos{}, false
}

// monsterAttack makes one attack of m on a standing hero, chosen at random (seed 002:
// "The monsters will only attack the heroes").
func (e *Engine) monsterAttack(enc *encounter, m *monster) {
	k := m.Kind()
	heroes := enc.standingHeroes()
	if len(heroes) == 0 {
		return
	}
	p := heroes[e.rng.IntN(len(heroes))]
	// Seed 000: the monster's damage is doubled "for Magic User type monsters in the
	// first round"; its first round is its first volley, its first AttacksPerRound
	// attacks.
	firstRound := m.acted < max(1, k.AttacksPerRound)
	m.acted++
	if m.held {
		enc.logf("%s does not fight back.", english.Capital(theName(k)))
		return
	}
	// Seed 000, ring of invisibility: "You are safe from attack."
	if e.invisible(p) {
		enc.logf("%s swings wildly but cannot find %s.", english.Capital(theName(k)), p.rec.Name)
		return
	}
	if !MonsterHits(e.rng, k.Dex, e.protected(p), k.Class) {
		enc.logf("%s misses %s.", english.Capital(theName(k)), p.rec.Name)
		return
	}
	if e.dodges(e.dieSides(p)) {
		enc.logf("%s strikes at %s, who dodges.", english.Capital(theName(k)), p.rec.Name)
		return
	}
	// Seed 000: "The 'plus' value of your shield and armor is deducted from the attack."
	dmg := MonsterDamage(e.rng, k.AttackDice, k.Class, firstRound, best(p.rec.Items, ItemShield), best(p.rec.Items, ItemArmour))
	if dmg == 0 {
		enc.logf("%s hits %s, but the blow glances off.", english.Capital(theName(k)), p.rec.Name)
		return
	}
	e.hurt(p, english.A(k.Name), dmg)
	if p.rec.Hits > 0 {
		enc.logf("%s hits %s for %d.", english.Capital(theName(k)), p.rec.Name, dmg)
		return
	}
	if len(heroes) > 1 {
		// Seed 002: "If a monster's attack lowers a hero's HP to 0, that hero will faint.
		// Fainted heroes cannot take actions for the remainder of the battle."
		p.rec.Hits, p.fainted, p.queue = 0, true, p.queue[:0]
		enc.logf("%s hits %s for %d. %s faints!", english.Capital(theName(k)), p.rec.Name, dmg, p.rec.Name)
		return
	}
	// The last hero standing falls: seed 000's death, and seed 002's "If the monsters win
	// the fight, the game is over" for the fainted heroes with it.
	enc.logf("%s hits %s for %d. %s is slain!", english.Capital(theName(k)), p.rec.Name, dmg, p.rec.Name)
	fallen := slices.DeleteFunc(slices.Clone(enc.players), func(q *player) bool { return q == p || !q.fainted })
	killer := english.A(k.Name)
	e.die(p, killer, e.couldHave(p, enc, k)...)
	for _, q := range fallen {
		if e.players[q.rec.ID] == q {
			e.die(q, killer, e.couldHave(q, enc, k)...)
		}
	}
}

// shoot looses an arrow of mythical slaying at m (seed 000: "Arrows automatically kill
// any mythical type monster. They do not work on any other monster.").
func (e *Engine) shoot(p *player, enc *encounter, m *monster) float64 {
	k := m.Kind()
	for i := range p.rec.Items {
		q := &p.rec.Items[i]
		if q.Kind != ItemQuiver || q.Count == 0 {
			continue
		}
		q.Count--
		if q.Count == 0 {
			p.rec.Items = append(p.rec.Items[:i], p.rec.Items[i+1:]...)
		}
		p.changed = true
		if ArrowKills(k.Class) {
			enc.logf("%s shoots an arrow of slaying. %s is dead!", p.rec.Name, english.Capital(theName(k)))
			e.monsterKilled(enc, m, p)
		} else {
			enc.logf("%s shoots an arrow of slaying, but it does nothing to %s.", p.rec.Name, theName(k))
		}
		return CostThrow // seed 003: shooting costs a whole round
	}
	e.say(p, "You have no arrows of slaying.")
	return 0
}
