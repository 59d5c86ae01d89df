package world

import (
	"slices"
	"strings"
	"testing"
)

// Issue 31, deaths explained: a knight's death keeps the last blows (who struck, how
// much, the hits left), what it could have done (Sleep would not work on a Sorcerer, of
// level 5; nor on the undead) and the last lines of its log, and the key's next knight's
// log begins with those lines. All through the engine: a knight fights a monster that
// cannot die until it falls, and the next knight joins with the tombstone's lines.
func TestADeathIsExplained(t *testing.T) {
	for _, c := range []struct{ monster, by, hint string }{
		{"sorcerer", "a Sorcerer", "Sleep would not work on a Sorcerer (level 5; it works up to level 4)."},
		{"skeleton", "a Skeleton", "Sleep would not work on a Skeleton: undead do not sleep."},
		{"illusionist", "an Illusionist", "Sleep would have put an Illusionist to sleep (you had 4 spell units)."},
	} {
		e := fightEngine(t, nil)
		sub := &recorder{}
		rec := knight("a", 10)
		rec.Hits, rec.MaxHits, rec.Dex = 30, 30, 3 // it never hits
		e.join(rec, sub)
		p := e.players["a"]
		m := fightWith(t, e, p, c.monster)
		m.hits = 1 << 30
		for range 100000 {
			if e.players["a"] == nil {
				break
			}
			if len(p.queue) == 0 {
				e.enqueue("a", p.session, Fight{})
			}
			e.Step()
		}
		d := sub.last().Dead
		if d == nil {
			t.Fatalf("%s: the knight did not die", c.monster)
		}
		if len(d.LastBlows) == 0 || len(d.LastBlows) > 3 {
			t.Fatalf("%s: last blows %+v, want 1 to 3", c.monster, d.LastBlows)
		}
		last := d.LastBlows[len(d.LastBlows)-1]
		if last.By != c.by || last.Damage <= 0 || last.HitsLeft > 0 {
			t.Fatalf("%s: the killing blow %+v", c.monster, last)
		}
		for _, b := range d.LastBlows[:len(d.LastBlows)-1] {
			if b.By != c.by || b.Damage <= 0 || b.HitsLeft <= 0 { // the rounds between recover hits
				t.Fatalf("%s: blows before the last: %+v", c.monster, d.LastBlows)
			}
		}
		if !slices.Contains(d.Hints, c.hint) || !slices.Contains(d.Hints, "You could have run: this was no room.") {
			t.Fatalf("%s: hints %q, want %q and running", c.monster, d.Hints, c.hint)
		}
		told := strings.Join(DeathLines(d), "\n")
		if !strings.Contains(told, c.hint) || !strings.Contains(told, last.String()) {
			t.Fatalf("%s: the death told:\n%s", c.monster, told)
		}
		if len(d.LastLines) < 2 || d.LastLines[0] != "The last moments of Kay a:" ||
			d.LastLines[len(d.LastLines)-1] != "You have been slain by "+c.by+"." {
			t.Fatalf("%s: last lines %q", c.monster, d.LastLines)
		}
		// The key's next knight begins its log with them.
		next := knight("b", 10)
		next.Prelude = d.LastLines
		nsub := &recorder{}
		e.join(next, nsub)
		e.Step()
		msgs := nsub.last().Log.Lines()
		if len(msgs) <= len(d.LastLines) || !slices.Equal(msgs[:len(d.LastLines)], d.LastLines) {
			t.Fatalf("%s: the next knight's log begins %q, want %q", c.monster, msgs, d.LastLines)
		}
		if e.players["b"].rec.Prelude != nil {
			t.Fatal("the prelude stays on the record")
		}
	}
}

// A fall into a pit, or a trap, is a blow too: the death keeps it, with no hints (there
// was no monster to fight).
func TestAFallIsTheLastBlow(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.levels[0].SetFeature(Pos{1, 0}, FeatPit)
	sub := &recorder{}
	rec := knight("a", 10)
	rec.Hits = 1
	e.join(rec, sub)
	do(e, "a", Move{Dir: East})
	d := sub.last().Dead
	if d == nil || len(d.LastBlows) != 1 || d.LastBlows[0].By != "a fall into a pit" || d.LastBlows[0].HitsLeft > 0 || d.Hints != nil {
		t.Fatalf("death by a pit: %+v", d)
	}
}

