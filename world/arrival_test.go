package world

import (
	"strings"
	"testing"
	"time"
)

// Issue 14: a new knight was attacked on the exit of level 1 before it had read its first
// screen, by a wanderer sitting next to it. Until it first acts or SafeTurns pass, the
// wanderer does not step onto it; after that, it does.
func TestANewKnightIsSafeOnArrival(t *testing.T) {
	e := fightEngine(t, nil)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng) // next to the exit; its one way on is the exit
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	if p.rec.Pos() != (Pos{0, 0}) || !e.safe(p) {
		t.Fatalf("the knight starts at %v, safe %v", p.rec.Pos(), e.safe(p))
	}
	for range e.cfg.SafeTurns - 1 {
		e.Step()
		if p.fight != nil || rat.pos == p.rec.Pos() {
			t.Fatalf("turn %d of its safe arrival: the rat is at %v, fight %v", e.turn, rat.pos, p.fight != nil)
		}
	}
	stepUntil(t, e, "the rat to attack once the arrival is over", func() bool { return p.fight != nil })
}

// The first thing the knight does ends its safe arrival: a wanderer may then come for it.
func TestActingEndsTheSafeArrival(t *testing.T) {
	e := fightEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	e.enqueue("a", p.session, Move{Dir: South})
	e.Step()
	if p.rec.Pos() != (Pos{0, 1}) {
		t.Fatalf("the knight's first step was not taken on the turn it asked: at %v", p.rec.Pos())
	}
	if e.safe(p) || p.safeUntil != 0 {
		t.Fatal("the knight is still safe after its first step")
	}
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 1}, -1, e.rng) // its one way on is the knight's square
	stepUntil(t, e, "the rat to attack", func() bool { return p.fight != nil })
	if rat.fight == nil {
		t.Fatal("the knight fights something else")
	}
}

// No wanderer appears on or next to a knight in its safe arrival. The knight is blind, so
// the rule that wanderers appear where no one sees does not keep them away on its own.
func TestNoWandererAppearsNextToAKnightArrivingSafely(t *testing.T) {
	e := New(Config{Seed: 11, WanderChance: 1})
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	p.addStatus(StatusBlind, 1000)
	e.look(p)
	at := p.rec.Pos()
	spawned, near := 0, 0
	for range e.cfg.SafeTurns - 1 {
		e.Step()
		for _, m := range e.state[0].monsters {
			if m.room >= 0 {
				continue
			}
			spawned++
			if absInt(m.pos.X-at.X) <= 1 && absInt(m.pos.Y-at.Y) <= 1 {
				near++
			}
			e.removeMonster(m)
		}
	}
	if spawned < 100 || near != 0 {
		t.Fatalf("%d wanderers appeared, %d of them on or next to the arriving knight", spawned, near)
	}
}

// Seed 000, ring of invisibility: "You are safe from attack." A wanderer that walks onto
// an invisible knight does not fight it; once the ring is off, it does.
func TestAWandererLeavesAnInvisibleKnightAlone(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Items = append(rec.Items, Item{Kind: ItemRingOfInvisibility, Worn: true})
	e.join(rec, &recorder{})
	p := e.players["a"]
	p.safeUntil = 0 // past its arrival
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng)
	onIt := 0
	for range 2000 {
		e.Step()
		if rat.pos == p.rec.Pos() {
			onIt++
		}
		if p.fight != nil {
			t.Fatalf("turn %d: the rat attacked an invisible knight", e.turn)
		}
	}
	if onIt == 0 {
		t.Fatal("the rat never walked onto the knight's square")
	}
	p.rec.Items[1].Worn = false
	stepUntil(t, e, "the rat to attack a knight it sees", func() bool { return p.fight != nil })
}

// A monster a teleport trap carries onto an invisible knight's square does not fight it
// either (seed 001's teleport, seed 000's invisibility).
func TestATeleportedMonsterLeavesAnInvisibleKnightAlone(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Items = append(rec.Items, Item{Kind: ItemRingOfInvisibility, Worn: true})
	e.join(rec, &recorder{})
	p := e.players["a"]
	p.safeUntil = 0
	e.levels[0].SetTrap(Pos{1, 1}, TrapTeleport)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{0, 1}, -1, e.rng)
	carried := 0
	for range 4000 {
		before := rat.pos
		e.Step()
		if before == (Pos{0, 1}) && rat.pos == p.rec.Pos() { // it stepped on the trap and landed on the knight
			carried++
		}
		if p.fight != nil {
			t.Fatalf("turn %d: a monster attacked an invisible knight", e.turn)
		}
	}
	if carried == 0 {
		t.Fatal("the trap never carried the rat onto the knight")
	}
}

