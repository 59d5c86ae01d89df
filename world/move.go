package world

import "fmt"

// Moving in the dungeon: a step (through walls, doors, secret and locked doors), the
// stairs and the exit, and placing a knight on a square, where every way of moving ends.

// Move steps one square. Door is set for shift+direction (or d, then a direction): only
// then does the knight open, force or search for a door (seed 000: "you can open doors").
type Move struct {
	Dir  Dir
	Door bool
}

func (Move) isCommand() {}

// Climb takes the stairs the adventurer stands on, or the exit on level 1 (Down false).
type Climb struct{ Down bool }

func (Climb) isCommand() {}

func (e *Engine) move(p *player, m Move) float64 {
	l := e.levels[p.rec.Depth-1]
	from := p.rec.Pos()
	cost := MoveCost(e.speed(p))
	if passed, spent := e.passEdge(p, l, from, m, cost); !passed {
		return spent
	}
	to := from.Step(m.Dir)
	p.prev = from
	p.lastFight = nil
	e.place(p, p.rec.Depth, to)
	e.stepOnto(p, l, to)
	if e.players[p.rec.ID] == p {
		// Counted after the square has acted, so a lasting spell works on every move
		// of its duration: Levitation floats over a pit on its 12th, Find Traps senses
		// on its 6th.
		e.countMove(p)
	}
	return cost
}

// The lines of a step refused, one a direction (as Dir names it), made once: a knight
// walking into walls is told several times a second, and its log then holds one string
// for each, not a copy a line.
var (
	searchedLines = dirLines("You search the wall to the %s but find no door.")
	wallLines     = dirLines("A wall blocks the way %s.")
	lockedLines   = dirLines("A locked door blocks the way %s. Shift+arrow (or d, then a direction) tries to break it down.")
	doorLines     = dirLines("A door blocks the way %s. Shift+arrow (or d, then a direction) opens it.")
)

// dirLines is format said of each direction, by the direction's two low bits (Dir.String).
func dirLines(format string) (lines [4]string) {
	for _, d := range Dirs {
		lines[d&3] = fmt.Sprintf(format, d)
	}
	return lines
}

// passEdge crosses the edge of from in m's direction, or says why not: passed is whether
// the knight steps through, spent what a refused try cost (a search, a locked door that
// holds; a bump costs nothing).
func (e *Engine) passEdge(p *player, l *Level, from Pos, m Move, cost float64) (passed bool, spent float64) {
	edge := l.Edge(from, m.Dir)
	switch {
	case edge == EdgeOpen:
	case p.passWall && (edge == EdgeWall || edge.IsSecret()) && l.Terrain(from.Step(m.Dir)) != Rock:
		// Seed 000, Pass Wall: "Allows you to pass through any wall."
		p.passWall = false
		e.say(p, "You pass through the wall.")
	case edge == EdgeWall || (edge.IsSecret() && !m.Door):
		if m.Door {
			e.say(p, searchedLines[m.Dir&3])
			return false, cost
		}
		e.say(p, wallLines[m.Dir&3])
		return false, 0
	case !m.Door && edge == EdgeLocked:
		e.say(p, lockedLines[m.Dir&3])
		return false, 0
	case !m.Door:
		e.say(p, doorLines[m.Dir&3])
		return false, 0
	case edge == EdgeLocked:
		return e.forceDoor(p, l, from, m.Dir), cost
	case edge.IsSecret():
		e.findDoor(p, l.EdgeIndex(from, m.Dir))
		e.say(p, "You found a secret door!")
	}
	return true, 0
}

// forceDoor is a knight's try at a locked door. Seed 000: Strength "determines your
// ability to open up doors". A knight breaks a locked door with chance Str in 20; a broken
// door stays open for everyone.
func (e *Engine) forceDoor(p *player, l *Level, from Pos, d Dir) bool {
	if e.rng.IntN(20) >= e.str(p) {
		e.say(p, "You throw yourself at the locked door. It holds.")
		return false
	}
	l.SetEdge(from, d, EdgeDoor)
	st := &e.state[l.Depth-1]
	st.broken = append(st.broken, l.EdgeIndex(from, d))
	st.changed = true
	e.snaps[l.Depth-1] = nil
	e.touchLevel(l.Depth)
	e.say(p, "You break the locked door down!")
	return true
}

