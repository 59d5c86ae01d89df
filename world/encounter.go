package world

import (
	"fmt"
	"strings"
)

// DefaultGraceTurns is how long the fight waits for a knight to choose before it loses
// that chance to act: 200 turns, five seconds at the default 25 ms tick (DESIGN §3).
const DefaultGraceTurns = 200

// maxFightLog is how many lines of a fight's log are kept.
const maxFightLog = 40

// encounter is a fight between knights and one monster, owned by the engine goroutine.
// Seed 000: "In combat, you and the monster simply take turns swinging at each other with
// your swords until one of you is dead." Turns come from the energy model (seed 003): a
// combatant acts when its energy allows, and the fight waits (up to a grace period) for a
// knight who is ready but has not yet chosen what to do.
type encounter struct {
	monster      *monster
	players      []*player
	inRoom       bool
	monsterActed int // attacks the monster has made; its first round is the first AttacksPerRound of them
	log          []string
}

// Fight swings at the monster (seed 000 key f).
type Fight struct{}

// Run tries to flee the fight; only in corridors (seed 000 key r).
type Run struct{}

// Shoot looses an arrow of mythical slaying (seed 000 key s).
type Shoot struct{}

func (Fight) isCommand() {}
func (Run) isCommand()   {}
func (Shoot) isCommand() {}

// Death is how a knight died; a dead knight's record is its tombstone.
type Death struct {
	Killer     string `json:"killer"`
	Depth      int    `json:"depth"`
	Level      int    `json:"level"`
	Experience int    `json:"experience"`
	Turn       uint64 `json:"turn"`
}

func (enc *encounter) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if len(enc.log) >= maxFightLog {
		enc.log = enc.log[:copy(enc.log, enc.log[1:])]
	}
	enc.log = append(enc.log, line)
	for _, p := range enc.players {
		p.dirty = true
		p.fightSeq++
	}
}

// theName is "the Troll", or "the Programmer".
func theName(k *MonsterKind) string { return "the " + k.Name }

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// startFight puts a knight into a fight with m, joining a fight already under way.
func (e *Engine) startFight(p *player, m *monster) {
	k := m.Kind()
	p.queue = p.queue[:0]
	p.runTries, p.waited = 0, 0
	if enc := m.fight; enc != nil {
		enc.players = append(enc.players, p)
		p.fight = enc
		p.energy = Energy(TurnEnergy / 2)
		enc.logf("%s joins the fight against %s!", p.rec.Name, theName(k))
		return
	}
	m.asleep, m.stuck = false, false // a knight wakes a gassed monster
	enc := &encounter{monster: m, players: []*player{p}, inRoom: m.room >= 0}
	m.fight, p.fight = enc, enc
	e.fights = append(e.fights, enc)
	if m.room >= 0 {
		enc.logf("%s (%s, level %d) guards this room!", capital(aName(k.Name)), k.Class, k.Level)
	} else {
		enc.logf("%s (%s, level %d) attacks!", capital(aName(k.Name)), k.Class, k.Level)
	}
	// Seed 000: "If you have cast a 'speed' spell, you will have the choice of what you want
	// to do first. If you don't have 'speed' on, but your dexterity is greater than or equal
	// to the monster's dexterity, then you get first choice also."
	if SwingsFirst(e.hasted(p), e.dieSides(p), k.Dex) {
		p.energy, m.energy = 0, Energy(TurnEnergy/2)
		enc.logf("%s is quicker and may strike first. (f fight, r run, s shoot)", p.rec.Name)
	} else {
		m.energy, p.energy = 0, Energy(TurnEnergy/2)
		enc.logf("%s is quicker than %s!", capital(theName(k)), p.rec.Name)
	}
	e.monsterMoved(m.depth, m.pos)
}

