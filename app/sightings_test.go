package app

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// corridorWatch is Sir Kay standing in battleLevel's corridor, seeing along it up to
// the locked door (x 0 to 6 of row 0) and not into the room beyond, in screen-reader
// mode; each view given to it is told as the game tells it.
type corridorWatch struct {
	t       *testing.T
	m       *Model
	v       world.View
	printed int // the transcript lines already read
}

func newCorridorWatch(t *testing.T) *corridorWatch {
	l := battleLevel(t)
	vis := make([]byte, (l.W*l.H+7)/8)
	for x := range 7 {
		vis[x/8] |= 1 << (x % 8)
	}
	v := world.View{Turn: 1, Self: world.Self{Name: "Sir Kay", Level: 1, Hits: 10, MaxHits: 10, Depth: 2, Pos: world.Pos{X: 1, Y: 0}},
		Level: l, Visible: vis, Known: vis}
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.haveView = false
	m.pl.active = true
	w := &corridorWatch{t: t, m: m, v: v}
	w.show(nil)
	w.lines() // the first look
	return w
}

// show gives the model the view of this turn with the monsters ms where the knight sees
// them (those in the room are out of its sight), and moves the clock a turn.
func (w *corridorWatch) show(ms []world.SeenMonster) {
	v := w.v
	v.Monsters = nil
	for _, mo := range ms {
		if visible(v, mo.Pos) {
			v.Monsters = append(v.Monsters, mo)
		}
	}
	w.m.ownView(v)
	w.v.Turn++
}

// lines are the lines printed since the last call.
func (w *corridorWatch) lines() []string {
	all := w.m.pl.transcript
	out := all[w.printed:]
	w.printed = len(all)
	return out
}

// A monster wandering to and fro near a knight that stands still, in and out of its
// sight, for 60 s: the knight hears at most 3 lines about it (it was a line for every
// step, 18 times "comes into sight" in 20 s). One that hovers beside the knight is told at
// most once in 5 s, and one that goes away is said to have gone once.
func TestAWanderingMonsterIsToldOnce(t *testing.T) {
	const minute = 60 * 40 // turns, at 25 ms
	w := newCorridorWatch(t)
	centipede := world.SeenMonster{ID: 7, Name: "Centipede", Glyph: "Ce", Pos: world.Pos{X: 4, Y: 0}}
	// To and fro between x 4 and 9 of row 0: in sight up to 6, in the room after.
	x, dx := 4, 1
	var heard []string
	for turn := range minute {
		if turn%12 == 0 {
			if x+dx < 4 || x+dx > 9 {
				dx = -dx
			}
			x += dx
		}
		centipede.Pos = world.Pos{X: x, Y: 0}
		if x > 6 {
			centipede.Pos.Y = 1 // the room is below the door's row as well: out of sight
		}
		w.show([]world.SeenMonster{centipede})
		heard = append(heard, w.lines()...)
	}
	if len(heard) == 0 || len(heard) > 3 {
		t.Fatalf("a minute of a wandering Centipede said %d lines, want 1 to 3:\n%s", len(heard), strings.Join(heard, "\n"))
	}
	if !strings.Contains(heard[0], "A Centipede comes into sight") {
		t.Errorf("the first line is %q, want the Centipede coming into sight", heard[0])
	}

	// Hovering beside the knight, a step every turn: a line at most every 5 s, and at
	// most 3 in the minute (DESIGN's claim, issue 44).
	w = newCorridorWatch(t)
	rat := world.SeenMonster{ID: 8, Name: "Giant Rat", Glyph: "Ra", Pos: world.Pos{X: 2, Y: 0}}
	var told []uint64
	for turn := range minute {
		rat.Pos.X = 2 + turn%2
		w.show([]world.SeenMonster{rat})
		for _, l := range w.lines() {
			if strings.Contains(l, "Rat") {
				told = append(told, w.v.Turn)
			}
		}
	}
	if len(told) == 0 || len(told) > 3 {
		t.Errorf("a rat stepping beside the knight for a minute was told %d times, want 1 to 3", len(told))
	}
	for i := 1; i < len(told); i++ {
		if told[i]-told[i-1] < 200 {
			t.Fatalf("the rat was told at turns %d and %d, less than 5 s apart", told[i-1], told[i])
		}
	}

	// Gone for good: said once, 5 s after it was last seen (its lines of the minute
	// before are past).
	var gone []string
	for range 2 * 200 {
		w.show(nil)
		gone = append(gone, w.lines()...)
	}
	if len(gone) != 1 || gone[0] != "The Giant Rat goes out of sight." {
		t.Fatalf("the rat leaving said %q, want it gone once", gone)
	}
}

