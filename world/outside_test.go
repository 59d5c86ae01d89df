package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// setPos puts a knight on a surface square without a move.
func setPos(e *Engine, p *player, pos Pos) {
	p.rec.X, p.rec.Y = pos.X, pos.Y
	e.publish()
}

// meetABattle walks knight "a" to and fro between two common spaces until a battle
// starts, failing after a thousand steps, and returns the space it set out from.
func meetABattle(t *testing.T, e *Engine, p *player) Pos {
	t.Helper()
	at, d := findStep(t, e.outside.grid, SurfaceCommon, SurfaceCommon)
	setPos(e, p, at)
	back := Dirs[(d+2)%4]
	for i := 0; p.fight == nil; i++ {
		if i > 1000 {
			t.Fatal("no battle in 1000 steps")
		}
		do(e, "a", Move{Dir: []Dir{d, back}[i%2]})
	}
	return at
}

// Seed 000's successful exit comes out on seed 002's grid, at the entrance; only the
// entrance leads back down.
func TestTheExitLeadsToTheSurfaceEntrance(t *testing.T) {
	e := fixtureEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	p := e.players["a"]
	g := e.outside.grid
	do(e, "a", Climb{})
	v := sub.last()
	if p.rec.Depth != 0 || p.rec.Pos() != g.Entrance || v.Surface == nil || v.Surface.Map != g || v.Level != nil {
		t.Fatalf("after the exit: depth %d at %v (entrance %v), surface %+v", p.rec.Depth, p.rec.Pos(), g.Entrance, v.Surface)
	}
	if !strings.Contains(strings.Join(v.Log.Lines(), "\n"), "daylight") {
		t.Fatalf("messages %q", v.Log.Lines())
	}
	if cost := e.act(p, Climb{}); cost != 0 || lastMsg(p) != "You are already outside." {
		t.Fatalf("< outside: cost %v, %q", cost, lastMsg(p))
	}
	// Off the entrance, > does not go down.
	var off Pos
	for _, d := range Dirs {
		if q := g.Entrance.Step(d); g.Accessible(q) {
			off = q
		}
	}
	setPos(e, p, off)
	if cost := e.act(p, Enter{}); cost != 0 || p.rec.Depth != 0 || lastMsg(p) != "The way down is at the entrance (EX)." {
		t.Fatalf("> off the entrance: cost %v depth %d %q", cost, p.rec.Depth, lastMsg(p))
	}
	setPos(e, p, g.Entrance)
	if cost := e.act(p, Enter{}); cost != MoveCost(0) || p.rec.Depth != 1 || p.rec.Pos() != e.levels[0].Up {
		t.Fatalf("> on the entrance: cost %v, depth %d at %v", cost, p.rec.Depth, p.rec.Pos())
	}
}

// Seed 002: "the party can move up, down, left, or right to an adjacent space", never
// into an inaccessible one; the market space says what it is.
func TestSurfaceMoves(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	p, sub := outsideKnight(t, e, "a", g.Entrance)
	if p.rec.Pos() != g.Entrance || sub.last().Surface == nil {
		t.Fatalf("outside at %v, surface %v", p.rec.Pos(), sub.last().Surface)
	}
	// Into an inaccessible space: refused, free.
	at, d := findStep(t, g, SurfaceCommon, SurfaceInaccessible)
	setPos(e, p, at)
	if cost := e.act(p, Move{Dir: d}); cost != 0 || p.rec.Pos() != at || !strings.Contains(lastMsg(p), "impassable") {
		t.Fatalf("into an inaccessible space: cost %v at %v %q\n%s", cost, p.rec.Pos(), lastMsg(p), surfaceASCII(g))
	}
	// Off the edge: refused, free.
	for x := range g.W {
		if g.Accessible(Pos{x, 0}) {
			setPos(e, p, Pos{x, 0})
			break
		}
	}
	from := p.rec.Pos()
	if cost := e.act(p, Move{Dir: North}); cost != 0 || p.rec.Pos() != from || !strings.Contains(lastMsg(p), "edge") {
		t.Fatalf("off the grid: cost %v at %v %q", cost, p.rec.Pos(), lastMsg(p))
	}
	// Onto a market: a move's cost, and the market says so.
	at, d = findStep(t, g, SurfaceCommon, SurfaceMarket)
	setPos(e, p, at)
	cost := e.act(p, Move{Dir: d})
	e.publish()
	name := g.Market(at.Step(d))
	v := sub.last()
	if cost != MoveCost(0) || p.rec.Pos() != at.Step(d) || v.Self.Pos != at.Step(d) {
		t.Fatalf("onto a market: cost %v at %v", cost, p.rec.Pos())
	}
	if want := "You are at " + name + "; b buys, s sells."; sub.lastMessage() != want {
		t.Fatalf("message %q, want %q", sub.lastMessage(), want)
	}
	if v.Surface.Market == nil || v.Surface.Market.Name != name || len(v.Surface.Market.Wares) < MinWares {
		t.Fatalf("market view %+v", v.Surface.Market)
	}
	// Onto the entrance.
	at, d = findStep(t, g, SurfaceCommon, SurfaceEntrance)
	setPos(e, p, at)
	if cost := e.act(p, Move{Dir: d}); cost != MoveCost(0) || !strings.Contains(lastMsg(p), "entrance") {
		t.Fatalf("onto the entrance: cost %v %q", cost, lastMsg(p))
	}
}

