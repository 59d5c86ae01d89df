package world

import (
	"fmt"
	"slices"
)

// A knight in the world as it is now: the engine's player, what its items, spells and
// conditions make of it (its speed, Strength and to-hit die; hasted, protected, invisible,
// levitating, lit), the conditions traps leave on it and the spells that last on it, and
// how both wear off.

// player is an adventurer in the world, owned by the engine goroutine.
type player struct {
	rec     Adventurer
	session uint64
	sub     Subscriber
	energy  Energy
	queue   []Command
	dropped int // commands dropped since the knight was last told (a full queue, a fight starting)
	visible []byte
	mapIdx  int       // index into rec.Maps for the current level, -1 outside
	log     LogWriter // its message log: the last maxMessages lines, and their kinds
	said    uint64    // messages ever said to it, so a session can tell the new ones
	// publicSaid counts the public ones among them, for its spectators' views (Public).
	publicSaid uint64
	dirty      bool // its view must be sent again
	changed    bool // its record must be saved at the next checkpoint

	prev      Pos        // the square it came from, where running takes it back
	fight     *encounter // the fight it is in, if any
	runTries  int        // tries to run in this fight (seed 000: failing more often each try)
	waited    int        // turns it has held up other heroes of its fight while choosing
	asked     bool       // its session has been told it is its move in the fight
	heard     int        // words told to it in its fight since its last move (graceOf)
	lastFight []string   // the log of its last fight, shown until the next one
	passWall  bool       // Pass Wall was cast: the next step may go through a wall
	espDir    Dir        // the direction of the ESP being cast
	fightSeq  uint64     // fight log lines written while it was in the fight
	target    *monster   // the monster its blows go at (Target), nil for the first standing one
	fainted   bool       // at 0 hits in a battle others still fight (seed 002)
	blows     []Blow     // the last blows it took (hurt), for its death

	recovered, unitsRecovered int        // hits and spell units recovered in this battle (RecoveryCap)
	roundsAtRisk              int        // rounds of this battle in which a monster could strike it (endRound)
	seq                       uint64     // when it joined: who is named first on a crowded square
	standDepth                int        // the level it is filed under in the engine's standing, 0 for none
	standSq                   int32      // and the square
	seen                      bool       // what others do in its sight changed its view (crowd.go)
	news                      bool       // an announcement waits in its log (announce, newsDue)
	active                    uint64     // the turn it last sent anything
	shown                     uint64     // the turn its last view was published (crowd.go)
	watchers                  []*watcher // spectators, who get its views too
	// safeUntil ends the knight's safe arrival (arrival.go): until then, or until it
	// acts, no monster starts a fight with it. respiteUntil ends the time after it got
	// away from a fight, when no wanderer starts one with it.
	safeUntil, respiteUntil uint64
	soc                     playerSocial // its replies and being away (community.go)
	given                   shownSelf    // its items, spells and conditions as its views show them
}

// shownSelf is what a knight's last view was given of its items, spells and conditions,
// for the views after it to share while these stay the same: a walking knight's view is
// made several times a second, and its items change far less often. What was handed to a
// view is a copy of its own and never changed afterwards (the record's items are changed
// in place: worn, used, dropped); the copies it was made from are kept to compare with.
type shownSelf struct {
	items []Item
	// spells is nil until the knight has a lasting spell or a condition.
	spells *shownSpells
}

// shownSpells are a knight's lasting spells and conditions as its last view showed them:
// effects and status as they were, effectText and statusText what the view was given.
type shownSpells struct {
	effects    []Effect
	status     []Status
	effectText []string
	statusText []string
}

// itemsOf is items for a view: the last view's copy while they are the same, a new copy
// when they changed.
func (s *shownSelf) itemsOf(items []Item) []Item {
	if len(items) == 0 {
		return slices.Clone(items)
	}
	if !slices.Equal(s.items, items) {
		s.items = slices.Clip(slices.Clone(items))
	}
	return s.items
}

// effectsOf is the view's text of effects ("Light (24 moves)"), made again only when they
// changed since the last view.
func (s *shownSelf) effectsOf(effects []Effect) []string {
	if len(effects) == 0 {
		return nil
	}
	sp := s.spellsShown()
	return textsOf(&sp.effects, &sp.effectText, effects)
}

// statusOf is the view's text of the conditions ("stuck (5 tries)"), made again only
// when they changed since the last view.
func (s *shownSelf) statusOf(status []Status) []string {
	if len(status) == 0 {
		return nil
	}
	sp := s.spellsShown()
	return textsOf(&sp.status, &sp.statusText, status)
}

