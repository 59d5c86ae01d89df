package world

import (
	"slices"
)

// Who a knight sees (DESIGN §12, "Crowds"). A view names, on each square its knight sees,
// at most ShownPerSquare of the other knights standing there, the first to have joined
// the game first. A square where a crowd stands (the exit of level 1 on a busy server)
// then looks the same whoever else arrives or leaves behind the first few, so an arrival
// there costs a new view only for the knights who would see a difference: the work of a
// step stays proportional to what it changes on screens, not to the size of the crowd.
//
// The knights of each square come from an index built at most once a turn from the
// knights' positions (occupancy), and a step asks only the knights of its own level
// (levelOrder), so neither a view nor a step walks every knight in the game.

// ShownPerSquare is how many other knights a view names on one square.
const ShownPerSquare = 4

// What others do reaches an active player's screen within ActiveRefreshTurns, and an
// idle player's (one that has sent nothing for IdleTurns) once every IdleRefreshTurns
// (refreshDue says when): a screen nobody is typing at changes at most once
// a second for what walks past, so a crowd of idle players costs a fraction of the
// frames, and a crowd walking past an active player costs it 10 frames a second, not 40
// (a knight steps at most once a round, 250 ms, so no step is missed, and each shows
// within a tenth of a second, as quick as the eye follows). Its own knight's changes (a
// message, a blow, its hits, its own step) still show at once.
//
//	constant                    value   effect at the default 25 ms tick
//	DefaultIdleTurns            400     idle after 10 s without a key
//	DefaultIdleRefreshTurns     40      an idle screen shows others' moves once a second
//	DefaultActiveRefreshTurns   4       an active screen shows them within 100 ms
//
// The active refresh is not 2 turns (50 ms): with a thousand knights all walking through
// one another's sight, others' steps would draw four frames of every five (9 of 11 a
// second). At 4, a screen is drawn at most 10 times a second, as often as the bare
// reference's (docs/PERFORMANCE.md).
const (
	DefaultIdleTurns          = 400
	DefaultIdleRefreshTurns   = 40
	DefaultActiveRefreshTurns = 4
)

// stir notes that the player sent something: it is active, and sees what others do at
// once again.
func (e *Engine) stir(p *player) {
	p.active = e.turn
	if p.seen {
		p.dirty = true
	}
}

// refreshDue reports whether p's view, changed only by what others did, is sent now, an
// active player's every turns after its last (activeEvery).
//
// An active player's is sent a period after the last view it was sent, whatever that
// view was for: what others did since waits less than a period, and the view of its own
// step counts as the period's frame, so a knight walking through a crowd gets 10 frames
// a second, not 10 and one for each step of its own. Its own keys come at times of their
// own, so these periods fall on every turn alike.
//
// An idle player's is sent at its own turn of the period (by its join order): idle
// players send no keys, and periods counted from a view that a crowd of them got at
// once (an announcement) would keep them drawn together, all on one turn.
func (e *Engine) refreshDue(p *player, every uint64) bool {
	if e.turn-p.active >= uint64(e.cfg.IdleTurns) {
		return (e.turn+p.seq)%uint64(e.cfg.IdleRefreshTurns) == 0
	}
	return every <= 1 || e.turn-p.shown >= every // 1: at once, even on the turn of a view
}

// activeEvery is how many turns apart an active player's screen shows what others did:
// ActiveRefreshTurns while at most CrowdRefresh players are active, longer in
// proportion as more are (twice as long for twice as many), and never longer than a
// round, so that another knight's every step still shows. The frames others' doings
// cost grow with the players who see them; past what the server's cores draw at the
// shorter period, its own keys' frames would wait behind them (DESIGN §12, "Crowds").
func (e *Engine) activeEvery() uint64 {
	every := uint64(e.cfg.ActiveRefreshTurns)
	crowd := uint64(e.cfg.CrowdRefresh)
	if crowd == 0 || uint64(len(e.order)) <= crowd {
		return every
	}
	active := uint64(0)
	for _, p := range e.order {
		if e.turn-p.active < uint64(e.cfg.IdleTurns) {
			active++
		}
	}
	longest := max(every, TurnsPerRound) // a knight steps at most once a round
	return min(max(every, (every*active+crowd-1)/crowd), longest)
}

