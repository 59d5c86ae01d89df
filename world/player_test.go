package world

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// weakened is rec with n points of Strength taken by poison (seed 001's needle: "player
// strength will go down 1 point for 500 to 999 turns", or 2), for longer than any test.
func weakened(rec Adventurer, n int) Adventurer {
	for range n {
		rec.Status = append(rec.Status, Status{Kind: StatusWeak, Left: 1 << 20})
	}
	return rec
}

// heavyLoad is 126 carried besides the sword: what a knight of Strength 14 carries at a
// speed of -4 and a die 4 sides short, of Strength 15 at -3, of 16 at -2 (DESIGN §12,
// "Carried weight").
var heavyLoad = []Item{{Kind: ItemArmour}, {Kind: ItemArmour}, {Kind: ItemArmour}, {Kind: ItemShield},
	{Kind: ItemBootsOfSpeed}, {Kind: ItemBootsOfSpeed}, {Kind: ItemPotionHealing}}

// forcing is 200 tries of knight rec at the fixture level's locked door, each a 1 when
// the door broke, else a 0.
func forcing(t *testing.T, rec Adventurer) string {
	t.Helper()
	e := fixtureEngine(t, nil)
	e.state[0].monsters = nil
	e.join(rec, &recorder{})
	p := e.players[rec.ID]
	var broke strings.Builder
	for range 200 {
		e.levels[0].SetEdge(Pos{1, 1}, East, EdgeLocked)
		e.place(p, 1, Pos{2, 1})
		p.energy = 0
		do(e, rec.ID, Move{Dir: West, Door: true})
		fmt.Fprint(&broke, map[bool]int{false: 0, true: 1}[p.rec.Pos() == Pos{1, 1}])
	}
	return broke.String()
}

// A weakened knight (DESIGN §12, "A weakened knight's Strength") has its Strength less a
// point for each weakness wherever a rule reads Strength: a knight of Strength 15 weakened
// once, or of 16 weakened twice, does exactly what a knight of Strength 14 does, with the
// same dice, and not what one of 15 or 16 does. The places: forcing a locked door (seed
// 000: Strength "determines your ability to open up doors"), a blow's damage ("-1 for
// low strength, +1 for high strength"), a load's cost to its steps and to its to-hit die
// (its capacity is Strength × 10), and through the die, who has the first choice; and
// the Strength its statistics show.
func TestAWeakenedKnightHasLessStrengthEverywhere(t *testing.T) {
	const target = 14 // the Strength every weakened knight below has left
	for _, place := range []struct {
		name  string
		trace func(t *testing.T, rec Adventurer) string
	}{
		{"forcing a locked door", forcing},
		{"a blow's damage", func(t *testing.T, rec Adventurer) string {
			rec.Dex = 18 // a die of 18: most blows hit
			e, p, m := duelOf(t, "ogre", func(r *Adventurer) { r.Str, r.Dex, r.Status = rec.Str, rec.Dex, rec.Status })
			var out []string
			battleLines(t, e, p, 400, fight, func(l string) {
				if strings.HasPrefix(l, p.rec.Name+" hits") {
					out = append(out, strings.TrimPrefix(l, p.rec.Name))
				}
			})
			if m.fight == nil || len(out) < 20 {
				t.Fatalf("%d blows landed", len(out))
			}
			return strings.Join(out, "\n")
		}},
		{"a load's cost to its steps", func(t *testing.T, rec Adventurer) string {
			rec.Items = append(rec.Items, heavyLoad...)
			e := fightEngine(t, nil)
			e.join(rec, &recorder{})
			return fmt.Sprint(stepTurns(t, e, rec.ID, 6))
		}},
		{"a load's cost to its to-hit die", func(t *testing.T, rec Adventurer) string {
			rec.Dex = 12
			rec.Items = append(rec.Items, heavyLoad...)
			e, p, _ := duelOf(t, "ogre", func(r *Adventurer) { *r = rec; r.Hits, r.MaxHits = 1<<30, 1<<30 })
			var out strings.Builder
			battleLines(t, e, p, 400, fight, func(l string) {
				switch {
				case strings.HasPrefix(l, p.rec.Name+" hits"):
					out.WriteString("h")
				case strings.HasPrefix(l, p.rec.Name+" misses"):
					out.WriteString("m")
				}
			})
			return out.String()
		}},
		{"the first choice under a load", func(t *testing.T, rec Adventurer) string {
			rec.Dex = 12 // a die of 8 with Strength 14's load, 9 with 15's, 10 with 16's: the Goblin's Dex is 9
			rec.Items = append(rec.Items, heavyLoad...)
			e := fightEngine(t, nil)
			e.join(rec, &recorder{})
			p := e.players[rec.ID]
			e.spawn(1, mustMonster(t, "goblin"), Pos{3, 1}, 0, e.rng)
			do(e, rec.ID, Move{Dir: East})
			e.enqueue(rec.ID, p.session, Move{Dir: East, Door: true})
			stepUntil(t, e, "the Goblin to fight", func() bool { return p.fight != nil })
			return log(p.fight)
		}},
		{"its statistics", func(t *testing.T, rec Adventurer) string {
			e := fightEngine(t, nil)
			e.join(rec, &recorder{})
			p := e.players[rec.ID]
			self := e.view(p).Self.Str
			fightWith(t, e, p, "ogre")
			return fmt.Sprint(self, e.view(p).Fight.Knights[0].Str)
		}},
	} {
		t.Run(place.name, func(t *testing.T) {
			left := place.trace(t, knight("a", target))
			for _, n := range []int{1, 2} {
				weak := place.trace(t, weakened(knight("a", target+n), n))
				if weak != left {
					t.Fatalf("Strength %d less %d for poison is not Strength %d:\n%s\nwant\n%s", target+n, n, target, weak, left)
				}
				if whole := place.trace(t, knight("a", target+n)); whole == left {
					t.Fatalf("Strength %d and %d do the same here, so the test tells nothing:\n%s", target, target+n, whole)
				}
			}
		})
	}
	// No weakness takes Strength below 1: a weakened knight of Strength 1 still breaks a
	// door one time in twenty.
	if weak, whole := forcing(t, weakened(knight("a", 1), 2)), forcing(t, knight("a", 1)); weak != whole || !strings.Contains(weak, "1") {
		t.Fatalf("Strength 1 weakened twice forcing doors:\n%s\nwant as Strength 1:\n%s", weak, whole)
	}
}

