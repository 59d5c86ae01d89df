package server

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The tests' knights: knights seeded into a data folder or joined straight into the
// world, and ways through the default dungeon.

// Knights and the dungeon.

// seedKnight writes a knight for key into a data folder before the server starts, so an
// end-to-end test can begin from a given state.
func seedKnight(t *testing.T, dir string, key gossh.Signer, edit func(*world.Adventurer)) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The knight's id is its key's fingerprint, as for a knight from before keys were
	// several (store schema 1).
	fp := keys.Fingerprint(key.PublicKey())
	a := world.NewAdventurer(fp, "Seeded", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	edit(&a)
	if err := st.Save(store.Batch{Adventurers: []world.Adventurer{a}, Keys: []knights.Key{{Fingerprint: fp, Knight: fp, Added: time.Now()}}}); err != nil {
		t.Fatal(err)
	}
}

// loadKnightOfKey reads the knight a key plays from a store.
func loadKnightOfKey(t *testing.T, st *store.Store, key gossh.Signer) (world.Adventurer, error) {
	t.Helper()
	k, err := st.KeyOf(keys.Fingerprint(key.PublicKey()))
	if err != nil {
		return world.Adventurer{}, err
	}
	return st.LoadAdventurer(k.Knight)
}

// seedFame puts retired knights into the hall of fame before the server starts.
func seedFame(t *testing.T, dir string, names ...string) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var fame []knights.FameEntry
	for i, n := range names {
		a := world.NewAdventurer("SHA256:fame-"+n, n, world.Stats{Str: 12, Int: 12, Con: 12, Dex: 12}, 12)
		a.Level, a.Experience = 10-i, 900000-1000*i
		a.Retirement = &world.Retirement{Level: a.Level, Experience: a.Experience, PercentKills: 60}
		fame = append(fame, knights.FameEntry{Retired: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Adventurer: a})
	}
	if err := st.Save(store.Batch{Fame: fame}); err != nil {
		t.Fatal(err)
	}
}

// viewBox keeps the newest view of a knight joined straight into the engine.
type viewBox struct {
	mu sync.Mutex
	v  world.View
}

func (b *viewBox) Deliver(v world.View) {
	b.mu.Lock()
	b.v = v
	b.mu.Unlock()
}

func (b *viewBox) last() world.View {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.v
}

// joinKnight puts a knight into the world with no connection, as a test's companion, and
// returns it and the box its views go to.
func joinKnight(t *testing.T, e *world.Engine, rec world.Adventurer) (*world.Player, *viewBox) {
	t.Helper()
	box := &viewBox{}
	pl, err := e.Join(context.Background(), rec, box)
	if err != nil {
		t.Fatal(err)
	}
	return pl, box
}

// openDir is a direction the knight can walk from the entrance of the default dungeon.
func openDir(t testing.TB) (world.Dir, string) {
	t.Helper()
	l := world.Generate(1, world.LevelSeed(defaultSeed, 1), false)
	keys := map[world.Dir]string{world.North: keyUp, world.South: keyDown, world.East: keyRight, world.West: keyLeft}
	for _, d := range world.Dirs {
		if l.Edge(l.Up, d) == world.EdgeOpen {
			return d, keys[d]
		}
	}
	t.Fatal("the entrance of the default dungeon has no open side")
	return 0, ""
}

// pathTo finds the shortest walk on level 1 of the default dungeon from the entrance to a
// square that goal accepts, through corridor squares free of hazards, as the keys a player
// presses (shifted where the step crosses a door), with the square each key should reach.
func pathTo(t *testing.T, seed uint64, goal func(e *world.Engine, l *world.Level, q world.Pos) bool) (keys []string, squares []world.Pos) {
	t.Helper()
	keys, squares, ok := findPath(seed, goal)
	if !ok {
		t.Fatal("no such square reachable on level 1 of the dungeon")
	}
	return keys, squares
}

func findPath(seed uint64, goal func(e *world.Engine, l *world.Level, q world.Pos) bool) (keys []string, squares []world.Pos, ok bool) {
	e := world.New(world.Config{Seed: seed}) // all levels: the bottom one is built differently
	l := e.Level(1)
	type step struct {
		from world.Pos
		dir  world.Dir
	}
	came := map[world.Pos]step{l.Up: {}}
	queue := []world.Pos{l.Up}
	var end world.Pos
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
			if goal(e, l, q) {
				end, found = q, true
				break
			}
			if !guarded(e, l, q) && l.Trap(q) == world.TrapNone && l.Feature(q) != world.FeatChute && l.Feature(q) != world.FeatPit {
				queue = append(queue, q)
			}
		}
	}
	if !found {
		return nil, nil, false
	}
	arrows := map[world.Dir]string{world.North: "A", world.South: "B", world.East: "C", world.West: "D"}
	for p := end; p != l.Up; {
		s := came[p]
		k := "\x1b[" + arrows[s.dir]
		if l.Edge(s.from, s.dir) != world.EdgeOpen {
			k = "\x1b[1;2" + arrows[s.dir] // shift+arrow opens the door
		}
		keys = append([]string{k}, keys...)
		squares = append([]world.Pos{p}, squares...)
		p = s.from
	}
	return keys, squares, true
}

