package world

import "testing"

// From every known room of level 2, the way to the stairs up, followed step by step
// through the level's edges, arrives there; nothing crosses a wall or an unfound secret
// door, and an unknown square breaks the way.
func TestARouteFollowedArrives(t *testing.T) {
	l := Generate(2, 1977, false)
	all := make([]byte, (l.W*l.H+7)/8)
	for i := range all {
		all[i] = 0xff
	}
	var found []int
	for y := range l.H {
		for x := range l.W {
			p := Pos{x, y}
			for _, d := range []Dir{East, South} {
				if l.Edge(p, d).IsSecret() {
					found = append(found, l.EdgeIndex(p, d))
				}
			}
		}
	}
	up := func(p Pos) bool { return l.Feature(p) == FeatStairsUp }
	rooms := 0
	for i, r := range l.Rooms {
		from := Pos{r.X + r.W/2, r.Y + r.H/2}
		if l.RoomAt(from) != i {
			continue
		}
		rooms++
		steps, ok := l.Route(all, found, from, up)
		if !ok {
			t.Fatalf("no way from room %d to the stairs up", i)
		}
		p := from
		for _, s := range steps {
			e := l.Edge(p, s.Dir)
			if e == EdgeWall || e != s.Edge {
				t.Fatalf("the way from room %d crosses a %v at %v going %v (said %v)", i, e, p, s.Dir, s.Edge)
			}
			p = p.Step(s.Dir)
		}
		if !up(p) {
			t.Fatalf("the way from room %d ends at %v, not the stairs up", i, p)
		}
	}
	if rooms == 0 {
		t.Fatal("level 2 has no rooms")
	}
	// Without the secret doors found, no way crosses one.
	for i, r := range l.Rooms {
		from := Pos{r.X + r.W/2, r.Y + r.H/2}
		steps, ok := l.Route(all, nil, from, up)
		p := from
		for _, s := range steps {
			if s.Edge.IsSecret() {
				t.Fatalf("the way from room %d crosses a secret door not found", i)
			}
			p = p.Step(s.Dir)
		}
		_ = ok
	}
	// Nothing known but the square itself: no way.
	one := make([]byte, len(all))
	from := Pos{l.Rooms[0].X, l.Rooms[0].Y}
	one[l.idx(from)/8] |= 1 << (l.idx(from) % 8)
	if _, ok := l.Route(one, found, from, up); ok && !up(from) {
		t.Fatal("a way through unknown squares")
	}
}