// stepOnto is what the square a knight has just stepped onto does to it. Seed 000: rooms
// are "where the treasure and monsters are hidden"; stepping into a guarded room, or onto
// a wanderer, starts a fight, unless the knight is invisible: invisibility keeps monsters
// off ("You are safe from attack") and nothing else, so pits, chutes and traps act on an
// invisible knight as on any other (only levitation floats over pits and chutes).
func (e *Engine) stepOnto(p *player, l *Level, to Pos) {
	if e.meetMonsters(p, l, to) {
		return
	}
	if e.fallThrough(p, false) {
		return
	}
	e.springTrap(p)
	if _, ok := e.players[p.rec.ID]; !ok || p.rec.Pos() != to {
		return // the trap killed the knight or carried it off
	}
	if p.has(SpellFindTraps) {
		e.findTraps(p, false)
	}
	switch l.Feature(to) {
	case FeatExit:
		e.say(p, "The exit is here. Press < to climb out of the dungeon.")
	case FeatStairsUp:
		e.say(p, "Stairs lead up from here. Press < to climb them.")
	case FeatStairsDown:
		e.say(p, "Stairs lead down from here. Press > to descend.")
	}
}

// meetMonsters starts the fight with the guard of the room the knight stepped into, or
// with a wanderer on its square, and reports whether one started. An invisible knight is
// not noticed: it is told when a room's guard cannot see it.
func (e *Engine) meetMonsters(p *player, l *Level, to Pos) bool {
	r := l.RoomAt(to)
	var g *monster
	if r >= 0 {
		g = e.roomGuard(l.Depth, r)
	}
	if e.invisible(p) {
		if g != nil {
			e.say(p, "A monster guards this room, but it cannot see you.")
		}
		return false
	}
	if g == nil {
		g = e.monsterAt(l.Depth, to)
	}
	if g != nil {
		e.startFight(p, g)
		return true
	}
	return false
}

func (e *Engine) findDoor(p *player, edge int) {
	m := &p.rec.Maps[p.mapIdx]
	for _, d := range m.Doors {
		if d == edge {
			return
		}
	}
	m.Doors = append(m.Doors, edge)
}

func (e *Engine) climb(p *player, down bool) float64 {
	l := e.levels[p.rec.Depth-1]
	pos := p.rec.Pos()
	cost := MoveCost(e.speed(p))
	switch f := l.Feature(pos); {
	case down && f == FeatChute:
		e.fallThrough(p, true) // a levitating knight chooses to use the chute
	case down && f == FeatStairsDown:
		next := e.levels[p.rec.Depth]
		e.place(p, p.rec.Depth+1, next.Up)
		e.say(p, fmt.Sprintf("You descend to level %d.", p.rec.Depth))
	case !down && f == FeatStairsUp:
		prev := e.levels[p.rec.Depth-2]
		e.place(p, p.rec.Depth-1, prev.Down)
		e.say(p, fmt.Sprintf("You climb up to level %d.", p.rec.Depth))
	case !down && f == FeatExit:
		e.place(p, 0, e.outside.grid.Entrance)
		e.say(p, "You climb out of the dungeon into the daylight. Press > to go back down.")
		e.successfulExit(p)
	default:
		if down {
			e.say(p, "There are no stairs down here.")
		} else {
			e.say(p, "There are no stairs up here.")
		}
		return 0
	}
	return cost
}

