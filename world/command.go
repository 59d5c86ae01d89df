package world

import "fmt"

// Command is an action a player asks for. It is carried out on the engine goroutine when
// the adventurer's energy allows (seed 003).
type Command interface{ isCommand() }

// Move steps one square. Door is set for shift+direction (or d, then a direction): only
// then does the knight open, force or search for a door (seed 000: "you can open doors").
type Move struct {
	Dir  Dir
	Door bool
}

// Climb takes the stairs the adventurer stands on, or the exit on level 1 (Down false).
type Climb struct{ Down bool }

// Enter goes back down into the dungeon from outside, at the exit of level 1.
type Enter struct{}

func (Move) isCommand()  {}
func (Climb) isCommand() {}
func (Enter) isCommand() {}

// speed is the adventurer's speed in seed 003's sense; spells, boots and weight will move
// it later.
func (e *Engine) speed(*player) int { return 0 }

// act carries out one command and returns its cost in percent of a round; a command that
// does nothing (walking into a wall) costs nothing.
func (e *Engine) act(p *player, c Command) float64 {
	switch c := c.(type) {
	case Move:
		if p.rec.Depth == 0 {
			return 0
		}
		return e.move(p, c)
	case Climb:
		if p.rec.Depth == 0 {
			return 0
		}
		return e.climb(p, c.Down)
	case Enter:
		if p.rec.Depth != 0 {
			return 0
		}
		l := e.levels[0]
		e.place(p, 1, l.Up)
		e.say(p, "You climb back down into the dungeon.")
		return MoveCost(e.speed(p))
	}
	return 0
}

func (e *Engine) move(p *player, m Move) float64 {
	l := e.levels[p.rec.Depth-1]
	from := p.rec.Pos()
	edge := l.Edge(from, m.Dir)
	cost := MoveCost(e.speed(p))
	switch {
	case edge == EdgeOpen:
	case edge == EdgeWall || (edge.IsSecret() && !m.Door):
		if m.Door {
			e.say(p, fmt.Sprintf("You search the wall to the %s but find no door.", m.Dir))
			return cost
		}
		e.say(p, fmt.Sprintf("A wall blocks the way %s.", m.Dir))
		return 0
	case !m.Door:
		e.say(p, fmt.Sprintf("A door blocks the way %s. Shift+arrow (or d, then a direction) opens it.", m.Dir))
		return 0
	case edge == EdgeLocked:
		// Seed 000: Strength "determines your ability to open up doors". A knight breaks a
		// locked door with chance Str in 20; a broken door stays open for everyone.
		if e.rng.IntN(20) >= p.rec.Str {
			e.say(p, "You throw yourself at the locked door. It holds.")
			return cost
		}
		l.SetEdge(from, m.Dir, EdgeDoor)
		e.snaps[l.Depth-1] = nil
		e.touchLevel(l.Depth)
		e.say(p, "You break the locked door down!")
	case edge.IsSecret():
		e.findDoor(p, l.EdgeIndex(from, m.Dir))
		e.say(p, "You found a secret door!")
	}
	to := from.Step(m.Dir)
	p.prev = from
	p.lastFight = nil
	e.place(p, p.rec.Depth, to)
	// Seed 000: rooms are "where the treasure and monsters are hidden"; stepping into a
	// guarded room, or onto a wanderer, starts a fight.
	if r := l.RoomAt(to); r >= 0 {
		if g := e.roomGuard(l.Depth, r); g != nil {
			e.startFight(p, g)
			return cost
		}
	}
	if w := e.monsterAt(l.Depth, to); w != nil {
		e.startFight(p, w)
		return cost
	}
	switch l.Feature(to) {
	case FeatExit:
		e.say(p, "The exit is here. Press < to climb out of the dungeon.")
	case FeatStairsUp:
		e.say(p, "Stairs lead up from here. Press < to climb them.")
	case FeatStairsDown:
		e.say(p, "Stairs lead down from here. Press > to descend.")
	}
	return cost
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
	case down && f == FeatStairsDown:
		next := e.levels[p.rec.Depth]
		e.place(p, p.rec.Depth+1, next.Up)
		e.say(p, fmt.Sprintf("You descend to level %d.", p.rec.Depth))
	case !down && f == FeatStairsUp:
		prev := e.levels[p.rec.Depth-2]
		e.place(p, p.rec.Depth-1, prev.Down)
		e.say(p, fmt.Sprintf("You climb up to level %d.", p.rec.Depth))
	case !down && f == FeatExit:
		e.place(p, 0, Pos{})
		e.say(p, "You climb out of the dungeon into the daylight. Press Enter to go back down.")
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

// place moves the player to pos on depth (0 is outside) and refreshes everyone affected.
func (e *Engine) place(p *player, depth int, pos Pos) {
	oldDepth, oldPos := p.rec.Depth, p.rec.Pos()
	p.rec.Depth, p.rec.X, p.rec.Y = depth, pos.X, pos.Y
	p.changed, p.dirty = true, true
	if depth == oldDepth {
		e.look(p)
		e.moved(p, depth, oldPos, pos)
		return
	}
	e.touchLevel(oldDepth)
	if depth == 0 {
		p.mapIdx, p.visible = -1, nil
		return
	}
	e.arrive(p)
	e.touchLevel(depth)
}

// successfulExit is seed 000's reward for leaving the dungeon alive: "Level only increases
// on successful exit from the dungeon. When your level increases, spells and hits also
// increase. Additional hits are determined by the roll of an eight-sided die, modified by
// your constitution." and "When you make a successful exit from the dungeon, your spell
// units are replenished." Ruling: a rest in the daylight also heals every wound.
func (e *Engine) successfulExit(p *player) {
	r := &p.rec
	for lvl := LevelForExperience(r.Experience); r.Level < lvl; {
		r.Level++
		gain := max(1, 1+e.rng.IntN(8)+ConBonus(r.Con))
		r.MaxHits += gain
		e.say(p, fmt.Sprintf("You have reached level %d! (+%d hits)", r.Level, gain))
	}
	r.Hits = r.MaxHits
	r.SpellUnits = SpellUnitsForLevel(r.Level)
	p.changed = true
}
