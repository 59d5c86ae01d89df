package world

import "iter"

// appendSeenFrom appends to dst the index of every square from which a knight may see s
// (Level.visible), s's own among them: the squares of s's room, and those along a
// corridor's straight lines to s, up to the room, door or wall that ends them. It is
// visible turned round, so the knights who see a square are found among those standing
// around it rather than by asking every knight of the level (Engine.moved). A blind
// knight sees nothing, so it may be among those found and not see s: callers still ask
// each knight's own set.
func (l *Level) appendSeenFrom(dst []int32, s Pos) []int32 {
	if !l.In(s) {
		return dst
	}
	dst = append(dst, int32(l.idx(s)))
	if r := l.RoomAt(s); r >= 0 {
		for q := range l.roomSquares(r) {
			if q != s {
				dst = append(dst, int32(l.idx(q)))
			}
		}
	}
	// A knight in a corridor sees along it up to and with the first square of a room;
	// one in a room sees only its room.
	for _, d := range Dirs {
		for q := s; l.Edge(q, d) == EdgeOpen; {
			q = q.Step(d)
			if l.Terrain(q) == Room {
				break
			}
			dst = append(dst, int32(l.idx(q)))
		}
	}
	return dst
}

// watchersOf is the knights of level depth who see square s, found where they stand
// (standing, appendSeenFrom) rather than by asking every knight of the level; with onS,
// also every knight standing on s, seeing or not (a blind knight hears who speaks beside
// it). The order is the squares', not the knights' join order: callers treat each knight
// alone. Outside, or off the level, it has no one. Its loop must not ask for another
// square's watchers: they share the engine's list of squares.
func (e *Engine) watchersOf(depth int, s Pos, onS bool) iter.Seq[*player] {
	return func(yield func(*player) bool) {
		if depth < 1 || depth > len(e.levels) || !e.levels[depth-1].In(s) {
			return
		}
		l := e.levels[depth-1]
		sq := l.idx(s)
		e.seenFrom = l.appendSeenFrom(e.seenFrom[:0], s)
		for _, t := range e.seenFrom {
			for _, q := range e.standingOn(depth, int(t)) {
				if (Bit(q.visible, sq) || onS && t == int32(sq)) && !yield(q) {
					return
				}
			}
		}
	}
}