func aName(name string) string {
	if strings.HasPrefix(name, "the ") || strings.HasPrefix(name, "The ") {
		return name
	}
	if strings.ContainsRune("AEIOUaeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// fightTurn runs one turn of a fight: knights who are ready act on their chosen command,
// the monster attacks when its energy allows, and time stands still while a knight is
// still choosing (up to the grace period).
func (e *Engine) fightTurn(enc *encounter) {
	deciding := false
	for _, p := range append([]*player(nil), enc.players...) {
		if p.fight != enc || !p.energy.Ready() {
			continue
		}
		if p.status(StatusAsleep) != nil {
			enc.logf("%s is asleep and cannot fight.", p.rec.Name)
			p.energy.Spend(CostRest)
			continue
		}
		switch {
		case len(p.queue) > 0:
			cmd := p.queue[0]
			p.queue = p.queue[:copy(p.queue, p.queue[1:])]
			cost := e.fightAct(p, enc, cmd)
			if cost == 0 {
				// A command that did nothing (a step while fighting, a refused spell) is
				// not the knight's move: the fight keeps waiting for it.
				deciding = true
				break
			}
			p.waited = 0
			p.energy.Spend(cost)
			// Each action in a fight counts as one of the knight's moves for the spells
			// working on it, so Invisibility and Protection run out in a fight too.
			e.tickEffects(p)
		case p.waited < e.cfg.GraceTurns:
			if p.waited == 0 {
				p.dirty = true // its session learns it is its move (View.Fight.YourMove)
			}
			p.waited++
			deciding = true
		default:
			p.waited = 0
			enc.logf("%s hesitates.", p.rec.Name)
			p.energy.Spend(BlowCost(Blows(p.rec.Dex, p.rec.Level)))
		}
		if enc.monster.fight != enc {
			return // the fight is over
		}
	}
	if deciding || len(enc.players) == 0 {
		return
	}
	m := enc.monster
	if m.energy.Ready() {
		e.monsterAttack(enc)
		if m.fight != enc {
			return
		}
		m.energy.Spend(100 / float64(max(1, m.Kind().AttacksPerRound)))
	}
	for _, p := range enc.players {
		p.energy.EndTurn(false)
	}
	m.energy.EndTurn(false)
}

// fightAct carries out a knight's command in a fight and returns its cost.
func (e *Engine) fightAct(p *player, enc *encounter, c Command) float64 {
	m := enc.monster
	k := m.Kind()
	switch c.(type) {
	case UseItem:
		return e.useItem(p, c.(UseItem).Index) // seed 002: equipping is a move in a battle
	case Fight:
		// Seed 000: "Your die has the number of sides corresponding to your dexterity,
		// adjusted for the weight you carry ... You will hit the monster if ... the roll
		// of your die is greater than 6."
		// Seed 000: with "pray" the knight hits on more than 3, and always against Undead.
		if PlayerHits(e.rng, e.dieSides(p), p.has(SpellPray), k.Class) {
			// Seed 000: "adjusted further by the 'plus' value of your sword".
			dmg := PlayerDamage(e.rng, p.rec.Level, best(p.rec.Items, ItemSword), e.str(p))
			m.hits -= dmg
			if m.hits <= 0 {
				enc.logf("%s hits %s for %d. %s is dead!", p.rec.Name, theName(k), dmg, capital(theName(k)))
				e.monsterKilled(enc, p)
			} else {
				enc.logf("%s hits %s for %d.", p.rec.Name, theName(k), dmg)
			}
		} else {
			enc.logf("%s misses %s.", p.rec.Name, theName(k))
		}
		return BlowCost(Blows(p.rec.Dex, p.rec.Level))
	case Run:
		// Seed 000: "If you are in a room, you may not run." Ruling: from a monster that is
		// charmed, held or asleep a knight may always walk away, even in a room.
		if m.held {
			enc.logf("%s leaves %s behind.", p.rec.Name, theName(k))
			e.leaveFight(p)
			if to, ok := e.fleeSquare(p, m.pos); ok {
				e.place(p, p.rec.Depth, to)
			}
			return MoveCost(e.speed(p))
		}
		if e.levels[p.rec.Depth-1].RoomAt(p.rec.Pos()) >= 0 {
			e.say(p, "You may not run from a fight in a room.")
			return 0
		}
		if !RunSucceeds(e.rng, p.runTries) {
			p.runTries++
			enc.logf("%s tries to run, but %s blocks the way.", p.rec.Name, theName(k))
			return MoveCost(e.speed(p))
		}
		enc.logf("%s runs away from %s!", p.rec.Name, theName(k))
		e.leaveFight(p)
		if to, ok := e.fleeSquare(p, m.pos); ok {
			e.place(p, p.rec.Depth, to)
		}
		return MoveCost(e.speed(p))
	case Shoot:
		return e.shoot(p, enc)
	case Cast:
		return e.cast(p, c.(Cast))
	default:
		e.say(p, "You are in a fight! f fights, r runs.")
		return 0
	}
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

// monsterAttack makes one attack on a knight still in the fight.
func (e *Engine) monsterAttack(enc *encounter) {
	m := enc.monster
	k := m.Kind()
	p := enc.players[e.rng.IntN(len(enc.players))]
	// Seed 000: the monster's damage is doubled "for Magic User type monsters in the
	// first round"; its first round is its first AttacksPerRound attacks.
	firstRound := enc.monsterActed < max(1, k.AttacksPerRound)
	enc.monsterActed++
	// Seed 000, ring of invisibility: "You are safe from attack."
	if m.held {
		enc.logf("%s does not fight back.", capital(theName(k)))
		return
	}
	if e.invisible(p) {
		enc.logf("%s swings wildly but cannot find %s.", capital(theName(k)), p.rec.Name)
		return
	}
	if !MonsterHits(e.rng, k.Dex, e.protected(p), k.Class) {
		enc.logf("%s misses %s.", capital(theName(k)), p.rec.Name)
		return
	}
	// Seed 000: "The 'plus' value of your shield and armor is deducted from the attack."
	dmg := MonsterDamage(e.rng, k.AttackDice, k.Class, firstRound, best(p.rec.Items, ItemShield), best(p.rec.Items, ItemArmour))
	if dmg == 0 {
		enc.logf("%s hits %s, but the blow glances off.", capital(theName(k)), p.rec.Name)
		return
	}
	p.rec.Hits -= dmg
	p.changed = true
	if p.rec.Hits > 0 {
		enc.logf("%s hits %s for %d.", capital(theName(k)), p.rec.Name, dmg)
		return
	}
	enc.logf("%s hits %s for %d. %s is slain!", capital(theName(k)), p.rec.Name, dmg, p.rec.Name)
	e.die(p, aName(k.Name))
}

// monsterKilled ends the fight: the monster's experience is shared equally among the
// knights in the fight (at least 1 each) and the monster leaves the level.
func (e *Engine) monsterKilled(enc *encounter, killer *player) {
	m := enc.monster
	k := m.Kind()
	share := max(1, k.Experience/max(1, len(enc.players)))
	for _, p := range enc.players {
		p.rec.Experience += share
		p.changed = true
		e.say(p, fmt.Sprintf("You killed %s. (+%d experience)", theName(k), share))
	}
	if m.room >= 0 {
		e.takeTreasure(enc, killer, RollTreasure(e.rng, m.depth))
	}
	players := enc.players
	e.endFight(enc)
	e.removeMonster(m)
	for _, p := range players {
		e.mayLoseMagic(p)
		e.saveNow(p) // experience and treasure won are saved at once
	}
}

// takeTreasure shares a guard's hoard: its worth (experience and gold, seed 000) split
// equally among the knights in the fight, any magic item to the knight who struck the
// last blow.
func (e *Engine) takeTreasure(enc *encounter, killer *player, t Treasure) {
	share := t.Value / max(1, len(enc.players))
	for _, p := range enc.players {
		p.rec.Experience += share
		p.rec.TreasureExperience += share
		p.rec.Gold += share
		msg := "You find " + strings.Join(t.Lines, ", ") + "."
		if len(enc.players) > 1 {
			msg += fmt.Sprintf(" Your share is worth %d.", share)
		} else {
			msg += fmt.Sprintf(" (+%d experience and gold)", share)
		}
		e.say(p, msg)
	}
	if t.Item != nil && killer != nil {
		e.gain(killer, *t.Item)
	}
}

// gain gives a knight an item; arrows go into the quiver it has, up to seed 000's 31.
func (e *Engine) gain(p *player, it Item) {
	if it.Kind == ItemQuiver {
		for i := range p.rec.Items {
			if q := &p.rec.Items[i]; q.Kind == ItemQuiver {
				q.Count = min(MaxArrows, q.Count+it.Count)
				e.say(p, fmt.Sprintf("You find arrows of mythical slaying; your quiver holds %d.", q.Count))
				return
			}
		}
		it.Count = min(MaxArrows, it.Count)
	}
	p.rec.Items = append(p.rec.Items, it)
	p.changed = true
	msg := fmt.Sprintf("You find a %s!", it.Name())
	if it.Info().Wearable {
		msg += " (i to wear it)"
	} else if it.Info().Readable {
		msg += " (i to read it)"
	}
	e.say(p, msg)
}

// magicLossChance is the chance that a knight loses one magic item after a battle (seed
// 000: "After a battle, any magic item may be lost."): one battle in ten.
const magicLossChance = 0.10

func (e *Engine) mayLoseMagic(p *player) {
	var magic []int
	for i, it := range p.rec.Items {
		if it.Magic() {
			magic = append(magic, i)
		}
	}
	if len(magic) == 0 || e.rng.Float64() >= magicLossChance {
		return
	}
	i := magic[e.rng.IntN(len(magic))]
	e.say(p, fmt.Sprintf("After the battle your %s is gone: its magic is spent.", p.rec.Items[i].Name()))
	p.rec.Items = append(p.rec.Items[:i], p.rec.Items[i+1:]...)
	p.changed = true
}

// shoot looses an arrow of mythical slaying (seed 000: "Arrows automatically kill any
// mythical type monster. They do not work on any other monster.").
func (e *Engine) shoot(p *player, enc *encounter) float64 {
	k := enc.monster.Kind()
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
			enc.logf("%s shoots an arrow of slaying. %s is dead!", p.rec.Name, capital(theName(k)))
			e.monsterKilled(enc, p)
		} else {
			enc.logf("%s shoots an arrow of slaying, but it does nothing to %s.", p.rec.Name, theName(k))
		}
		return CostThrow // seed 003: shooting costs a whole round
	}
	e.say(p, "You have no arrows of slaying.")
	return 0
}

// endFight releases everyone from a fight; spells that last one fight (Pray) end with it.
func (e *Engine) endFight(enc *encounter) {
	for _, p := range enc.players {
		p.fight, p.dirty = nil, true
		p.lastFight = enc.log
		e.dropEffects(p, func(ef Effect) bool { return ef.Moves == DurationFight })
	}
	enc.players = nil
	enc.monster.fight = nil
	for i, f := range e.fights {
		if f == enc {
			e.fights = append(e.fights[:i], e.fights[i+1:]...)
			break
		}
	}
}

// leaveFight takes one knight out of a fight (it ran, died or disconnected); the fight
// ends when no knight is left, and the monster stays where it is.
func (e *Engine) leaveFight(p *player) {
	enc := p.fight
	if enc == nil {
		return
	}
	p.fight, p.dirty = nil, true
	p.lastFight = enc.log
	e.dropEffects(p, func(ef Effect) bool { return ef.Moves == DurationFight })
	for i, q := range enc.players {
		if q == p {
			enc.players = append(enc.players[:i], enc.players[i+1:]...)
			break
		}
	}
	if len(enc.players) == 0 {
		e.endFight(enc)
	}
}

// die ends a knight: seed 000's death is permanent. Its record becomes its tombstone and
// the session is told, so the player can roll a new knight.
func (e *Engine) die(p *player, killer string) {
	e.leaveFight(p)
	p.rec.Hits = 0
	p.rec.Death = &Death{Killer: killer, Depth: p.rec.Depth, Level: p.rec.Level, Experience: p.rec.Experience, Turn: e.turn}
	e.say(p, fmt.Sprintf("You have been slain by %s.", killer))
	v := e.view(p)
	v.Dead = p.rec.Death
	e.remove(p)
	if p.sub != nil {
		p.sub.Deliver(v)
	}
}
