package world

import "math/rand/v2"

// Tuning of the dungeon's monsters (seed 000: "Monsters normally stay where they are -- a
// cleared path usually stays clear. However, monsters respawn if most are killed on a
// level, and there is a chance that a monster may spontaneously appear!"):
//
//	constant            value    effect at the default 25 ms tick
//	guardChance         85%      most rooms hold a monster guarding them
//	wanderChance        1/4000   a level with knights on it grows a wanderer about every 100 s
//	maxWanderers        3        wanderers on one level at once
//	respawnBelow        1/3      when fewer than a third of a level's guards live, the level restocks
const (
	guardChance  = 0.85
	wanderChance = 1.0 / 4000
	maxWanderers = 3
	respawnBelow = 3 // live guards * respawnBelow < guards placed ⇒ restock
)

// monster is one live monster, owned by the engine goroutine.
type monster struct {
	id      int
	kind    MonsterID
	depth   int
	pos     Pos
	hits    int
	maxHits int // its hits when it appeared
	acted   int // attacks made in its current battle; its first round is the first AttacksPerRound of them
	room    int // the room it guards, or -1 for a wanderer
	energy  Energy
	fight   *encounter
	held    bool // charmed, held or asleep: it does not fight back (seed 000, Charm)
	stuck   bool // in a trap: 1 in 7 a turn to get free (seed 001)
	asleep  bool // gassed: it sleeps until a knight wakes it (seed 001)
	// confused is the rounds of the world clock it still staggers (seed 001's stun):
	// half of its steps go a random way, and a way with no corridor is a step lost.
	confused int
}

func (m *monster) Kind() *MonsterKind { return m.kind.Kind() }

// liveLevel is what lives on one level besides its geometry, as the engine runs it;
// LevelState (levelstate.go) is the part of it that is saved.
type liveLevel struct {
	monsters []*monster
	guards   int   // guards in the level's rooms after its last (re)stock, survivors included
	broken   []int // locked doors forced open, as Level.EdgeIndex values
	changed  bool  // something here changed since the level was last saved
}

// stock puts a guard in most rooms of the level that have none. It draws from its own
// generator, seeded from the level, so the original dungeon's guards are the same on
// every server. The level's guards are then every guard in its rooms, the ones that lived
// through a restock too: counting only the new ones, a restock that placed none would
// leave a level that never restocked again.
func (e *Engine) stock(depth int, r *rand.Rand) {
	l := e.levels[depth-1]
	st := &e.state[depth-1]
	st.guards = 0
	st.changed = true
	for i, room := range l.Rooms {
		if e.roomGuard(depth, i) != nil {
			st.guards++
			continue
		}
		if r.Float64() >= guardChance {
			continue
		}
		pos := Pos{room.X + r.IntN(room.W), room.Y + r.IntN(room.H)}
		e.spawn(depth, PickMonster(r, depth), pos, i, r)
		st.guards++
	}
}

func (e *Engine) spawn(depth int, kind MonsterID, pos Pos, room int, r *rand.Rand) *monster {
	e.nextMonster++
	m := &monster{id: e.nextMonster, kind: kind, depth: depth, pos: pos, room: room}
	m.hits = max(1, kind.Kind().HitDice.Roll(r))
	m.maxHits = m.hits
	e.state[depth-1].monsters = append(e.state[depth-1].monsters, m)
	e.state[depth-1].changed = true
	return m
}

// roomGuard is the live monster guarding room i of a level, if any.
func (e *Engine) roomGuard(depth, room int) *monster {
	for _, m := range e.state[depth-1].monsters {
		if m.room == room {
			return m
		}
	}
	return nil
}

// monsterAt is a live monster on the square, if any (the first placed).
func (e *Engine) monsterAt(depth int, p Pos) *monster {
	for _, m := range e.state[depth-1].monsters {
		if m.pos == p {
			return m
		}
	}
	return nil
}

// removeMonster takes a dead (or vanished) monster off its level and restocks the level
// when most of its guards are gone.
func (e *Engine) removeMonster(m *monster) {
	st := &e.state[m.depth-1]
	st.changed = true
	for i, x := range st.monsters {
		if x == m {
			st.monsters = append(st.monsters[:i], st.monsters[i+1:]...)
			break
		}
	}
	e.monsterMoved(m.depth, m.pos)
	if m.room >= 0 {
		e.monsterMoved(m.depth, hoardSquare(e.levels[m.depth-1].Rooms[m.room], m.pos)) // its hoard's shadow goes
	}
	alive := 0
	for _, x := range st.monsters {
		if x.room >= 0 { // a wanderer is no guard, nor is a guard a spell sent off to wander
			alive++
		}
	}
	if alive*respawnBelow < st.guards {
		e.stock(m.depth, e.rng)
		for _, p := range e.order {
			if p.rec.Depth == m.depth {
				e.say(p, "Somewhere on this level, the dungeon stirs: new monsters have come.")
			}
		}
	}
}

