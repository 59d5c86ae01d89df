package app

import (
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Group battles (seeds 000 and 002, DESIGN §6): many heroes against many monsters. The
// battle panel beside the view lists every combatant, the statistics screen (x) shows all
// of their numbers without spending the turn, and t (or Tab) chooses which monster this
// knight's blows, spells and arrows go at. Screen-reader mode says the same in sentences.

// battle is the group-battle and party state of a session. It is part of the Model.
type battle struct {
	// to, when set, takes the commands instead of the player (tests record them).
	to sender
	// The target last asked for, and the target the view showed when it was asked: until
	// a view shows another target, t goes on from the one asked for, so two quick presses
	// move two monsters along.
	asked, askedFrom int
	asking           bool
	stats            pager // the statistics, when they scroll
	party            pager // the party screen, when it scrolls (a phone's)
}

// standing are the indexes of the monsters of a battle still standing.
func standing(f *world.FightView) []int {
	var out []int
	for i, mo := range f.Monsters {
		if !mo.Dead {
			out = append(out, i)
		}
	}
	return out
}

// nextTarget is the standing monster step places after from (wrapping around), and
// whether it is another monster than from.
func nextTarget(f *world.FightView, from, step int) (int, bool) {
	n := len(f.Monsters)
	if n == 0 {
		return 0, false
	}
	for i := 1; i <= n; i++ {
		j := ((from+step*i)%n + n) % n
		if !f.Monsters[j].Dead {
			return j, j != from
		}
	}
	return 0, false
}

// cycleTarget asks the world to aim this knight at the next (step 1) or the previous
// (step -1) standing monster. Choosing is free: it never costs the turn.
func (m *Model) cycleTarget(step int) {
	f := m.view.Fight
	if f == nil {
		return
	}
	from := f.Target
	if a := m.bt.asked; m.bt.asking && f.Target == m.bt.askedFrom && a >= 0 && a < len(f.Monsters) && !f.Monsters[a].Dead {
		from = a // the world has not shown the last choice yet
	}
	to, ok := nextTarget(f, from, step)
	if !ok {
		if len(standing(f)) == 1 {
			m.chat.note = "Only one monster stands: it is your target."
		}
		return
	}
	m.setTarget(to)
}

// setTarget sends the choice of target.
func (m *Model) setTarget(i int) {
	f := m.view.Fight
	m.bt.asked, m.bt.askedFrom, m.bt.asking = i, f.Target, true
	m.do(world.Target{Index: i})
}

// monsterLetter is the letter a monster of a battle goes by on the screen: a, b, c...
func monsterLetter(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return fmt.Sprint(i + 1)
}

// The actions a fight offers are the ones the knight has: the world refuses the
// rest, but a key line should not send a player to a refusal.

// hasArrows reports whether the knight carries an arrow of slaying, to shoot.
func hasArrows(s world.Self) bool {
	for _, it := range s.Items {
		if it.Kind == world.ItemQuiver && it.Count > 0 {
			return true
		}
	}
	return false
}

// fightInRoom reports whether the knight fights in a room, where it may not run (seed
// 000): the battle was met there, or the knight stands in one.
func fightInRoom(v world.View) bool {
	if v.Fight.InRoom {
		return true
	}
	return v.Self.Depth > 0 && v.Level != nil && v.Level.RoomAt(v.Self.Pos) >= 0
}

// allHeld reports whether every monster still standing is charmed, held or asleep: then
// a knight may walk away from them even in a room (the world's rule).
func allHeld(f *world.FightView) bool {
	st := standing(f)
	for _, i := range st {
		if !f.Monsters[i].Held {
			return false
		}
	}
	return len(st) > 0
}

// runWay is how the knight may leave the fight: "run", "leave" (held monsters, in a
// room), or "" when it may not.
func runWay(v world.View) string {
	switch {
	case !fightInRoom(v):
		return "run"
	case allHeld(v.Fight):
		return "leave"
	}
	return ""
}

// battleKeys are the keys of a fight the knight can use now, for the panel's foot.
func battleKeys(v world.View) []string {
	f := v.Fight
	keys := []string{"f fight"}
	if way := runWay(v); way != "" {
		keys = append(keys, "r "+way)
	}
	if hasArrows(v.Self) {
		keys = append(keys, "s shoot")
	}
	keys = append(keys, "1-4 cast", "i items")
	if len(standing(f)) > 1 {
		keys = append(keys, "t target")
	}
	keys = append(keys, "x stats")
	if runWay(v) == "" {
		keys = append(keys, noRunNote)
	}
	return keys
}

// noRunNote ends a room's keys: why r is not among them.
const noRunNote = "(no running from a room)"
