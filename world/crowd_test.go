package world

import (
	"fmt"
	"slices"
	"testing"
)

// A crowd on one square (DESIGN §12, "Crowds"): a view names at most ShownPerSquare of
// the other knights on a square, the first to join first; a knight arriving or leaving
// behind them changes no one's screen, so no one gets a new view; one of the first few
// does, and everyone who sees the square gets one.
func TestACrowdIsNamedByItsFirstFew(t *testing.T) {
	e := fixtureEngine(t, nil)
	subs := map[string]*recorder{}
	for i := range 10 {
		fp := fmt.Sprintf("k%d", i)
		subs[fp] = &recorder{}
		e.join(knight(fp, 10), subs[fp]) // all on the exit of level 1
	}
	e.publish()
	last := subs["k9"].last().InSight()
	if appended := subs["k9"].last().AppendInSight([]Other{{Name: "before"}}); !slices.Equal(appended[1:], last) || appended[0].Name != "before" {
		t.Fatalf("AppendInSight gave %+v after the first, InSight %+v", appended[1:], last)
	}
	if len(last) != ShownPerSquare {
		t.Fatalf("the last knight sees %d others named on its square, want %d: %+v", len(last), ShownPerSquare, last)
	}
	for i, o := range last {
		if want := fmt.Sprintf("Kay k%d", i); o.Name != want {
			t.Fatalf("named %d is %q, want %q (the first to join)", i, o.Name, want)
		}
	}
	if o := subs["k0"].last().InSight(); len(o) != ShownPerSquare || o[0].Name != "Kay k1" {
		t.Fatalf("the first knight sees %+v; it does not name itself", o)
	}
	count := func() map[string]int {
		n := map[string]int{}
		for fp, r := range subs {
			n[fp] = len(r.views)
		}
		return n
	}
	// A knight joining behind the first four, and one leaving from behind them, change no
	// other screen.
	before := count()
	e.join(knight("k10", 10), &recorder{})
	e.publish()
	e.leave("k9", e.players["k9"].session)
	e.publish()
	for fp, n := range count() {
		if fp != "k9" && n != before[fp] {
			t.Errorf("%s got %d new views when knights behind the crowd's first few came and went", fp, n-before[fp])
		}
	}
	delete(subs, "k9")
	// k1 steps off: it was named, so everyone else on the square (who sees it) is told.
	before = count()
	do(e, "k1", Move{Dir: East})
	for fp, n := range count() {
		if fp != "k1" && n == before[fp] {
			t.Errorf("%s got no new view when one of the named knights left", fp)
		}
	}
	if o := subs["k8"].last().InSight(); len(o) != ShownPerSquare+1 || o[0].Name != "Kay k0" || o[ShownPerSquare-1].Name != "Kay k4" || o[ShownPerSquare].Pos != (Pos{1, 0}) {
		t.Fatalf("after k1 stepped east, k8 sees %+v", o)
	}
}

// Views share the message log, the seen squares and the found doors with the engine;
// what a view holds never changes afterwards.
func TestViewsDoNotChangeAfterwards(t *testing.T) {
	e := fixtureEngine(t, nil)
	r := &recorder{}
	e.join(knight("a", 10), r)
	e.join(knight("b", 10), &recorder{})
	p := e.players["a"]
	for i := range maxMessages + 5 {
		e.say(p, fmt.Sprintf("line %d", i))
	}
	e.publish()
	v := r.last()
	msgs := append([]string(nil), v.Log.Lines()...)
	seen := append([]byte(nil), v.Known...)
	visible := append([]byte(nil), v.Visible...)
	others := v.InSight()
	if len(others) != 1 {
		t.Fatalf("a sees %+v, want b", others)
	}
	for i := range 3 * maxMessages {
		e.say(p, fmt.Sprintf("later %d", i))
	}
	do(e, "a", Move{Dir: East})
	do(e, "b", Move{Dir: East})
	do(e, "a", Move{Dir: East})
	if got := v.InSight(); !slices.Equal(got, others) {
		t.Fatalf("an old view's knights in sight changed: %+v, was %+v", got, others)
	}
	for i := range msgs {
		if v.Log.Lines()[i] != msgs[i] {
			t.Fatalf("message %d of an old view changed: %q, was %q", i, v.Log.Lines()[i], msgs[i])
		}
	}
	if string(v.Known) != string(seen) || string(v.Visible) != string(visible) {
		t.Fatal("an old view's squares changed")
	}
	if len(v.Log.Lines()) != maxMessages || len(r.last().Log.Lines()) != maxMessages {
		t.Fatalf("logs of %d and %d lines, want %d", len(v.Log.Lines()), len(r.last().Log.Lines()), maxMessages)
	}
}