// A knight that leaves in the middle of a fight in a room is saved where it stands; when it
// comes back it has its safe arrival, and then the guard, still there with the hits it had,
// attacks before the knight's first action: leaving is no way out of a room (seed 000: "If
// you are in a room, you may not run"). DESIGN §12, "Fair play".
func TestLeavingMidFightIsNoWayOutOfARoom(t *testing.T) {
	for _, byTime := range []bool{false, true} {
		e := fightEngine(t, nil)
		rec := knight("a", 10)
		rec.Hits, rec.MaxHits = 500, 500
		e.join(rec, &recorder{})
		p := e.players["a"]
		ogre := e.spawn(1, mustMonster(t, "ogre"), Pos{3, 1}, 0, e.rng)
		e.place(p, 1, Pos{2, 0})
		e.startFight(p, ogre)
		ogre.hits = 7
		left, ok := e.leave("a", p.session)
		if !ok || left.Pos() != (Pos{2, 0}) || ogre.fight != nil {
			t.Fatalf("left at %v (ok %v); the ogre still fights: %v", left.Pos(), ok, ogre.fight != nil)
		}
		e.join(left, &recorder{})
		p = e.players["a"]
		for range e.cfg.SafeTurns - 1 {
			e.Step()
		}
		if p.fight != nil || p.rec.Pos() != (Pos{2, 0}) {
			t.Fatal("the guard attacked during the safe arrival")
		}
		if !byTime {
			e.enqueue("a", p.session, Move{Dir: West, Door: true}) // out through the door
		}
		e.Step() // the arrival's last turn, or the knight's first action: the guard attacks
		if p.fight == nil {
			t.Fatalf("by time %v: no attack on turn %d, SafeTurns after the knight came back", byTime, e.turn)
		}
		if p.rec.Pos() != (Pos{2, 0}) || p.fight != ogre.fight || ogre.hits != 7 {
			t.Fatalf("by time %v: the knight is at %v; the ogre has %d hits", byTime, p.rec.Pos(), ogre.hits)
		}
	}
}

// Issue 14: a successful run was not written in the message log, and the same wanderer
// started a new fight at once. The run is told, and no wanderer starts a fight with the
// knight for SafeTurns after it got away.
func TestAfterARunTheWandererDoesNotFollowAtOnce(t *testing.T) {
	e, p, _ := runFromARat(t)
	if msgs := strings.Join(p.msgs(), "\n"); !strings.Contains(msgs, "Kay a runs away from the Giant Rat!") {
		t.Fatalf("the message log does not tell the run:\n%s", msgs)
	}
	got := e.turn
	stepUntil(t, e, "the rat to come for the knight again", func() bool { return p.fight != nil })
	if e.turn-got < uint64(e.cfg.SafeTurns)-1 {
		t.Fatalf("the rat attacked again %d turns after the run, within the respite of %d", e.turn-got, e.cfg.SafeTurns)
	}
}

// A knight that takes its knight over from another connection, or that a rebuilt level
// moves, has a safe arrival too.
func TestTakeOverAndRegenerateAreSafeArrivals(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	do(e, "a", Move{Dir: East})
	if e.safe(p) {
		t.Fatal("still safe after a step")
	}
	e.join(knight("a", 10), &recorder{})
	if !e.safe(p) {
		t.Fatal("a take-over is not a safe arrival")
	}
	do(e, "a", Move{Dir: East})
	e.regenerate(1, 99)
	if !e.safe(p) {
		t.Fatal("a knight moved by a rebuilt level is not safe")
	}
}

// After a run the wanderer does not follow at once (DESIGN §12, "After a run"): a
// wanderer that walks onto the knight while the respite lasts leaves it alone, and one
// that walks onto it on the turn the respite ends attacks.
func TestTheRespiteEndsOnItsTurn(t *testing.T) {
	for _, ends := range []uint64{1, 2} { // the respite ends on the wanderer's step, or the turn after
		l, err := ParseASCII(1, `
+-+-+
|E  |
+-+-+`)
		if err != nil {
			t.Fatal(err)
		}
		e := newWithLevels(Config{Seed: 3, WanderChance: -1}, []*Level{l})
		e.join(knight("a", 10), &recorder{})
		p := e.players["a"]
		p.safeUntil = 0 // its arrival is over
		rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng)
		rat.energy = 0
		p.respiteUntil = e.turn + ends
		e.Step() // the rat's only way is onto the knight
		if rat.pos != p.rec.Pos() {
			t.Fatalf("the rat did not step onto the knight: at %v", rat.pos)
		}
		if fought := p.fight != nil; fought != (ends == 1) {
			t.Fatalf("the respite ending %d turns on: the rat attacked %v", ends, fought)
		}
	}
}

