package world

import (
	"slices"
	"testing"
)

// Every square a knight could stand on and see s is among those appendSeenFrom gives for
// s, on every level of the dungeon: Engine.moved finds the knights who see a step there,
// so a square it left out would leave a knight's screen without the step.
func TestSeenFromHoldsEverySquareThatSees(t *testing.T) {
	for depth, l := range GenerateDungeon(1977, DefaultDepth) {
		from := make([][]int32, l.W*l.H) // from[s]: the squares s is seen from, by visible
		set := make([]byte, bitsetLen(l.W*l.H))
		for y := range l.H {
			for x := range l.W {
				t0 := Pos{x, y}
				l.visible(t0, set)
				for s := range l.W * l.H {
					if Bit(set, s) {
						from[s] = append(from[s], int32(l.idx(t0)))
					}
				}
			}
		}
		var got []int32
		for s := range l.W * l.H {
			sp := Pos{s % l.W, s / l.W}
			got = l.appendSeenFrom(got[:0], sp)
			for _, t0 := range from[s] {
				if !slices.Contains(got, t0) {
					t.Fatalf("level %d: %v is seen from %v, which appendSeenFrom leaves out", depth+1, sp, Pos{int(t0) % l.W, int(t0) / l.W})
				}
			}
			// And no more than a room and four lines: it is the point of it.
			if len(got) > len(from[s])+4*max(l.W, l.H) {
				t.Fatalf("level %d: %d squares for %v, seen from %d", depth+1, len(got), sp, len(from[s]))
			}
		}
	}
}
