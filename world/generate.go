package world

import (
	"math/rand/v2"
	"slices"
)

// Default dungeon dimensions.
const (
	// LevelW and LevelH are the size of a generated level in squares.
	LevelW, LevelH = 32, 20
	// DefaultDepth is the number of levels in a dungeon.
	DefaultDepth = 10
)

// Tuning knobs for the generator. They are unexported because the tests, not callers,
// are what pin them down.
const (
	minRooms, maxRooms = 6, 10
	roomMinW, roomMaxW = 2, 5
	roomMinH, roomMaxH = 2, 4
	maxRoomDoors       = 3
	roomCandidates     = 4 // best-of-N sampling when placing a room
	maxStepCost        = 9 // dearest square for a corridor to cross

	// Room door kinds: "locked doors ... lead into rooms", so most room doors are locked;
	// the rest are secret, and a few are plain doors.
	pRoomLocked = 0.70
	pRoomSecret = 0.22

	// Corridor-to-corridor doors are rarer and never locked (locked doors lead into rooms).
	pCorrDoor   = 0.03
	pCorrSecret = 0.02

	// "about one sixth of the time they appear as walls with a box in the middle".
	secretMarkedOneIn = 6
)

// splitmix64 is a fast, well-mixing 64-bit finaliser: neighbouring inputs give unrelated outputs.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// LevelSeed derives the seed of the level at depth from the dungeon's seed. Each level has
// its own seed so one level can be regenerated without touching the others.
func LevelSeed(dungeonSeed uint64, depth int) uint64 {
	return splitmix64(splitmix64(dungeonSeed) ^ splitmix64(uint64(depth)<<32|0x5eed))
}

// GenerateDungeon generates levels 1..depth of the dungeon with the given seed; index 0 is
// depth 1 and the last level is the bottom (no stairs down).
func GenerateDungeon(dungeonSeed uint64, depth int) []*Level {
	levels := make([]*Level, 0, max(depth, 0))
	for d := 1; d <= depth; d++ {
		levels = append(levels, Generate(d, LevelSeed(dungeonSeed, d), d == depth))
	}
	return levels
}

// Generate builds the level at depth from seed. It is deterministic: the same arguments
// always give a level with byte-identical MarshalBinary output. On depth 1 the up square is
// the exit; unless bottom, the level has stairs down.
func Generate(depth int, seed uint64, bottom bool) *Level {
	g := &generator{
		l: NewLevel(depth, seed, LevelW, LevelH),
		r: rand.New(rand.NewPCG(seed, uint64(depth))),
	}
	g.placeRooms()
	fronts := g.placeDoors()
	g.placeStairs(fronts, bottom)
	g.carveNetwork(fronts)
	g.addLoops()
	g.corridorDoors()
	placeHazards(g.l, bottom)
	return g.l
}

// generator holds the state of one level being generated.
type generator struct {
	l *Level
	r *rand.Rand

	// doors are the room doors in the order they were placed, so a fix-up can pick one
	// deterministically.
	doors []doorSpot

	// Scratch space reused between searches.
	cost       []int // corridor step cost per square
	dist, prev []int
	mark       []int // cheapestPath: stamp of the search that last set dist and prev
	stamp      int
	ring       [maxStepCost + 1][]int
	walk       []int // walkDistances result
	queue      []int // walkDistances queue
}

// doorSpot is a room door: the room square it is on and the side facing the corridor.
type doorSpot struct {
	p Pos
	d Dir
}

