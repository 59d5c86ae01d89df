package main

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A knight walks from the entrance into a guarded room, which starts a fight, and fights
// it out with f: it ends with the monster dead or the knight's tombstone, and after a
// death the player is offered a new knight.
func TestWalkIntoARoomAndFight(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.enterDungeon("Gareth")
	keys, squares := pathToGuard(t)
	walk(t, tm, srv.addr, key, keys, squares)
	tm.waitFor("FIGHT", "guards this")
	if !poll(60*time.Second, 50*time.Millisecond, func() bool {
		if s := tm.screen(); strings.Contains(s, "is dead!") || strings.Contains(s, "R. I. P.") {
			return true
		}
		tm.press("f")
		return false
	}) {
		t.Fatalf("the fight did not end:\n%s", tm.screen())
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
	if w := whoamiJSON(t, srv.addr, key); w.Experience == 0 || w.TreasureExperience == 0 && w.Gold == 0 && !strings.Contains(tm.rawOutput(), "silver pieces") {
		t.Fatalf("won the fight but gained no experience or treasure: %+v", w)
	}
	tm.waitFor("You find") // seed 000: "collect the treasures the monsters have"
	tm.waitFor("LAST FIGHT")
}

// trapMessages are seed 001's words for each trap going off under a knight (teleportation
// has none: the knight finds itself elsewhere, confused).
var trapMessages = map[world.TrapKind]string{
	world.TrapWeb:          "spider web!",
	world.TrapStun:         "An electric burning",
	world.TrapPendulum:     "pendulum blade swings down",
	world.TrapStrangleWeed: "A weed snakes out",
	world.TrapPoisonNeedle: "poison needle stabbed",
	world.TrapSleepingGas:  "curious white mist",
	world.TrapBear:         "bear trap snaps shut",
	world.TrapFlyingSpear:  "A spear shoots out",
	world.TrapTeleport:     "Confused",
}

// A knight walks onto a hidden trap of the default dungeon (placed by the fixed seed) until
// it goes off (seed 001: avoided 47.5% of the time): the screen shows MAG's message, and the
// trap shows on the knight's map as dots.
func TestSteppingOnATrap(t *testing.T) {
	// The first dungeon seed whose level 1 has a trap a new knight can walk to without
	// passing a guarded room.
	var trap world.TrapKind
	var keys []string
	var squares []world.Pos
	seed := uint64(1)
	for ; seed < 500; seed++ {
		var ok bool
		keys, squares, ok = findPath(seed, func(_ *world.Engine, l *world.Level, q world.Pos) bool {
			trap = l.Trap(q)
			return trap != world.TrapNone
		})
		if ok {
			break
		}
	}
	srv := startServerSeed(t, t.TempDir(), seed)
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.enterDungeon("Caradoc")
	walk(t, tm, srv.addr, key, keys[:len(keys)-1], squares[:len(squares)-1])
	on, back := keys[len(keys)-1], opposite(keys[len(keys)-1])
	want := trapMessages[trap]
	// A new knight has few hits: a trap may kill it, and the tombstone names the trap.
	// Until it goes off, the knight steps onto the trap's square and back.
	step := on
	if !poll(30*time.Second, 150*time.Millisecond, func() bool {
		if s := tm.screen(); strings.Contains(s, want) || strings.Contains(s, "R. I. P.") {
			return true
		}
		tm.press(step)
		if step == on {
			step = back
		} else {
			step = on
		}
		return false
	}) {
		t.Fatalf("the %v never went off:\n%s", trap, tm.screen())
	}
	t.Logf("a %v went off (dungeon seed %d)", trap, seed)
	if s := tm.screen(); strings.Contains(s, "R. I. P.") {
		if !strings.Contains(s, trap.String()) {
			t.Fatalf("the knight died, but not by the %v:\n%s", trap, s)
		}
		return
	}
	out, _, _ := runCmd(t, srv.addr, key, "whoami --json")
	if trap != world.TrapFlyingSpear && trap != world.TrapPendulum && trap != world.TrapPoisonNeedle && !strings.Contains(out, "turns") && !strings.Contains(out, "tries") {
		t.Logf("whoami after the trap: %s", out) // the condition may already have worn off
	}
	tm.press(back) // step off the trap, so the map shows its dots, not the knight
	time.Sleep(200 * time.Millisecond)
	tm.press("m")
	tm.waitFor("Map of level 1", "··")
}

// opposite is the arrow key back the way a key went.
func opposite(k string) string {
	last := k[len(k)-1]
	back := map[byte]byte{'A': 'B', 'B': 'A', 'C': 'D', 'D': 'C'}[last]
	return "\x1b[" + string(back)
}
