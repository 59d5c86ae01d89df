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

// The game in words, for screen-reader mode: where the knight stands, what it sees, its
// status, its map. Every function here reads one immutable view and returns sentences;
// none draws anything.

// dirWords are the directions in the order sentences list them.
var dirWords = []world.Dir{world.North, world.South, world.East, world.West}

// squares is "1 square" or "n squares".
func squares(n int) string { return english.Count(n, "square") }

// rel says where square q lies from square p: "here", "2 squares north", "3 east and 1
// north".
func rel(p, q world.Pos) string {
	dx, dy := q.X-p.X, q.Y-p.Y
	type step struct {
		n   int
		dir string
	}
	var parts []step
	if dy < 0 {
		parts = append(parts, step{-dy, "north"})
	} else if dy > 0 {
		parts = append(parts, step{dy, "south"})
	}
	if dx > 0 {
		parts = append(parts, step{dx, "east"})
	} else if dx < 0 {
		parts = append(parts, step{-dx, "west"})
	}
	switch len(parts) {
	case 0:
		return "here"
	case 1:
		return squares(parts[0].n) + " " + parts[0].dir
	}
	return fmt.Sprintf("%d %s and %d %s", parts[0].n, parts[0].dir, parts[1].n, parts[1].dir)
}

// seenEdge is the edge on side d of p as the knight knows it: secret doors are walls
// until found (or lit), and a marked one is a wall with a box in it (seed 000).
func seenEdge(v world.View, p world.Pos, d world.Dir) world.Edge {
	e := v.Level.Edge(p, d)
	if e.IsSecret() && (v.Self.Light || slices.Contains(v.FoundDoors, v.Level.EdgeIndex(p, d))) {
		return world.EdgeDoor
	}
	if e == world.EdgeSecret {
		return world.EdgeWall
	}
	return e
}

// edgeWord names a door the knight can see, or "" for a wall or an opening.
func edgeWord(e world.Edge) string {
	switch e {
	case world.EdgeDoor:
		return "a door"
	case world.EdgeLocked:
		return "a locked door"
	case world.EdgeSecretMarked:
		return "a wall marked with a box"
	}
	return ""
}

// visible reports whether the knight sees square q now.
func visible(v world.View, q world.Pos) bool {
	return v.Level.In(q) && world.Bit(v.Visible, q.Y*v.Level.W+q.X)
}

// known reports whether square q is on the knight's map.
func known(v world.View, q world.Pos) bool {
	return v.Level.In(q) && world.Bit(v.Known, q.Y*v.Level.W+q.X)
}

// featureSentence says what the knight stands on, and how to use it.
func featureSentence(f world.Feature) string {
	switch f {
	case world.FeatExit:
		return "You stand on the exit: up leaves the dungeon."
	case world.FeatStairsUp:
		return "You stand on the stairs up: up climbs them."
	case world.FeatStairsDown:
		return "You stand on the stairs down: down takes them."
	case world.FeatChute:
		return "You stand on a chute."
	case world.FeatPit:
		return "You stand by a pit."
	}
	return ""
}

// featureThere says where a feature the knight sees lies.
func featureThere(f world.Feature, where string) string {
	switch f {
	case world.FeatExit:
		return "The exit is " + where + "."
	case world.FeatStairsUp, world.FeatStairsDown:
		return english.Capital(f.String()) + " are " + where + "."
	}
	return english.Capital(english.A(f.String())) + " is " + where + "."
}

// corridorShape says where in a corridor the knight stands, from the open sides of its
// square: "in a corridor running north and south", "at a dead end; the corridor goes
// west".
func corridorShape(open []world.Dir) string {
	names := make([]string, len(open))
	for i, d := range open {
		names[i] = d.String()
	}
	switch len(open) {
	case 0:
		return "at a closed end of a corridor"
	case 1:
		return "at a dead end; the corridor goes " + names[0]
	case 2:
		if open[0].Opposite() == open[1] {
			return "in a corridor running " + names[0] + " and " + names[1]
		}
		return "at a bend in a corridor, going " + names[0] + " and " + names[1]
	}
	return "at a junction of corridors, going " + english.List(names)
}