// Seed 002: "Every time the heroes visit a common tile, there is a chance that they will
// engage in a battle ... we 'roll a die'": one step in six onto a common space, never
// onto a market or the entrance.
func TestCommonSpacesStartBattlesOneTimeInSix(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	p, _ := outsideKnight(t, e, "a", g.Entrance)
	p.rec.Hits, p.rec.MaxHits = 10000, 10000
	battles := func(from Pos, d Dir, n int) int {
		got := 0
		for range n {
			setPos(e, p, from)
			before := e.nextMonster
			e.surfaceMove(p, d)
			if made := e.nextMonster - before; made > 0 {
				if made != 1 {
					t.Fatalf("a battle for one knight with %d monsters", made)
				}
				got++
			}
			if p.fight != nil {
				e.leaveFight(p)
			}
		}
		return got
	}
	// One in six within four standard errors (sqrt(1/6 × 5/6 / 6000) = 0.0048): a d6
	// told from a d5 or a d7 (1/7 is five standard errors off).
	at, d := findStep(t, g, SurfaceCommon, SurfaceCommon)
	within(t, "battles on steps onto a common space", float64(battles(at, d, 6000))/6000, 1.0/6, 6000)
	at, d = findStep(t, g, SurfaceCommon, SurfaceMarket)
	if n := battles(at, d, 600); n != 0 {
		t.Errorf("%d battles stepping onto a market", n)
	}
	at, d = findStep(t, g, SurfaceCommon, SurfaceEntrance)
	if n := battles(at, d, 600); n != 0 {
		t.Errorf("%d battles stepping onto the entrance", n)
	}
	// Walking to and fro on common spaces, the knight meets a battle on the surface.
	meetABattle(t, e, p)
	e.publish()
	v := e.view(p)
	if v.Fight == nil || v.Surface == nil || len(v.Fight.Monsters) != 1 {
		t.Fatalf("battle view %+v", v.Fight)
	}
	// The monster made for the battle guards no room: it attacks.
	if log := strings.Join(v.Fight.Log, "\n"); !strings.Contains(log, "attacks!") || strings.Contains(log, "guards") {
		t.Fatalf("a surface battle opens with %q", log)
	}
}

// Seed 002: "There will be as many monsters as there are heroes", scaled to their levels.
func TestAmbushMatchesTheHeroes(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	a, _ := outsideKnight(t, e, "a", g.Entrance)
	b, _ := outsideKnight(t, e, "b", g.Entrance)
	a.rec.Level, b.rec.Level = 4, 6
	for range 50 {
		foes := e.ambush([]*player{a, b}, g.Entrance)
		if len(foes) != 2 {
			t.Fatalf("%d monsters for two heroes", len(foes))
		}
		for _, m := range foes {
			if l := m.Kind().Level; l < 4 || l > 6 || m.pos != g.Entrance || m.hits < 1 {
				t.Fatalf("a level-%d %s at %v for heroes of levels 4 and 6", l, m.Kind().Name, m.pos)
			}
		}
		for _, q := range []*player{a, b} {
			if q.fight != nil {
				e.leaveFight(q)
			}
		}
	}
	// Monsters do not notice knights who are all invisible (as in the dungeon).
	for _, q := range []*player{a, b} {
		q.rec.Items = append(q.rec.Items, Item{Kind: ItemRingOfInvisibility, Worn: true})
	}
	if foes := e.ambush([]*player{a, b}, g.Entrance); foes != nil || !strings.Contains(lastMsg(a), "cannot see you") {
		t.Fatalf("invisible party met %d monsters: %q", len(foes), lastMsg(a))
	}
}