// A knight's view is made several times a second while it walks, and its items, spells
// and conditions seldom change: a view shares those the view before it was given while
// they stay the same, and what a view was given never changes afterwards, though the
// knight's own are changed in place (a ring put on, a spell's moves counted down).
func TestAViewSharesItemsSpellsAndConditionsWhileTheyStay(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemRingOfLight}, Item{Kind: ItemQuiver, Count: 5})
	p.addEffect(SpellSpeed)
	p.addStatus(StatusStuck, 5)
	first := e.view(p)
	items := slices.Clone(first.Self.Items)
	effects, status := slices.Clone(first.Self.Effects), slices.Clone(first.Self.Status)
	if len(items) != 3 || len(effects) != 1 || len(status) != 1 {
		t.Fatalf("a view of %v, %q, %q", items, effects, status)
	}
	if _, allocs := allocated(func() { e.view(p) }); allocs != 0 {
		t.Errorf("a view of a knight whose items, spells and conditions did not change made %d arrays, want none", allocs)
	}

	e.useItem(p, 1) // the ring put on
	p.rec.Effects[0].Moves--
	p.rec.Status[0].Left--
	next := e.view(p)
	if !slices.Equal(first.Self.Items, items) || !slices.Equal(first.Self.Effects, effects) || !slices.Equal(first.Self.Status, status) {
		t.Errorf("the first view changed: %v %q %q, was %v %q %q", first.Self.Items, first.Self.Effects, first.Self.Status, items, effects, status)
	}
	if !next.Self.Items[1].Worn || slices.Equal(next.Self.Effects, effects) || slices.Equal(next.Self.Status, status) {
		t.Errorf("the next view shows %v %q %q: the ring worn, a move less and a try less wanted", next.Self.Items, next.Self.Effects, next.Self.Status)
	}
	if want := []string{p.rec.Effects[0].String()}; !slices.Equal(next.Self.Effects, want) {
		t.Errorf("the next view's spells %q, want %q", next.Self.Effects, want)
	}
	p.rec.Effects, p.rec.Status = nil, nil
	if v := e.view(p); v.Self.Effects != nil || v.Self.Status != nil {
		t.Errorf("a knight with no spell or condition is shown %q %q", v.Self.Effects, v.Self.Status)
	}
}