// openSides are the sides of p with no wall or door, in sentence order.
func openSides(v world.View, p world.Pos) []world.Dir {
	var open []world.Dir
	for _, d := range dirWords {
		if v.Level.Edge(p, d) == world.EdgeOpen {
			open = append(open, d)
		}
	}
	return open
}

// sightAlong counts the squares the knight sees from p going d, and whether the last of
// them is in a room.
func sightAlong(v world.View, p world.Pos, d world.Dir) (n int, room bool) {
	for q := p; v.Level.Edge(q, d) == world.EdgeOpen; {
		q = q.Step(d)
		if !visible(v, q) {
			break
		}
		n++
		if v.Level.Terrain(q) == world.Room {
			return n, true
		}
	}
	return n, false
}

// whereSentences say where the knight is: in a corridor (its shape, the doors at hand and
// how far it sees) or in a room (its size, where in it the knight stands and its doors).
// With full unset, a room's doors are left out.
func whereSentences(v world.View, full bool) []string {
	s := v.Self
	if v.Outside() && v.Surface != nil && v.Surface.Map != nil {
		return surfaceWhere(v, full) // surface.go
	}
	if v.Outside() {
		return []string{"You stand in the daylight outside the dungeon of Orthanc. Type down to climb back in, retire to retire into the hall of fame, or quit to rest here."}
	}
	l, p := v.Level, s.Pos
	var out []string
	if r := l.RoomAt(p); r >= 0 {
		rr := l.Rooms[r]
		out = append(out, fmt.Sprintf("You are on level %d, in a room %d squares wide and %d deep.", s.Depth, rr.W, rr.H))
		out = append(out, roomPlace(p, rr))
		if full {
			out = append(out, roomExits(v, r))
		}
	} else {
		open := openSides(v, p)
		out = append(out, fmt.Sprintf("You are on level %d, %s.", s.Depth, corridorShape(open)))
		for _, d := range dirWords {
			if w := edgeWord(seenEdge(v, p, d)); w != "" {
				out = append(out, fmt.Sprintf("%s is to the %s.", english.Capital(w), d))
			}
		}
		var sight []string
		for _, d := range open {
			if n, room := sightAlong(v, p, d); n > 0 {
				w := fmt.Sprintf("%s %s", squares(n), d)
				if room {
					w += " into a room"
				}
				sight = append(sight, w)
			}
		}
		if len(sight) > 0 {
			out = append(out, "You see "+english.List(sight)+".")
		}
	}
	if f := featureSentence(s.Feature); f != "" {
		out = append(out, f)
	}
	return out
}

// roomPlace says where in its room the knight stands.
func roomPlace(p world.Pos, rr world.RoomRect) string {
	// nearest is the nearer wall of two and how far it is.
	nearest := func(near, far int, nearName, farName string) (string, int) {
		if near <= far {
			return nearName, near
		}
		return farName, far
	}
	ns, dns := nearest(p.Y-rr.Y, rr.Y+rr.H-1-p.Y, "north", "south")
	ew, dew := nearest(p.X-rr.X, rr.X+rr.W-1-p.X, "west", "east")
	switch {
	case dns == 0 && dew == 0:
		return fmt.Sprintf("You stand in its %s-%s corner.", ns, ew)
	case dns == 0:
		return fmt.Sprintf("You stand against its %s wall, %s from the %s wall.", ns, squares(dew), ew)
	case dew == 0:
		return fmt.Sprintf("You stand against its %s wall, %s from the %s wall.", ew, squares(dns), ns)
	}
	return fmt.Sprintf("You stand %s from the %s wall and %s from the %s wall.", squares(dns), ns, squares(dew), ew)
}