// Seed 000's first swing holds when a safe arrival ends in a guarded room: a knight of
// Dexterity 3 that left in the middle of a fight with an Ogre (Dex 8) comes back, and when
// its arrival is over the Ogre strikes first, on that very turn.
func TestAQuickerGuardStrikesFirstWhenTheArrivalEnds(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Dex, rec.Hits, rec.MaxHits = 3, 500, 500
	e.join(rec, &recorder{})
	p := e.players["a"]
	ogre := e.spawn(1, mustMonster(t, "ogre"), Pos{3, 1}, 0, e.rng)
	e.place(p, 1, Pos{2, 0})
	e.startFight(p, ogre)
	left, _ := e.leave("a", p.session)
	e.join(left, &recorder{})
	p = e.players["a"]
	for range e.cfg.SafeTurns {
		e.Step()
	}
	if p.fight == nil || ogre.acted == 0 {
		t.Fatalf("when the arrival ended: fighting %v, the Ogre attacked %d times; it is quicker and strikes first", p.fight != nil, ogre.acted)
	}
}

// Issue 44: going down from the surface had no safe arrival (a Centipede attacked 8.6 s
// after the 10.2 s answer began), nor had the stairs or a chute. Every way onto a level
// starts one: the stairs down and up, down from the surface, a chute; a screen-reader
// player's lasts until it acts, a sighted one's SafeTurns.
func TestEveryArrivalIsSafe(t *testing.T) {
	for _, plain := range []bool{false, true} {
		e := New(Config{Seed: 5, WanderChance: -1})
		rec := knight("a", 10)
		rec.Options.Plain = plain
		e.join(rec, &recorder{})
		p := e.players["a"]
		chute := Pos{-1, -1}
		for i := range e.levels[1].W * e.levels[1].H {
			if q := (Pos{i % e.levels[1].W, i / e.levels[1].W}); e.levels[1].Feature(q) == FeatChute {
				chute = q
			}
		}
		if chute.X < 0 {
			t.Fatal("level 2 has no chute")
		}
		ways := []struct {
			name  string
			from  func()
			do    Command
			depth int
		}{
			{"stairs down", func() { e.place(p, 1, e.levels[0].Down) }, Climb{Down: true}, 2},
			{"stairs up", func() { e.place(p, 2, e.levels[1].Up) }, Climb{}, 1},
			{"down from the surface", func() { e.place(p, 0, e.outside.grid.Entrance) }, Enter{}, 1},
			{"a chute", func() { e.place(p, 2, chute) }, Climb{Down: true}, 0}, // one level or two
		}
		for _, w := range ways {
			w.from()
			p.safeUntil = 0 // arrived long ago
			do(e, "a", w.do)
			if d := p.rec.Depth; w.depth > 0 && d != w.depth || w.depth == 0 && d < 3 {
				t.Fatalf("plain %v, %s: at depth %d", plain, w.name, d)
			}
			if !e.safe(p) {
				t.Fatalf("plain %v: arriving by %s is no safe arrival", plain, w.name)
			}
			at := p.rec.Pos()
			rat := e.spawn(p.rec.Depth, mustMonster(t, "giant rat"), at, -1, e.rng) // on the knight's very square
			for range e.cfg.SafeTurns - 1 {
				e.Step()
				if p.fight != nil {
					t.Fatalf("plain %v, %s: the rat attacked on turn %d of the arrival", plain, w.name, e.turn)
				}
			}
			e.removeMonster(rat)
		}
	}
}

// Issue 44: a monster attacked a screen-reader player again 5.8 s after "runs away": the
// respite (10 s) ran while its answer (12.6 to 14.9 s of speech) was still being heard.
// A listener's respite is counted from the end of its answer: the run's line and
// PlainPlaceWords words of where it stands, at PlainListenWPM; a sighted knight's is
// SafeTurns as before.
func TestAListenersRespiteBeginsOnceItsAnswerIsHeard(t *testing.T) {
	for _, plain := range []bool{false, true} {
		e := fightEngine(t, nil)
		rec := knight("a", 10)
		rec.Hits, rec.MaxHits, rec.Options.Plain = 500, 500, plain
		e.join(rec, &recorder{})
		p := e.players["a"]
		do(e, "a", Move{Dir: East})
		rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng)
		e.startFight(p, rat)
		stepUntil(t, e, "the knight to get away", func() bool {
			if p.fight != nil && len(p.queue) == 0 {
				e.enqueue("a", p.session, Run{})
			}
			return p.fight == nil
		})
		got := e.turn
		want := uint64(e.cfg.SafeTurns)
		if plain {
			run := "Kay a runs away from the Giant Rat!"
			want += uint64(e.turns(time.Duration(words(run)+PlainPlaceWords) * time.Minute / PlainListenWPM))
		}
		if p.respiteUntil-got != want {
			t.Fatalf("plain %v: a respite of %d turns, want %d", plain, p.respiteUntil-got, want)
		}
		stepUntil(t, e, "the rat to come for the knight again", func() bool { return p.fight != nil })
		if e.turn-got < want-1 {
			t.Fatalf("plain %v: the rat attacked again %d turns after the run, within the respite of %d", plain, e.turn-got, want)
		}
	}
}
