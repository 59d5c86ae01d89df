package world

// A way along what a knight knows: screen-reader mode's `way exit` says the
// route in steps, and a route is only as good as the knight's map, so it never leads
// through a square the knight has not seen or a secret door it has not found.

// RouteStep is one step of a route: its direction and the edge it crosses.
type RouteStep struct {
	Dir  Dir
	Edge Edge // EdgeOpen, EdgeDoor, EdgeLocked (forced), or a found secret door
}

// Route is the shortest way from from to a square for which goal holds, over the squares
// set in known (a bitset over the level's squares, as View.Known) and through the edges
// a knight can cross: openings, doors, locked doors, and the secret doors in found
// (EdgeIndex values, as View.FoundDoors). ok is false when no known way leads there; a
// knight already there has a way of no steps.
func (l *Level) Route(known []byte, found []int, from Pos, goal func(Pos) bool) (steps []RouteStep, ok bool) {
	isFound := map[int]bool{}
	for _, i := range found {
		isFound[i] = true
	}
	type link struct {
		from Pos
		step RouteStep
	}
	came := map[Pos]link{from: {}}
	queue := []Pos{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if goal(p) {
			for p != from {
				k := came[p]
				steps = append(steps, k.step)
				p = k.from
			}
			for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
				steps[i], steps[j] = steps[j], steps[i]
			}
			return steps, true
		}
		for _, d := range Dirs {
			q := p.Step(d)
			if _, seen := came[q]; seen || !l.In(q) || !Bit(known, l.idx(q)) {
				continue
			}
			e := l.Edge(p, d)
			switch {
			case e == EdgeWall:
				continue
			case e.IsSecret() && !isFound[l.EdgeIndex(p, d)]:
				continue
			}
			came[q] = link{p, RouteStep{d, e}}
			queue = append(queue, q)
		}
	}
	return nil, false
}