// slainBy has knight "a", set up by setup, with 1 hit and a sword arm that never hits
// (Dexterity 3), meet a monster of the named kind: a guard of the room it walks into, or
// a wanderer that walks onto it in the corridor, and fight until it falls. It returns the
// death, and fails if the knight's spell units changed (a unit recovered in a long fight
// would change the hints it reads).
func slainBy(t *testing.T, name string, inRoom bool, setup func(*Adventurer)) *Death {
	t.Helper()
	rec := knight("a", 10)
	rec.Dex, rec.Hits, rec.MaxHits, rec.SpellUnits = 3, 1, 1, 0
	setup(&rec)
	units := rec.SpellUnits
	var e *Engine
	var p *player
	if inRoom {
		e = fightEngine(t, nil)
		e.join(rec, &recorder{})
		p = e.players["a"]
		e.spawn(1, mustMonster(t, name), Pos{3, 1}, 0, e.rng)
		do(e, "a", Move{Dir: East})
		e.enqueue("a", p.session, Move{Dir: East, Door: true})
		stepUntil(t, e, "the guard to fight", func() bool { return p.fight != nil })
	} else {
		var ps []*player
		e, ps, _ = wandererComes(t, name, rec)
		p = ps[0]
	}
	if p.fight.inRoom != inRoom {
		t.Fatalf("%s: the fight is in a room %v, want %v", name, p.fight.inRoom, inRoom)
	}
	for turns := 0; p.rec.Death == nil; turns++ {
		if turns == 5000 { // a knight of 1 hit falls in a few rounds, unless falling is broken
			t.Fatalf("%s: the knight has not fallen in %d turns (hits %d, fainted %v)", name, turns, p.rec.Hits, p.fainted)
		}
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		e.Step()
	}
	if p.rec.SpellUnits != units {
		t.Fatalf("%s: the knight had %d spell units when it fell, not %d: it fought too long for this test", name, p.rec.SpellUnits, units)
	}
	return p.rec.Death
}

// What might have saved the knight (DESIGN §12, "Death and retiring"), hint by hint: each
// spell that stops the monster is said only when the knight's spell units paid for it
// (from exactly its level's cost), Sleep's limits always (a level above 4, the undead, an
// animated monster), no units left; running, or a room's none; a potion of healing, not
// another potion; arrows against a mythical monster only, and only with arrows left.
func TestEveryDeathHint(t *testing.T) {
	const (
		run    = "You could have run: this was no room."
		noRun  = "There is no running from a room: enter one with more hits."
		noUnit = "You had no spell units left: a successful exit replenishes them."
		potion = "You carried a potion of healing."
		arrow  = "An arrow of slaying kills any mythical monster: s shoots."
	)
	kit := func(units int, items ...Item) func(*Adventurer) {
		return func(r *Adventurer) {
			r.SpellUnits = units
			r.Items = append(r.Items, items...)
		}
	}
	for _, c := range []struct {
		name    string
		monster string
		inRoom  bool
		setup   func(*Adventurer)
		hints   []string
	}{
		{"every spell paid for, a potion", "orc", false, kit(4, Item{Kind: ItemPotionHealing}), []string{
			"Sleep would have put an Orc to sleep (you had 4 spell units).",
			"Charm works on an Orc (fails 30-50%; you had 4 spell units).",
			"Hold Person works on an Orc (fails 10-30%; you had 4 spell units).",
			"Teleport works on an Orc (fails 40-60%; you had 4 spell units).",
			run, potion}},
		{"a unit pays for level 1 alone, in a room", "orc", true, kit(1), []string{
			"Sleep would have put an Orc to sleep (you had 1 spell unit).",
			"Charm works on an Orc (fails 30-50%; you had 1 spell unit).",
			noRun}},
		{"no units, another potion", "orc", false, kit(0, Item{Kind: ItemPotionSpellUnits}), []string{noUnit, run}},
		{"an animal, three units, arrows", "wolf", true, kit(3, Item{Kind: ItemQuiver, Count: 5}), []string{
			"Sleep would have put a Wolf to sleep (you had 3 spell units).",
			"Hold Monster works on a Wolf (fails 10-30%; you had 3 spell units).",
			noRun}},
		{"above Sleep's level", "troll", false, kit(2), []string{
			"Sleep would not work on a Troll (level 6; it works up to level 4).",
			"Charm works on a Troll (fails 30-50%; you had 2 spell units).",
			"Hold Person works on a Troll (fails 10-30%; you had 2 spell units).",
			run}},
		{"the undead, no units", "skeleton", true, kit(0), []string{
			"Sleep would not work on a Skeleton: undead do not sleep.", noUnit, noRun}},
		{"an animated monster", "animated broom", false, kit(4), []string{
			"Sleep would not work on an Animated Broom: only level 4 spells work on animated monsters.",
			"Teleport works on an Animated Broom (fails 40-60%; you had 4 spell units).",
			run}},
		{"a mythical monster, arrows", "hippogriff", false, kit(4, Item{Kind: ItemQuiver, Count: 1}), []string{
			"Sleep would have put a Hippogriff to sleep (you had 4 spell units).",
			"Teleport works on a Hippogriff (fails 40-60%; you had 4 spell units).",
			run, arrow}},
		{"a mythical monster, an empty quiver", "harpy", true, kit(0, Item{Kind: ItemQuiver}), []string{noUnit, noRun}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := slainBy(t, c.monster, c.inRoom, c.setup)
			if !slices.Equal(d.Hints, c.hints) {
				t.Fatalf("hints\n  %s\nwant\n  %s", strings.Join(d.Hints, "\n  "), strings.Join(c.hints, "\n  "))
			}
		})
	}
}