// Issue 44: standing still 60 s, one Animated Broom got 7 lines in 28 s, "comes into
// sight" and "goes out of sight" three times each: it paced in and out of sight, out for
// longer than 5 s each time. A monster seen in the last minute is not new: it came into
// sight once, went once, and coming back at the edge of sight is no news; in the minute
// no more than 3 lines are about it. Coming near again is told.
func TestAMonsterSeenThisMinuteIsNotNew(t *testing.T) {
	const minute = 60 * 40 // turns, at 25 ms
	w := newCorridorWatch(t)
	broom := world.SeenMonster{ID: 9, Name: "Animated Broom", Glyph: "AB", Pos: world.Pos{X: 6, Y: 0}}
	var heard []string
	for turn := range minute {
		// 4 s in sight at the corridor's end, 8 s out of it in the room.
		in := turn%480 < 160
		broom.Pos = world.Pos{X: 6, Y: 0}
		if !in {
			broom.Pos = world.Pos{X: 7, Y: 1}
		}
		w.show([]world.SeenMonster{broom})
		heard = append(heard, w.lines()...)
	}
	said := strings.Join(heard, "\n")
	if len(heard) == 0 || len(heard) > 3 || strings.Count(said, "comes into sight") != 1 {
		t.Fatalf("a minute of a broom pacing in and out of sight said %d lines, want 1 to 3 and one coming:\n%s", len(heard), said)
	}
	// It comes near: that is news.
	w.v.Turn += minute
	broom.Pos = world.Pos{X: 6, Y: 0}
	w.show([]world.SeenMonster{broom})
	w.lines()
	for turn := range 2 * 200 {
		broom.Pos = world.Pos{X: 7, Y: 1}
		if turn > 300 {
			broom.Pos = world.Pos{X: 3, Y: 0}
		}
		w.show([]world.SeenMonster{broom})
		heard = append(heard, w.lines()...)
	}
	if said := strings.Join(heard, "\n"); !strings.Contains(said, "The Animated Broom is back, 2 squares east.") {
		t.Fatalf("the broom coming near again was not told:\n%s", said)
	}
}

// Issue 44: a dead monster "went out of sight". One the knight's battle shows dead, or a
// line says died (a trap), is forgotten without a word.
func TestADeadMonsterDoesNotGoOutOfSight(t *testing.T) {
	for _, how := range []string{"battle", "trap"} {
		w := newCorridorWatch(t)
		rat := world.SeenMonster{ID: 5, Name: "Giant Rat", Glyph: "Ra", Pos: world.Pos{X: 4, Y: 0}}
		w.show([]world.SeenMonster{rat})
		if said := strings.Join(w.lines(), "\n"); !strings.Contains(said, "A Giant Rat comes into sight") {
			t.Fatalf("%s: the rat coming was told as %q", how, said)
		}
		switch how {
		case "battle":
			w.v.Fight = &world.FightView{Monsters: []world.FightMonster{{ID: 5, Name: "Giant Rat", Dead: true}}}
			w.v.Log, w.v.Said = withLines(w.v.Log, "You killed the Giant Rat. (+10 experience)"), w.v.Said+1
		case "trap":
			w.v.Log, w.v.Said = withLines(w.v.Log, "The Giant Rat dies."), w.v.Said+1
		}
		w.show(nil)
		w.v.Fight = nil
		var heard []string
		for range 60 * 40 {
			w.show(nil)
			heard = append(heard, w.lines()...)
		}
		if said := strings.Join(heard, "\n"); strings.Contains(said, "out of sight") {
			t.Fatalf("%s: a dead rat went out of sight:\n%s", how, said)
		}
	}
}

