package app

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What screen-reader mode says of the monsters and knights in sight while the knight
// stands still: each is told once when it comes into sight, known by its identity and
// not by its name and square, and once when it has gone; its steps are told only when it
// comes within sightNear squares, at most once in sightQuiet, so a wandering monster in
// view is a line or two a minute rather than a line for every step it takes. look tells
// where everything is at any time.

// Sightings tuning:
//
//	constant     value   effect
//	sightQuiet   5 s     at most one line a sighting in this time; gone only after this long out of sight
//	sightNear    2       squares (steps, not as the crow flies) within which a step is told
const (
	sightQuiet = 5 * time.Second
	sightNear  = 2
)

// sighting is what the player has been told of one monster or knight it sees.
type sighting struct {
	the  string    // how a line names it after the first: "the Centipede", "Bors"
	pos  world.Pos // where it was last said to be
	seen uint64    // the turn it was last in sight
	said uint64    // the turn of its last line
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
// known, and what went out of sight is forgotten without a word. quiet is sightQuiet in
// turns.
func (ss sightings) update(v world.View, told bool, quiet uint64) []string {
	now, p := v.Turn, v.Self.Pos
	var out []string
	here := map[string]bool{}
	for _, t := range inSight(v) {
		here[t.key] = true
		s := ss[t.key]
		switch {
		case s == nil:
			ss[t.key] = &sighting{the: t.the, pos: t.pos, seen: now, said: now}
			if !told {
				out = append(out, fmt.Sprintf("%s comes into sight, %s.", t.a, place(p, t.pos)))
			}
		case told:
			s.pos, s.seen = t.pos, now
		default:
			s.seen = now
			if t.pos != s.pos && steps(p, t.pos) <= sightNear && now >= s.said+quiet {
				out = append(out, fmt.Sprintf("%s is now %s.", english.Capital(t.the), place(p, t.pos)))
				s.pos, s.said = t.pos, now
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(ss)) {
		s := ss[key]
		switch {
		case here[key]:
		case told:
			delete(ss, key)
		case now >= s.seen+quiet:
			out = append(out, english.Capital(s.the)+" goes out of sight.")
			delete(ss, key)
		}
	}
	return out
}

// quietTurns is sightQuiet in the game's turns.
func (m *Model) quietTurns() uint64 { return uint64(max(sightQuiet/m.tick(), 1)) }
