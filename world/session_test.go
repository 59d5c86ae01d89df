package world

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Commands given faster than the knight acts wait two deep; the rest are dropped, and the
// knight is told how many once it has done the two (issue 29: six quick steps gave two
// and no word of the four).
func TestDroppedCommandsAreCounted(t *testing.T) {
	e := fixtureEngine(t, nil)
	rec := &recorder{}
	e.join(knight("a", 10), rec)
	p := e.players["a"]
	for range 6 {
		e.enqueue("a", p.session, Move{Dir: East})
	}
	for range 3 * TurnsPerRound {
		e.Step()
	}
	if got := p.rec.Pos(); got != (Pos{2, 0}) {
		t.Fatalf("six steps east took the knight to %v, want the two that waited (2,0)", got)
	}
	msgs := rec.last().Log.Lines()
	if !slices.Contains(msgs, "4 commands dropped: you gave them faster than you can act.") {
		t.Fatalf("the four dropped steps were not told: %q", msgs)
	}
}

// What a knight asked for before a fight started is dropped, and it is told after the
// fight's first lines: a queued s (shoot, on the full screen) never fires an arrow it
// did not mean to.
func TestAFightStopsTheWalking(t *testing.T) {
	e := fightEngine(t, nil)
	rec := &recorder{}
	e.join(knight("a", 10), rec)
	p := e.players["a"]
	e.enqueue("a", p.session, Move{Dir: East})
	e.enqueue("a", p.session, Shoot{})
	e.enqueue("a", p.session, Shoot{}) // a third: dropped at once
	fightWith(t, e, p, "Wolf")
	e.Step()
	if len(p.queue) != 0 {
		t.Fatalf("the fight kept %d commands given before it", len(p.queue))
	}
	msgs := rec.last().Log.Lines()
	i := slices.IndexFunc(msgs, func(s string) bool { return s == "Your walking stops: 3 commands you gave are dropped." })
	j := slices.IndexFunc(msgs, func(s string) bool { return s == "A Wolf (Animal, level 2) attacks!" })
	if i < 0 || j < 0 || i < j {
		t.Fatalf("the fight's start and the dropped commands were not told in that order: %q", msgs)
	}
	// A knight that had asked for nothing is told of no walking stopped.
	q := &recorder{}
	e.join(knight("b", 10), q)
	fightWith(t, e, e.players["b"], "Wolf")
	e.Step()
	for _, s := range q.last().Log.Lines() {
		if strings.HasPrefix(s, "Your walking stops") {
			t.Fatalf("a knight that asked for nothing heard %q", s)
		}
	}
}

// Issue 29: the timers that run against a screen-reader player, each checked against its
// rule. Its safe arrival lasts until it first acts, however long it listens; an invitation
// or an asking waits 5 minutes of wall time, whatever the tick (at 10 ms, 30000 turns). A
// battle's grace is TestAScreenReaderPlayersGraceFollowsItsRule's.
func TestTimersGiveAScreenReaderPlayerTime(t *testing.T) {
	for _, tick := range []time.Duration{10 * time.Millisecond, DefaultTick, 100 * time.Millisecond} {
		pe, _ := heroes(t, "arthur", "bors")
		pe.cfg.Tick = tick
		act(pe, "arthur", PartyInvite, "bors")
		for range 5 * time.Minute / tick {
			if len(pe.parties.pending) != 1 {
				t.Fatalf("at a %v tick the invitation expired before 5 minutes, after %v", tick, time.Duration(pe.turn)*tick)
			}
			pe.Step()
		}
		for range DefaultCheckpointTurns { // requests are swept at a checkpoint
			pe.Step()
		}
		if len(pe.parties.pending) != 0 {
			t.Fatalf("at a %v tick the invitation outlived 5 minutes and a checkpoint", tick)
		}
	}
	e := fixtureEngine(t, nil)
	rec := knight("a", 10)
	rec.Options.Plain = true
	e.join(rec, &recorder{})
	e.join(knight("b", 10), &recorder{})
	a, b := e.players["a"], e.players["b"]
	for range 10 * DefaultSafeTurns {
		e.Step()
	}
	if !e.safe(a) || e.safe(b) {
		t.Fatalf("after ten safe arrivals' time: the screen-reader player safe %v (want true), the other %v (want false)", e.safe(a), e.safe(b))
	}
	e.enqueue("a", a.session, Move{Dir: East})
	e.Step()
	if e.safe(a) {
		t.Fatal("the screen-reader player's first step did not end its safe arrival")
	}
}

// Issue 29: a join notice was heard 3 minutes late. The line waited in the message log
// for the knight's next view, and a knight standing alone with nothing around it is sent
// none until something changes. An arrival or a leaving now reaches an idle or an active
// knight's screen at its own turn of the idle refresh, within a second, if nothing
// brought it sooner.
func TestAJoinOrLeavingIsToldWithinARefresh(t *testing.T) {
	for _, idle := range []bool{true, false} {
		e := fixtureEngine(t, nil)
		sub := &recorder{}
		e.join(knight("a", 10), sub)
		e.place(e.players["a"], 2, Pos{1, 1}) // away from the entrance, out of sight
		turns := DefaultIdleTurns + 1
		if !idle {
			turns = 1
		}
		for range turns {
			e.Step()
		}
		for _, c := range []struct {
			what string
			do   func()
		}{
			{"Kay b joins the game.", func() { e.join(knight("b", 10), &recorder{}) }},
			{"Kay b leaves the game.", func() { e.leave("b", e.players["b"].session) }},
		} {
			c.do()
			heard := false
			for i := 0; i <= e.cfg.IdleRefreshTurns && !heard; i++ {
				e.Step()
				m := sub.last().Log.Lines()
				heard = len(m) > 0 && m[len(m)-1] == c.what
			}
			if !heard {
				t.Fatalf("idle %v: %q was not told within a refresh: the last view says %q", idle, c.what, sub.last().Log.Lines())
			}
		}
	}
}