// An active player's screen shows what others do within ActiveRefreshTurns, once a
// period however many steps are taken in sight; its own step shows at once.
func TestAnActiveScreenShowsOthersWithinARefresh(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.ActiveRefreshTurns = DefaultActiveRefreshTurns
	watcher := &recorder{}
	e.join(knight("watcher", 10), watcher)
	for i := range 5 {
		fp := fmt.Sprintf("w%d", i)
		e.join(knight(fp, 10), &recorder{})
	}
	e.Step()
	w := e.players["watcher"]
	for range 40 {
		n := len(watcher.views)
		for i := range 5 { // five knights step in sight on the same turn...
			fp := fmt.Sprintf("w%d", i)
			e.enqueue(fp, e.players[fp].session, Move{Dir: []Dir{East, West}[e.turn/TurnsPerRound%2]})
		}
		e.stir(w) // ...while the watcher is active
		e.Step()
		got := len(watcher.views) - n
		for range DefaultActiveRefreshTurns - 1 {
			e.Step()
		}
		got2 := len(watcher.views) - n
		if got > 1 || got2 != 1 {
			t.Fatalf("turn %d: five steps in sight made %d views on their turn and %d within %d turns, want at most 1 and then exactly 1",
				e.turn, got, got2, DefaultActiveRefreshTurns)
		}
		for range TurnsPerRound - DefaultActiveRefreshTurns { // until the walkers may step again
			e.Step()
		}
	}
	n := len(watcher.views)
	e.enqueue("watcher", w.session, Move{Dir: East})
	e.Step()
	if len(watcher.views) != n+1 {
		t.Fatal("an active knight's own step did not show at once")
	}
}

// crowdSize is the crowd walkerInACrowd puts beside the walker: one of them steps on
// every turn (crowdSteps).
const crowdSize = TurnsPerRound

// walkerInACrowd is an engine at the active refresh, the crowd's refresh at crowdRefresh,
// with a knight "walker" and crowdSize others beside it, a turn stepped: the walker's
// views, and the walker.
func walkerInACrowd(t *testing.T, crowdRefresh int) (*Engine, *recorder, *player) {
	e := fixtureEngine(t, nil)
	e.cfg.ActiveRefreshTurns, e.cfg.CrowdRefresh = DefaultActiveRefreshTurns, crowdRefresh
	walker := &recorder{}
	e.join(knight("walker", 10), walker)
	for i := range crowdSize {
		e.join(knight(fmt.Sprintf("c%d", i), 10), &recorder{})
	}
	e.Step()
	return e, walker, e.players["walker"]
}

// crowdSteps has the crowd's knight of this turn step, east and west by turns.
func crowdSteps(e *Engine, turn int) {
	c := fmt.Sprintf("c%d", turn%crowdSize)
	e.enqueue(c, e.players[c].session, Move{Dir: []Dir{East, West}[turn/crowdSize%2]})
}