// Knights outside see each other wherever they are, and a step outside refreshes them.
func TestKnightsOutsideSeeEachOther(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	a, as := outsideKnight(t, e, "a", g.Entrance)
	at, d := findStep(t, g, SurfaceCommon, SurfaceMarket)
	b, _ := outsideKnight(t, e, "b", at)
	if o := as.last().Surface.Others; len(o) != 1 || o[0].Name != "Kay b" || o[0].Pos != at {
		t.Fatalf("a sees %+v", o)
	}
	n := len(as.views)
	e.enqueue("b", b.session, Move{Dir: d})
	e.Step()
	if len(as.views) == n {
		t.Fatal("a got no new view when b walked")
	}
	if o := as.last().Surface.Others; len(o) != 1 || o[0].Pos != at.Step(d) {
		t.Fatalf("after b's step a sees %+v", o)
	}
	// b goes down: a sees it go.
	setPos(e, b, g.Entrance)
	n = len(as.views)
	do(e, "b", Enter{})
	if len(as.views) == n || len(as.last().Surface.Others) != 0 {
		t.Fatalf("b went down; a sees %+v", as.last().Surface.Others)
	}
	_ = a
}

// Records from before the surface kept any X, Y outside: they are put on the entrance.
func TestJoiningOutsideRepairsThePosition(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	wall, _ := findStep(t, g, SurfaceInaccessible, SurfaceCommon)
	market, _ := findStep(t, g, SurfaceMarket, SurfaceCommon)
	for i, c := range []struct{ at, want Pos }{
		{wall, g.Entrance}, {Pos{-1, 3}, g.Entrance}, {Pos{g.W, 0}, g.Entrance}, {market, market},
	} {
		fp := string(rune('a' + i))
		p, sub := outsideKnight(t, e, fp, c.at)
		if p.rec.Pos() != c.want || sub.last().Self.Pos != c.want || sub.last().Surface == nil {
			t.Errorf("joined outside at %v: now at %v, want %v", c.at, p.rec.Pos(), c.want)
		}
	}
}

// Legends' party moves as one: the members standing with the knight walk with it, free.
func TestThePartyWalksTogether(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	at, d := findStep(t, g, SurfaceCommon, SurfaceMarket)
	a, _ := outsideKnight(t, e, "a", at)
	b, _ := outsideKnight(t, e, "b", at)
	partyReq{from{"a", a.session}, PartyAction{Kind: PartyInvite, Name: "Kay b"}}.handle(e)
	partyReq{from{"b", b.session}, PartyAction{Kind: PartyAccept, Name: "Kay a"}}.handle(e)
	if len(e.partyHere(a)) != 2 {
		t.Fatal("the party did not form")
	}
	before := b.energy
	if cost := e.act(a, Move{Dir: d}); cost != MoveCost(0) {
		t.Fatalf("the leader's step cost %v", cost)
	}
	if a.rec.Pos() != at.Step(d) || b.rec.Pos() != at.Step(d) || b.energy != before {
		t.Fatalf("a at %v, b at %v (energy %v from %v)", a.rec.Pos(), b.rec.Pos(), b.energy, before)
	}
	if !strings.Contains(strings.Join(b.msgs(), "\n"), "You follow Kay a") {
		t.Fatalf("b was not told: %q", b.msgs())
	}
	// At the entrance the party goes down together, as it walks.
	e.place(a, 0, g.Entrance)
	e.place(b, 0, g.Entrance)
	e.act(a, Enter{})
	if a.rec.Depth != 1 || b.rec.Depth != 1 || b.rec.Pos() != e.levels[0].Up {
		t.Fatalf("after > at the entrance: a on %d, b on %d at %v", a.rec.Depth, b.rec.Depth, b.rec.Pos())
	}
	if !strings.Contains(strings.Join(b.msgs(), "\n"), "You follow Kay a down into the dungeon.") {
		t.Fatalf("b was not told: %q", b.msgs())
	}
}

