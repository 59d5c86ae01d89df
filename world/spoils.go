package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// What a battle won gives: experience, treasure and coins shared among the heroes, and
// the magic a battle may take.

// monsterKilled takes a killed monster out of the battle: its experience is shared
// equally among the heroes of the battle (at least 1 each), a guard's treasure is shared
// (takeTreasure), and the battle is won when no monster stands.
func (e *Engine) monsterKilled(enc *encounter, m *monster, killer *player) {
	k := m.Kind()
	if killer != nil {
		killer.rec.slew(e.cfg.Week)
		killer.changed = true
	}
	share := max(1, k.Experience/max(1, len(enc.players)))
	for _, p := range enc.players {
		p.rec.Experience += share
		p.changed = true
		if killer == nil || killer == p {
			e.say(p, fmt.Sprintf("You killed %s. (+%d experience)", theName(k), share))
		} else { // a partner's blow: only the killer is told it killed
			e.say(p, fmt.Sprintf("%s killed %s. (+%d experience, your share)", killer.rec.Name, theName(k), share))
		}
	}
	for _, p := range enc.players { // the heroes share the kill, as they share its experience
		e.earn(p, DeedSlew(k.Class))
		if k.Name == dragonName {
			e.earn(p, DeedDragon)
		}
	}
	switch {
	case m.depth == 0:
		e.takePurse(enc, k) // a monster of a surface battle (seed 002)
	case m.room >= 0:
		e.takeTreasure(enc, killer, RollTreasure(e.rng, m.depth))
	}
	e.monsterGone(enc, m)
	if m.depth > 0 {
		e.removeMonster(m)
	}
	if len(enc.standing()) == 0 {
		e.battleWon(enc)
	}
}

// monsterGone marks a monster out of the battle (killed or sent away).
func (e *Engine) monsterGone(enc *encounter, m *monster) {
	if i := enc.index(m); i >= 0 {
		enc.gone[i] = true
	}
	m.fight = nil
	for _, p := range enc.players {
		p.dirty = true
	}
}

// battleWon ends a battle with no monster left standing: seed 002's fainted heroes are
// revived with 1 hit, a magic item may be lost (seed 000), and everyone is saved at once.
func (e *Engine) battleWon(enc *encounter) {
	players := slices.Clone(enc.players)
	for _, p := range players {
		if p.fainted {
			p.rec.Hits = max(1, p.rec.Hits)
			enc.logf("%s comes to, with %d hit.", p.rec.Name, p.rec.Hits)
		}
	}
	e.endFight(enc)
	for _, p := range players {
		if !slices.Contains(enc.struck, p) {
			e.earn(p, DeedUnscathed)
		}
		if len(players) > 1 {
			e.earn(p, DeedPartyVictory)
		}
		e.mayLoseMagic(p)
		e.saveNow(p) // experience and treasure won are saved at once
	}
}

// takeTreasure shares a guard's hoard: its worth (experience, seed 000) and its coins
// (gold) split equally among the heroes of the battle; gems, jewelry and any magic item go
// to the hero who struck the last blow.
func (e *Engine) takeTreasure(enc *encounter, killer *player, t Treasure) {
	n := max(1, len(enc.players))
	share, coins := t.Value/n, t.Coins/n
	for _, p := range enc.players {
		p.rec.Experience += share
		p.rec.TreasureExperience += share
		p.rec.Gold += coins
		p.rec.won(coins, e.cfg.Week)
		p.changed = true
		msg := "You find " + strings.Join(t.Lines, ", ") + "."
		if n > 1 {
			msg += fmt.Sprintf(" Your share is worth %d experience and %d gold.", share, coins)
		} else {
			msg += fmt.Sprintf(" (+%d experience, +%d gold)", share, coins)
		}
		e.say(p, msg)
	}
	if killer == nil {
		return
	}
	for _, it := range t.Valuables {
		e.carry(killer, it) // already named in the "You find" line above
		killer.rec.won(it.Value, e.cfg.Week)
	}
	if t.Item != nil {
		e.gain(killer, *t.Item)
	}
}

// takePurse shares the coins a monster of a surface battle carried (SurfacePurse) equally
// among the heroes of the battle, as a hoard's coins are shared; the remainder is lost.
func (e *Engine) takePurse(enc *encounter, k *MonsterKind) {
	gold, line := SurfacePurse(e.rng, k.Level)
	n := max(1, len(enc.players))
	share := gold / n
	for _, p := range enc.players {
		p.rec.Gold += share
		p.rec.won(share, e.cfg.Week)
		p.changed = true
		msg := fmt.Sprintf("%s carried %s. (+%d gold)", english.Capital(theName(k)), line, share)
		if n > 1 {
			msg = fmt.Sprintf("%s carried %s. Your share is %d gold.", english.Capital(theName(k)), line, share)
		}
		e.say(p, msg)
	}
}

// magicLossOneIn is how rarely a knight loses one magic item after a battle (seed 000:
// "After a battle, any magic item may be lost."): one battle in ten.
const magicLossOneIn = 10

func (e *Engine) mayLoseMagic(p *player) {
	var magic []int
	for i, it := range p.rec.Items {
		if it.Magic() {
			magic = append(magic, i)
		}
	}
	if len(magic) == 0 || e.rng.IntN(magicLossOneIn) != 0 {
		return
	}
	i := magic[e.rng.IntN(len(magic))]
	e.say(p, fmt.Sprintf("After the battle your %s is gone: its magic is spent.", p.rec.Items[i].Name()))
	p.rec.Items = append(p.rec.Items[:i], p.rec.Items[i+1:]...)
	p.changed = true
}