// roomExits lists the doors and openings in the walls of room r, each placed from the
// knight: "a locked door in the north wall, 2 east of you".
func roomExits(v world.View, r int) string {
	l, p := v.Level, v.Self.Pos
	rr := l.Rooms[r]
	var exits []string
	for y := rr.Y; y < rr.Y+rr.H; y++ {
		for x := rr.X; x < rr.X+rr.W; x++ {
			q := world.Pos{X: x, Y: y}
			if l.RoomAt(q) != r {
				continue
			}
			for _, d := range dirWords {
				if n := q.Step(d); l.In(n) && l.RoomAt(n) == r {
					continue
				}
				e := seenEdge(v, q, d)
				w := edgeWord(e)
				if e == world.EdgeOpen && l.In(q.Step(d)) {
					w = "an opening"
				}
				if w == "" {
					continue
				}
				where := "where you stand"
				if q != p {
					where = rel(p, q) + " of you"
				}
				exits = append(exits, fmt.Sprintf("%s in the %s wall, %s", w, d, where))
			}
		}
	}
	if len(exits) == 0 {
		return "You see no way out but walls."
	}
	return "Ways out: " + strings.Join(exits, "; ") + "."
}

// thingSentences say what the knight sees besides the walls: monsters, other knights,
// stairs and other features, known traps; and, with full set, the knights elsewhere on
// the level.
func thingSentences(v world.View, full bool) []string {
	if v.Outside() && v.Surface != nil {
		return surfaceThings(v, full) // surface.go
	}
	if v.Outside() {
		var with []string
		for _, o := range v.InSight() {
			with = append(with, o.Name)
		}
		if len(with) > 0 {
			return []string{"With you in the daylight: " + english.List(with) + "."}
		}
		return nil
	}
	p := v.Self.Pos
	var out []string
	for _, mo := range v.Monsters {
		out = append(out, english.Capital(english.A(mo.Name))+" is "+place(p, mo.Pos)+".")
	}
	for _, o := range v.InSight() {
		out = append(out, o.Name+" is "+place(p, o.Pos)+".")
	}
	l := v.Level
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			if q == p || !visible(v, q) {
				continue
			}
			if f := l.Feature(q); f != world.FeatNone {
				out = append(out, featureThere(f, rel(p, q)))
			}
		}
	}
	for _, t := range v.Traps {
		if visible(v, t) {
			out = append(out, "A known trap: "+rel(p, t)+".")
		}
	}

	return out
}

// place is "here" or "2 squares north", as the end of "X is ...".
func place(p, q world.Pos) string {
	if p == q {
		return "here"
	}
	return rel(p, q)
}

// fightSentence says how a battle stands: who fights whom, each monster's hits, the
// knight's target, the fallen and the fainted (battlewords.go).
func fightSentence(v world.View) string { return battleSentence(v) }

// movePrompt is what the knight may do when a battle waits for it, with how the battle
// stands and which monster is its target (battlewords.go). Once the actions have been said in
// a battle, short leaves them out while they stay the same: a screen reader then speaks
// "Your move: your target is the Troll (1), 12 hits. You have 30 of 40 hits." each round,
// not the list of commands again.
func (m *Model) movePrompt(v world.View, short bool) string {
	s := battlePrompt(v)
	if short {
		s = battleStanding(v)
	}
	if f := v.Fight; f != nil && f.GraceLeft > 0 {
		s += " The others wait for you: you have " + strings.TrimSuffix(seconds(f.GraceLeft, m.tick()), " s") + " seconds to choose."
	}
	return s
}

// lookText is the look command: where the knight is and everything it sees. With full
// unset it is what a step says: a room's doors are left out once the knight is in it.
func (m *Model) lookText(v world.View, full bool) []string {
	out := whereSentences(v, full)
	if f := fightSentence(v); f != "" {
		out = append(out, f)
	}
	return append(out, thingSentences(v, full)...)
}

// stepText is what a move says: the new place, briefly; a room's doors when the knight
// has just come into it, or come to another level.
func (m *Model) stepText(prev, v world.View) []string {
	entered := v.Outside() != prev.Outside() || v.Self.Depth != prev.Self.Depth
	if !v.Outside() && !entered {
		r := v.Level.RoomAt(v.Self.Pos)
		entered = r >= 0 && (prev.Level == nil || prev.Level.RoomAt(prev.Self.Pos) != r)
	}
	out := whereSentences(v, entered)
	if f := fightSentence(v); f != "" {
		out = append(out, f)
	}
	return append(out, thingSentences(v, entered)...)
}

