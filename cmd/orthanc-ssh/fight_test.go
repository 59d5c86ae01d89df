package main

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// pathToGuard finds the shortest walk from the entrance of level 1 of the default dungeon
// into a room with a monster in it, as the keys a player presses (shifted where the step
// crosses a door), with the square each key should reach.
func pathToGuard(t *testing.T) (keys []string, squares []world.Pos) {
	t.Helper()
	e := world.New(world.Config{Seed: defaultSeed}) // all levels: the bottom one is built differently
	l := e.Level(1)
	guarded := map[int]bool{}
	for _, m := range e.Monsters(1) {
		if r := l.RoomAt(m.Pos); r >= 0 {
			guarded[r] = true
		}
	}
	type step struct {
		from world.Pos
		dir  world.Dir
	}
	came := map[world.Pos]step{l.Up: {}}
	queue := []world.Pos{l.Up}
	var goal world.Pos
	found := false
	for len(queue) > 0 && !found {
		p := queue[0]
		queue = queue[1:]
		for _, d := range world.Dirs {
			q := p.Step(d)
			if _, seen := came[q]; seen || !l.In(q) || l.Edge(p, d) == world.EdgeWall {
				continue
			}
			came[q] = step{p, d}
			if guarded[l.RoomAt(q)] && l.RoomAt(q) >= 0 {
				goal, found = q, true
				break
			}
			if l.RoomAt(q) < 0 { // walk corridors only until the guarded room
				queue = append(queue, q)
			}
		}
	}
	if !found {
		t.Fatal("no guarded room reachable on level 1 of the default dungeon")
	}
	arrows := map[world.Dir]string{world.North: "A", world.South: "B", world.East: "C", world.West: "D"}
	for p := goal; p != l.Up; {
		s := came[p]
		k := "\x1b[" + arrows[s.dir]
		if l.Edge(s.from, s.dir) != world.EdgeOpen {
			k = "\x1b[1;2" + arrows[s.dir] // shift+arrow opens the door
		}
		keys = append([]string{k}, keys...)
		squares = append([]world.Pos{p}, squares...)
		p = s.from
	}
	return keys, squares
}

// A knight walks from the entrance into a guarded room, which starts a fight, and fights
// it out with f: it ends with the monster dead or the knight's tombstone, and after a
// death the player is offered a new knight.
func TestWalkIntoARoomAndFight(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.enterDungeon("Gareth")
	keys, squares := pathToGuard(t)
	for i, k := range keys {
		want := squares[i]
		deadline := time.Now().Add(20 * time.Second)
		for {
			tm.press(k) // a locked door may hold: throw yourself at it again
			time.Sleep(60 * time.Millisecond)
			w := whoamiJSON(t, srv.addr, key)
			if w.X == want.X && w.Y == want.Y {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d: stuck at %d,%d on the way to %v\n%s", i, w.X, w.Y, want, tm.screen())
			}
		}
	}
	tm.waitFor("FIGHT", "guards this")
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, "is dead!") || strings.Contains(s, "R. I. P.") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fight did not end:\n%s", s)
		}
		tm.press("f")
		time.Sleep(50 * time.Millisecond)
	}
	s := tm.screen()
	if strings.Contains(s, "R. I. P.") {
		if !strings.Contains(s, "slain by") {
			t.Fatalf("tombstone screen:\n%s", s)
		}
		tm.press(keyEnter)
		tm.waitFor("Press r to roll again")
		out, _, _ := runCmd(t, srv.addr, key, "whoami --json")
		t.Logf("the knight died; whoami now: %s", out)
		return
	}
	if w := whoamiJSON(t, srv.addr, key); w.Experience == 0 {
		t.Fatalf("won the fight but gained no experience: %+v", w)
	}
	tm.waitFor("LAST FIGHT")
}