// spellsShown is the knight's shownSpells, made when it first has one.
func (s *shownSelf) spellsShown() *shownSpells {
	if s.spells == nil {
		s.spells = &shownSpells{}
	}
	return s.spells
}

// textsOf is the text of each of xs (its String): *text, made from *was, while xs are the
// same; else made again, and xs kept in *was to compare the next with.
func textsOf[T interface {
	comparable
	String() string
}](was *[]T, text *[]string, xs []T) []string {
	if *text == nil || !slices.Equal(*was, xs) {
		*was = append((*was)[:0], xs...)
		*text = make([]string, len(xs))
		for i, x := range xs {
			(*text)[i] = x.String()
		}
	}
	return *text
}

// speed is the knight's speed in seed 003's sense: Speed, the spell or boots of speed
// ("they work like a continuous Speed spell"), gives +10, and a load past half of what
// its Strength carries takes speed off (LoadSpeed).
func (e *Engine) speed(p *player) int {
	s := LoadSpeed(carried(p.rec.Items), CarryCapacity(e.str(p)))
	if e.hasted(p) {
		s += 10
	}
	return s
}

// hasted reports whether the knight has Speed (seed 000: "Gives you first hit in combat,
// and takes less time to move").
func (e *Engine) hasted(p *player) bool {
	return wearing(p.rec.Items, ItemBootsOfSpeed) || p.has(SpellSpeed)
}

// protected reports whether the knight has Protection (seed 000: "Gives you a 1/6 better
// chance of not being hit. 1/3 for undead"): the spell or the ring.
func (e *Engine) protected(p *player) bool {
	return wearing(p.rec.Items, ItemRingOfProtection) || p.has(SpellProtection)
}

// invisible reports whether the knight is invisible (seed 000: "You are safe from attack"):
// the spell or the ring.
func (e *Engine) invisible(p *player) bool {
	return wearing(p.rec.Items, ItemRingOfInvisibility) || p.has(SpellInvisibility)
}

// levitating reports whether the knight floats (seed 000: boots of levitation, the spell).
func (e *Engine) levitating(p *player) bool {
	return wearing(p.rec.Items, ItemBootsOfLevitation) || p.has(SpellLevitation)
}

// lit reports whether the knight has light about it (seed 000: "secret doors will always
// appear"): a ring of light, Light or Continuous Light.
func (e *Engine) lit(p *player) bool {
	return wearing(p.rec.Items, ItemRingOfLight) || p.has(SpellLight) || p.has(SpellContinuousLight)
}

// str is the knight's Strength less what poison has taken for now (seed 001).
func (e *Engine) str(p *player) int {
	s := p.rec.Str
	for _, st := range p.rec.Status {
		if st.Kind == StatusWeak {
			s--
		}
	}
	return max(1, s)
}

// dieSides is the knight's to-hit die: its Dexterity adjusted for the weight it carries
// (seed 000).
func (e *Engine) dieSides(p *player) int {
	return EffectiveDex(p.rec.Dex, carried(p.rec.Items), CarryCapacity(e.str(p)))
}

// has reports whether a spell's effect is on the knight.
func (p *player) has(s SpellID) bool {
	for _, ef := range p.rec.Effects {
		if ef.Spell == s {
			return true
		}
	}
	return false
}

