package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Pacing of a battle (DESIGN §3, "Pacing of a fight"). Orthanc was turn-based: the
// monster waits for the knight. In a shared world a battle of several heroes cannot wait
// for ever for one who has gone quiet, so:
//
//	constant             value   effect at the default 25 ms tick
//	(a knight alone)     none    a battle with no other hero waiting never hurries its knight
//	DefaultGraceTurns    1200    a hero holding up others hesitates after 30 s (-battle-grace)
//	PlainGraceFactor     3       a screen-reader player's grace is three times as long
//	graceSteps           30      a countdown refreshes every hero's panel 30 times over a grace
const (
	DefaultGraceTurns = 1200
	PlainGraceFactor  = 3
	graceSteps        = 30
)

// maxFightLog is how many lines of a fight's log are kept.
const maxFightLog = 40

// encounter is a battle between heroes and monsters, owned by the engine goroutine.
// Seed 000: "In combat, you and the monster simply take turns swinging at each other with
// your swords until one of you is dead." Seed 002 makes it a party's battle: every hero
// and every monster in it acts, monsters pick their targets among the standing heroes, a
// hero at 0 hits faints while another still stands, and the standing heroes recover a
// little at the end of each round. Turns come from the energy model (seed 003): a
// combatant acts when its energy allows, and the battle waits (up to a grace period) for
// a hero who is ready but has not yet chosen what to do.
type encounter struct {
	// monsters are every monster of the battle in the order they joined it; gone marks
	// the ones killed or sent away, which stay so an index names one monster throughout.
	monsters []*monster
	gone     []bool
	players  []*player // the heroes, fainted ones included
	depth    int       // 0 for a battle on the surface
	pos      Pos
	inRoom   bool
	ticks    int // turns the battle's clock has run (it stands still while a hero chooses)
	rounds   int // rounds completed
	over     bool
	log      []string
}

// Fight swings at the monster (seed 000 key f).
type Fight struct{}

// Run tries to flee the fight; only in corridors (seed 000 key r).
type Run struct{}

// Shoot looses an arrow of mythical slaying (seed 000 key s).
type Shoot struct{}

// Target chooses the monster the knight's blows, spells and arrows go at, by its index in
// FightView.Monsters. Choosing takes no time and is never the knight's move (seed 002:
// looking at a combatant "will not consume the turn").
type Target struct{ Index int }

func (Target) isCommand() {}
func (Fight) isCommand()  {}
func (Run) isCommand()    {}
func (Shoot) isCommand()  {}

// logf writes a line of the battle: to the battle's log, which its panel shows, and to
// the message log of every hero in it, so the message log (M, and screen-reader mode's
// messages) tells the whole story, fights included, in the order it happened.
func (enc *encounter) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if len(enc.log) >= maxFightLog {
		enc.log = enc.log[:copy(enc.log, enc.log[1:])]
	}
	enc.log = append(enc.log, line)
	for _, p := range enc.players {
		p.dirty = true
		p.fightSeq++
		note(p, line)
	}
}

// theName is "the Troll", or "the Programmer".
func theName(k *MonsterKind) string { return english.The(k.Name) }

// startFight puts a knight, and the members of its party standing with it, into a fight
// with m, or into the fight m is already in. A knight outside the party of the heroes
// fighting there is turned back: joining a battle under way takes the party's consent,
// that is, being let into the party (seed 002's party fights together).
func (e *Engine) startFight(p *player, m *monster) {
	heroes := e.partyHere(p)
	if enc := m.fight; enc != nil {
		if !e.mayJoin(p, enc) {
			e.turnBack(p, enc)
			return
		}
		for _, q := range heroes {
			e.joinFight(q, enc)
		}
		return
	}
	e.startBattle(heroes, []*monster{m}, m.room >= 0)
}

// mayJoin reports whether p may join a battle under way: when it shares a party with a
// hero in it (a knight alone may join a fight no one is in, which cannot happen).
func (e *Engine) mayJoin(p *player, enc *encounter) bool {
	for _, q := range enc.players {
		if e.partyTogether(p, q) {
			return true
		}
	}
	return len(enc.players) == 0
}

