package app

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The pace of speech (issue 44: a step took 11.6 s to hear at 175 words a minute). A
// step that changes little is a few words by default; verbose says every step in full
// and brief goes back; set sightings off quiets monsters coming into sight.

// A corridor step is its way and where the passage goes on; verbose says it in full.
func TestAStepIsBriefUnlessVerbose(t *testing.T) {
	w := newForkWalk(t, 3)
	w.m.opts.Plain = true
	enterLine(w.m, "east")
	w.lines()
	w.step()
	if said := strings.Join(w.lines(), "\n"); said != "East. Passage goes on east." {
		t.Fatalf("a brief step said %q", said)
	}
	enterLine(w.m, "verbose")
	if said := strings.Join(w.lines(), "\n"); !strings.Contains(said, "every step is said in full") || !w.m.opts.Verbose {
		t.Fatalf("verbose said %q, verbose kept %v", said, w.m.opts.Verbose)
	}
	enterLine(w.m, "east")
	w.lines()
	w.step()
	if said := strings.Join(w.lines(), "\n"); !strings.HasPrefix(said, "You are on level 1, in a corridor running east and west.") {
		t.Fatalf("a verbose step said %q", said)
	}
	enterLine(w.m, "brief")
	if w.m.opts.Verbose {
		t.Fatal("brief kept verbose")
	}
	enterLine(w.m, "options")
	if said := strings.Join(w.lines(), "\n"); !strings.Contains(said, "Steps: brief; Sightings: said; Others' movements: said; Party chatter: said.") {
		t.Fatalf("options do not list what screen-reader mode says:\n%s", said)
	}
}

// set sightings off quiets a monster coming into sight and going; a step still says it.
func TestSightingsOffQuietsMonstersComingIntoSight(t *testing.T) {
	for _, off := range []bool{false, true} {
		w := newCorridorWatch(t)
		w.m.opts.Plain = true
		w.m.view = w.v
		if off {
			enterLine(w.m, "set sightings off")
			if !w.m.opts.NoSightings {
				t.Fatal("set sightings off did not keep it")
			}
		}
		w.lines()
		w.show([]world.SeenMonster{{ID: 3, Name: "Wolf", Glyph: "Wo", Pos: world.Pos{X: 5, Y: 0}}})
		said := strings.Join(w.lines(), "\n")
		if told := strings.Contains(said, "A Wolf comes into sight"); told == off {
			t.Fatalf("sightings off %v, a Wolf coming into sight said %q", off, said)
		}
	}
}

// set movements off quiets other knights coming into sight, and only them: a monster is
// still told. With it on, both are.
func TestMovementsOffQuietsKnightsComingIntoSight(t *testing.T) {
	for _, off := range []bool{false, true} {
		w := newCorridorWatch(t)
		w.m.opts.Plain = true
		w.m.view = w.v
		if off {
			enterLine(w.m, "set movements off")
			if !w.m.opts.NoMovements {
				t.Fatal("set movements off did not keep it")
			}
		}
		w.lines()
		w.v.Others = []world.Other{{Name: "Gawain", Pos: world.Pos{X: 4, Y: 0}}}
		w.show([]world.SeenMonster{{ID: 3, Name: "Wolf", Glyph: "Wo", Pos: world.Pos{X: 5, Y: 0}}})
		said := strings.Join(w.lines(), "\n")
		if told := strings.Contains(said, "Gawain comes into sight"); told == off {
			t.Fatalf("movements off %v, Gawain coming into sight said %q", off, said)
		}
		if !strings.Contains(said, "A Wolf comes into sight") {
			t.Fatalf("movements off %v quieted a monster too: %q", off, said)
		}
	}
}

// set movements off quiets every line of another knight's comings and goings: joining
// and leaving the game, as well as coming into sight; a death is news and is said, and
// so is everything else. set party off quiets the other members' party talk and nothing
// of the party's own business (an invitation, a member joining).
func TestTheFiltersQuietTheirKindOfLineAndOnlyIt(t *testing.T) {
	lines := []struct {
		msg      string
		kind     world.MsgKind
		movement bool // quieted by set movements off
		chatter  bool // quieted by set party off
	}{
		{"Gawain joins the game.", world.MsgComing, true, false},
		{"Bors leaves the game.", world.MsgComing, true, false},
		{"Lis has been slain by a Troll on level 2.", world.MsgGame, false, false},
		{"Gawain says: joins the game.", world.MsgGame, false, false},
		{"Gawain (party): wait for me", world.MsgParty, false, true},
		{"You tell the party: I wait", world.MsgParty, false, false},
		{"Gawain invites you to join the party. (accept Gawain or decline Gawain)", world.MsgParty, false, false},
		{"Bors joins the party.", world.MsgParty, false, false},
	}
	for _, set := range []string{"", "set movements off", "set party off"} {
		w := newCorridorWatch(t)
		w.m.opts.Plain = true
		w.m.view = w.v
		if set != "" {
			enterLine(w.m, set)
		}
		w.lines()
		for _, l := range lines {
			w.v.Log = withKind(w.v.Log, l.kind, l.msg)
		}
		w.v.Said = uint64(len(w.v.Log.Lines()))
		w.show(nil)
		said := strings.Join(w.lines(), "\n")
		for _, l := range lines {
			quiet := set == "set movements off" && l.movement || set == "set party off" && l.chatter
			if told := strings.Contains(said, plainMessage(l.msg)); told == quiet {
				t.Errorf("%q: %q told %v:\n%s", set, l.msg, told, said)
			}
		}
	}
}