// newsDue reports whether p's view, waiting only for an announcement (a join, a leaving),
// is sent now: at p's own turn of the idle refresh, active or not, so a crowd's views
// for one announcement are spread over the period, not all on one turn.
func (e *Engine) newsDue(p *player) bool {
	return (e.turn+p.seq)%uint64(e.cfg.IdleRefreshTurns) == 0
}

// occupancy lists the knights on each square of each level, in join order, as linked
// lists through e.order's indices: head[depth-1][square] is the first, next[i] the one
// after e.order[i]. It is rebuilt when a position may have changed since it was built.
type occupancy struct {
	valid bool
	head  [][]int32
	next  []int32
	// who is each knight of e.order as a crowd holds it, side by side in memory: a crowd
	// reads dozens of them, and reaching into each knight's record cost a cache miss
	// apiece.
	who []crowdKnight
	// crowds are the levels' crowds made since the index was built (nil: not yet).
	crowds []*Crowd
}

// positionsChanged says that a knight's square changed: the occupancy index is rebuilt
// when next needed.
func (e *Engine) positionsChanged() { e.occ.valid = false }

// levelsChanged says that a knight changed level, joined or left: the level lists are
// rebuilt too.
func (e *Engine) levelsChanged() {
	e.occ.valid = false
	e.levelOrderStale = true
}

// occupants builds the occupancy index if it is stale and returns it.
func (e *Engine) occupants() *occupancy {
	o := &e.occ
	if o.valid {
		return o
	}
	if len(o.head) != len(e.levels) {
		o.head = make([][]int32, len(e.levels))
	}
	for d, l := range e.levels {
		if len(o.head[d]) != l.W*l.H {
			o.head[d] = make([]int32, l.W*l.H)
		}
		for i := range o.head[d] {
			o.head[d][i] = -1
		}
	}
	if len(o.crowds) != len(e.levels) {
		o.crowds = make([]*Crowd, len(e.levels))
	}
	clear(o.crowds)
	o.next, o.who = o.next[:0], o.who[:0]
	for _, p := range e.order {
		o.next = append(o.next, -1)
		o.who = append(o.who, crowdKnight{p.rec.Name, p.seq})
	}
	for i := len(e.order) - 1; i >= 0; i-- {
		p := e.order[i]
		d := p.rec.Depth
		if d < 1 || d > len(e.levels) {
			continue
		}
		l := e.levels[d-1]
		if pos := p.rec.Pos(); l.In(pos) {
			sq := l.idx(pos)
			o.next[i] = o.head[d-1][sq]
			o.head[d-1][sq] = int32(i)
		}
	}
	o.valid = true
	return o
}

// Crowd is where the knights of one level stand, as views name them: on each square, the
// first ShownPerSquare+1 to have joined, in join order (one more than a view names, for a
// viewer among them, who does not name itself), square by square. It is made at most
// once a turn for a level, when a view needs it, and every view of the level made until
// a knight moves shares it: the engine's work for the knights in sight is one list a
// level, and each session picks out the ones its knight sees (View.InSight). Nothing
// changes a crowd once made.
//
// A level's crowd is made anew each turn a knight of it moves, so it is kept small: a
// knight is its name and join order, its square said once for all who stand there, and
// the squares and their starts are one array.
type Crowd struct {
	w       int // the level's width: square s is (s%w, s/w)
	knights []crowdKnight
	// squares are the squares knights stand on, in order, and starts[i] the index in
	// knights of the first on squares[i] (with len(knights) after the last): a view looks
	// at each square once, not at each knight.
	squares, starts []int32
}

// crowdKnight is one knight of a crowd: its name, as views name it, and its join order.
type crowdKnight struct {
	name string
	seq  uint64
}

