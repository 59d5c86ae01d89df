package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Exploring by ear through real SSH (issue 44), the parts the scripted exploration of
// level 1 does not reach: a walk towards a known chute, the fall, and what a knight on a
// level it has never seen is told.

// straightToAChute finds a dungeon whose level 1 has a chute at the end of a straight
// corridor of run squares with no way off it and nothing on it. It returns the seed,
// the square run squares from the chute, the way along the corridor to the chute, and
// the chute's square.
func straightToAChute(t *testing.T, run int) (seed uint64, from world.Pos, d world.Dir, chute world.Pos) {
	t.Helper()
	walled := func(e world.Edge) bool { return e == world.EdgeWall || e == world.EdgeSecret }
	for seed = 1; seed < 300; seed++ {
		l := world.New(world.Config{Seed: seed}).Level(1)
		for y := range l.H {
			for x := range l.W {
				chute = world.Pos{X: x, Y: y}
				if l.Feature(chute) != world.FeatChute {
					continue
				}
				for _, d = range world.Dirs {
					q, ok := chute, true
					for i := 0; i < run && ok; i++ {
						q = q.Step(d.Opposite())
						ok = l.In(q) && l.Edge(q, d) == world.EdgeOpen && l.Terrain(q) == world.Corridor &&
							l.Feature(q) == world.FeatNone && l.Trap(q) == world.TrapNone
						for _, s := range world.Dirs {
							if ok && s != d && s != d.Opposite() {
								ok = walled(l.Edge(q, s))
							}
						}
					}
					if ok {
						return seed, q, d, chute
					}
				}
			}
		}
	}
	t.Fatal("no dungeon with a chute at the end of a straight corridor on level 1")
	return
}

// emptyLevels writes the levels' states before the server starts with no monster on
// them, so that no guard meets a knight where it lands (a wanderer still may).
func emptyLevels(t *testing.T, dir string, seed uint64, depths ...int) {
	t.Helper()
	for _, d := range depths {
		seedWanderers(t, dir, seed, d, "giant rat")
	}
}

// seenMap is a map of the level with the squares marked seen.
func seenMap(l *world.Level, squares ...world.Pos) world.LevelMap {
	m := world.LevelMap{Depth: l.Depth, Seed: l.Seed, W: l.W, H: l.H, Seen: make([]byte, (l.W*l.H+7)/8)}
	for _, q := range squares {
		i := q.Y*l.W + q.X
		m.Seen[i/8] |= 1 << (i % 8)
	}
	return m
}

// plainAnswer types a line into a screen-reader session and returns its answer, its
// words joined by single spaces: what is told until the prompt ends the output again,
// a fight met on the way fought out first.
func plainAnswer(t *testing.T, p *terminal, line string) string {
	t.Helper()
	from := len(p.rawOutput())
	seen := from
	p.press(line, keyEnter)
	if !poll(20*time.Second, pollEvery, func() bool {
		plainFightBack(p, &seen, true)
		_, after, echoed := strings.Cut(p.rawOutput()[from:], line+"\r\n")
		return echoed && after != "> " && strings.HasSuffix(after, "\r\n> ")
	}) {
		t.Fatalf("no answer to %q:\n%s", line, p.rawOutput()[from:])
	}
	_, after, _ := strings.Cut(p.rawOutput()[from:], line+"\r\n")
	return strings.Join(strings.Fields(after), " ")
}

// openPlain opens a screen-reader session of a stored knight and waits for its first
// prompt.
func openPlain(t *testing.T, addr string, key gossh.Signer, name string) *terminal {
	t.Helper()
	p := openTerminalCmd(t, addr, key, 200, 24, "play --plain")
	p.waitRaw("Welcome back, " + name)
	p.press(keyEnter)
	p.waitRaw("Welcome, " + name)
	waitUntil(t, name+"'s first prompt", func() bool { return strings.HasSuffix(p.rawOutput(), "\r\n> ") })
	return p
}

