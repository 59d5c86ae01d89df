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
		msgs := nsub.last().Messages
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
