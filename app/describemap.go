package app

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The knight's map in words, for screen-reader mode: what map, map grid, way
// and where say of the levels the knight has seen, its rooms, doors and the way along them.

// mapText describes the knight's map of the level in words: how much of it is known, the
// stairs and other features found, the traps known and the rooms seen, each placed from
// where the knight stands.
func mapText(v world.View) []string {
	if v.Outside() {
		return surfaceMapText(v) // surface.go
	}
	l, p := v.Level, v.Self.Pos
	total, seen := 0, 0
	var features []string
	rooms := map[int]bool{}
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			if l.Terrain(q) == world.Rock {
				continue
			}
			total++
			if !known(v, q) {
				continue
			}
			seen++
			if f := l.Feature(q); f != world.FeatNone {
				features = append(features, fmt.Sprintf("the %s, %s", f, place(p, q)))
			}
			if r := l.RoomAt(q); r >= 0 {
				rooms[r] = true
			}
		}
	}
	out := []string{fmt.Sprintf("Your map of level %d: you have seen %d of its %d squares.", v.Self.Depth, seen, total)}
	if len(features) > 0 {
		out = append(out, "Found: "+strings.Join(features, "; ")+".")
	}
	var traps []string
	for _, t := range v.Traps {
		traps = append(traps, place(p, t))
	}
	if len(traps) > 0 {
		out = append(out, "Known traps: "+strings.Join(traps, "; ")+".")
	}
	if len(v.FoundDoors) > 0 {
		out = append(out, fmt.Sprintf("Secret doors found: %d.", len(v.FoundDoors)))
	}
	var rs []string
	for n, r := range slices.Sorted(maps.Keys(rooms)) {
		rr := l.Rooms[r]
		mid := world.Pos{X: rr.X + rr.W/2, Y: rr.Y + rr.H/2}
		w := fmt.Sprintf("room %d, %d by %d, its middle %s", n+1, rr.W, rr.H, place(p, mid))
		if l.RoomAt(p) == r {
			w = fmt.Sprintf("room %d, %d by %d, the one you are in", n+1, rr.W, rr.H)
		}
		if ds := roomDoors(v, r); len(ds) > 0 {
			w += ", with " + english.List(ds)
		}
		rs = append(rs, w)
	}
	if len(rs) > 0 {
		out = append(out, fmt.Sprintf("Rooms seen, %d: %s.", len(rs), strings.Join(rs, "; ")))
	}
	if ds := corridorDoors(v); len(ds) > 0 {
		out = append(out, "Doors in the corridors: "+strings.Join(ds, "; ")+".")
	}
	out = append(out, openingsText(v))
	return append(out, "Type way exit, way up, way down, or way room and a room's number, for the way there along what you know; map grid for a picture of it in plain characters.")
}

