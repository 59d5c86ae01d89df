package app

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What screen-reader mode says of the monsters and knights in sight while the knight
// stands still: each is told when it comes into sight, known by its identity and not by
// its name and square, and when it has gone; its steps are told only when it comes within
// sightNear squares, at most once in sightQuiet. One seen in the last sightMemory is
// remembered: coming back it is not new (it is told again only when it comes near), and
// no line a minute about it is told past sightLines, so a wanderer pacing at the edge of
// sight is a line or three a minute rather than a line for every turn it makes. A
// monster that dies is forgotten without a word. look tells where everything is at any
// time.

// Sightings tuning:
//
//	constant      value   effect
//	sightQuiet    5 s     at most one step told in this time; gone only after this long out of sight
//	sightNear     2       squares (steps, not as the crow flies) within which a step, or a return, is told
//	sightMemory   60 s    a monster or knight seen this recently is not new; its lines are counted over it
//	sightLines    3       the most lines about one monster or knight in sightMemory
const (
	sightQuiet  = 5 * time.Second
	sightNear   = 2
	sightMemory = time.Minute
	sightLines  = 3
)

// sighting is what the player has been told of one monster or knight it sees, or saw
// within sightMemory.
type sighting struct {
	the   string    // how a line names it after the first: "the Centipede", "Bors"
	pos   world.Pos // where it was last said to be
	seen  uint64    // the turn it was last in sight
	said  []uint64  // the turns of its lines within sightMemory, oldest first
	shown bool      // the player was last told it is in sight
}

// may reports whether one more line about it may be said at turn now, within
// sightLines in memory turns, and forgets the turns of its lines older than that.
func (s *sighting) may(now, memory uint64) bool {
	for len(s.said) > 0 && now >= s.said[0]+memory {
		s.said = s.said[1:]
	}
	return len(s.said) < sightLines
}

// sightings are the sightings of one followed knight, by key (sightKey).
type sightings map[string]*sighting

// seenThing is one monster or knight in sight in a view.
type seenThing struct {
	key, a, the string // its key; named the first time ("A Centipede"), and after ("the Centipede")
	pos         world.Pos
}

// inSight lists the monsters and knights the view shows, monsters first.
func inSight(v world.View) []seenThing {
	var out []seenThing
	for _, mo := range v.Monsters {
		key := "m" + strconv.Itoa(mo.ID)
		if mo.ID == 0 { // a view made by hand, with no identities: the name and square
			key = mo.Name + "@" + fmt.Sprint(mo.Pos)
		}
		out = append(out, seenThing{key: key, a: english.Capital(english.A(mo.Name)), the: "the " + mo.Name, pos: mo.Pos})
	}
	for _, o := range v.InSight() {
		out = append(out, seenThing{key: "k" + o.Name, a: o.Name, the: o.Name, pos: o.Pos})
	}
	return out
}

// update brings the sightings up to the view and returns what is to be said. told says
// the view's text has just said everything in sight (a look, a step): it is then all
// known, and what went out of sight is known gone without a word. quiet is sightQuiet
// and memory sightMemory, in turns.
func (ss sightings) update(v world.View, told bool, quiet, memory uint64) []string {
	return ss.updateHushed(v, told, quiet, memory, nil)
}

// updateHushed is update with the lines about the things whose key hush holds left
// unsaid (the options' filters: hushedSightings), though kept as said.
func (ss sightings) updateHushed(v world.View, told bool, quiet, memory uint64, hush func(key string) bool) []string {
	now, p := v.Turn, v.Self.Pos
	var out []string
	key := ""
	line := func(s *sighting, l string) {
		if hush == nil || !hush(key) {
			out = append(out, l)
		}
		s.said = append(s.said, now)
	}
	here := map[string]bool{}
	for _, t := range inSight(v) {
		key = t.key
		here[t.key] = true
		s := ss[t.key]
		near := steps(p, t.pos) <= sightNear
		switch {
		case s == nil:
			s = &sighting{the: t.the, pos: t.pos, seen: now, shown: true}
			ss[t.key] = s
			if !told {
				line(s, fmt.Sprintf("%s comes into sight, %s.", t.a, place(p, t.pos)))
			}
		case told:
			s.pos, s.seen, s.shown = t.pos, now, true
		case !s.shown: // back within the memory: no news until it comes near
			s.seen = now
			if near && s.may(now, memory) {
				line(s, fmt.Sprintf("%s is back, %s.", english.Capital(t.the), place(p, t.pos)))
				s.pos, s.shown = t.pos, true
			}
		default:
			s.seen = now
			if t.pos != s.pos && near && (len(s.said) == 0 || now >= s.said[len(s.said)-1]+quiet) && s.may(now, memory) {
				line(s, fmt.Sprintf("%s is now %s.", english.Capital(t.the), place(p, t.pos)))
				s.pos = t.pos
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ss)) {
		key = k
		s := ss[key]
		switch {
		case here[key]:
		case now >= s.seen+memory:
			delete(ss, key)
		case told:
			s.shown = false
		case s.shown && now >= s.seen+quiet && s.may(now, memory):
			line(s, english.Capital(s.the)+" goes out of sight.")
			s.shown = false
		}
	}
	return out
}

// forgetFallen forgets, without a word, the monsters the view tells have died: those its
// knight's battle shows dead, and those a line of its new messages (news) says died
// ("The Giant Rat dies.") that are no longer in sight.
func (ss sightings) forgetFallen(v world.View, news []string) {
	if f := v.Fight; f != nil {
		for _, mo := range f.Monsters {
			if mo.Dead && mo.ID != 0 {
				delete(ss, "m"+strconv.Itoa(mo.ID))
			}
		}
	}
	if len(news) == 0 {
		return
	}
	here := map[string]bool{}
	for _, t := range inSight(v) {
		here[t.key] = true
	}
	for key, s := range ss {
		if here[key] || !strings.HasPrefix(key, "m") {
			continue
		}
		for _, msg := range news {
			if strings.Contains(msg, english.Capital(s.the)+" dies.") || strings.Contains(msg, "killed "+s.the+".") {
				delete(ss, key)
				break
			}
		}
	}
}

// hushedSightings is what the options quiet of what comes into sight and goes: the
// monsters (NoSightings) and the other knights (NoMovements), by their sightings' keys.
func (m *Model) hushedSightings(key string) bool {
	return strings.HasPrefix(key, "m") && m.opts.NoSightings || strings.HasPrefix(key, "k") && m.opts.NoMovements
}

// quietTurns is sightQuiet in the game's turns.
func (m *Model) quietTurns() uint64 { return uint64(max(sightQuiet/m.tick(), 1)) }

// memoryTurns is sightMemory in the game's turns.
func (m *Model) memoryTurns() uint64 { return uint64(max(sightMemory/m.tick(), 1)) }