// east 4 walks up to four squares and stops at anything new: a step with nothing new is
// not told, the next is asked for, and a monster coming into sight stops the walk there
// with how far it went (issue 29: west 7 answered I do not know "west").
func TestAWalkOfSeveralSquaresStopsAtAnythingNew(t *testing.T) {
	w := newCorridorWatch(t)
	rec := &recorder{}
	w.m.bt.to = rec
	w.m.view = w.v
	enterLine(w.m, "east 4")
	if cmds := rec.take(); len(cmds) != 1 || cmds[0] != (world.Move{Dir: world.East}) {
		t.Fatalf("east 4 sent %v, want a step east", cmds)
	}
	w.lines()
	w.v.Self.Pos.X++
	w.show(nil)
	if said := w.lines(); len(said) != 0 {
		t.Fatalf("a step with nothing new said %q", said)
	}
	if cmds := rec.take(); len(cmds) != 1 || cmds[0] != (world.Move{Dir: world.East}) {
		t.Fatalf("the walk's second step sent %v, want a step east", cmds)
	}
	w.v.Self.Pos.X++
	w.show([]world.SeenMonster{{ID: 3, Name: "Wolf", Glyph: "Wo", Pos: world.Pos{X: 6, Y: 0}}})
	said := strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "You stop after 2 squares east") || !strings.Contains(said, "A Wolf is 3 squares east.") {
		t.Fatalf("the walk did not stop at the Wolf:\n%s", said)
	}
	if cmds := rec.take(); len(cmds) != 0 {
		t.Fatalf("the walk went on after the Wolf: %v", cmds)
	}
}

// A walk of several squares that a wall stops (a message, no step) says how far it went
// and where it stands, and is over: the next single step is one step, not the rest of
// the walk in the old direction.
func TestAWalkAWallStopsIsOver(t *testing.T) {
	w := newCorridorWatch(t)
	rec := &recorder{}
	w.m.bt.to = rec
	w.m.view = w.v
	enterLine(w.m, "east 4")
	rec.take()
	w.lines()
	w.v.Self.Pos.X++
	w.show(nil) // the first step, untold; the second is asked for
	rec.take()
	w.v.Log, w.v.Said = withLines(w.v.Log, "A wall blocks the way east."), w.v.Said+1
	w.show(nil) // the second step is refused
	said := strings.Join(w.lines(), "\n")
	if !strings.Contains(said, "A wall blocks the way east.\nYou stop after 1 square east.") || !strings.Contains(said, "You are") {
		t.Fatalf("the walk's end, told:\n%s", said)
	}
	if cmds := rec.take(); len(cmds) != 0 {
		t.Fatalf("the walk went on after the wall: %v", cmds)
	}
	w.m.view = w.v
	enterLine(w.m, "west")
	rec.take()
	w.v.Self.Pos.X--
	w.show(nil)
	if cmds := rec.take(); len(cmds) != 0 {
		t.Fatalf("one step west went on with the old walk: %v", cmds)
	}
}

// In a battle of several heroes screen-reader mode counts the grace down (at 30 s and at
// 10 s, once each), says a hesitation in the second person, and, once the knight has
// chosen, says whom the battle waits for, once.
func TestTheGraceIsCountedDownAndTheWaitSaid(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight.GraceTurns, v.Fight.GraceLeft = 3600, 3600 // 90 s at 25 ms
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.haveView = false
	m.pl.active = true
	m.ownView(v)
	start := len(m.pl.transcript)
	for left := 3600; left > 0; left -= 40 {
		v.Turn += 40
		v.Fight.GraceLeft = left
		m.ownView(v)
	}
	said := strings.Join(m.pl.transcript[start:], "\n")
	if strings.Count(said, "30 seconds left to choose your move.") != 1 || strings.Count(said, "10 seconds left to choose your move.") != 1 || strings.Count(said, "seconds left") != 2 {
		t.Fatalf("90 s of grace were counted down as:\n%s", said)
	}
	v.Log = withLines(v.Log, "Sir Kay hesitates.")
	v.Said++
	v.Fight.YourMove, v.Fight.GraceLeft = false, 0
	v.Fight.Knights[1].Fainted, v.Fight.Knights[1].Choosing = false, true
	m.ownView(v)
	v.Turn++
	m.ownView(v)
	said = strings.Join(m.pl.transcript[start:], "\n")
	if !strings.Contains(said, "You hesitate: the battle goes on without your move.") || strings.Contains(said, "Sir Kay hesitates") {
		t.Fatalf("the hesitation was said as:\n%s", said)
	}
	if strings.Count(said, "The battle waits for Gawain.") != 1 {
		t.Fatalf("the wait for Gawain was said %d times:\n%s", strings.Count(said, "The battle waits for Gawain."), said)
	}
}