// placeRooms scatters non-touching rectangular rooms over the level, keeping a one-square
// margin to the level boundary so every room side has space for a corridor.
func (g *generator) placeRooms() {
	l, r := g.l, g.r
	want := minRooms + r.IntN(maxRooms-minRooms+1)
	var rooms []RoomRect
	for len(rooms) < want {
		// Best of a few candidates: the one farthest from the rooms already placed. This
		// spreads rooms over the whole level instead of letting them bunch up.
		var best RoomRect
		bestScore, found := -1, 0
		for try := 0; found < roomCandidates && try < 400; try++ {
			w := roomMinW + r.IntN(roomMaxW-roomMinW+1)
			h := roomMinH + r.IntN(roomMaxH-roomMinH+1)
			rr := RoomRect{X: 1 + r.IntN(l.W-w-1), Y: 1 + r.IntN(l.H-h-1), W: w, H: h}
			if slices.ContainsFunc(rooms, func(o RoomRect) bool { return roomsTouch(rr, o) }) {
				continue
			}
			found++
			score := l.W + l.H
			for _, o := range rooms {
				score = min(score, roomGap(rr, o))
			}
			if score > bestScore {
				best, bestScore = rr, score
			}
		}
		if found == 0 {
			break // the level is full
		}
		rooms = append(rooms, best)
	}
	// Row-major order of the top-left corners is the order ParseASCII discovers rooms in,
	// so a level survives an ASCII round trip with the same room indexes.
	slices.SortFunc(rooms, func(a, b RoomRect) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
	l.Rooms = rooms
	for i, rr := range rooms {
		for y := rr.Y; y < rr.Y+rr.H; y++ {
			for x := rr.X; x < rr.X+rr.W; x++ {
				p := Pos{x, y}
				l.SetRoom(p, i)
				// Inside a room every edge is open; the room's outer edges stay walls.
				if x+1 < rr.X+rr.W {
					l.SetEdge(p, East, EdgeOpen)
				}
				if y+1 < rr.Y+rr.H {
					l.SetEdge(p, South, EdgeOpen)
				}
			}
		}
	}
}

// roomGap is the number of squares between two rooms, horizontally plus vertically.
func roomGap(a, b RoomRect) int {
	gx := max(b.X-(a.X+a.W), a.X-(b.X+b.W), 0)
	gy := max(b.Y-(a.Y+a.H), a.Y-(b.Y+b.H), 0)
	return gx + gy
}

// roomsTouch reports whether two rooms overlap or touch (share a side or a corner): rooms
// need at least one square between them.
func roomsTouch(a, b RoomRect) bool {
	return a.X <= b.X+b.W && b.X <= a.X+a.W && a.Y <= b.Y+b.H && b.Y <= a.Y+a.H
}

// placeDoors gives every room 1..3 doors and returns the corridor squares in front of them,
// which the corridor network must reach.
func (g *generator) placeDoors() []Pos {
	l, r := g.l, g.r
	var fronts []Pos
	for _, rr := range l.Rooms {
		var cand []doorSpot
		for x := rr.X; x < rr.X+rr.W; x++ {
			cand = append(cand, doorSpot{Pos{x, rr.Y}, North}, doorSpot{Pos{x, rr.Y + rr.H - 1}, South})
		}
		for y := rr.Y; y < rr.Y+rr.H; y++ {
			cand = append(cand, doorSpot{Pos{rr.X, y}, West}, doorSpot{Pos{rr.X + rr.W - 1, y}, East})
		}
		r.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
		n := 1 + r.IntN(maxRoomDoors)
		var chosen []Pos
		for _, c := range cand {
			if len(chosen) == n {
				break
			}
			f := c.p.Step(c.d)
			// Two doors side by side look odd and add nothing; keep them apart.
			if slices.ContainsFunc(chosen, func(o Pos) bool { return stepsApart(o, f) <= 1 }) {
				continue
			}
			chosen = append(chosen, f)
			l.SetEdge(c.p, c.d, g.roomDoorKind())
			g.doors = append(g.doors, c)
		}
		fronts = append(fronts, chosen...)
	}
	// Every level should have something to break into: if chance gave no locked door at
	// all, lock the first one.
	if len(g.doors) > 0 && !slices.ContainsFunc(g.doors, func(d doorSpot) bool { return l.Edge(d.p, d.d) == EdgeLocked }) {
		l.SetEdge(g.doors[0].p, g.doors[0].d, EdgeLocked)
	}
	return fronts
}

// roomDoorKind draws the kind of a door into a room.
func (g *generator) roomDoorKind() Edge {
	switch f := g.r.Float64(); {
	case f < pRoomLocked:
		return EdgeLocked
	case f < pRoomLocked+pRoomSecret:
		return g.secretKind()
	default:
		return EdgeDoor
	}
}

// secretKind draws a secret door, marked about one time in six.
func (g *generator) secretKind() Edge {
	if g.r.IntN(secretMarkedOneIn) == 0 {
		return EdgeSecretMarked
	}
	return EdgeSecret
}

// stepsApart is the Manhattan distance between two squares: the fewest steps between them
// on an open floor, since moves are up, down, left or right only.
func stepsApart(a, b Pos) int {
	return max(a.X-b.X, b.X-a.X) + max(a.Y-b.Y, b.Y-a.Y)
}

// placeStairs picks the up square (the exit on depth 1) and, unless bottom, the down square,
// as far apart as practical, off rooms and off doorsteps.
func (g *generator) placeStairs(fronts []Pos, bottom bool) {
	l, r := g.l, g.r
	doorstep := make([]bool, l.W*l.H)
	for _, f := range fronts {
		doorstep[l.idx(f)] = true
	}
	var cand []Pos
	for y := range l.H {
		for x := range l.W {
			p := Pos{x, y}
			if l.Terrain(p) != Room && !doorstep[l.idx(p)] {
				cand = append(cand, p)
			}
		}
	}
	l.Up = cand[r.IntN(len(cand))]
	if l.Depth <= 1 {
		l.SetFeature(l.Up, FeatExit)
	} else {
		l.SetFeature(l.Up, FeatStairsUp)
	}
	l.SetTerrain(l.Up, Corridor)
	if bottom {
		return
	}
	// Far apart means the adventurer has to cross the level to go deeper.
	minDist := (l.W + l.H) / 3
	var far []Pos
	best := cand[0]
	for _, p := range cand {
		if p == l.Up {
			continue
		}
		if d := stepsApart(p, l.Up); d >= minDist {
			far = append(far, p)
		} else if d > stepsApart(best, l.Up) || best == l.Up {
			best = p
		}
	}
	if len(far) > 0 {
		best = far[r.IntN(len(far))]
	}
	l.Down = best
	l.HasDown = true
	l.SetFeature(l.Down, FeatStairsDown)
	l.SetTerrain(l.Down, Corridor)
}

// carveNetwork joins the up square, the down square and every doorstep into one corridor
// network. Each target is connected to the nearest part of the network by a cheapest path
// over a random cost field, which makes the corridors wander instead of running straight.
func (g *generator) carveNetwork(fronts []Pos) {
	l, r := g.l, g.r
	n := l.W * l.H
	g.cost = make([]int, n)
	for i := range g.cost {
		// Mostly cheap with occasional expensive squares: paths bend around the expensive
		// ones, which gives twisty passages but keeps them from growing too long.
		g.cost[i] = 1
		if r.IntN(3) == 0 {
			g.cost[i] = 4 + r.IntN(maxStepCost-3)
		}
	}
	inNet := make([]bool, n)
	inNet[l.idx(l.Up)] = true

	// The way down comes first, so it is the spine of the level, and so no corridor square
	// outside the network (the down square) can stand in the way of a later search.
	targets := slices.Clone(fronts)
	r.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	if l.HasDown {
		targets = append([]Pos{l.Down}, targets...)
	}
	for _, t := range targets {
		if inNet[l.idx(t)] {
			continue
		}
		// A search always succeeds: rooms keep a margin to the boundary and a gap between
		// each other, so rock never gets walled in. (The reachability test checks this.)
		path := g.cheapestPath(t, inNet)
		g.carve(path)
		for _, p := range path {
			inNet[l.idx(p)] = true
		}
	}
}

// carve makes the squares of path corridor and opens the edges between consecutive ones.
// Only those edges open: corridors that merely run side by side keep the wall between them.
func (g *generator) carve(path []Pos) {
	for k, p := range path {
		g.l.SetTerrain(p, Corridor)
		if k > 0 {
			openBetween(g.l, path[k-1], p)
		}
	}
}

// openBetween opens the edge between two orthogonally adjacent squares.
func openBetween(l *Level, a, b Pos) {
	for _, d := range Dirs {
		if a.Step(d) == b {
			l.SetEdge(a, d, EdgeOpen)
			return
		}
	}
}

// cheapestPath runs Dijkstra from start through rock until it reaches a square for which
// goal is true, and returns the path from start to that square, or nil if there is none.
// Rooms are never crossed (they are entered only through their doors), and neither are
// corridor squares that are not goals, so a path joins the corridors only where asked.
//
// Step costs are at most maxStepCost, so the queue is a ring of maxStepCost+1 buckets
// (Dial's algorithm), each worked through first in, first out: no heap, no allocation per
// push, and an order fixed by the pushes alone.
func (g *generator) cheapestPath(start Pos, goal []bool) []Pos {
	l := g.l
	w, h, n := l.W, l.H, l.W*l.H
	terrain, cost := l.terrain, g.cost
	if g.dist == nil {
		g.dist, g.prev, g.mark = make([]int, n), make([]int, n), make([]int, n)
	}
	// A square's dist and prev are valid only if its mark is this search's stamp, which
	// saves clearing them for every search.
	g.stamp++
	dist, prev, mark, stamp := g.dist, g.prev, g.mark, g.stamp
	var ring [maxStepCost + 1][]int
	for k := range ring {
		ring[k] = g.ring[k][:0]
	}
	s := l.idx(start)
	dist[s], prev[s], mark[s] = 0, -1, stamp
	ring[0] = append(ring[0], s)
	pending, end := 1, -1
	for d := 0; pending > 0 && end < 0; d++ {
		b := d % len(ring)
		// The bucket cannot grow while it is worked through (every step costs at least 1),
		// but indexing rather than ranging keeps this correct regardless.
		for k := 0; k < len(ring[b]); k++ {
			i := ring[b][k]
			pending--
			if dist[i] != d {
				continue // superseded by a cheaper route
			}
			if goal[i] {
				end = i
				break
			}
			x, y := i%w, i/w
			// Neighbours in Dirs order: north, east, south, west.
			nbs := [4]int{-1, -1, -1, -1}
			if y > 0 {
				nbs[0] = i - w
			}
			if x < w-1 {
				nbs[1] = i + 1
			}
			if y < h-1 {
				nbs[2] = i + w
			}
			if x > 0 {
				nbs[3] = i - 1
			}
			for _, j := range nbs {
				if j < 0 || (terrain[j] != Rock && !goal[j]) {
					continue
				}
				if nd := d + cost[j]; mark[j] != stamp || nd < dist[j] {
					dist[j], prev[j], mark[j] = nd, i, stamp
					nb := nd % len(ring)
					ring[nb] = append(ring[nb], j)
					pending++
				}
			}
		}
		ring[b] = ring[b][:0]
	}
	g.ring = ring // keep the grown buckets for the next search
	if end < 0 {
		return nil
	}
	var path []Pos
	for i := end; i >= 0; i = prev[i] {
		path = append(path, Pos{i % w, i / w})
	}
	slices.Reverse(path)
	return path
}

// Loop tuning: how many extra passages to add, and the shape of the ones worth adding.
const (
	minLoops, maxLoops = 3, 6
	loopTries          = 12
	loopMinSpan        = 2  // squares apart on the map, at least
	loopMaxSpan        = 12 // and at most
)

// loopDetour is how far apart along the corridors two squares span apart on the map must be
// for a passage between them to be worth adding.
func loopDetour(span int) int { return span + 10 }

// addLoops adds a few passages between corridor squares that are close on the map but far
// apart along the corridors, so the network is not a pure tree: there are alternative routes
// and the adventurer can go round in circles.
func (g *generator) addLoops() {
	l, r := g.l, g.r
	var corr []Pos
	for y := range l.H {
		for x := range l.W {
			if p := (Pos{x, y}); l.Terrain(p) == Corridor {
				corr = append(corr, p)
			}
		}
	}
	goal := make([]bool, l.W*l.H)
	want := minLoops + r.IntN(maxLoops-minLoops+1)
	for try := 0; want > 0 && try < loopTries && len(corr) > 1; try++ {
		a := corr[r.IntN(len(corr))]
		walk := g.walkDistances(a, loopDetour(loopMaxSpan))
		// Candidates are worth it only if the new passage would be a real shortcut; the
		// passage goes to whichever candidate is cheapest to tunnel to.
		var cand []Pos
		for _, b := range corr {
			span := stepsApart(a, b)
			if span >= loopMinSpan && span <= loopMaxSpan && walk[l.idx(b)] >= loopDetour(span) {
				cand = append(cand, b)
				goal[l.idx(b)] = true
			}
		}
		if len(cand) == 0 {
			continue
		}
		path := g.cheapestPath(a, goal)
		for _, b := range cand {
			goal[l.idx(b)] = false
		}
		// A passage that has to wander far round rooms and corridors is no shortcut.
		if path == nil {
			continue
		}
		if span := stepsApart(a, path[len(path)-1]); len(path)-1 > span+span/2+2 {
			continue
		}
		g.carve(path)
		corr = append(corr, path[1:len(path)-1]...)
		want--
	}
}

// walkDistances is the number of steps from a to every square through open edges and doors
// of any kind, counted up to limit; squares farther away or unreachable get limit. The
// slice is scratch space, valid until the next call.
func (g *generator) walkDistances(a Pos, limit int) []int {
	l := g.l
	w, h, n := l.W, l.H, l.W*l.H
	east, south := l.east, l.south
	if g.walk == nil {
		g.walk = make([]int, n)
		g.queue = make([]int, 0, n)
	}
	walk := g.walk
	for i := range walk {
		walk[i] = limit
	}
	// Breadth-first over square indexes; every edge that is not a wall can be passed. The
	// neighbours are spelled out rather than looped over: this runs often.
	queue := append(g.queue[:0], l.idx(a))
	walk[queue[0]] = 0
	for head := 0; head < len(queue); head++ {
		i := queue[head]
		next := walk[i] + 1
		if next >= limit {
			break // breadth-first: everything still queued is as far
		}
		x, y := i%w, i/w
		if j := i - w; y > 0 && south[j] != EdgeWall && walk[j] == limit {
			walk[j] = next
			queue = append(queue, j)
		}
		if j := i + 1; x < w-1 && east[i] != EdgeWall && walk[j] == limit {
			walk[j] = next
			queue = append(queue, j)
		}
		if j := i + w; y < h-1 && south[i] != EdgeWall && walk[j] == limit {
			walk[j] = next
			queue = append(queue, j)
		}
		if j := i - 1; x > 0 && east[j] != EdgeWall && walk[j] == limit {
			walk[j] = next
			queue = append(queue, j)
		}
	}
	g.queue = queue
	return walk
}

// corridorDoors turns a few open edges between corridor squares into plain or secret doors.
func (g *generator) corridorDoors() {
	l, r := g.l, g.r
	for y := range l.H {
		for x := range l.W {
			a := Pos{x, y}
			if l.Terrain(a) != Corridor {
				continue
			}
			for _, d := range [2]Dir{East, South} {
				if l.Terrain(a.Step(d)) != Corridor || l.Edge(a, d) != EdgeOpen {
					continue
				}
				switch f := r.Float64(); {
				case f < pCorrDoor:
					l.SetEdge(a, d, EdgeDoor)
				case f < pCorrDoor+pCorrSecret:
					l.SetEdge(a, d, g.secretKind())
				}
			}
		}
	}
}