// turnBack sends a knight that may not join a battle back where it came from.
func (e *Engine) turnBack(p *player, enc *encounter) {
	lead := enc.players[0].rec.Name
	e.say(p, fmt.Sprintf("%s's party is fighting there; you hold back. To help, ask to join the party: /ask %s", lead, lead))
	if p.rec.Depth != 0 && p.prev != p.rec.Pos() {
		l := e.levels[p.rec.Depth-1]
		if l.In(p.prev) {
			e.place(p, p.rec.Depth, p.prev)
		}
	}
}

// joinFight puts one more hero into a battle under way; it acts half a turn later.
func (e *Engine) joinFight(p *player, enc *encounter) {
	if p.fight == enc {
		return
	}
	e.readyForBattle(p)
	enc.players = append(enc.players, p)
	p.fight = enc
	p.energy = Energy(TurnEnergy / 2)
	enc.logf("%s joins the fight!", p.rec.Name)
	e.stopNote(p)
}

// stopNote tells a knight whose fight has started that what it had asked for before is
// dropped: "A Wolf attacks! Your walking stops: 2 commands you gave are dropped."
func (e *Engine) stopNote(p *player) {
	if n := p.dropped; n > 0 {
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		e.say(p, fmt.Sprintf("Your walking stops: %s you gave %s dropped.", english.Count(n, "command"), verb))
		p.dropped = 0
	}
}

func (e *Engine) readyForBattle(p *player) {
	// What the knight had asked for before the fight is not carried out in it (issue 29:
	// a queued s would shoot); stopNote tells it after the fight's first lines.
	p.dropped += len(p.queue)
	p.queue = p.queue[:0]
	p.runTries, p.waited, p.asked = 0, 0, false
	p.recovered, p.unitsRecovered, p.roundsAtRisk = 0, 0, 0
	p.fainted, p.target = false, nil
}

// startBattle starts a battle between heroes and foes: monsters where the heroes stand in
// the dungeon, or monsters made for the battle on the surface (newFoe). Who swings first
// follows seed 000 for each hero against the quickest monster.
func (e *Engine) startBattle(heroes []*player, foes []*monster, inRoom bool) {
	if len(heroes) == 0 || len(foes) == 0 {
		return
	}
	lead := heroes[0]
	enc := &encounter{depth: lead.rec.Depth, pos: lead.rec.Pos(), inRoom: inRoom}
	e.fights = append(e.fights, enc)
	for _, p := range heroes {
		e.readyForBattle(p)
		p.fight = enc
		enc.players = append(enc.players, p)
	}
	quickest := 0
	for _, m := range foes {
		m.asleep, m.stuck = false, false // heroes wake a gassed monster
		m.fight, m.acted = enc, 0
		enc.monsters = append(enc.monsters, m)
		enc.gone = append(enc.gone, false)
		k := m.Kind()
		quickest = max(quickest, k.Dex)
		switch {
		case m.room >= 0:
			enc.logf("%s (%s, level %d) guards this room!", english.Capital(english.A(k.Name)), k.Class, k.Level)
		default:
			enc.logf("%s (%s, level %d) attacks!", english.Capital(english.A(k.Name)), k.Class, k.Level)
		}
	}
	// Seed 000: "If you have cast a 'speed' spell, you will have the choice of what you want
	// to do first. If you don't have 'speed' on, but your dexterity is greater than or equal
	// to the monster's dexterity, then you get first choice also." Against several monsters
	// a hero must be as quick as the quickest of them; a monster strikes first when some
	// hero is slower than it.
	for _, p := range heroes {
		if SwingsFirst(e.hasted(p), e.dieSides(p), quickest) {
			p.energy = 0
			enc.logf("%s is quicker and may strike first.", p.rec.Name)
		} else {
			p.energy = Energy(TurnEnergy / 2)
		}
	}
	for _, m := range foes {
		m.energy = Energy(TurnEnergy / 2)
		k := m.Kind()
		for _, p := range heroes {
			if !SwingsFirst(e.hasted(p), e.dieSides(p), k.Dex) {
				m.energy = 0
				enc.logf("%s is quicker than %s!", english.Capital(theName(k)), p.rec.Name)
				break
			}
		}
	}
	for _, p := range heroes {
		e.stopNote(p)
	}
	if enc.depth > 0 {
		e.monsterMoved(enc.depth, enc.pos)
	}
}

// standing lists the monsters of the battle still in it.
func (enc *encounter) standing() []*monster {
	var out []*monster
	for i, m := range enc.monsters {
		if !enc.gone[i] {
			out = append(out, m)
		}
	}
	return out
}

