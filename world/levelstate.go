package world

// LevelState is what changes on a level as it is played: the doors knights broke and the
// monsters alive. It is saved so that a restart finds the dungeon as the knights left it
// (seed 000: "a cleared path usually stays clear"; DESIGN §10). Seed ties it to one
// generation of the level: restoring a state saved for another generation (an admin's
// regen) rebuilds the level from the saved seed before applying the rest. It is taken
// from the live liveLevel (population.go) and restored into it.
type LevelState struct {
	Depth    int            `json:"depth"`
	Seed     uint64         `json:"seed"`
	Broken   []int          `json:"broken,omitempty"` // forced locked doors (Level.EdgeIndex), plain doors now
	Monsters []MonsterState `json:"monsters"`
	Guards   int            `json:"guards"` // guards in the rooms after the last stocking, for the restock rule
	// Markets is the stock of the surface's markets: only in the surface's state (depth
	// 0, Seed the engine's seed, which made the surface).
	Markets []MarketState `json:"markets,omitempty"`
}

// MarketState is one market's stock in the surface's LevelState.
type MarketState struct {
	Square int          `json:"square"` // the market's index in the surface's cells
	Stock  []StockState `json:"stock"`
}

// StockState is one line of a market's stock.
type StockState struct {
	Item  Item `json:"item"`
	Price int  `json:"price"`
	Count int  `json:"count"`
	Start int  `json:"start,omitempty"` // the count it was stocked with; 0 for an item a knight sold there
}

// MonsterState is one live monster in a LevelState.
type MonsterState struct {
	Kind MonsterID `json:"kind"`
	X    int       `json:"x"`
	Y    int       `json:"y"`
	Hits int       `json:"hits"`
	// MaxHits is its hits when it appeared, so a wounded monster is shown wounded after
	// a restart; 0 in a state saved before it was kept (its hits then stand for it).
	MaxHits int `json:"max_hits,omitempty"`
	Room    int `json:"room"`
}

// levelSnapshot is the level's state to save now.
func (e *Engine) levelSnapshot(depth int) LevelState {
	st := &e.state[depth-1]
	ls := LevelState{Depth: depth, Seed: e.levels[depth-1].Seed, Guards: st.guards,
		Broken: append([]int(nil), st.broken...), Monsters: make([]MonsterState, 0, len(st.monsters))}
	for _, m := range st.monsters {
		ls.Monsters = append(ls.Monsters, MonsterState{Kind: m.kind, X: m.pos.X, Y: m.pos.Y, Hits: m.hits, MaxHits: m.maxHits, Room: m.room})
	}
	return ls
}

// restore puts a saved state back on its level. A state saved for another generation of
// the level (an admin regenerated it) first rebuilds the level from the saved seed, so a
// regenerated level survives a restart; the bottom level is built as the bottom. Monsters
// of kinds the table no longer has, or on squares that are not open, are dropped.
func (e *Engine) restore(ls LevelState) bool {
	if ls.Depth < 1 || ls.Depth > len(e.levels) {
		return false
	}
	if e.levels[ls.Depth-1].Seed != ls.Seed {
		e.resetLevel(ls.Depth, Generate(ls.Depth, ls.Seed, ls.Depth == len(e.levels)))
	}
	l := e.levels[ls.Depth-1]
	st := &e.state[ls.Depth-1]
	for _, ei := range ls.Broken {
		p, d, ok := l.edgeAt(ei)
		if ok && l.Edge(p, d) == EdgeLocked {
			l.SetEdge(p, d, EdgeDoor)
			st.broken = append(st.broken, ei)
		}
	}
	e.snaps[ls.Depth-1] = nil
	st.monsters = st.monsters[:0]
	for _, ms := range ls.Monsters {
		pos := Pos{ms.X, ms.Y}
		if ms.Kind.Kind() == nil || !l.In(pos) || l.Terrain(pos) == Rock || ms.Hits <= 0 {
			continue
		}
		room := ms.Room
		if room >= len(l.Rooms) {
			room = -1
		}
		e.nextMonster++
		st.monsters = append(st.monsters, &monster{id: e.nextMonster, kind: ms.Kind, depth: ls.Depth, pos: pos,
			hits: ms.Hits, maxHits: max(ms.MaxHits, ms.Hits), room: room})
	}
	st.guards = ls.Guards
	return true
}

// surfaceSnapshot is the surface's state to save now: its markets' stock.
func (e *Engine) surfaceSnapshot() LevelState {
	ls := LevelState{Depth: 0, Seed: e.cfg.Seed}
	for _, sq := range e.outside.grid.marketIndices() {
		m := e.outside.markets[sq]
		ms := MarketState{Square: sq, Stock: make([]StockState, 0, len(m.stock))}
		for _, l := range m.stock {
			ms.Stock = append(ms.Stock, StockState{Item: l.Item, Price: l.Price, Count: l.Count, Start: l.start})
		}
		ls.Markets = append(ls.Markets, ms)
	}
	return ls
}

// restoreSurface puts saved market stock back. A state saved for another surface (the
// server's seed changed) is ignored, as is a market whose space is no market now; lines
// with a negative count or price, or an item of no kind the game knows, are dropped. The restock clock starts again.
func (e *Engine) restoreSurface(ls LevelState) bool {
	if ls.Depth != 0 || ls.Seed != e.cfg.Seed || e.outside.grid == nil {
		return false
	}
	for _, ms := range ls.Markets {
		m := e.outside.markets[ms.Square]
		if m == nil {
			continue
		}
		m.stock = m.stock[:0]
		for _, st := range ms.Stock {
			if st.Count < 0 || st.Price < 0 || st.Start < 0 || st.Item.Kind >= NumItemKinds {
				continue
			}
			m.stock = append(m.stock, stockLine{Ware{Item: st.Item, Price: st.Price, Count: st.Count}, st.Start})
		}
		m.restocked = e.turn
	}
	return true
}

// edgeAt is the inverse of EdgeIndex: the square and side an edge index names.
func (l *Level) edgeAt(i int) (Pos, Dir, bool) {
	sq := i / 2
	if i < 0 || sq >= l.W*l.H {
		return Pos{}, 0, false
	}
	d := East
	if i%2 == 1 {
		d = South
	}
	return Pos{sq % l.W, sq / l.W}, d, true
}

// saveLevels hands the saver the state of every level that changed since the last save
// (or, with all, of every level). A level with knights on it counts as changed: its
// monsters move and fight.
func (e *Engine) saveLevels(all bool) {
	if e.cfg.Saver == nil {
		return
	}
	var out []LevelState
	if e.outside.grid != nil && (all || e.outside.changed) {
		out = append(out, e.surfaceSnapshot())
		e.outside.changed = false
	}
	for d := 1; d <= len(e.levels); d++ {
		st := &e.state[d-1]
		if all || st.changed || e.occupied(d) {
			out = append(out, e.levelSnapshot(d))
			st.changed = false
		}
	}
	if len(out) > 0 {
		e.cfg.Saver.PutLevels(out...)
	}
}