// A knight walking through a crowd gets a frame a refresh period, its own steps
// among them: what others do waits a period after the last frame, whatever it showed, and
// never longer (a knight of the crowd steps in sight on every turn).
func TestAWalkerInACrowdGetsAFrameAPeriod(t *testing.T) {
	e, walker, w := walkerInACrowd(t, 0)
	const rounds = 40
	n, steps, last := len(walker.views), 0, e.turn
	for turn := range rounds * TurnsPerRound {
		crowdSteps(e, turn)
		if turn%(2*TurnsPerRound) == 3 { // the walker steps twice a second, as the load tool's walkers
			e.enqueue("walker", w.session, Move{Dir: []Dir{South, North}[steps%2]})
			steps++
		}
		before := len(walker.views)
		e.Step()
		if e.turn-last > uint64(DefaultActiveRefreshTurns) { // the crowd steps on every turn: a change always waits
			t.Fatalf("turn %d: the crowd's steps waited %d turns for a frame, want at most %d", e.turn, e.turn-last, DefaultActiveRefreshTurns)
		}
		if len(walker.views) > before {
			last = e.turn
		}
	}
	turns := rounds * TurnsPerRound
	if got, most := len(walker.views)-n, turns/DefaultActiveRefreshTurns+1; got > most {
		t.Fatalf("a walker in a crowd got %d frames in %d turns (%d of its own steps), want at most %d: one a period", got, turns, steps, most)
	}
}

// An idle player's screen shows what others do once every IdleRefreshTurns; its own
// messages show at once; a key makes it active again and shows what it missed at once.
func TestAnIdleScreenShowsOthersOnceARefresh(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.IdleTurns, e.cfg.IdleRefreshTurns = 50, 20
	idle, walker := &recorder{}, &recorder{}
	e.join(knight("idle", 10), idle)
	e.join(knight("walker", 10), walker)
	for range e.cfg.IdleTurns {
		e.Step()
	}
	n := len(idle.views)
	for i := range 40 {
		dir := East
		if i%2 == 1 {
			dir = West
		}
		do(e, "walker", Move{Dir: dir}) // in sight of the idle knight all the while
	}
	turns := 40 * TurnsPerRound
	got := len(idle.views) - n
	if want := turns / e.cfg.IdleRefreshTurns; got > want+1 || got < want-1 {
		t.Fatalf("an idle knight got %d views in %d turns of a knight walking in sight, want about %d", got, turns, want)
	}
	e.say(e.players["idle"], "A message of its own.")
	n = len(idle.views)
	e.Step()
	if len(idle.views) != n+1 {
		t.Fatal("an idle knight's own message did not show at once")
	}
	do(e, "walker", Move{Dir: East})
	n = len(idle.views)
	e.enqueue("idle", e.players["idle"].session, Move{Dir: North}) // into a wall: still a key
	e.Step()
	if len(idle.views) == n || idle.last().InSight()[0].Pos != e.players["walker"].rec.Pos() {
		t.Fatal("a key did not bring the idle knight's screen up to date at once")
	}
}

// Outside, where everyone sees every space, a crowd at the entrance is named by its first
// few too: a knight arriving behind them changes no one's screen; one of them stepping
// away changes everyone's.
func TestACrowdOutsideIsNamedByItsFirstFew(t *testing.T) {
	e := fightEngine(t, nil)
	at := e.outside.grid.Entrance
	subs := map[string]*recorder{}
	for i := range 8 {
		fp := fmt.Sprintf("k%d", i)
		_, subs[fp] = outsideKnight(t, e, fp, at)
	}
	e.publish()
	if o := subs["k7"].last().Surface.Others; len(o) != ShownPerSquare || o[0].Name != "Kay k0" {
		t.Fatalf("the last knight outside sees %+v", o)
	}
	before := map[string]int{}
	for fp, r := range subs {
		before[fp] = len(r.views)
	}
	outsideKnight(t, e, "k8", at)
	e.publish()
	for fp, r := range subs {
		if len(r.views) != before[fp] {
			t.Errorf("%s got a new view when a knight arrived behind the crowd's first few", fp)
		}
	}
	var to Pos
	for _, d := range Dirs {
		if q := at.Step(d); e.outside.grid.Accessible(q) {
			to = q
			e.place(e.players["k0"], 0, to)
			break
		}
	}
	e.publish()
	for fp, r := range subs {
		if fp != "k0" && len(r.views) == before[fp] {
			t.Errorf("%s got no new view when a named knight stepped away", fp)
		}
	}
	if o := subs["k7"].last().Surface.Others; len(o) != ShownPerSquare+1 || o[0].Name != "Kay k0" || o[0].Pos != to {
		t.Fatalf("after k0 stepped away, k7 sees %+v", o)
	}
}