// standingHeroes lists the heroes who have not fainted.
func (enc *encounter) standingHeroes() []*player {
	var out []*player
	for _, p := range enc.players {
		if !p.fainted {
			out = append(out, p)
		}
	}
	return out
}

func (enc *encounter) index(m *monster) int {
	for i, x := range enc.monsters {
		if x == m {
			return i
		}
	}
	return -1
}

// targetOf is the monster p's blows go at: its chosen one while it stands, else the first
// standing monster.
func (e *Engine) targetOf(p *player, enc *encounter) *monster {
	if m := p.target; m != nil && m.fight == enc {
		return m // still standing in this battle: a monster out of it has no fight
	}
	for i, m := range enc.monsters {
		if !enc.gone[i] {
			p.target = m
			return m
		}
	}
	return nil
}

// setTarget is Target on the engine goroutine: it takes no time.
func (e *Engine) setTarget(p *player, i int) {
	enc := p.fight
	if enc == nil {
		e.say(p, "You are not in a fight.")
		return
	}
	if i < 0 || i >= len(enc.monsters) || enc.gone[i] {
		e.say(p, "That monster is not in the fight.")
		return
	}
	p.target, p.dirty = enc.monsters[i], true
}

// fightTurn runs one turn of a battle: heroes who are ready act on their chosen command
// (seed 002: "The heroes move first in each round"), then each standing monster attacks
// when its energy allows; time stands still while a hero is still choosing. A hero who
// holds up others (holdsUp) has its grace (graceOf) to choose, counted down on every
// hero's panel, then hesitates; a knight alone is never hurried. Every TurnsPerRound
// turns of the battle's clock a round ends and the standing heroes recover (endRound).
func (e *Engine) fightTurn(enc *encounter) {
	deciding := false
	for _, p := range slices.Clone(enc.players) {
		if p.fainted {
			e.refuseWhileFainted(p)
			continue
		}
		if p.fight != enc || !p.energy.Ready() {
			continue
		}
		if p.status(StatusAsleep) != nil {
			enc.logf("%s is asleep and cannot fight.", p.rec.Name)
			p.energy.Spend(CostRest)
			continue
		}
		if len(p.queue) > 0 {
			cmd := p.queue[0]
			p.queue = p.queue[:copy(p.queue, p.queue[1:])]
			cost := e.fightAct(p, enc, cmd)
			if cost == 0 {
				// A command that did nothing (a step while fighting, a refused spell) is
				// not the knight's move: the fight keeps waiting for it.
				deciding = true
			} else {
				p.waited, p.asked = 0, false
				p.energy.Spend(cost)
				// Each action in a fight counts as one of the knight's moves for the spells
				// working on it, so Invisibility and Protection run out in a fight too.
				e.tickEffects(p)
			}
			if enc.over {
				return
			}
			continue
		}
		if !p.asked {
			p.asked, p.dirty = true, true // its session learns it is its move (View.Fight.YourMove)
		}
		if !e.holdsUp(p, enc) {
			deciding = true // nobody waits on it: the battle waits as long as it takes
			continue
		}
		if p.waited++; p.waited < e.graceOf(p) {
			if p.waited == 1 || p.waited%e.graceStep() == 0 {
				enc.touch() // every hero's countdown shows the time left
			}
			deciding = true
			continue
		}
		p.waited, p.asked = 0, false
		enc.logf("%s hesitates.", p.rec.Name)
		p.energy.Spend(BlowCost(Blows(p.rec.Dex, p.rec.Level)))
	}
	if deciding || len(enc.players) == 0 {
		return
	}
	for _, m := range enc.standing() {
		if !m.energy.Ready() {
			continue
		}
		// Seed 003: "Unlike players, monsters can make multiple attacks at the same
		// time": a monster whose energy allows makes all its attacks of a round at once,
		// each at a standing hero of its own choosing, and the volley costs the round
		// (100% / AttacksPerRound for each of them).
		attacks := max(1, m.Kind().AttacksPerRound)
		for i := 0; i < attacks && !enc.over; i++ {
			e.monsterAttack(enc, m)
			if m.held {
				break // held for the rest of the fight: it says so once
			}
		}
		if enc.over {
			return
		}
		m.energy.Spend(monsterVolleyCost)
	}
	for _, p := range enc.players {
		p.energy.EndTurn(false)
	}
	for _, m := range enc.standing() {
		m.energy.EndTurn(false)
	}
	enc.ticks++
	if enc.ticks%TurnsPerRound == 0 {
		e.endRound(enc)
	}
}

