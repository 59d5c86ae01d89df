package world

import (
	"cmp"
	"slices"
)

// standing is where the knights in the dungeon stand, kept as they move: for each level,
// the knights on each square in join order. Engine.moved asks it at every step for the
// knights on the squares the step left and reached and on those that see them
// (Level.appendSeenFrom), so a step's work follows the knights near it, not every knight
// of the level: with 4000 knights on one level, asking each of them at every step was
// two thirds of a turn, and a turn took longer than its 25 ms. (The occupancy index
// serves the views' crowds; it is built again after any step, at most once a turn.)
type standing struct {
	on [][][]*player // on[depth-1][square]
}

// stand files p under the square its record says it stands on, out of the one it was
// filed under; a knight outside (depth 0) is filed nowhere. Call it whenever a knight's
// depth or square changes.
func (e *Engine) stand(p *player) {
	depth, sq := 0, int32(-1)
	if d := p.rec.Depth; d >= 1 && d <= len(e.levels) {
		if l := e.levels[d-1]; l.In(p.rec.Pos()) {
			depth, sq = d, int32(l.idx(p.rec.Pos()))
		}
	}
	if depth == p.standDepth && sq == p.standSq {
		return
	}
	e.unstand(p)
	if depth == 0 {
		return
	}
	s := &e.standing // its levels are made with the engine (newWithLevels), each one's squares here
	if l := e.levels[depth-1]; len(s.on[depth-1]) != l.W*l.H {
		s.on[depth-1] = make([][]*player, l.W*l.H)
	}
	here := s.on[depth-1][sq]
	i, _ := slices.BinarySearchFunc(here, p.seq, func(q *player, seq uint64) int {
		return cmp.Compare(q.seq, seq)
	})
	s.on[depth-1][sq] = slices.Insert(here, i, p)
	p.standDepth, p.standSq = depth, sq
}

// unstand takes p out of the square it is filed under: it left the game.
func (e *Engine) unstand(p *player) {
	d, sq := p.standDepth, p.standSq
	p.standDepth, p.standSq = 0, -1
	if d < 1 || d > len(e.standing.on) || int(sq) >= len(e.standing.on[d-1]) {
		return
	}
	here := e.standing.on[d-1][sq]
	if i := slices.Index(here, p); i >= 0 {
		here = slices.Delete(here, i, i+1)
		if len(here) == 0 {
			here = nil // a square walked through keeps nothing
		}
		e.standing.on[d-1][sq] = here
	}
}

// standingOn is the knights on square sq of depth, in join order; nil outside.
func (e *Engine) standingOn(depth int, sq int) []*player {
	if depth < 1 || depth > len(e.standing.on) || sq < 0 || sq >= len(e.standing.on[depth-1]) {
		return nil
	}
	return e.standing.on[depth-1][sq]
}