// guarded reports whether q lies in a room with a monster in it.
func guarded(e *world.Engine, l *world.Level, q world.Pos) bool {
	r := l.RoomAt(q)
	if r < 0 {
		return false
	}
	for _, m := range e.Monsters(1) {
		if l.RoomAt(m.Pos) == r {
			return true
		}
	}
	return false
}

// pathToGuard is the way into the nearest room with a monster in it.
func pathToGuard(t *testing.T) ([]string, []world.Pos) {
	return pathTo(t, defaultSeed, guarded)
}

// stepOut presses the key that leads off the entrance of the default dungeon and waits
// until ask, a whoami of the knight, shows it has left from's square; it returns that
// whoami.
func (tm *terminal) stepOut(what string, from command.Whoami, ask func() command.Whoami) command.Whoami {
	tm.t.Helper()
	_, k := openDir(tm.t)
	tm.press(k)
	var w command.Whoami
	waitUntil(tm.t, what, func() bool { w = ask(); return w.X != from.X || w.Y != from.Y })
	return w
}

// walk presses the keys of a path, waiting for whoami to show each square (a locked door
// may hold: the knight throws itself at it again).
func walk(t *testing.T, tm *terminal, addr string, key gossh.Signer, keys []string, squares []world.Pos) {
	t.Helper()
	followPath(t, keys, squares, func(k string) { tm.press(k) }, func() world.Pos { return whereIs(t, addr, key) }, tm.screen)
}

// doorRetry is how long a door's key waits for the knight to go through before it is
// pressed again: a locked door may hold, and the knight throws itself at it again.
const doorRetry = 2 * time.Second

// followPath presses the keys of a path with press, waiting on at (the knight's square
// in the world) for each square. A plain step is pressed once: pressed again while a
// busy machine has not yet taken the first, it would be taken twice and the knight
// would leave the path. A door's key (Shift and an arrow) is pressed again every
// doorRetry while the door holds. screen is what a failure shows.
func followPath(t *testing.T, keys []string, squares []world.Pos, press func(k string), at func() world.Pos, screen func() string) {
	t.Helper()
	for i, k := range keys {
		want := squares[i]
		door := strings.HasPrefix(k, "\x1b[1;2")
		var now world.Pos
		var pressed time.Time
		// A locked door breaks at each try with chance Str in 20, a half for a knight
		// of Str 10: ten tries, 20 s of them, all held once in a thousand runs, and a
		// loaded machine takes fewer. A door's key has a minute.
		limit := 20 * time.Second
		if door {
			limit = time.Minute
		}
		if !poll(limit, pollEvery, func() bool {
			if now = at(); now == want {
				return true
			}
			if pressed.IsZero() || door && time.Since(pressed) > doorRetry {
				press(k)
				pressed = time.Now()
			}
			return false
		}) {
			t.Fatalf("step %d: stuck at %d,%d on the way to %v\n%s", i, now.X, now.Y, want, screen())
		}
	}
}

// walkSurely presses the keys of a path one at a time, each only once the knight stands
// where the one before took it, so a slow machine never makes it step twice.
func walkSurely(t *testing.T, tm *terminal, addr string, key gossh.Signer, keys []string, squares []world.Pos) {
	t.Helper()
	at := whereIs(t, addr, key)
	for i, k := range keys {
		want := squares[i]
		if !poll(20*time.Second, 0, func() bool {
			if at == want {
				return true
			}
			tm.press(k)
			poll(time.Second, pollEvery, func() bool { // the step, or a second more for it
				if now := whereIs(t, addr, key); now != at && now != want {
					t.Fatalf("step %d: the knight went to %v, not %v\n%s", i, now, want, tm.screen())
				} else {
					at = now
				}
				return at == want
			})
			return at == want
		}) {
			t.Fatalf("step %d: stuck at %v on the way to %v\n%s", i, at, want, tm.screen())
		}
	}
}

// seedAtTheGuardsDoor writes a knight for key, made by edit, standing on the square
// before the nearest room with a monster in it, and returns the step into the room: its
// key and its square.
func seedAtTheGuardsDoor(t *testing.T, dir string, key gossh.Signer, edit func(*world.Adventurer)) (in []string, room []world.Pos) {
	t.Helper()
	keys, squares := pathToGuard(t)
	door := squares[len(squares)-2]
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		edit(a)
		a.X, a.Y = door.X, door.Y
	})
	return keys[len(keys)-1:], squares[len(squares)-1:]
}

// firstMarket is the surface's first market (the one every server stocks with potions:
// every other market does, from the first) and a common space beside it, with the keys
// that step from one to the other.
func firstMarket(t *testing.T, seed uint64) (market, common world.Pos, there, back string) {
	t.Helper()
	g := world.GenerateSurface(seed, world.DefaultSurfaceSize)
	steps := []struct {
		dx, dy      int
		there, back string
	}{{1, 0, keyRight, keyLeft}, {-1, 0, keyLeft, keyRight}, {0, 1, keyDown, keyUp}, {0, -1, keyUp, keyDown}}
	for i, k := range g.Cells {
		if k != world.SurfaceMarket {
			continue
		}
		market = world.Pos{X: i % g.W, Y: i / g.W}
		for _, s := range steps {
			if c := (world.Pos{X: market.X + s.dx, Y: market.Y + s.dy}); g.At(c) == world.SurfaceCommon {
				return market, c, s.there, s.back
			}
		}
		t.Fatalf("the first market at %v has no common space beside it", market)
	}
	t.Fatal("the surface has no market")
	return
}
