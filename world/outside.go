package world

import "fmt"

// Knights outside the dungeon (seed 002): the engine's surface and its markets' stock,
// arriving outside, moving from space to space, the battles of the common spaces, and
// going back down. The grid itself is surface.go's.

// surfaceState is the engine's surface: the grid and the markets' stock.
type surfaceState struct {
	grid *Surface
	// markets is each market's stock, by the market's index in grid.Cells; changed says
	// a stock changed since it was last saved (levelstate.go).
	markets map[int]*market
	changed bool
}

// initSurface builds the surface and stocks its markets from the engine's seed, each on
// a stream of its own, so the dungeon and the engine's dice are as they were without it.
func (e *Engine) initSurface() {
	g := GenerateSurface(e.cfg.Seed, e.cfg.SurfaceSize)
	e.outside = surfaceState{grid: g, markets: map[int]*market{}}
	for ordinal, i := range g.marketIndices() {
		e.outside.markets[i] = newMarket(e.cfg.Seed, i, g.Markets[i], ordinal%2 == 0, e.turn)
	}
}

// arriveOnSurface sets up a knight that joins, or comes up, outside the dungeon: a square
// that is not an accessible space of the grid puts it on the entrance.
func (e *Engine) arriveOnSurface(p *player) {
	p.mapIdx, p.visible = -1, nil
	if !e.outside.grid.Accessible(p.rec.Pos()) {
		// Records from before the surface kept any X, Y outside (Pos{} after the exit).
		g := e.outside.grid.Entrance
		p.rec.X, p.rec.Y = g.X, g.Y
		e.positionsChanged()
		e.stand(p)
		p.changed = true
	}
}

// fillSurface adds the surface to a view of a knight outside the dungeon.
func (e *Engine) fillSurface(p *player, v *View) {
	sv := &SurfaceView{Map: e.outside.grid}
	// Everyone outside is in sight, named at most ShownPerSquare a space as in the
	// dungeon (crowd.go), so a crowd at the entrance costs what it changes on screens.
	shown := make(map[Pos]int)
	for _, q := range e.onLevel(0) {
		if pos := q.rec.Pos(); q != p && shown[pos] < ShownPerSquare {
			shown[pos]++
			sv.Others = append(sv.Others, Other{Name: q.rec.Name, Pos: pos})
		}
	}
	v.Others = sv.Others // the same knights
	if m := e.marketAt(p.rec.Pos()); m != nil {
		e.outside.changed = m.catchUp(e.turn) || e.outside.changed
		sv.Market = &MarketView{Name: m.name, Wares: m.wares()}
	}
	v.Surface = sv
}

// surfaceBattleDie is the die seed 002 rolls on every visit of a common space ("Every
// time the heroes visit a space we 'roll a die,' and, if they are unlucky, then the
// monsters are created and the battle begins immediately"). Ruling: a six-sided die, and
// a 1 is unlucky. One battle in six steps makes a crossing of the 8×8 land (about four
// common spaces) meet a battle about half the time: the surface is dangerous enough to
// matter, and the markets (which never start a battle) stay within reach.
const surfaceBattleDie = 6

// The lines of a step refused on the surface, made once (as passEdge's are).
var (
	landsEndLines   = dirLines("You are at the edge of the land: you can go no further %s.")
	impassableLines = dirLines("You cannot go %s: that way is impassable.")
)

// surfaceMove walks a knight, and the members of its party standing with it, one space
// of the surface (seed 002: "the party can move up, down, left, or right to an adjacent
// space"). Refused steps cost nothing; a step costs the mover a move (seed 003), the
// others follow without paying.
func (e *Engine) surfaceMove(p *player, d Dir) float64 {
	g := e.outside.grid
	from := p.rec.Pos()
	to := from.Step(d)
	switch {
	case !g.In(to):
		e.say(p, landsEndLines[d&3])
		return 0
	case !g.Accessible(to):
		e.say(p, impassableLines[d&3])
		return 0
	}
	heroes := e.partyHere(p)
	for _, q := range heroes {
		q.prev = from
		q.lastFight = nil
		e.place(q, 0, to)
		e.countMove(q)
		if q != p {
			e.say(q, fmt.Sprintf("You follow %s %s.", p.rec.Name, d))
		}
	}
	switch g.At(to) {
	case SurfaceMarket:
		for _, q := range heroes {
			e.say(q, fmt.Sprintf("You are at %s; b buys, s sells.", g.Market(to)))
			e.earnFortune(q)
		}
	case SurfaceEntrance:
		for _, q := range heroes {
			e.say(q, "You are at the entrance of the dungeon (EX). Press > to go down.")
		}
	case SurfaceCommon:
		// The die is rolled once for the party's move.
		if e.rng.IntN(surfaceBattleDie) == 0 {
			e.ambush(heroes, to)
		}
	}
	return MoveCost(e.speed(p))
}

// ambush starts a surface battle: seed 002's "as many monsters as there are heroes",
// their levels "scaled to the levels of the heroes" (SurfaceFoes). Ruling: as in the
// dungeon, monsters do not notice an invisible knight, so a party that is invisible to
// the last hero walks on. It returns the monsters it made.
func (e *Engine) ambush(heroes []*player, at Pos) []*monster {
	seen := false
	for _, q := range heroes {
		if !e.invisible(q) {
			seen = true
		}
	}
	if !seen {
		for _, q := range heroes {
			e.say(q, "Monsters prowl close by, but they cannot see you.")
		}
		return nil
	}
	levels := make([]int, len(heroes))
	for i, q := range heroes {
		levels[i] = q.rec.Level
	}
	var foes []*monster
	for _, id := range SurfaceFoes(e.rng, levels) {
		foes = append(foes, e.newFoe(id, at))
	}
	e.startBattle(heroes, foes, false)
	return foes
}

// Enter goes back down into the dungeon from outside, at the exit of level 1.
type Enter struct{}

func (Enter) isCommand() {}

// enter takes a knight from the surface down into the dungeon: only from the entrance.
func (e *Engine) enter(p *player) float64 {
	if p.rec.Pos() != e.outside.grid.Entrance {
		e.say(p, "The way down is at the entrance (EX).")
		return 0
	}
	// The party goes down as it walks the surface: as one (seed 002). Below, each knight
	// walks on its own.
	heroes := e.partyHere(p)
	for _, q := range heroes {
		e.place(q, 1, e.levels[0].Up)
		if q == p {
			e.say(p, "You climb back down into the dungeon.")
		} else {
			e.say(q, fmt.Sprintf("You follow %s down into the dungeon.", p.rec.Name))
		}
	}
	return MoveCost(e.speed(p))
}