// place moves the player to pos on depth (0 is the surface) and refreshes everyone
// affected. Ruling: whoever comes up out of the dungeon (by the exit, or through the
// ceiling of level 1) stands on the surface's entrance, whatever pos says.
func (e *Engine) place(p *player, depth int, pos Pos) {
	oldDepth, oldPos := p.rec.Depth, p.rec.Pos()
	if depth == 0 && oldDepth != 0 {
		pos = e.outside.grid.Entrance
	}
	p.rec.Depth, p.rec.X, p.rec.Y = depth, pos.X, pos.Y
	e.stand(p)
	p.rec.reached(depth, e.cfg.Week)
	if depth != oldDepth {
		e.levelsChanged()
	} else {
		e.positionsChanged()
	}
	p.changed, p.dirty = true, true
	if oldDepth == 0 && depth != 0 {
		e.moved(p, 0, oldPos, oldPos) // those outside see it go
	}
	if depth == 0 {
		if oldDepth > 0 {
			e.moved(p, oldDepth, oldPos, oldPos) // those who saw it leave
			e.state[oldDepth-1].changed = true   // save it once more as the knight leaves it
		}
		e.arriveOnSurface(p)
		if oldDepth == 0 {
			e.moved(p, 0, oldPos, p.rec.Pos()) // those outside see it move
		} else {
			e.moved(p, 0, p.rec.Pos(), p.rec.Pos()) // those outside see it come
		}
		return
	}
	if depth == oldDepth {
		e.look(p)
		e.moved(p, depth, oldPos, pos)
		return
	}
	if oldDepth > 0 {
		e.moved(p, oldDepth, oldPos, oldPos) // those who saw it leave
		e.state[oldDepth-1].changed = true   // save it once more as the knight leaves it
	}
	e.arrive(p)
	e.earnDepth(p)              // whatever the way down: stairs, a chute, a pit, a spell
	e.keepSafe(p)               // a new level, whatever the way in: read before anything attacks
	e.moved(p, depth, pos, pos) // those who see it arrive
}

// successfulExit is seed 000's reward for leaving the dungeon alive: "Level only increases
// on successful exit from the dungeon. When your level increases, spells and hits also
// increase. Additional hits are determined by the roll of an eight-sided die, modified by
// your constitution." and "When you make a successful exit from the dungeon, your spell
// units are replenished." Ruling: a rest in the daylight also heals every wound.
func (e *Engine) successfulExit(p *player) {
	r := &p.rec
	first := r.Level == 1
	for lvl := LevelForExperience(r.Experience); r.Level < lvl; {
		r.Level++
		gain := max(1, 1+e.rng.IntN(8)+ConBonus(r.Con))
		r.MaxHits += gain
		e.say(p, fmt.Sprintf("You have reached level %d! (+%d hits)", r.Level, gain))
	}
	if first && r.Level > 1 {
		e.proclaim(p, TidingFirstLevel)
		e.earn(p, DeedFirstLevel)
	}
	r.Hits = r.MaxHits
	r.SpellUnits = SpellUnitsForLevel(r.Level)
	e.dropEffects(p, func(ef Effect) bool { return ef.Moves == DurationTrip })
	p.changed = true
	e.saveNow(p) // a level gained is saved at once
}

// nearestOpen is the non-rock square of a level closest to p (p itself if it is open).
func (e *Engine) nearestOpen(depth int, p Pos) Pos {
	l := e.levels[depth-1]
	bestPos, bestD := l.Up, 1<<30
	for y := range l.H {
		for x := range l.W {
			q := Pos{x, y}
			if l.Terrain(q) == Rock {
				continue
			}
			if d := absInt(q.X-p.X) + absInt(q.Y-p.Y); d < bestD {
				bestPos, bestD = q, d
			}
		}
	}
	return bestPos
}

// randomSquare is a random open square of a level; randomCorridor a random corridor square.
func (e *Engine) randomSquare(depth int) Pos {
	l := e.levels[depth-1]
	for range 1000 {
		q := Pos{e.rng.IntN(l.W), e.rng.IntN(l.H)}
		if l.Terrain(q) != Rock {
			return q
		}
	}
	return l.Up
}

// refuge is where a failed Teleport carries a knight (seed 000: it "fails by teleporting
// you (guaranteeing survival)"): a random open square away from from's room (or from,
// in a corridor), in no room whose guard lives and on no monster, so no fight waits
// there; the level's up stairs if a thousand draws find none.
func (e *Engine) refuge(depth int, from Pos) Pos {
	l := e.levels[depth-1]
	for range 1000 {
		q := e.randomSquare(depth)
		r := l.RoomAt(q)
		switch {
		case q == from, r >= 0 && r == l.RoomAt(from), r >= 0 && e.roomGuard(depth, r) != nil, e.monsterAt(depth, q) != nil:
			continue
		}
		return q
	}
	return l.Up
}

func (e *Engine) randomCorridor(depth int) Pos {
	l := e.levels[depth-1]
	for range 1000 {
		q := Pos{e.rng.IntN(l.W), e.rng.IntN(l.H)}
		if l.Terrain(q) == Corridor {
			return q
		}
	}
	return l.Up
}