// With more active players than CrowdRefresh, what others do shows less often, in
// proportion, and never less often than once a round, so every step of a knight in
// sight still shows: a walker among ten walking knights (eleven active) gets a frame
// every period and no later, as long as the period is.
func TestACrowdLengthensTheRefreshUpToARound(t *testing.T) {
	for _, c := range []struct {
		crowdRefresh int
		period       uint64
	}{
		{0, DefaultActiveRefreshTurns},                     // never lengthened
		{11, DefaultActiveRefreshTurns},                    // eleven active: not more than it
		{10, (DefaultActiveRefreshTurns*11 + 10 - 1) / 10}, // 4.4 turns: 5
		{5, (DefaultActiveRefreshTurns*11 + 5 - 1) / 5},    // 8.8 turns: 9
		{2, TurnsPerRound},                                 // 22 turns: a round at most
	} {
		e, walker, w := walkerInACrowd(t, c.crowdRefresh)
		const rounds = 40
		n, last, longest := len(walker.views), e.turn, uint64(0)
		for turn := range rounds * TurnsPerRound {
			crowdSteps(e, turn)
			w.active = e.turn // active, as if it typed, with no view asked for: every frame is the crowd's
			before := len(walker.views)
			e.Step()
			if len(walker.views) > before {
				longest = max(longest, e.turn-last)
				last = e.turn
			}
		}
		if got := e.activeEvery(); got != c.period {
			t.Errorf("CrowdRefresh %d with 11 active: a period of %d turns, want %d", c.crowdRefresh, got, c.period)
		}
		if longest != c.period {
			t.Errorf("CrowdRefresh %d: the crowd's steps waited at most %d turns for a frame, want exactly the period, %d",
				c.crowdRefresh, longest, c.period)
		}
		turns := uint64(rounds * TurnsPerRound)
		if got := uint64(len(walker.views) - n); got < turns/c.period-1 || got > turns/c.period+1 {
			t.Errorf("CrowdRefresh %d: %d frames in %d turns, want one a period of %d (%d)", c.crowdRefresh, got, turns, c.period, turns/c.period)
		}
	}
}

// Only active players count toward the crowd: a crowd standing idle does not slow what an
// active player sees.
func TestAnIdleCrowdDoesNotLengthenTheRefresh(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.ActiveRefreshTurns, e.cfg.CrowdRefresh, e.cfg.IdleTurns = DefaultActiveRefreshTurns, 2, 50
	for i := range 10 {
		e.join(knight(fmt.Sprintf("c%d", i), 10), &recorder{})
	}
	e.join(knight("walker", 10), &recorder{})
	for range e.cfg.IdleTurns {
		e.Step()
	}
	e.stir(e.players["walker"])
	if got := e.activeEvery(); got != DefaultActiveRefreshTurns {
		t.Errorf("one active player among ten idle: a period of %d turns, want %d", got, DefaultActiveRefreshTurns)
	}
	e.stir(e.players["c0"])
	e.stir(e.players["c1"])
	if got := e.activeEvery(); got != 6 { // three active over 2: 4×3/2
		t.Errorf("three active players, CrowdRefresh 2: a period of %d turns, want 6", got)
	}
}