// Issue 44: "A chute is 6 squares east." then east 9: "You slide down a chute to level
// 3!"; and after the fall, way up said "You know no way to the stairs up yet" and where
// "Your map has no landmarks yet", 16 commands on the level without finding stairs.
// Through real SSH: a knight at the end of a straight corridor whose far end is a chute
// it knows hears where the chute is; a walk of nine squares stops before it and says
// so, and the way alone, the documented confirm, steps onto it. On the level below,
// which it has never seen, where says how much of the level it knows and the nearest unexplored way;
// way up, knowing no way to the stairs, offers that way; map lists the unexplored
// openings by direction and distance; and explore walks on from there.
func TestAWalkStopsBeforeAKnownChuteAndAfterTheFallOffersAWay(t *testing.T) {
	t.Parallel()
	const run = 4
	seed, from, d, chute := straightToAChute(t, run)
	l := world.New(world.Config{Seed: seed}).Level(1)
	var corridor []world.Pos
	for q := from; q != chute; q = q.Step(d) {
		corridor = append(corridor, q)
	}
	dir := t.TempDir()
	emptyLevels(t, dir, seed, 1, 2, 3)
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Str, a.Dex = "Percival", 900, 900, 18, 18
		a.Depth, a.X, a.Y = 1, from.X, from.Y
		a.Maps = []world.LevelMap{seenMap(l, append(corridor, chute)...)}
	})
	cfg := testConfig(dir, seed)
	cfg.Tick = time.Millisecond
	srv, _ := startConfigured(t, cfg)
	p := openPlain(t, srv.addr, key, "Percival")
	way := d.String()

	if said := plainAnswer(t, p, "look"); !strings.Contains(said, fmt.Sprintf("A chute is %d squares %s.", run, way)) {
		t.Fatalf("look does not say where the chute is: %s", said)
	}
	said := plainAnswer(t, p, way+" 9")
	want := fmt.Sprintf("You stop after %d squares %s. A chute is 1 square %s: a walk stops before it. Type %s alone to step onto it.", run-1, way, way, way)
	if !strings.Contains(said, want) || strings.Count(said, "A chute is") != 1 {
		t.Fatalf("%s 9 towards the known chute said %q, want %q, the chute once", way, said, want)
	}
	if w := whoamiJSON(t, srv.addr, key); w.Depth != 1 || (world.Pos{X: w.X, Y: w.Y}) != corridor[run-1] {
		t.Fatalf("after %s 9 the knight is on level %d at %d,%d, want level 1 at %v, before the chute", way, w.Depth, w.X, w.Y, corridor[run-1])
	}
	if said := plainAnswer(t, p, way+" 9"); !strings.Contains(said, "A chute is 1 square "+way) {
		t.Fatalf("%s 9 beside the chute said %q", way, said)
	}
	// A chute drops one level, or two one time in three.
	fell := regexp.MustCompile(`You slide down a chute to level ([23])!`).FindStringSubmatch(plainAnswer(t, p, way))
	if fell == nil {
		t.Fatalf("%s alone beside the chute did not slide down it:\n%s", way, p.rawOutput())
	}
	if w := whoamiJSON(t, srv.addr, key); strconv.Itoa(w.Depth) != fell[1] {
		t.Fatalf("after the chute to level %s the knight is on level %d", fell[1], w.Depth)
	}

	// The level below, never seen.
	nearest := regexp.MustCompile(`The nearest unexplored way is (a passage|a door|a locked door) (north|south|east|west)(, where you stand: explore goes through it\.|: ((North|South|East|West) \d+[^.]*)\. Explore walks there\.)`)
	if said := plainAnswer(t, p, "where"); !regexp.MustCompile(`you have seen \d+ squares of this level\.`).MatchString(said) || !nearest.MatchString(said) {
		t.Fatalf("where after the fall said %q", said)
	}
	if said := plainAnswer(t, p, "way up"); !strings.Contains(said, "You know no way to the stairs up yet.") || !nearest.MatchString(said) {
		t.Fatalf("way up after the fall said %q", said)
	}
	openings := regexp.MustCompile(`Unexplored openings, nearest first: (a (passage|door|locked door) (north|south|east|west), (here|where you stand|[^;]*(north|south|east|west))(, \d+ steps? away)?(; |\. ))+Type explore to walk to the nearest\.`)
	if said := plainAnswer(t, p, "map"); !openings.MatchString(said) {
		t.Fatalf("map after the fall lists no unexplored openings by direction and distance: %s", said)
	}
	if said := plainAnswer(t, p, "explore"); !strings.Contains(said, "You stop after exploring") && !strings.Contains(said, "leads where you have not been") {
		t.Fatalf("explore after the fall said %q", said)
	}
	noEscape(t, p.rawOutput())
}