// wander moves the level's wanderers and sometimes lets a new one appear. Only levels
// with knights on them are stirred, so an empty server costs nothing.
func (e *Engine) wander() {
	for depth := 1; depth <= len(e.levels); depth++ {
		if !e.occupied(depth) {
			continue
		}
		st := &e.state[depth-1]
		wanderers := 0
		for _, m := range st.monsters {
			if m.room >= 0 {
				continue
			}
			wanderers++
			if m.fight != nil {
				continue
			}
			if m.confused > 0 && e.turn%TurnsPerRound == 0 {
				m.confused-- // confusion counts rounds, as a knight's does
			}
			if m.energy.Ready() {
				switch {
				case m.asleep:
				case m.stuck:
					// Seed 001: "the monster has a 1 out of 7 chance (14 percent) to escape".
					m.stuck = e.rng.IntN(7) != 0
				default:
					e.stepWanderer(m)
					if m.fight != nil {
						// The step started a fight, which has set who strikes first (seed
						// 000); charging the step now would hand the knight the first blow.
						continue
					}
				}
				m.energy.Spend(MoveCost(m.Kind().Speed))
			}
			m.energy.EndTurn(false)
		}
		if wanderers < maxWanderers && e.rng.Float64() < e.cfg.WanderChance {
			e.spawnWanderer(depth)
		}
	}
}

func (e *Engine) occupied(depth int) bool {
	for _, p := range e.order {
		if p.rec.Depth == depth {
			return true
		}
	}
	return false
}

// spawnWanderer puts a new monster on a corridor square no knight can see.
func (e *Engine) spawnWanderer(depth int) {
	l := e.levels[depth-1]
	for range 20 {
		p := Pos{e.rng.IntN(l.W), e.rng.IntN(l.H)}
		if l.Terrain(p) != Corridor || l.Feature(p) != FeatNone || e.seenByAnyone(depth, p) || e.safeKnightNear(depth, p, 1) {
			continue
		}
		e.spawn(depth, PickMonster(e.rng, depth), p, -1, e.rng)
		return
	}
}

// seenByAnyone reports whether a knight sees square p of level depth.
func (e *Engine) seenByAnyone(depth int, p Pos) bool {
	for range e.watchersOf(depth, p, false) {
		return true
	}
	return false
}

// stepWanderer moves a wanderer one square through an open edge along the corridors
// (wanderers do not open doors or enter rooms, and step around a knight in its safe
// arrival), and starts a fight if it walks onto a knight it may ambush (mayAmbush): the
// step of a wanderer, or of one a teleport trap has carried onto the knight.
func (e *Engine) stepWanderer(m *monster) {
	l := e.levels[m.depth-1]
	open := func(d Dir) bool {
		q := m.pos.Step(d)
		return l.Edge(m.pos, d) == EdgeOpen && l.Terrain(q) == Corridor && !e.safeKnightNear(m.depth, q, 0)
	}
	var to Pos
	staggered := false
	if m.confused > 0 {
		// Ruling: a confused monster staggers as a confused knight does, half of its
		// steps a random way of the four (one draw of eight: a way, or the way it would
		// have chosen); a way it cannot go is a step lost.
		if w := e.rng.IntN(2 * len(Dirs)); w < len(Dirs) {
			if !open(Dirs[w]) {
				return
			}
			to, staggered = m.pos.Step(Dirs[w]), true
		}
	}
	if !staggered {
		var opts [4]Pos
		n := 0
		for _, d := range Dirs {
			if open(d) {
				opts[n] = m.pos.Step(d)
				n++
			}
		}
		if n == 0 {
			return
		}
		to = opts[e.rng.IntN(n)]
	}
	from := m.pos
	m.pos = to
	e.monsterMoved(m.depth, from)
	e.monsterMoved(m.depth, m.pos)
	e.monsterTrap(m)
	if !e.alive(m) {
		return
	}
	for _, p := range e.onLevel(m.depth) {
		if p.rec.Pos() == m.pos && p.fight == nil && e.mayAmbush(p) {
			e.startFight(p, m)
			return
		}
	}
}

// monsterMoved refreshes the views of the knights who can see the square, or whose light
// reaches it (its shadow moves). Like a knight walking past, it shows at once to active
// players and at the next refresh to idle ones (crowd.go); a monster that starts a fight
// with a knight tells it at once.
func (e *Engine) monsterMoved(depth int, p Pos) {
	i := e.levels[depth-1].idx(p)
	for _, q := range e.onLevel(depth) {
		if Bit(q.visible, i) || e.inLight(q, p) {
			q.seen = true
		}
	}
}

// alive reports whether the monster is still on its level.
func (e *Engine) alive(m *monster) bool {
	for _, x := range e.state[m.depth-1].monsters {
		if x == m {
			return true
		}
	}
	return false
}