// A level's crowd is made anew at each turn a knight of it moves, by every level with a
// knight walking: it is three arrays made at their size (the crowd, its knights, its
// squares and their starts), a knight in it its name and join order, not its square.
func TestACrowdIsMadeInThreeArraysOfItsSize(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	l := e.levels[0]
	var open []Pos
	for sq := range squares(l) {
		if l.Terrain(sq) != Rock {
			open = append(open, sq)
		}
	}
	const n = 120
	if len(open) < n {
		t.Fatalf("level 1 has %d open squares, want %d", len(open), n)
	}
	for i := range n {
		rec := knight(fmt.Sprint("k", i), 10)
		sq := open[i]
		if i >= n-8 {
			sq = open[0] // a crowded square: the first ShownPerSquare+1 of its 9 are kept
		}
		rec.X, rec.Y = sq.X, sq.Y
		e.join(rec, &recorder{})
	}
	c := e.crowd(1)
	squares, knights := n-8, n-8-1+ShownPerSquare+1
	if len(c.squares) != squares || len(c.knights) != knights {
		t.Fatalf("a crowd of %d squares and %d knights, want %d and %d", len(c.squares), len(c.knights), squares, knights)
	}
	bytes, allocs := allocated(func() {
		e.positionsChanged()
		c = e.crowd(1)
	})
	// 24 bytes a knight and 8 a square, rounded up to the allocator's sizes (an eighth
	// at most), and the Crowd itself.
	most := uint64(24*knights+8*squares)*9/8 + 128
	if allocs != 3 || bytes > most || cap(c.knights) != len(c.knights) {
		t.Errorf("a crowd of %d knights (room for %d) on %d squares made %d arrays of %d bytes, want 3 of at most %d", knights, cap(c.knights), squares, allocs, bytes, most)
	}
	if got := (View{crowd: c, viewer: e.players["k0"].seq, Visible: e.players["k0"].visible}).InSight(); len(got) == 0 || got[0].Pos != open[0] {
		t.Errorf("k0 sees %+v, want the knights on its square %v first", got, open[0])
	}
}

// Outside, a knight's arrival on a square refreshes whoever would name it there: a
// knight elsewhere while fewer than ShownPerSquare joined before it stand on the square,
// and a knight on the square, who does not name itself, while it is among them.
func TestAnArrivalOutsideRefreshesWhoWouldNameIt(t *testing.T) {
	for _, c := range []struct {
		ahead        int  // knights on the square who joined before the arrival
		watcherThere bool // the watcher stands on the square, among those ahead
		want         bool
	}{
		{ShownPerSquare - 1, false, true},
		{ShownPerSquare, false, false},
		{ShownPerSquare, true, true}, // it names only the others ahead: one fewer
		{ShownPerSquare + 1, true, false},
	} {
		e := fightEngine(t, nil)
		at := e.outside.grid.Entrance
		var elsewhere Pos
		for _, d := range Dirs {
			if q := at.Step(d); e.outside.grid.Accessible(q) {
				elsewhere = q
				break
			}
		}
		ahead := c.ahead
		watcherAt := elsewhere
		if c.watcherThere {
			watcherAt, ahead = at, ahead-1
		}
		w, _ := outsideKnight(t, e, "watcher", watcherAt)
		for i := range ahead {
			outsideKnight(t, e, fmt.Sprintf("k%d", i), at)
		}
		p, _ := outsideKnight(t, e, "arrival", elsewhere)
		for _, q := range e.order {
			q.dirty, q.seen = false, false
		}
		p.rec.X, p.rec.Y = at.X, at.Y
		e.moved(p, 0, at, at) // its arrival: the square as moved is told of a knight's coming
		if w.seen != c.want {
			t.Errorf("%d ahead, the watcher on the square %v: refreshed %v, want %v", c.ahead, c.watcherThere, w.seen, c.want)
		}
	}
}
