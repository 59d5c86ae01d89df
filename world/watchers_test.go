package world

import (
	"fmt"
	"maps"
	"math/rand/v2"
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

// movedByAskingEveryone is moved as it was before the standing index: every knight of the
// level asked whether it sees the squares. It says which knights a step marks seen.
func movedByAskingEveryone(e *Engine, p *player, depth int, from, to Pos) map[*player]bool {
	l := e.levels[depth-1]
	squares := [2]Pos{from, to}
	n := 2
	if from == to {
		n = 1
	}
	var ahead [2]int
	for _, q := range e.onLevel(depth) {
		if q == p || q.seq > p.seq {
			continue
		}
		for i := range n {
			if q.rec.Pos() == squares[i] {
				ahead[i]++
			}
		}
	}
	marked := map[*player]bool{}
	for _, q := range e.onLevel(depth) {
		if q == p || q.dirty || q.seen {
			continue
		}
		for i := range n {
			s := squares[i]
			if !l.In(s) || !Bit(q.visible, l.idx(s)) {
				continue
			}
			rank := ahead[i]
			if q.seq < p.seq && q.rec.Pos() == s {
				rank--
			}
			if rank < ShownPerSquare {
				marked[q] = true
				break
			}
		}
	}
	return marked
}

// A step marks seen exactly the knights it marked when every knight of the level was
// asked: 400 knights on level 1, a fifth of them crowded on five squares, taking 5000
// steps and jumps, with some knights dirty or seen already before each; and the standing
// index files every knight where it stands throughout.
func TestMovedMarksWhomAskingEveryKnightMarked(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	e, open, crowded := crowdOnLevelOne(rng)
	l := e.levels[0]
	for step := range 5000 {
		p := e.order[rng.IntN(len(e.order))]
		from := p.rec.Pos()
		to := open[rng.IntN(len(open))]
		if d := Dirs[rng.IntN(len(Dirs))]; step%4 != 0 && l.Edge(from, d) == EdgeOpen {
			to = from.Step(d)
		} else if step%3 == 0 {
			to = crowded[rng.IntN(len(crowded))]
		}
		p.rec.X, p.rec.Y = to.X, to.Y
		e.stand(p)
		e.look(p)
		for _, q := range e.order {
			q.dirty, q.seen = rng.IntN(5) == 0, rng.IntN(5) == 0
		}
		wasSeen := map[*player]bool{}
		for _, q := range e.order {
			wasSeen[q] = q.seen
		}
		want := movedByAskingEveryone(e, p, 1, from, to)
		e.moved(p, 1, from, to)
		for _, q := range e.order {
			if q.seen != (wasSeen[q] || want[q]) {
				t.Fatalf("step %d, %s from %v to %v: %s (at %v, dirty %v) seen %v, want %v",
					step, p.rec.Name, from, to, q.rec.Name, q.rec.Pos(), q.dirty, q.seen, wasSeen[q] || want[q])
			}
		}
	}
	for _, q := range e.order {
		if !slices.Contains(e.standingOn(1, l.idx(q.rec.Pos())), q) {
			t.Fatalf("%s at %v is not filed there", q.rec.Name, q.rec.Pos())
		}
	}
}

// Knights walking by their commands, through Step, stay filed where they stand: moved
// finds a step's watchers, and the knights on its squares, where the index says they are.
func TestStandingFollowsTheKnightsSteps(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	rng := rand.New(rand.NewPCG(3, 9))
	for i := range 60 {
		rec := knight(fmt.Sprintf("k%d", i), 10)
		rec.Depth, rec.X, rec.Y = i%DefaultDepth+1, -1, -1 // on each level's up stairs, the deepest's too
		e.join(rec, &recorder{})
	}
	for range 400 {
		for _, p := range e.order {
			if len(p.queue) == 0 && p.fight == nil {
				e.enqueue(p.rec.ID, p.session, Move{Dir: Dirs[rng.IntN(len(Dirs))]})
			}
		}
		e.Step()
	}
	moves := 0
	for _, q := range e.order {
		if d := q.rec.Depth; d >= 1 {
			l := e.levels[d-1]
			if !slices.Contains(e.standingOn(d, l.idx(q.rec.Pos())), q) {
				t.Fatalf("%s on level %d at %v is not filed there", q.rec.Name, d, q.rec.Pos())
			}
			if q.rec.Pos() != l.Up {
				moves++
			}
		}
	}
	if moves < 30 {
		t.Fatalf("only %d of 60 knights left the stairs: the walk tested little", moves)
	}
	// And nowhere else: every entry is a knight standing there.
	filed := 0
	for d, l := range e.levels {
		for sq := range l.W * l.H {
			for _, q := range e.standingOn(d+1, sq) {
				filed++
				if q.rec.Depth != d+1 || l.idx(q.rec.Pos()) != sq {
					t.Fatalf("%s is filed on level %d at %v, and stands on level %d at %v",
						q.rec.Name, d+1, Pos{sq % l.W, sq / l.W}, q.rec.Depth, q.rec.Pos())
				}
			}
		}
	}
	if inDungeon := len(e.order) - len(e.onLevel(0)); filed != inDungeon {
		t.Fatalf("%d entries for the %d knights in the dungeon", filed, inDungeon)
	}
}

// A line said aloud, a trap's sight and a wanderer's hiding place ask the knights around
// a square who sees it (watchersOf), and find whom asking every knight of the level
// found: those whose visible set holds the square, and for a line said, those standing on
// it, a blind one too. 400 knights, a fifth crowded on five squares and a tenth blind,
// move about level 1 and speak.
func TestWatchersAreWhomAskingEveryKnightFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	e, open, crowded := crowdOnLevelOne(rng)
	l := e.levels[0]
	dark := make([]byte, bitsetLen(l.W*l.H))
	blind := func(q *player) bool { return q.seq%10 == 3 }
	for trial := range 2000 {
		p := e.order[rng.IntN(len(e.order))]
		to := open[rng.IntN(len(open))]
		if trial%3 == 0 {
			to = crowded[rng.IntN(len(crowded))]
		}
		p.rec.X, p.rec.Y = to.X, to.Y
		e.stand(p)
		e.look(p)
		for _, q := range e.order {
			if blind(q) {
				q.visible = dark
			}
		}
		s := p.rec.Pos()
		sees := map[*player]bool{}
		for _, q := range e.order {
			if Bit(q.visible, l.idx(s)) {
				sees[q] = true
			}
		}
		found := map[*player]bool{}
		for q := range e.watchersOf(1, s, false) {
			if found[q] {
				t.Fatalf("trial %d: %s found twice", trial, q.rec.Name)
			}
			found[q] = true
		}
		if !maps.Equal(found, sees) {
			t.Fatalf("trial %d at %v: found %d who see it, want %d", trial, s, len(found), len(sees))
		}
		if e.seenByAnyone(1, s) != (len(sees) > 0) {
			t.Fatalf("trial %d at %v: seenByAnyone %v with %d who see it", trial, s, !e.seenByAnyone(1, s), len(sees))
		}

		line := fmt.Sprintf("trial %d", trial)
		e.aloud(p, "You say: "+line, line)
		heard := 0
		for _, q := range e.order {
			want := q != p && (sees[q] || q.rec.Pos() == s)
			got := lastMsg(q) == line
			if got != want {
				t.Fatalf("trial %d, %s at %v says; %s at %v (blind %v) heard %v, want %v",
					trial, p.rec.Name, s, q.rec.Name, q.rec.Pos(), blind(q), got, want)
			}
			if want {
				heard++
			}
		}
		if mine := lastMsg(p); (mine == "You say: "+line+nobodyHears) != (heard == 0) {
			t.Fatalf("trial %d: the speaker's own line %q with %d who heard", trial, mine, heard)
		}
	}
}

// crowdOnLevelOne joins 400 knights to level 1 of the default dungeon, on open squares
// drawn with rng, a fifth of them on the level's first five open squares (crowded). It
// returns the engine, the level's open squares and the crowded ones.
func crowdOnLevelOne(rng *rand.Rand) (e *Engine, open, crowded []Pos) {
	e = New(Config{Seed: 1977})
	l := e.levels[0]
	for y := range l.H {
		for x := range l.W {
			if l.Terrain(Pos{x, y}) != Rock {
				open = append(open, Pos{x, y})
			}
		}
	}
	crowded = open[:5]
	for i := range 400 {
		rec := knight(fmt.Sprintf("k%d", i), 10)
		rec.Depth = 1
		at := open[rng.IntN(len(open))]
		if i%5 == 0 {
			at = crowded[rng.IntN(len(crowded))]
		}
		rec.X, rec.Y = at.X, at.Y
		e.join(rec, &recorder{})
	}
	return e, open, crowded
}