// Two heroes choosing together: once this one has chosen, it is told whom the battle
// waits for (it was remembered while both chose, and never said).
func TestTheWaitIsSaidAfterChoosingTogether(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight.YourMove = true
	v.Fight.Knights[1].Fainted, v.Fight.Knights[1].Hits, v.Fight.Knights[1].Choosing = false, 11, true
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.haveView = false
	m.pl.active = true
	m.ownView(v)
	start := len(m.pl.transcript)
	v.Turn++
	v.Fight.YourMove = false // Sir Kay has chosen; Gawain still chooses
	m.ownView(v)
	v.Turn++
	m.ownView(v)
	if said := strings.Join(m.pl.transcript[start:], "\n"); strings.Count(said, "The battle waits for Gawain.") != 1 {
		t.Fatalf("after choosing, the wait for Gawain was said as:\n%s", said)
	}
}

// Hits and spell units that change outside a fight are said, after the line that caused
// them: a spear trap's 3 hits, a spell's units.
func TestHitsAndUnitsAreSaid(t *testing.T) {
	w := newCorridorWatch(t)
	w.v.Self.SpellUnits = 4
	w.show(nil)
	w.lines()
	w.v.Log = withLines(w.v.Log, "A spear shoots out of the wall!")
	w.v.Said++
	w.v.Self.Hits = 7
	w.show(nil)
	if got := strings.Join(w.lines(), "\n"); got != "A spear shoots out of the wall!\nYou lose 3 hits: 7 of 10 left." {
		t.Fatalf("the spear was told as %q", got)
	}
	w.v.Self.Hits = 8 // healing slowly: not told
	w.show(nil)
	w.v.Log = withLines(w.v.Log, "You cast Light.")
	w.v.Said++
	w.v.Self.SpellUnits = 3
	w.show(nil)
	if got := strings.Join(w.lines(), "\n"); got != "You cast Light.\nYou spend 1 spell unit: 3 left." {
		t.Fatalf("the spell was told as %q", got)
	}
}

// Issue 44: a fainted hero heard "The battle waits for Lis." 9 times, once a round, while
// it could do nothing. It is told once while it lies fainted; on its feet again, the
// waits are news again.
func TestAFaintedHeroHearsTheWaitOnce(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight.Knights[0].Fainted, v.Fight.Knights[0].Hits = true, 0 // Sir Kay lies fainted
	v.Fight.Knights[1].Fainted, v.Fight.Knights[1].Hits = false, 11
	v.Fight.YourMove = false
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.haveView = false
	m.pl.active = true
	m.ownView(v)
	start := len(m.pl.transcript)
	for range 9 { // nine rounds: Gawain chooses, acts, and chooses again
		for _, choosing := range []bool{true, false} {
			v.Turn++
			v.Fight.Knights[1].Choosing = choosing
			m.ownView(v)
		}
	}
	said := strings.Join(m.pl.transcript[start:], "\n")
	if n := strings.Count(said, "The battle waits for Gawain."); n != 1 {
		t.Fatalf("a fainted hero was told the wait %d times in nine rounds:\n%s", n, said)
	}
	v.Fight.Knights[0].Fainted, v.Fight.Knights[0].Hits = false, 3 // up again, and it has chosen
	for _, choosing := range []bool{false, true} {
		v.Turn++
		v.Fight.Knights[1].Choosing = choosing
		m.ownView(v)
	}
	if said := strings.Join(m.pl.transcript[start:], "\n"); strings.Count(said, "The battle waits for Gawain.") != 2 {
		t.Fatalf("on its feet again, the hero was not told the wait:\n%s", said)
	}
}