// mapGrid draws the known part of the level in plain ASCII, one line per row of squares
// and one per row of edges, after a legend (gridLegend): + corners, - and | walls, D
// doors, L locked doors, B a wall marked with a box, @ the knight, < > stairs, E the
// exit, C a chute, P a pit, ^ a known trap, # a room's floor, . a corridor's; unknown
// squares are blank.
func mapGrid(v world.View) []string {
	if v.Outside() {
		return surfaceMapGrid(v) // surface.go
	}
	l := v.Level
	x0, y0, x1, y1 := l.W, l.H, -1, -1
	for y := range l.H {
		for x := range l.W {
			if known(v, world.Pos{X: x, Y: y}) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return []string{"Your map of this level is empty."}
	}
	traps := map[world.Pos]bool{}
	for _, t := range v.Traps {
		traps[t] = true
	}
	edge := func(q world.Pos, d world.Dir, wall byte) byte {
		n := q.Step(d)
		if !known(v, q) && !known(v, n) {
			return ' '
		}
		if !l.In(q) {
			q, d = n, d.Opposite()
		}
		switch seenEdge(v, q, d) {
		case world.EdgeOpen:
			return ' '
		case world.EdgeDoor:
			return 'D'
		case world.EdgeLocked:
			return 'L'
		case world.EdgeSecretMarked:
			return 'B'
		}
		return wall
	}
	out := []string{fmt.Sprintf("Map of level %d, columns %d to %d, rows %d to %d, north at the top.", v.Self.Depth, x0+1, x1+1, y0+1, y1+1), gridLegend}
	for y := y0; y <= y1+1; y++ {
		var top, mid strings.Builder
		for x := x0; x <= x1; x++ {
			q := world.Pos{X: x, Y: y}
			top.WriteByte('+')
			top.WriteByte(edge(q, world.North, '-'))
			if y > y1 {
				continue
			}
			mid.WriteByte(edge(q, world.West, '|'))
			mid.WriteByte(squareChar(v, q, traps))
		}
		top.WriteByte('+')
		out = append(out, strings.TrimRight(top.String(), " "))
		if y <= y1 {
			mid.WriteByte(edge(world.Pos{X: x1, Y: y}, world.East, '|'))
			out = append(out, strings.TrimRight(mid.String(), " "))
		}
	}
	return out
}

// squareChar is one square of mapGrid.
func squareChar(v world.View, q world.Pos, traps map[world.Pos]bool) byte {
	l := v.Level
	switch {
	case !known(v, q):
		return ' '
	case q == v.Self.Pos:
		return '@'
	case traps[q]:
		return '^'
	}
	switch l.Feature(q) {
	case world.FeatExit:
		return 'E'
	case world.FeatStairsUp:
		return '<'
	case world.FeatStairsDown:
		return '>'
	case world.FeatChute:
		return 'C'
	case world.FeatPit:
		return 'P'
	}
	if l.Terrain(q) == world.Room {
		return '#'
	}
	return '.' // known floor of a corridor, apart from the unknown
}

// gridLegend says what mapGrid's characters mean.
const gridLegend = "Legend: @ you; # a room's floor; . a corridor's; blank, not known; + corners; - and | walls; " +
	"D a door; L a locked door; B a wall marked with a box; E the exit; < stairs up; > stairs down; C a chute; P a pit; ^ a known trap."

// knownRooms are the rooms on the knight's map, numbered from 1 in this order by map and
// way.
func knownRooms(v world.View) []int {
	l := v.Level
	rooms := map[int]bool{}
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			if r := l.RoomAt(q); r >= 0 && known(v, q) {
				rooms[r] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(rooms))
}

// wayText is the way command: the route along the knight's map to the exit, the stairs
// up or down, or a room it has seen (world.Level.Route), in steps: "West 1 through the
// door, south 4, east 7."
func wayText(v world.View, args []string) string {
	if v.Outside() || v.Level == nil {
		return "You are outside the dungeon: map says where everything is."
	}
	l := v.Level
	const ask = "Way where? way exit, way up, way down, way room and a number from map, or way on for the nearest unexplored opening."
	if len(args) == 0 {
		return ask
	}
	var goal func(world.Pos) bool
	what := ""
	switch w := strings.ToLower(args[0]); {
	case w == "exit" || w == "out" || w == "up":
		goal = func(q world.Pos) bool { f := l.Feature(q); return f == world.FeatExit || f == world.FeatStairsUp }
		what = "the stairs up"
		if v.Self.Depth == 1 {
			what = "the exit"
		}
	case w == "on" || w == "explore" || w == "unexplored" || w == "new":
		return nearestOpeningText(v)
	case w == "down":
		goal = func(q world.Pos) bool { return l.Feature(q) == world.FeatStairsDown }
		what = "the stairs down"
	case w == "room" && len(args) > 1:
		n, err := strconv.Atoi(args[1])
		rooms := knownRooms(v)
		if err != nil || n < 1 || n > len(rooms) {
			return fmt.Sprintf("You know %s on this level; map numbers them.", english.Count(len(rooms), "room"))
		}
		r := rooms[n-1]
		goal = func(q world.Pos) bool { return l.RoomAt(q) == r }
		what = fmt.Sprintf("room %d", n)
	default:
		return ask
	}
	steps, ok := l.Route(v.Known, v.FoundDoors, v.Self.Pos, func(q world.Pos) bool { return known(v, q) && goal(q) })
	switch {
	case !ok:
		return fmt.Sprintf("You know no way to %s yet. %s", what, nearestOpeningText(v))
	case len(steps) == 0:
		return fmt.Sprintf("You are at %s.", what)
	}
	return fmt.Sprintf("The way to %s: %s.", what, routeWords(steps))
}

// routeWords says a route as runs of steps, a door ending its run: "west 1 through the
// door, south 4, east 7".
func routeWords(steps []world.RouteStep) string {
	var parts []string
	for i := 0; i < len(steps); {
		d, n, through := steps[i].Dir, 0, ""
		for i < len(steps) && steps[i].Dir == d && through == "" {
			switch steps[i].Edge {
			case world.EdgeDoor:
				through = " through the door"
			case world.EdgeLocked:
				through = " through the locked door (open forces it)"
			case world.EdgeSecret, world.EdgeSecretMarked:
				through = " through the secret door you found (open goes through it)"
			}
			n++
			i++
		}
		parts = append(parts, fmt.Sprintf("%s %d%s", d, n, through))
	}
	return english.Capital(strings.Join(parts, ", "))
}

// whereText is the where command: the knight's square, and the three nearest landmarks
// on its map (the exit, stairs, chutes, pits, doors), by how far they lie.
func whereText(v world.View) string {
	l, p := v.Level, v.Self.Pos
	type mark struct {
		what string
		q    world.Pos
		side string // a door's side of its square
	}
	var marks []mark
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			if !known(v, q) {
				continue
			}
			if f := l.Feature(q); f != world.FeatNone && q != p {
				marks = append(marks, mark{"the " + f.String(), q, ""})
			}
			for _, d := range []world.Dir{world.East, world.South} {
				if w := edgeWord(seenEdge(v, q, d)); w != "" {
					marks = append(marks, mark{w, q, d.String()})
				}
			}
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return steps(p, a.q) - steps(p, b.q) })
	var ws []string
	for _, mk := range marks[:min(3, len(marks))] {
		where := "where you stand"
		if mk.q != p {
			where = rel(p, mk.q)
		}
		if mk.side != "" {
			where = fmt.Sprintf("on the %s side of the square %s", mk.side, strings.TrimPrefix(where, "where "))
			if mk.q == p {
				where = fmt.Sprintf("on your square's %s side", mk.side)
			}
		}
		ws = append(ws, mk.what+", "+where)
	}
	s := fmt.Sprintf("You are on level %d, column %d, row %d.", v.Self.Depth, p.X+1, p.Y+1)
	if len(ws) == 0 {
		return fmt.Sprintf("%s Your map has no landmarks yet: you have seen %s of this level. %s", s, squares(knownSquares(v)), nearestOpeningText(v))
	}
	return s + " Nearest on your map: " + strings.Join(ws, "; ") + "."
}