// Seed 002: "If the heroes win the fight, they earn money and experience." A knight who
// walks the common ground until a battle starts and wins it has the monster's
// experience and its purse (SurfacePurse) as gold, and the log says what it carried; two
// heroes share a purse as they share a hoard's coins. Purses are coins only: no treasure
// experience, no gems, no magic. The purse is gold won, for the boards.
func TestWinningASurfaceBattlePaysGold(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	p, _ := outsideKnight(t, e, "a", g.Entrance)
	p.rec.Dex, p.rec.Hits, p.rec.MaxHits = 30, 10000, 10000 // hits nearly every blow
	at := meetABattle(t, e, p)
	foe := p.fight.monsters[0]
	k := foe.Kind()
	items := len(p.rec.Items)
	stepUntil(t, e, "the surface battle to be won", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return p.fight == nil
	})
	if foe.hits > 0 {
		t.Fatal("the battle ended without the monster dying")
	}
	if p.rec.Gold <= 0 || p.rec.Experience != k.Experience || p.rec.TreasureExperience != 0 || len(p.rec.Items) != items {
		t.Fatalf("after winning: %d gold, %d experience (want the %s's %d), %d treasure experience, %d items (had %d)",
			p.rec.Gold, p.rec.Experience, k.Name, k.Experience, p.rec.TreasureExperience, len(p.rec.Items), items)
	}
	if p.rec.GoldWon != p.rec.Gold || p.rec.Week.GoldWon != p.rec.Gold || p.rec.Slain != 1 {
		t.Fatalf("the purse of %d gold counted %d won (%d this week), %d slain", p.rec.Gold, p.rec.GoldWon, p.rec.Week.GoldWon, p.rec.Slain)
	}
	if want := fmt.Sprintf("(+%d gold)", p.rec.Gold); !strings.Contains(said(e, "a"), "The "+k.Name+" carried ") || !strings.Contains(said(e, "a"), want) {
		t.Fatalf("the messages do not tell the purse of %d gold:\n%s", p.rec.Gold, said(e, "a"))
	}

	// Two heroes: each gets half the purse.
	e = fightEngine(t, nil)
	a, _ := outsideKnight(t, e, "a", at)
	b, _ := outsideKnight(t, e, "b", at)
	foes := e.ambush([]*player{a, b}, at)
	for _, m := range foes {
		e.rng = rand.New(rand.NewPCG(77, 1))
		want, _ := SurfacePurse(rand.New(rand.NewPCG(77, 1)), m.Kind().Level)
		ga, gb := a.rec.Gold, b.rec.Gold
		e.monsterKilled(a.fight, m, a)
		if a.rec.Gold-ga != want/2 || b.rec.Gold-gb != want/2 {
			t.Fatalf("a purse of %d gold paid %d and %d, want %d each", want, a.rec.Gold-ga, b.rec.Gold-gb, want/2)
		}
	}
}

// A surface monster's purse is a guard's coins on the dungeon level of the monster's
// level: the same draws RollTreasure makes first, so from the same seed they are equal.
func TestSurfacePurseIsAHoardsCoins(t *testing.T) {
	for level := 1; level <= MaxMonsterLevel; level++ {
		for seed := range uint64(50) {
			got, line := SurfacePurse(rand.New(rand.NewPCG(seed, 2)), level)
			tr := RollTreasure(rand.New(rand.NewPCG(seed, 2)), level)
			if got != tr.Coins || line != tr.Lines[0] {
				t.Fatalf("level %d, seed %d: purse %d (%q), a hoard's coins %d (%q)", level, seed, got, line, tr.Coins, tr.Lines[0])
			}
		}
	}
}

// A knight leaving a space outside refreshes the others' screens when it was named there,
// even when it walks into a crowd of ShownPerSquare knights that already fills the names
// of the space it comes to (DESIGN §12, "Crowds").
func TestLeavingASpaceForACrowdOutsideIsSeen(t *testing.T) {
	e := fightEngine(t, nil)
	g := e.outside.grid
	from, d := findStep(t, g, SurfaceMarket, SurfaceEntrance)
	_, sub := outsideKnight(t, e, "w", g.Entrance) // joined first: it sees Kay p wherever it stands
	for _, fp := range []string{"c1", "c2", "c3", "c4"} {
		outsideKnight(t, e, fp, g.Entrance)
	}
	p, _ := outsideKnight(t, e, "p", from)
	e.publish()
	if !slices.ContainsFunc(sub.last().InSight(), func(o Other) bool { return o.Name == p.rec.Name }) {
		t.Fatalf("the watcher does not see Kay p at the market: %v", sub.last().InSight())
	}
	n := len(sub.views)
	do(e, "p", Move{Dir: d})
	if p.rec.Pos() != g.Entrance {
		t.Fatalf("Kay p did not step onto the entrance: at %v", p.rec.Pos())
	}
	if len(sub.views) == n || slices.ContainsFunc(sub.last().InSight(), func(o Other) bool { return o.Name == p.rec.Name }) {
		t.Fatalf("the watcher's screen still names Kay p (%d new views): %v", len(sub.views)-n, sub.last().InSight())
	}
}
