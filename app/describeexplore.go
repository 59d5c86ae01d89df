package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Exploring by ear, for screen-reader mode: the openings on the knight's map that lead
// where it has not been, the way to the nearest of them, the side ways a walk passes,
// and the known dangers a walk stops before. A listener cannot glance at the map for
// the passage it walked past, so these are said.

// opening is an unexplored opening: a side of a known square, with no wall, that leads
// to a square the knight has not seen.
type opening struct {
	at   world.Pos
	dir  world.Dir
	edge world.Edge // EdgeOpen, EdgeDoor or EdgeLocked (a found secret door is a door)
}

// openingsOf are the unexplored openings of square q, in sentence order.
func openingsOf(v world.View, q world.Pos) []opening {
	var out []opening
	if !known(v, q) {
		return nil
	}
	for _, d := range dirWords {
		n := q.Step(d)
		if !v.Level.In(n) || known(v, n) {
			continue
		}
		switch e := seenEdge(v, q, d); e {
		case world.EdgeOpen, world.EdgeDoor, world.EdgeLocked:
			out = append(out, opening{q, d, e})
		}
	}
	return out
}

// danger names what the knight knows would take or hurt it on square q: a known trap,
// a chute or a pit it has seen; "" for none.
func danger(v world.View, q world.Pos) string {
	if slices.Contains(v.Traps, q) {
		return "a known trap"
	}
	if !known(v, q) {
		return ""
	}
	switch f := v.Level.Feature(q); f {
	case world.FeatChute, world.FeatPit:
		return english.A(f.String())
	}
	return ""
}

// safeKnown is the knight's map without its known dangers: a way along it never steps
// onto a trap, chute or pit.
func safeKnown(v world.View) []byte {
	safe := slices.Clone(v.Known)
	l := v.Level
	for y := range l.H {
		for x := range l.W {
			if q, i := (world.Pos{X: x, Y: y}), y*l.W+x; danger(v, q) != "" {
				safe[i/8] &^= 1 << (i % 8)
			}
		}
	}
	return safe
}

// reachedOpening is an unexplored opening and the way to it along the knight's map,
// keeping off known dangers.
type reachedOpening struct {
	opening
	steps []world.RouteStep
}

// nearestOpenings are the unexplored openings the knight's map leads to, nearest
// first (ties in sentence order), at most n of them.
func nearestOpenings(v world.View, n int) []reachedOpening {
	l := v.Level
	safe := safeKnown(v)
	var out []reachedOpening
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			os := openingsOf(v, q)
			if len(os) == 0 || (q != v.Self.Pos && danger(v, q) != "") {
				continue
			}
			steps, ok := l.Route(safe, v.FoundDoors, v.Self.Pos, func(p world.Pos) bool { return p == q })
			if !ok {
				continue
			}
			for _, o := range os {
				out = append(out, reachedOpening{o, steps})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b reachedOpening) int { return len(a.steps) - len(b.steps) })
	return out[:min(n, len(out))]
}

// openingWord says what an unexplored opening is: "a passage north", "a door east".
func openingWord(o opening) string {
	switch o.edge {
	case world.EdgeDoor:
		return "a door " + o.dir.String()
	case world.EdgeLocked:
		return "a locked door " + o.dir.String()
	}
	return "a passage " + o.dir.String()
}

// openingsText is map's line of unexplored openings, by direction and distance.
func openingsText(v world.View) string {
	os := nearestOpenings(v, 5)
	if len(os) == 0 {
		return "You know no unexplored opening on this level."
	}
	var ws []string
	for _, o := range os {
		w := openingWord(o.opening) + ", " + place(v.Self.Pos, o.at)
		if len(o.steps) > 0 {
			w += fmt.Sprintf(", %s away", english.Count(len(o.steps), "step"))
		}
		ws = append(ws, w)
	}
	return "Unexplored openings, nearest first: " + strings.Join(ws, "; ") + ". Type explore to walk to the nearest."
}

// nearestOpeningText is what way and where add when the knight's map has no way to
// what was asked: the way to the nearest unexplored opening.
func nearestOpeningText(v world.View) string {
	os := nearestOpenings(v, 1)
	if len(os) == 0 {
		return "You know no unexplored opening on this level either."
	}
	o := os[0]
	if len(o.steps) == 0 {
		return fmt.Sprintf("The nearest unexplored way is %s, where you stand: explore goes through it.", openingWord(o.opening))
	}
	return fmt.Sprintf("The nearest unexplored way is %s: %s. Explore walks there.", openingWord(o.opening), routeWords(o.steps))
}

// sideWays say the ways off a corridor square besides the way the knight walks (d) and
// back: "A passage opens north." "A door is to the south." A walk stops where there are
// any, so a listener does not walk past a side passage unawares.
func sideWays(v world.View, p world.Pos, d world.Dir) []string {
	l := v.Level
	if l.RoomAt(p) >= 0 {
		return nil // a room's ways are told when it is entered
	}
	var out []string
	for _, s := range dirWords {
		if s == d || s == d.Opposite() || !l.In(p.Step(s)) {
			continue
		}
		switch e := seenEdge(v, p, s); e {
		case world.EdgeOpen:
			out = append(out, fmt.Sprintf("A passage opens %s.", s))
		case world.EdgeDoor, world.EdgeLocked:
			out = append(out, fmt.Sprintf("%s is to the %s.", english.Capital(edgeWord(e)), s))
		}
	}
	return out
}

// waysOut counts the sides of p a knight may leave by: openings and doors.
func waysOut(v world.View, p world.Pos) int {
	n := 0
	for _, d := range dirWords {
		switch seenEdge(v, p, d) {
		case world.EdgeOpen, world.EdgeDoor, world.EdgeLocked:
			if v.Level.In(p.Step(d)) {
				n++
			}
		}
	}
	return n
}

// dangerAhead says the known danger one step from p going d, through an opening, or "".
func dangerAhead(v world.View, p world.Pos, d world.Dir) string {
	if v.Level.Edge(p, d) != world.EdgeOpen {
		return ""
	}
	if w := danger(v, p.Step(d)); w != "" {
		return fmt.Sprintf("%s is 1 square %s: a walk stops before it. Type %s alone to step onto it.", english.Capital(w), d, d)
	}
	return ""
}