// knownSquares counts the squares on the knight's map.
func knownSquares(v world.View) int {
	n := 0
	for i := range v.Level.W * v.Level.H {
		if world.Bit(v.Known, i) {
			n++
		}
	}
	return n
}

// roomDoors names the doors of room r the knight knows, by wall: "a locked door in its
// north wall".
func roomDoors(v world.View, r int) []string {
	l := v.Level
	rr := l.Rooms[r]
	var out []string
	for y := rr.Y; y < rr.Y+rr.H; y++ {
		for x := rr.X; x < rr.X+rr.W; x++ {
			q := world.Pos{X: x, Y: y}
			if l.RoomAt(q) != r || !known(v, q) {
				continue
			}
			for _, d := range dirWords {
				if n := q.Step(d); l.In(n) && l.RoomAt(n) == r {
					continue
				}
				e := seenEdge(v, q, d)
				if w := edgeWord(e); w != "" && e != world.EdgeSecretMarked {
					if e.IsDoor() && slices.Contains(v.FoundDoors, l.EdgeIndex(q, d)) {
						w = "a secret door found"
					}
					out = append(out, fmt.Sprintf("%s in its %s wall", w, d))
				}
			}
		}
	}
	return out
}

// corridorDoors names the doors the knight knows outside rooms, each placed from it.
func corridorDoors(v world.View) []string {
	l, p := v.Level, v.Self.Pos
	var out []string
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			if !known(v, q) {
				continue
			}
			for _, d := range []world.Dir{world.East, world.South} {
				n := q.Step(d)
				if l.RoomAt(q) >= 0 || (l.In(n) && l.RoomAt(n) >= 0) {
					continue // a room's door: told with its room
				}
				e := seenEdge(v, q, d)
				w := edgeWord(e)
				if w == "" || e == world.EdgeSecretMarked {
					continue
				}
				if slices.Contains(v.FoundDoors, l.EdgeIndex(q, d)) {
					w = "a secret door found"
				}
				out = append(out, fmt.Sprintf("%s on the %s side of the square %s", w, d, place(p, q)))
			}
		}
	}
	return out
}