// status is the condition of a kind on the knight, if any.
func (p *player) status(k StatusKind) *Status {
	for i := range p.rec.Status {
		if p.rec.Status[i].Kind == k {
			return &p.rec.Status[i]
		}
	}
	return nil
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

func (p *player) addStatus(k StatusKind, left int) {
	p.rec.Status = append(p.rec.Status, Status{Kind: k, Left: left})
	p.changed, p.dirty = true, true
}

// lengthenStatus puts a condition on the knight for left rounds, or for longer if it
// already has it for longer.
func (p *player) lengthenStatus(k StatusKind, left int) {
	if st := p.status(k); st != nil {
		st.Left = max(st.Left, left)
		p.changed, p.dirty = true, true
		return
	}
	p.addStatus(k, left)
}

// tickStatus runs a round of the world clock on a knight's conditions: they count down,
// strangle weed chokes, and spent conditions end with a word.
func (e *Engine) tickStatus(p *player) {
	if len(p.rec.Status) == 0 {
		return
	}
	kept := p.rec.Status[:0]
	for _, st := range p.rec.Status {
		switch st.Kind {
		case StatusStuck:
			kept = append(kept, st) // only tries to move wear it down
			continue
		case StatusStrangle:
			// Seed 001: strangle weed — "stuck and loses 1 hit point each turn".
			e.hurt(p, "strangle weed", 1)
			kept = append(kept, st)
			continue
		}
		st.Left--
		if st.Left > 0 {
			kept = append(kept, st)
			continue
		}
		switch st.Kind {
		case StatusConfused:
			e.say(p, "You feel less confused now.")
		case StatusBlind:
			e.say(p, "You can see again.")
		case StatusAsleep:
			e.say(p, "You wake up.")
		case StatusWeak:
			e.say(p, "You feel your strength coming back.")
		}
	}
	p.rec.Status = kept
	p.changed, p.dirty = true, true
	if p.rec.Depth > 0 && p.status(StatusBlind) == nil {
		e.look(p)
	}
	if p.rec.Hits <= 0 {
		e.die(p, "strangle weed")
	}
}

// held reports whether a condition keeps the knight from acting, and says so. A stuck
// knight trying to move uses up one of its tries (seed 001: "Player has to try to move for
// 5 to 9 turns to escape the trap").
func (e *Engine) held(p *player, c Command) (bool, float64) {
	if p.status(StatusAsleep) != nil {
		e.say(p, "You are asleep and cannot act.")
		return true, 0
	}
	if _, isMove := c.(Move); !isMove {
		return false, 0
	}
	for _, k := range []StatusKind{StatusStrangle, StatusStuck} {
		st := p.status(k)
		if st == nil {
			continue
		}
		st.Left--
		if st.Left <= 0 {
			p.rec.Status = slices.DeleteFunc(p.rec.Status, func(s Status) bool { return s.Kind == k })
			e.say(p, "You struggle free!")
		} else {
			e.say(p, "You struggle but are still stuck.")
		}
		p.changed = true
		return true, MoveCost(e.speed(p))
	}
	return false, 0
}

// Effect is a spell working on a knight: Moves left, or DurationTrip / DurationFight.
type Effect struct {
	Spell SpellID `json:"spell"`
	Moves int     `json:"moves"`
}

// String is the effect as whoami and the status line show it: "Light (24 moves)".
func (ef Effect) String() string {
	name := ef.Spell.Info().Name
	switch ef.Moves {
	case DurationTrip:
		return name + " (this trip)"
	case DurationFight:
		return name + " (this fight)"
	}
	return fmt.Sprintf("%s (%d moves)", name, ef.Moves)
}

// addEffect puts a lasting spell on the knight, renewing it if it is already there.
func (p *player) addEffect(s SpellID) {
	d := s.Info().Duration
	for i := range p.rec.Effects {
		if p.rec.Effects[i].Spell == s {
			p.rec.Effects[i].Moves = d
			return
		}
	}
	p.rec.Effects = append(p.rec.Effects, Effect{Spell: s, Moves: d})
}

// dropEffects removes the effects for which drop is true and says which wore off.
func (e *Engine) dropEffects(p *player, drop func(Effect) bool) {
	kept := p.rec.Effects[:0]
	for _, ef := range p.rec.Effects {
		if drop(ef) {
			e.say(p, fmt.Sprintf("Your %s spell wears off.", ef.Spell.Info().Name))
			continue
		}
		kept = append(kept, ef)
	}
	p.rec.Effects = kept
}

// tickEffects counts one move off every effect that lasts a number of moves (seed 000
// gives durations in turns, which were the knight's moves on PLATO).
func (e *Engine) tickEffects(p *player) {
	for i := range p.rec.Effects {
		if p.rec.Effects[i].Moves > 0 {
			p.rec.Effects[i].Moves--
		}
	}
	e.dropEffects(p, func(ef Effect) bool { return ef.Moves == 0 })
}

// countMove counts a move and lets a ring of regeneration work.
func (e *Engine) countMove(p *player) {
	p.rec.Moves++
	e.tickEffects(p)
	if p.rec.Moves%RegenerationMoves == 0 && wearing(p.rec.Items, ItemRingOfRegeneration) {
		p.rec.Hits = min(p.rec.MaxHits, p.rec.Hits+1)
		p.rec.SpellUnits = min(SpellUnitsForLevel(p.rec.Level), p.rec.SpellUnits+1)
	}
}