// refuseWhileFainted drops the commands a fainted hero sent (seed 002: "Fainted heroes
// cannot take actions for the remainder of the battle"), so none is carried out when it
// comes to, and tells it so.
func (e *Engine) refuseWhileFainted(p *player) {
	if len(p.queue) == 0 {
		return
	}
	p.queue = p.queue[:0]
	e.say(p, "You have fainted: you can do nothing until the battle is over.")
}

// monsterVolleyCost is what a monster's round of attacks costs, in percent of a round:
// seed 003 gives monsters "a number of attacks per round", made "at the same time".
const monsterVolleyCost = 100.0

// choosing reports whether the battle waits for this hero to choose: it stands, is awake,
// its energy allows it to act and it has nothing queued.
func (e *Engine) choosing(p *player) bool {
	return !p.fainted && p.energy.Ready() && len(p.queue) == 0 && p.status(StatusAsleep) == nil
}

// holdsUp reports whether a hero that has not chosen keeps another hero of its battle
// waiting: one who has chosen, or whose energy is still spent, or who has fainted (its
// player waits for the battle to end). A knight alone, or heroes who are all still
// choosing, hold up no one, so the battle waits for them without a limit.
func (e *Engine) holdsUp(p *player, enc *encounter) bool {
	for _, q := range enc.players {
		if q != p && !e.choosing(q) {
			return true
		}
	}
	return false
}

// graceOf is how long a hero that holds up others has to choose: the server's battle
// grace, PlainGraceFactor times as long for a screen-reader player.
func (e *Engine) graceOf(p *player) int {
	if p.rec.Options.Plain {
		return e.cfg.GraceTurns * PlainGraceFactor
	}
	return e.cfg.GraceTurns
}

// graceStep is how often a running countdown refreshes the heroes' panels.
func (e *Engine) graceStep() int { return max(1, e.cfg.GraceTurns/graceSteps) }

// touch asks for a new view for every hero of the battle.
func (enc *encounter) touch() {
	for _, p := range enc.players {
		p.dirty = true
	}
}

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
// Ruling (issue 31, no fight is farmed): the recovery comes "after the monsters' turn",
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
		e.say(p, "You are in a fight! f fights, r runs.")
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
	case enc.inRoom || (p.rec.Depth > 0 && e.levels[p.rec.Depth-1].RoomAt(p.rec.Pos()) >= 0):
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
	p.respiteUntil = e.turn + uint64(e.cfg.SafeTurns) // the monster does not follow at once
	if p.rec.Depth > 0 {
		if to, ok := e.fleeSquare(p, enc.pos); ok {
			e.place(p, p.rec.Depth, to)
		}
	}
	return cost
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