// crowd returns the crowd of level depth (from 1), making it if a knight moved since.
func (e *Engine) crowd(depth int) *Crowd {
	o := e.occupants()
	if c := o.crowds[depth-1]; c != nil {
		return c
	}
	l, head := e.levels[depth-1], o.head[depth-1]
	squares := e.crowdSquares[:0]
	for _, q := range e.onLevel(depth) {
		if pos := q.rec.Pos(); l.In(pos) {
			squares = append(squares, int32(l.idx(pos)))
		}
	}
	slices.Sort(squares)
	squares = slices.Compact(squares)
	e.crowdSquares = squares
	// Counted first, so each array is made once at its size.
	n := 0
	for _, sq := range squares {
		for i, k := head[sq], 0; i >= 0 && k <= ShownPerSquare; i, k = o.next[i], k+1 {
			n++
		}
	}
	marks := make([]int32, 2*len(squares)+1)
	c := &Crowd{w: l.W, knights: make([]crowdKnight, 0, n),
		squares: marks[:len(squares):len(squares)], starts: marks[len(squares):]}
	copy(c.squares, squares)
	for j, sq := range squares {
		c.starts[j] = int32(len(c.knights))
		for i, k := head[sq], 0; i >= 0 && k <= ShownPerSquare; i, k = o.next[i], k+1 {
			c.knights = append(c.knights, o.who[i])
		}
	}
	c.starts[len(squares)] = int32(len(c.knights))
	o.crowds[depth-1] = c
	return c
}

// onLevel is the knights on a level, in join order.
func (e *Engine) onLevel(depth int) []*player {
	if e.levelOrderStale || len(e.levelOrder) != len(e.levels)+1 {
		if len(e.levelOrder) != len(e.levels)+1 {
			e.levelOrder = make([][]*player, len(e.levels)+1)
		}
		for d := range e.levelOrder {
			clear(e.levelOrder[d])
			e.levelOrder[d] = e.levelOrder[d][:0]
		}
		for _, q := range e.order {
			if d := q.rec.Depth; d >= 0 && d < len(e.levelOrder) {
				e.levelOrder[d] = append(e.levelOrder[d], q)
			}
		}
		e.levelOrderStale = false
	}
	if depth < 0 || depth >= len(e.levelOrder) {
		return nil
	}
	return e.levelOrder[depth]
}

// moved refreshes the views of the knights whose screens p's arrival at to, or departure
// from from, changes: those who see the square and would now see a different set of
// knights named there (p is among the first ShownPerSquare on it for them). Call it after
// p's position has changed; when p arrives on or leaves a level, from and to are the same
// square.
func (e *Engine) moved(p *player, depth int, from, to Pos) {
	if depth < 0 || depth > len(e.levels) {
		return
	}
	squares := [2]Pos{from, to}
	n := 2
	if from == to {
		n = 1
	}
	if depth > 0 {
		e.movedInDungeon(p, depth, squares[:n])
		return
	}
	// Outside (depth 0) is daylight: everyone there sees every space.
	var ahead [2]int // knights other than p on each square who joined before p
	for _, q := range e.onLevel(0) {
		if q == p || q.seq > p.seq {
			continue
		}
		for i := range n {
			if q.rec.Pos() == squares[i] {
				ahead[i]++
			}
		}
	}
	for _, q := range e.onLevel(0) {
		if q == p || q.dirty || q.seen {
			continue
		}
		for i := range n {
			rank := ahead[i]
			if q.seq < p.seq && q.rec.Pos() == squares[i] {
				rank-- // q does not name itself
			}
			if rank < ShownPerSquare {
				q.seen = true
				break
			}
		}
	}
}

// movedInDungeon is moved on a level, where a knight sees its room or along its
// corridor: the knights on the squares and those who see them are found where they
// stand (watchersOf), not by asking every knight of the level.
func (e *Engine) movedInDungeon(p *player, depth int, squares []Pos) {
	l := e.levels[depth-1]
	for _, s := range squares {
		if !l.In(s) {
			continue
		}
		sq := l.idx(s)
		ahead := 0 // knights other than p on s who joined before p
		for _, q := range e.standingOn(depth, sq) {
			if q.seq > p.seq || ahead > ShownPerSquare {
				break // in join order; past ShownPerSquare+1 nobody sees a difference
			}
			if q != p {
				ahead++
			}
		}
		if ahead > ShownPerSquare {
			continue // even a knight among the first on s names ShownPerSquare others before p
		}
		for q := range e.watchersOf(depth, s, false) {
			if q == p || q.dirty || q.seen {
				continue
			}
			rank := ahead
			if q.seq < p.seq && q.rec.Pos() == s {
				rank-- // q does not name itself
			}
			if rank < ShownPerSquare {
				q.seen = true
			}
		}
	}
}
