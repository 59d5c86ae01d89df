package world

import (
	"fmt"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Deaths explained: a knight's death keeps the last blows that brought it down,
// what it could have done instead, and the last lines of its log, which the death screen
// shows and the key's next knight's log begins with.

// Death is how a knight died; a dead knight's record is its tombstone.
type Death struct {
	Killer     string `json:"killer"`
	Depth      int    `json:"depth"`
	Level      int    `json:"level"`
	Experience int    `json:"experience"`
	Turn       uint64 `json:"turn"`
	// LastBlows are the last blows the knight took, oldest first, the killing one last
	// (at most LastBlowsKept).
	LastBlows []Blow `json:"last_blows,omitempty"`
	// Hints say what the knight could have done against its killer, in the game's words
	// ("Sleep would not work on a Skeleton: undead do not sleep."); none for a fall or a trap.
	Hints []string `json:"hints,omitempty"`
	// LastLines are the knight's last lines, a heading first: its player's next knight's
	// log begins with them (Adventurer.Prelude).
	LastLines []string `json:"last_lines,omitempty"`
}

// Blow is one blow a knight took: who or what struck, the hits it cost and the hits left.
type Blow struct {
	By       string `json:"by"` // "an Illusionist", "a fall into a pit"
	Damage   int    `json:"damage"`
	HitsLeft int    `json:"hits_left"` // 0 or less: the blow that killed
}

// Where says where the knight died, after "slain by a Wolf": "on level 3", or "on the
// surface" for a battle outside (depth 0 is no level).
func (d Death) Where() string {
	if d.Depth == 0 {
		return "on the surface"
	}
	return fmt.Sprintf("on level %d", d.Depth)
}

// LastBlowsKept is how many of its last blows a knight's death keeps; LastLinesKept how
// many lines of its log.
const (
	LastBlowsKept   = 3
	LastLinesKept   = 8
	maxPreludeRunes = 400 // a line of the prelude, which comes back from the session
)

// String is the blow as the death screen says it: "an Illusionist hit you for 9 (0 left)".
func (b Blow) String() string {
	return fmt.Sprintf("%s: %d hits (%d left)", english.Capital(b.By), b.Damage, max(0, b.HitsLeft))
}

// hurt takes dmg hits from the knight, dealt by by, and remembers the blow.
func (e *Engine) hurt(p *player, by string, dmg int) {
	p.rec.Hits -= dmg
	p.changed = true
	if len(p.blows) >= LastBlowsKept {
		p.blows = p.blows[:copy(p.blows, p.blows[1:])]
	}
	p.blows = append(p.blows, Blow{By: by, Damage: dmg, HitsLeft: p.rec.Hits})
	if enc := p.fight; enc != nil && dmg > 0 && !slices.Contains(enc.struck, p) {
		enc.struck = append(enc.struck, p) // whatever took the hits: a blow, a weed
	}
}

// couldHave is what a knight brought down by a monster of kind k could have done: the
// spells that stop a monster, said for those its spell units paid for, and Sleep's limits
// (its level, the undead, the animated) said always (the spell a knight reaches for
// first); running, or that a room allows none; a potion it carried; arrows against a
// mythical monster; Teleport, which saves a knight either way.
func (e *Engine) couldHave(p *player, enc *encounter, k *MonsterKind) []string {
	r := &p.rec
	var hints []string
	a := english.A(k.Name)
	units := english.Count(r.SpellUnits, "spell unit")
	switch {
	case !Affects(SpellSleep, k) && k.Class == Undead:
		hints = append(hints, fmt.Sprintf("Sleep would not work on %s: undead do not sleep.", a))
	case !Affects(SpellSleep, k) && k.Class == Animated:
		// Seed 000: "Only level 4 spells affect animated type monsters", whatever
		// their level: an Animated Broom is level 1.
		hints = append(hints, fmt.Sprintf("Sleep would not work on %s: only level 4 spells work on animated monsters.", a))
	case !Affects(SpellSleep, k):
		hints = append(hints, fmt.Sprintf("Sleep would not work on %s (level %d; it works up to level 4).", a, k.Level))
	case r.SpellUnits >= SpellSleep.Info().Level:
		hints = append(hints, fmt.Sprintf("Sleep would have put %s to sleep (you had %s).", a, units))
	}
	for _, s := range []SpellID{SpellCharm, SpellHoldPerson, SpellHoldMonster, SpellTeleport} {
		if info := s.Info(); Affects(s, k) && r.SpellUnits >= info.Level {
			hints = append(hints, fmt.Sprintf("%s works on %s (fails %d-%d%%; you had %s).", info.Name, a, info.FailMin, info.FailMax, units))
		}
	}
	if r.SpellUnits == 0 {
		hints = append(hints, "You had no spell units left: a successful exit replenishes them.")
	}
	switch {
	case e.roomFight(p, enc):
		hints = append(hints, "There is no running from a room: enter one with more hits.")
	default:
		hints = append(hints, "You could have run: this was no room.")
	}
	if slices.ContainsFunc(r.Items, func(it Item) bool { return it.Kind == ItemPotionHealing }) {
		hints = append(hints, "You carried a potion of healing.")
	}
	if k.Class == Mythical && slices.ContainsFunc(r.Items, func(it Item) bool { return it.Kind == ItemQuiver && it.Count > 0 }) {
		hints = append(hints, "An arrow of slaying kills any mythical monster: s shoots.")
	}
	return hints
}

// lastLines are the end of the knight's log under a heading, for its death.
func lastLines(p *player) []string {
	return p.log.Log().AppendLast([]string{"The last moments of " + p.rec.Name + ":"}, LastLinesKept)
}

// prelude begins a new knight's log with the lines its record carries (the last moments
// of the knight its player lost), and lets them go.
func (e *Engine) prelude(p *player) {
	for _, l := range p.rec.Prelude[:min(len(p.rec.Prelude), LastLinesKept+1)] {
		noteKind(p, MsgOwn, CleanText(l, maxPreludeRunes)) // its forebear's, perhaps whispered
	}
	p.rec.Prelude = nil
}

// DeathLines is a death told in lines, the same for the death screen and screen-reader
// mode: the last blows, then what the knight could have done.
func DeathLines(d *Death) []string {
	if d == nil {
		return nil
	}
	var out []string
	if len(d.LastBlows) > 0 {
		out = append(out, "The last blows:")
		for _, b := range d.LastBlows {
			out = append(out, "  "+b.String())
		}
	}
	if len(d.Hints) > 0 {
		out = append(out, "What might have saved you:")
		for _, h := range d.Hints {
			out = append(out, "  "+h)
		}
	}
	return out
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
	e.proclaim(p, TidingDeath)
	v := e.view(p)
	v.Dead = p.rec.Death
	e.remove(p)
	if p.sub != nil {
		p.sub.Deliver(v)
	}
}
