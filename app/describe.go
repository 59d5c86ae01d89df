package app

import (
	"fmt"
	"slices"
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
	return thingsSaid(v, full, nil)
}

// thingsSaid is thingSentences with the features and known traps for which old holds
// left out (nil: none): a brief step does not say again what the last step said.
func thingsSaid(v world.View, full bool, old func(q world.Pos) bool) []string {
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
			if q == p || !visible(v, q) || old != nil && old(q) {
				continue
			}
			if f := l.Feature(q); f != world.FeatNone {
				out = append(out, featureThere(f, rel(p, q)))
			}
		}
	}
	for _, t := range v.Traps {
		if visible(v, t) && (old == nil || !old(t)) {
			out = append(out, "A known trap: "+rel(p, t)+".")
		}
	}

	return out
}

// shadowSentences say what the knight's light shows beyond its sight (View.Shadows): a
// guard's hoard as treasure, a monster by its shadow ("Your light shows treasure 2
// north and 1 east, beyond your sight."). With prev set, only the
// treasure prev did not show: a step says a hoard once, when the light first reaches
// it, and not the shadows that move with every turn.
func shadowSentences(v world.View, prev *world.View) []string {
	var out []string
	for _, sh := range v.Shadows {
		what := "treasure"
		if !sh.Treasure {
			if prev != nil {
				continue
			}
			what = "the shadow of a monster"
			for _, k := range world.Monsters {
				if k.Glyph == sh.Glyph {
					what = "the shadow of " + english.A(k.Name)
				}
			}
		} else if prev != nil && slices.Contains(prev.Shadows, sh) {
			continue
		}
		out = append(out, fmt.Sprintf("Your light shows %s %s, beyond your sight.", what, rel(v.Self.Pos, sh.Pos)))
	}
	return out
}

// newTreasure reports whether v's light shows a hoard that prev's did not.
func newTreasure(prev, v world.View) bool {
	for _, sh := range v.Shadows {
		if sh.Treasure && !slices.Contains(prev.Shadows, sh) {
			return true
		}
	}
	return false
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
	out = append(out, thingSentences(v, full)...)
	return append(out, shadowSentences(v, nil)...)
}

// stepText is what a move says: the new place, briefly; a room's doors when the knight
// has just come into it, or come to another level.
func (m *Model) stepText(prev, v world.View) []string {
	entered := v.Outside() != prev.Outside() || v.Self.Depth != prev.Self.Depth
	if !v.Outside() && !entered {
		r := v.Level.RoomAt(v.Self.Pos)
		entered = r >= 0 && (prev.Level == nil || prev.Level.RoomAt(prev.Self.Pos) != r)
	}
	var out []string
	var old func(world.Pos) bool
	if d, ok := stepDir(prev, v); ok && !entered && !m.opts.Verbose && !v.Outside() {
		out = briefStep(v, d)
		// What the last step saw is not said again, unless the knight is beside it.
		old = func(q world.Pos) bool { return visible(prev, q) && steps(v.Self.Pos, q) > 1 }
	} else {
		out = whereSentences(v, entered)
	}
	if f := fightSentence(v); f != "" {
		out = append(out, f)
	}
	out = append(out, thingsSaid(v, entered, old)...)
	if old != nil {
		return append(out, shadowSentences(v, &prev)...)
	}
	return append(out, shadowSentences(v, nil)...)
}

// stepDir is the way of a step of one square from prev to v, on one level.
func stepDir(prev, v world.View) (world.Dir, bool) {
	if prev.Self.Depth != v.Self.Depth {
		return 0, false
	}
	for _, d := range dirWords {
		if prev.Self.Pos.Step(d) == v.Self.Pos {
			return d, true
		}
	}
	return 0, false
}

// briefStep is what a step that changes little says in the brief style (the default;
// Options.Verbose says it in full): its way and where the way goes on, the doors at hand
// and the feature underfoot: "East. Passage goes on north and east." At 175 words a
// minute a listener hears it in two seconds, where the full description takes ten.
func briefStep(v world.View, d world.Dir) []string {
	l, p := v.Level, v.Self.Pos
	s := english.Capital(d.String()) + "."
	if l.RoomAt(p) >= 0 {
		s += " " + roomPlace(p, l.Rooms[l.RoomAt(p)])
	} else {
		var on []string
		for _, o := range openSides(v, p) {
			if o != d.Opposite() {
				on = append(on, o.String())
			}
		}
		if len(on) == 0 {
			s += " Dead end."
		} else {
			s += " Passage goes on " + english.List(on) + "."
		}
		for _, e := range dirWords {
			if w := edgeWord(seenEdge(v, p, e)); w != "" {
				s += fmt.Sprintf(" %s is to the %s.", english.Capital(w), e)
			}
		}
	}
	out := []string{s}
	if f := featureSentence(v.Self.Feature); f != "" {
		out = append(out, f)
	}
	return out
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
	return append(out, deedsSaid(s)...)
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
		if i >= listLetters {
			break
		}
		w := fmt.Sprintf("%c: %s", listLetter(i), it.Name())
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