// statusText is the status command: the knight's characteristics, hits, spell units,
// experience, gold, spells working and conditions.
func statusText(v world.View) []string {
	s := v.Self
	where := fmt.Sprintf("on level %d of the dungeon", s.Depth)
	if s.Depth == 0 {
		where = "outside the dungeon"
	}
	out := []string{
		fmt.Sprintf("%s, a level %d knight, %s.", s.Name, s.Level, where),
		fmt.Sprintf("Hits %d of %d. Spell units %d. Experience %d (%d from treasure). Gold %d.",
			s.Hits, s.MaxHits, s.SpellUnits, s.Experience, s.TreasureExperience, s.Gold),
		fmt.Sprintf("Strength %d, Intelligence %d, Constitution %d, Dexterity %d.", s.Str, s.Int, s.Con, s.Dex),
	}
	if len(s.Effects) > 0 {
		out = append(out, "Spells working: "+english.List(s.Effects)+".")
	}
	if len(s.Status) > 0 {
		out = append(out, "Conditions: "+english.List(s.Status)+".")
	}
	if len(v.Watchers) > 0 {
		out = append(out, "Watching you: "+english.List(v.Watchers)+".")
	}
	return out
}

// inventoryText lists what the knight carries, each with its letter.
func inventoryText(v world.View) []string {
	s := v.Self
	out := []string{fmt.Sprintf("Gold %d, treasure experience %d.", s.Gold, s.TreasureExperience)}
	if len(s.Items) == 0 {
		return append(out, "You carry nothing else.")
	}
	var items []string
	for i, it := range s.Items {
		if i >= 26 {
			break
		}
		w := fmt.Sprintf("%c: %s", 'a'+i, it.Name())
		if info := it.Info(); info.Wearable && it.Worn {
			w += " (worn)"
		} else if mark := inUseMark(s.Items, i); mark != "" {
			w += " (" + mark + ")"
		}
		items = append(items, w)
	}
	out = append(out, "You carry "+strings.Join(items, "; ")+".")
	return append(out, "Type use and a letter to wear, take off or read a thing; drop and a letter to leave it behind.")
}

// spellsText lists one level's spells (or all four levels' when level is 0).
func spellsText(v world.View, level int) []string {
	fighting := v.Fight != nil
	var out []string
	for l := 1; l <= 4; l++ {
		if level != 0 && l != level {
			continue
		}
		var ws []string
		for i, sp := range world.SpellsOfLevel(l) {
			info := sp.Info()
			when := "walking"
			switch {
			case info.Anytime:
				when = "any time"
			case info.Combat:
				when = "fights"
			}
			w := fmt.Sprintf("%c: %s (%s)", 'a'+i, info.Name, when)
			if !sp.CastableIn(fighting) {
				w += ", not now"
			}
			if level != 0 {
				w += ", " + strings.TrimSuffix(info.Help, ".")
			}
			ws = append(ws, w)
		}
		out = append(out, fmt.Sprintf("Level %d spells, %s each: %s.", l, english.Count(l, "unit"), strings.Join(ws, "; ")))
	}
	out = append(out, fmt.Sprintf("You have %d spell units. Type cast, the level and the letter (cast 1 e), or cast and the name (cast light); ESP takes a direction too.", v.Self.SpellUnits))
	return out
}

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
	return append(out, "Type way exit, way up, way down or way room 2 for the way there along what you know; map grid for a picture of it in plain characters.")
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
	const ask = "Way where? way exit, way up, way down, or way room and a number from map."
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
		return fmt.Sprintf("You know no way to %s yet.", what)
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
		return s + " Your map has no landmarks yet."
	}
	return s + " Nearest on your map: " + strings.Join(ws, "; ") + "."
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