// monsterKilled takes a killed monster out of the battle: its experience is shared
// equally among the heroes of the battle (at least 1 each), a guard's treasure is shared
// (takeTreasure), and the battle is won when no monster stands.
func (e *Engine) monsterKilled(enc *encounter, m *monster, killer *player) {
	k := m.Kind()
	share := max(1, k.Experience/max(1, len(enc.players)))
	for _, p := range enc.players {
		p.rec.Experience += share
		p.changed = true
		e.say(p, fmt.Sprintf("You killed %s. (+%d experience)", theName(k), share))
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

// endFight releases everyone from a battle; spells that last one fight (Pray) end with
// it. Monsters still standing stay where they are in the dungeon; on the surface they go
// (they were made for the battle).
func (e *Engine) endFight(enc *encounter) {
	if enc.over {
		return
	}
	enc.over = true
	for _, p := range enc.players {
		if p.fainted {
			e.refuseWhileFainted(p)
		}
		p.fight, p.dirty, p.fainted, p.target = nil, true, false, nil
		p.lastFight = enc.log
		e.dropEffects(p, func(ef Effect) bool { return ef.Moves == DurationFight })
	}
	enc.players = nil
	for i, m := range enc.monsters {
		if !enc.gone[i] {
			m.fight = nil
		}
	}
	if enc.depth > 0 {
		e.monsterMoved(enc.depth, enc.pos)
	}
	for i, f := range e.fights {
		if f == enc {
			e.fights = append(e.fights[:i], e.fights[i+1:]...)
			break
		}
	}
}

// leaveFight takes one hero out of a battle (it ran, died, was carried off or
// disconnected); the battle ends when no standing hero is left. A fainted hero carried
// out of a battle (a disconnection) comes to with 1 hit.
func (e *Engine) leaveFight(p *player) {
	enc := p.fight
	if enc == nil {
		return
	}
	if p.fainted && p.rec.Death == nil {
		p.rec.Hits = max(1, p.rec.Hits)
		e.refuseWhileFainted(p)
	}
	p.fight, p.dirty, p.fainted, p.target = nil, true, false, nil
	p.lastFight = enc.log
	e.dropEffects(p, func(ef Effect) bool { return ef.Moves == DurationFight })
	enc.players = slices.DeleteFunc(enc.players, func(q *player) bool { return q == p })
	if len(enc.standingHeroes()) == 0 {
		e.endFight(enc)
	}
}

// die ends a knight: seed 000's death is permanent. Its record becomes its tombstone and
// the session is told, so the player can roll a new knight. The death keeps the last
// blows, the hints (what the knight could have done) and the last lines of its log.
func (e *Engine) die(p *player, killer string, hints ...string) {
	p.rec.Hits = 0
	p.rec.Death = &Death{Killer: killer, Depth: p.rec.Depth, Level: p.rec.Level, Experience: p.rec.Experience, Turn: e.turn,
		LastBlows: slices.Clone(p.blows), Hints: hints}
	e.leaveFight(p)
	e.say(p, fmt.Sprintf("You have been slain by %s.", killer))
	p.rec.Death.LastLines = lastLines(p)
	v := e.view(p)
	v.Dead = p.rec.Death
	e.remove(p)
	if p.sub != nil {
		p.sub.Deliver(v)
	}
}

// fightView is the battle panel for p.
func (e *Engine) fightView(p *player, enc *encounter) *FightView {
	fv := &FightView{Log: slices.Clone(enc.log), InRoom: enc.inRoom, Surface: enc.depth == 0,
		Round: enc.rounds + 1, Target: -1, YourMove: e.choosing(p), GraceTurns: e.graceOf(p)}
	if t := e.targetOf(p, enc); t != nil {
		fv.Target = enc.index(t)
	}
	for i, m := range enc.monsters {
		k := m.Kind()
		fv.Monsters = append(fv.Monsters, FightMonster{Name: k.Name, Class: k.Class.String(), Glyph: k.Glyph,
			Level: k.Level, Hits: max(0, m.hits), MaxHits: max(m.maxHits, m.hits), Dex: k.Dex, Attack: k.AttackDice,
			AttacksPerRound: k.AttacksPerRound, Speed: k.Speed, Experience: k.Experience,
			Dodge: DodgePercent(k.Dex), Held: m.held, Dead: enc.gone[i]})
	}
	if fv.YourMove && e.holdsUp(p, enc) {
		fv.GraceLeft = e.graceOf(p) - p.waited
	}
	for _, q := range enc.players {
		fv.Knights = append(fv.Knights, FightKnight{Name: q.rec.Name, Level: q.rec.Level,
			Hits: q.rec.Hits, MaxHits: q.rec.MaxHits, SpellUnits: q.rec.SpellUnits,
			Str: q.rec.Str, Int: q.rec.Int, Con: q.rec.Con, Dex: q.rec.Dex,
			Sword: best(q.rec.Items, ItemSword), Shield: best(q.rec.Items, ItemShield),
			Armour: best(q.rec.Items, ItemArmour), Blows: Blows(q.rec.Dex, q.rec.Level),
			Dodge: DodgePercent(e.dieSides(q)), Fainted: q.fainted, Choosing: e.choosing(q)})
		if k := &fv.Knights[len(fv.Knights)-1]; k.Choosing && e.holdsUp(q, enc) {
			k.GraceLeft = e.graceOf(q) - q.waited
		}
	}
	return fv
}

// newFoe makes a monster for a surface battle (seed 002: "The monsters are created at the
// beginning of the battle"): it stands on the surface square pos (depth 0), belongs to
// no level, and is gone when the battle ends.
func (e *Engine) newFoe(kind MonsterID, pos Pos) *monster {
	e.nextMonster++
	m := &monster{id: e.nextMonster, kind: kind, pos: pos, room: -1}
	m.hits = max(1, kind.Kind().HitDice.Roll(e.rng))
	m.maxHits = m.hits
	return m
}
