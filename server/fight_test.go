package server

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A knight walks from the entrance into a guarded room, which starts a fight, and fights
// it out with f: it ends with the monster dead or the knight's tombstone, and after a
// death the player is offered a new knight.
func TestWalkIntoARoomAndFight(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	waitUntil(t, "the knight off the trap", func() bool { return whereIs(t, srv.addr, key) != squares[len(squares)-1] })
	tm.press("m")
	tm.waitFor("Map of level 1", "··")
}

// opposite is the arrow key back the way a key went.
func opposite(k string) string {
	last := k[len(k)-1]
	back := map[byte]byte{'A': 'B', 'B': 'A', 'C': 'D', 'D': 'C'}[last]
	return "\x1b[" + string(back)
}

// Issue 28: a resize mid-fight keeps the fight. A knight walks into a guarded room, and
// with the battle waiting for its move the terminal goes from 80×24 to a phone's 40×20, a
// landscape phone's 100×18 and back: at each size the battle panel shows the monster and
// the knight's hits whole, inside the panel's right edge, and the round, the monster and
// everyone's hits are what they were. Then, at 40×20, f strikes and the blow shows.
func TestResizeMidFightKeepsTheFight(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t)
	in, room := seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits = "Gawain", 400, 400 // no monster of level 1 kills it in a few blows
	})
	srv := startServer(t, dir)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.waitFor("Welcome back, Gawain")
	tm.press(keyEnter)
	tm.waitFor("Gawain │ Level 1")
	walk(t, tm, srv.addr, key, in, room)
	// The battle waits for the knight (a fight alone has no time limit), so nothing changes
	// it until f.
	s := tm.waitScreen("the fight waiting for the knight's move", func(s string) bool {
		return strings.Contains(s, "FIGHT, ROUND") && strings.Contains(panelText(s), "Your move")
	})
	before := fightOn(s)
	t.Logf("the fight at 80×24: %+v", before)
	for _, sz := range [][2]int{{40, 20}, {100, 18}, {80, 24}} {
		w, h := sz[0], sz[1]
		tm.resize(w, h)
		tm.waitScreen(fmt.Sprintf("the fight as it was (%+v), whole at %d×%d", before, w, h), func(s string) bool {
			return panelWithin(s, w) && before.shows(s)
		})
	}
	tm.resize(40, 20)
	tm.waitScreen("the fight at 40×20 again", func(s string) bool { return panelWithin(s, 40) && before.shows(s) })
	tm.press("f")
	// The blow ends the round (or the fight): the panel moves on, still whole.
	tm.waitScreen("the round after the blow at 40×20", func(s string) bool {
		f := fightOn(s)
		return panelWithin(s, 40) && (strings.Contains(s, "┌─ LAST FIGHT") || f.round != "" && f.round != before.round)
	})
	// The monster's answer may have pushed the blow out of a phone's panel already; the
	// message log keeps it.
	blow := regexp.MustCompile(`Gawain (misses|swings at|hits) the ` + before.monster)
	tm.press("M")
	tm.waitScreen("the blow in the message log", func(s string) bool {
		return strings.Contains(s, "MESSAGES AND CHAT") && blow.MatchString(screenWords(s))
	})
}

// fightState is what a battle panel shows of a fight of one monster: the round, the
// monster with its hits, and the knight's hits.
type fightState struct {
	round, monster, monsterHits, knight, knightHits string
}

// The parts of a battle panel's text that make its fightState.
var (
	roundRe   = regexp.MustCompile(`FIGHT, ROUND (\d+)`)
	monsterRe = regexp.MustCompile(`> a ([A-Z][A-Za-z' -]*?) (\d+/\d+)`)
	knightRe  = regexp.MustCompile(`(Gawain) (\d+/\d+)`)
)

// fightOn reads the fight's state off a screen (empty parts where it does not show them).
func fightOn(s string) fightState {
	var f fightState
	if m := roundRe.FindStringSubmatch(s); m != nil {
		f.round = m[1]
	}
	p := panelText(s)
	if m := monsterRe.FindStringSubmatch(p); m != nil {
		f.monster, f.monsterHits = m[1], m[2]
	}
	if m := knightRe.FindStringSubmatch(p); m != nil {
		f.knight, f.knightHits = m[1], m[2]
	}
	return f
}

// shows reports whether the screen's battle panel shows every part of f.
func (f fightState) shows(s string) bool {
	return f.round != "" && f.monster != "" && f.knight != "" && fightOn(s) == f
}

// panelWithin reports whether a screen w columns wide has a battle panel whose every line
// ends with its right border at the screen's right edge: nothing in it cut off there.
func panelWithin(s string, w int) bool {
	in := false
	for _, l := range strings.Split(s, "\n") {
		r := []rune(strings.TrimRight(l, " "))
		switch {
		case !in && slices.ContainsFunc(panelTitles, func(title string) bool { return strings.Contains(l, title) }):
			in = true
			if len(r) != w || r[w-1] != '┐' {
				return false
			}
		case in && len(r) == w && r[w-1] == '┘':
			return true
		case in && (len(r) != w || r[w-1] != '│'):
			return false
		}
	}
	return false
}
