package world

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Pacing of a battle (DESIGN §3, "Pacing of a fight"). Orthanc was turn-based: the
// monster waits for the knight. In a shared world a battle of several heroes cannot wait
// for ever for one who has gone quiet, so:
//
//	constant             value   effect at the default 25 ms tick
//	(a knight alone)     none    a battle with no other hero waiting never hurries its knight
//	DefaultGraceTurns    1200    a hero holding up others hesitates after 30 s (-battle-grace)
//	PlainGraceFactor     3       a screen-reader player's grace is three times as long, and at least:
//	PlainGraceMin        90 s    ... a minute and a half, and
//	PlainListenWPM       150     ... the time to hear what it was told since its last move
//	PlainGraceMargin     60 s    ... at 150 words a minute, plus a minute to think
//	graceSteps           30      a countdown refreshes every hero's panel 30 times over a grace
const (
	DefaultGraceTurns = 1200
	PlainGraceFactor  = 3
	PlainGraceMin     = 90 * time.Second
	PlainListenWPM    = 150
	PlainGraceMargin  = time.Minute
	graceSteps        = 30
)

// DefaultTick is the server's default wall time of one turn (-tick).
const DefaultTick = 25 * time.Millisecond

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
	// struck are the heroes a monster's blow took hits from (Unscathed is the others').
	struck []*player
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
	// What the knight had asked for before the fight is not carried out in it (a queued
	// s would shoot); stopNote tells it after the fight's first lines.
	p.dropped += len(p.queue)
	p.queue = p.queue[:0]
	p.runTries, p.waited, p.asked, p.heard = 0, 0, false, 0
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
				p.waited, p.asked, p.heard = 0, false, 0
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
		p.heard = 0
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
// grace; for a screen-reader player PlainGraceFactor times as long, and at
// least PlainGraceMin and the time to hear the words it was told since its last move
// (heard) at PlainListenWPM, plus PlainGraceMargin, which leaves time for the session's
// own prompt (what may be done, a few dozen words) and for thinking.
func (e *Engine) graceOf(p *player) int {
	if !p.rec.Options.ScreenReader() {
		return e.cfg.GraceTurns
	}
	hear := time.Duration(p.heard)*time.Minute/PlainListenWPM + PlainGraceMargin
	return max(e.cfg.GraceTurns*PlainGraceFactor, e.turns(PlainGraceMin), e.turns(hear))
}

// turns is how many turns last at least d.
func (e *Engine) turns(d time.Duration) int {
	return int((d + e.cfg.Tick - 1) / e.cfg.Tick)
}

// words counts the words of a line, as a screen reader speaks them.
func words(line string) int { return len(strings.Fields(line)) }

// graceStep is how often a running countdown refreshes the heroes' panels.
func (e *Engine) graceStep() int { return max(1, e.cfg.GraceTurns/graceSteps) }

// touch asks for a new view for every hero of the battle.
func (enc *encounter) touch() {
	for _, p := range enc.players {
		p.dirty = true
	}
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

// fightView is the battle panel for p.
func (e *Engine) fightView(p *player, enc *encounter) *FightView {
	fv := &FightView{Log: slices.Clone(enc.log), InRoom: enc.inRoom, Surface: enc.depth == 0,
		Round: enc.rounds + 1, Target: -1, YourMove: e.choosing(p), GraceTurns: e.graceOf(p)}
	if t := e.targetOf(p, enc); t != nil {
		fv.Target = enc.index(t)
	}
	for i, m := range enc.monsters {
		k := m.Kind()
		fv.Monsters = append(fv.Monsters, FightMonster{ID: m.id, Name: k.Name, Class: k.Class.String(), Glyph: k.Glyph,
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
			Str: e.str(q), Int: q.rec.Int, Con: q.rec.Con, Dex: q.rec.Dex,
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
