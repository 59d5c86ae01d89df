package world

// Recovery at the end of a round (seed 002: "At the end of each round (after the
// monsters' turn), heroes that have not fainted regain some of their HP and mana."):
//
//	RoundHits(maxHits)   max(1, maxHits/20) hits each round
//	SpellRoundEvery      one spell unit every 5th round, up to the level's units
//	RecoveryCap          in one battle at most half the hits and half the units (at least 1)
//
// A round is TurnsPerRound turns of the battle's clock, the time a knight at speed 0 takes
// for one action; the clock stands still while a hero chooses, so waiting earns nothing.
// Spell units come slowly because Orthanc's are few (4 at level 1). The cap ends the
// stalemate of a knight that cannot hit (Dexterity 6 or less) locked in a room with a
// monster whose blows no more than match its recovery: the battle would never end.
//
// Ruling (no fight is farmed): the recovery comes "after the monsters' turn",
// so a hero recovers only from a round in which a monster could have struck it: some
// standing monster is neither charmed, held nor asleep, and the hero is not invisible.
// Otherwise Sleep (which never fails on a monster it affects) bought a knight hits and
// spell units back at no risk, more units than it cost.
const SpellRoundEvery = 5

// RecoveryCap is the most a hero recovers in one battle of a maximum of max (hits, or the
// level's spell units): half of it, at least 1.
func RecoveryCap(max int) int { return (max + 1) / 2 }

// RoundHits is the hits a standing hero recovers at the end of a round.
func RoundHits(maxHits int) int { return max(1, maxHits/20) }

func (e *Engine) endRound(enc *encounter) {
	enc.rounds++
	if !enc.monstersFight() {
		return // no monster had a turn: a free round recovers nothing
	}
	for _, p := range enc.standingHeroes() {
		if e.invisible(p) {
			continue // safe from attack, so no round at risk
		}
		p.roundsAtRisk++
		hits := min(RoundHits(p.rec.MaxHits), p.rec.MaxHits-p.rec.Hits, RecoveryCap(p.rec.MaxHits)-p.recovered)
		if hits > 0 {
			p.rec.Hits += hits
			p.recovered += hits
			p.changed, p.dirty = true, true
		}
		units := SpellUnitsForLevel(p.rec.Level)
		if p.roundsAtRisk%SpellRoundEvery == 0 && p.rec.SpellUnits < units && p.unitsRecovered < RecoveryCap(units) {
			p.rec.SpellUnits++
			p.unitsRecovered++
			p.changed, p.dirty = true, true
		}
	}
}

// monstersFight reports whether some standing monster of the battle may fight: one that is
// not charmed, held or asleep.
func (enc *encounter) monstersFight() bool {
	for _, m := range enc.standing() {
		if !m.held {
			return true
		}
	}
	return false
}