// darkHoard finds a corridor square, on one of the first levels of a dungeon, with a
// way to another from which a knight's light reaches a guard's hoard that it does not
// reach from the first, and a way on from that one, to the side, to a third square
// (out of sight from the first). It returns the seed, the level, the first square, the
// way to the second, and the third. The hoard lies across its room from its guard
// (world's hoardSquare: the guard's square mirrored through the room's middle).
func darkHoard(t *testing.T) (seed uint64, depth int, from world.Pos, d world.Dir, beyond world.Pos) {
	t.Helper()
	lit := func(p, q world.Pos) bool {
		return max(p.X-q.X, q.X-p.X) <= world.LightRange && max(p.Y-q.Y, q.Y-p.Y) <= world.LightRange
	}
	for seed = 1; seed < 200; seed++ {
		e := world.New(world.Config{Seed: seed})
		for depth = 1; depth <= 3; depth++ {
			l := e.Level(depth)
			var hoards []world.Pos
			for _, m := range e.Monsters(depth) {
				if r := l.RoomAt(m.Pos); r >= 0 {
					rr := l.Rooms[r]
					if h := (world.Pos{X: 2*rr.X + rr.W - 1 - m.Pos.X, Y: 2*rr.Y + rr.H - 1 - m.Pos.Y}); h != m.Pos {
						hoards = append(hoards, h)
					}
				}
			}
			plain := func(q world.Pos) bool {
				return l.In(q) && l.Terrain(q) == world.Corridor && l.Feature(q) == world.FeatNone && l.Trap(q) == world.TrapNone
			}
			for y := range l.H {
				for x := range l.W {
					from = world.Pos{X: x, Y: y}
					for _, d = range world.Dirs {
						to := from.Step(d)
						if !plain(from) || l.Edge(from, d) != world.EdgeOpen || !plain(to) {
							continue
						}
						seen, near := false, false
						for _, h := range hoards {
							seen = seen || lit(from, h)
							near = near || lit(to, h)
						}
						for _, w := range world.Dirs {
							if beyond = to.Step(w); near && !seen && w != d && w != d.Opposite() && l.Edge(to, w) == world.EdgeOpen {
								return seed, depth, from, d, beyond
							}
						}
					}
				}
			}
		}
	}
	t.Fatal("no corridor a step from a guard's hoard's light")
	return
}

// Issue 44: explore was to stop at an item as at a monster, a door or a danger. The
// dungeon's things lie in its guards' hoards, which a knight's light shows through the
// walls as treasure on the drawn screen; screen-reader mode said nothing of them.
// Through real SSH: a knight wearing a ring of light, knowing its level but for one
// square, explores towards it, and stops at its first step, where the light first
// reaches a hoard, saying so and where it lies; look says it again.
func TestExploreStopsWhereTheLightShowsTreasureOverSSH(t *testing.T) {
	seed, depth, from, d, beyond := darkHoard(t)
	l := world.New(world.Config{Seed: seed}).Level(depth)
	var all []world.Pos
	for y := range l.H {
		for x := range l.W {
			if q := (world.Pos{X: x, Y: y}); q != beyond {
				all = append(all, q)
			}
		}
	}
	dir := t.TempDir()
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Str, a.Dex = "Percival", 900, 900, 18, 18
		a.Depth, a.X, a.Y = depth, from.X, from.Y
		a.Items = append(a.Items, world.Item{Kind: world.ItemRingOfLight, Worn: true})
		a.Maps = []world.LevelMap{seenMap(l, all...)}
	})
	srv, _ := startConfigured(t, testConfig(dir, seed))
	p := openPlain(t, srv.addr, key, "Percival")
	if said := plainAnswer(t, p, "look"); strings.Contains(said, "treasure") {
		t.Fatalf("where explore starts the light already shows treasure: %s", said)
	}
	said := plainAnswer(t, p, "explore")
	if !strings.Contains(said, "You stop after exploring 1 square: your light shows treasure.") ||
		!regexp.MustCompile(`Your light shows treasure \d+ (north|south|east|west)( and \d+ (east|west))?, beyond your sight\.`).MatchString(said) {
		t.Fatalf("explore %s said %q", d, said)
	}
	if w := whoamiJSON(t, srv.addr, key); (world.Pos{X: w.X, Y: w.Y}) != from.Step(d) {
		t.Fatalf("explore stopped at %d,%d, want %v", w.X, w.Y, from.Step(d))
	}
	if said := plainAnswer(t, p, "look"); !strings.Contains(said, "Your light shows treasure") {
		t.Fatalf("look does not say the treasure the light shows: %s", said)
	}
	noEscape(t, p.rawOutput())
}
