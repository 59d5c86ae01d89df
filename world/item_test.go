package world

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Seed 000: "you have a normal sword to start with."
func TestANewKnightCarriesANormalSword(t *testing.T) {
	a := NewAdventurer("fp", "Kay", Stats{10, 10, 10, 10}, 10)
	if len(a.Items) != 1 || a.Items[0].Kind != ItemSword || a.Items[0].Plus != 0 || a.Items[0].Magic() {
		t.Fatalf("items %+v", a.Items)
	}
}

// Treasure grows with depth, always holds coins, and sometimes a magic item.
func TestTreasureRolls(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	mean := func(depth int) (value float64, items float64) {
		const n = 20000
		for range n {
			tr := RollTreasure(r, depth)
			if tr.Value < 0 || len(tr.Lines) == 0 || !strings.Contains(tr.Lines[0], "pieces") {
				t.Fatalf("treasure %+v", tr)
			}
			value += float64(tr.Value)
			if tr.Item != nil {
				items++
			}
		}
		return value / n, items / n
	}
	v1, i1 := mean(1)
	v5, i5 := mean(5)
	if v5 < 3*v1 {
		t.Errorf("treasure on level 5 (%.0f) is not much richer than on level 1 (%.0f)", v5, v1)
	}
	if i1 < 0.19 || i1 > 0.25 || i5 < 0.27 || i5 > 0.33 {
		t.Errorf("magic item chance %.3f on level 1, %.3f on level 5; want about 0.22 and 0.30", i1, i5)
	}
	for range 5000 {
		it := RollMagicItem(r, 10)
		if it.Plus < 0 || it.Plus > 3 || (it.Kind == ItemQuiver && (it.Count < 1 || it.Count > MaxArrows)) {
			t.Fatalf("item %+v", it)
		}
	}
}

// The magic item of a hoard (DESIGN's Treasure ruling), in hundredths: a sword 18, a
// shield 12, armour 10, boots of speed 5, boots of levitation 5, a ring 25 (its six kinds
// alike), a quiver 10 and a manual 15 (its five kinds alike); no other kind.
var magicRuling = []struct {
	what    string // the kind's name, or the start of the names of its group
	percent int
	kinds   int // the kinds of the group, all alike
	plussed bool
	arrows  bool
}{
	{"sword", 18, 1, true, false},
	{"shield", 12, 1, true, false},
	{"armour", 10, 1, true, false},
	{"boots of speed", 5, 1, false, false},
	{"boots of levitation", 5, 1, false, false},
	{"ring of ", 25, 6, false, false},
	{"quiver of arrows", 10, 1, false, true},
	{"manual of ", 15, 5, false, false},
}

// magicGroup is the row of magicRuling a kind belongs to, or -1.
func magicGroup(k ItemKind) int {
	for i, g := range magicRuling {
		if strings.HasPrefix(Items[k].Name, g.what) {
			return i
		}
	}
	return -1
}

// The item table's MagicOdds column is the ruling exactly: each group's odds are its
// share of the whole, shared alike among its kinds, and no other kind has any.
func TestMagicOddsColumnIsTheRuling(t *testing.T) {
	total, kinds := 0, map[int][]ItemKind{}
	for k := range NumItemKinds {
		total += Items[k].MagicOdds
		g := magicGroup(k)
		if g < 0 && Items[k].MagicOdds != 0 {
			t.Errorf("%s has magic odds %d, want none", Items[k].Name, Items[k].MagicOdds)
		}
		if g >= 0 {
			kinds[g] = append(kinds[g], k)
		}
	}
	if total != magicOddsTotal {
		t.Fatalf("magicOddsTotal %d, the column sums to %d", magicOddsTotal, total)
	}
	for i, g := range magicRuling {
		if len(kinds[i]) != g.kinds {
			t.Fatalf("%q: %d kinds in the table, want %d", g.what, len(kinds[i]), g.kinds)
		}
		for _, k := range kinds[i] {
			// odds/total == percent/100/kinds, in integers
			if got := Items[k].MagicOdds * 100 * g.kinds; got != g.percent*total {
				t.Errorf("%s: odds %d of %d, want %d%% / %d of the whole", Items[k].Name, Items[k].MagicOdds, total, g.percent, g.kinds)
			}
		}
	}
}

// RollMagicItem rolls from the column: 200,000 draws tell each group's share from one a
// hundredth off (four standard errors are at most 0.0039), the kinds of a group come up
// alike, and all seventeen kinds together fit the column (Pearson's chi-square under
// 39.25, its 0.1% point at 16 degrees of freedom). Pluses and arrows come with the kinds
// that have them, and only with those.
func TestMagicItemKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 200))
	const n = 200_000
	seen, groups := map[ItemKind]int{}, make([]int, len(magicRuling))
	byKind := make([]map[int]int, len(magicRuling))
	for i := range byKind {
		byKind[i] = map[int]int{}
	}
	for range n {
		it := RollMagicItem(r, 10)
		g := magicGroup(it.Kind)
		if g < 0 || (it.Plus != 0) != magicRuling[g].plussed || (it.Count != 0) != magicRuling[g].arrows {
			t.Fatalf("a magic item %+v", it)
		}
		seen[it.Kind]++
		groups[g]++
		byKind[g][int(it.Kind)]++
	}
	for i, g := range magicRuling {
		within(t, g.what, float64(groups[i])/n, float64(g.percent)/100, n)
		if g.kinds > 1 {
			lo := int(^uint(0) >> 1)
			for k := range byKind[i] {
				lo = min(lo, k)
			}
			checkSpread(t, "the kind of "+strings.TrimSpace(g.what), byKind[i], lo, lo+g.kinds-1)
		}
	}
	chi := 0.0
	for k := range NumItemKinds {
		if odds := Items[k].MagicOdds; odds > 0 {
			want := float64(n) * float64(odds) / float64(magicOddsTotal)
			d := float64(seen[k]) - want
			chi += d * d / want
		}
	}
	if chi > 39.25 {
		t.Errorf("chi-square %.1f over the seventeen kinds, want under 39.25: %v", chi, seen)
	}
}

// Seed 000: "The 'plus' value of your shield and armor is deducted from the attack", and a
// sword's plus is added to the knight's blow; a knight uses the best it carries.
func TestEquipmentPlusesCount(t *testing.T) {
	items := []Item{{Kind: ItemSword}, {Kind: ItemSword, Plus: 2}, {Kind: ItemShield, Plus: 1}, {Kind: ItemArmour, Plus: 3}}
	if best(items, ItemSword) != 2 || best(items, ItemShield) != 1 || best(items, ItemArmour) != 3 || best(items, ItemBootsOfSpeed) != 0 {
		t.Fatal("best pluses wrong")
	}
	if carried(items) != 10+10+15+30 {
		t.Fatalf("carried %d", carried(items))
	}
}

// Seed 000: boots and rings "You must wear ... to have an effect. Touch them to wear or
// remove them." Boots of speed work "like a continuous Speed spell": carried, they do
// nothing, and a step costs a round; worn, a step costs 50% (seed 003 at +10: five turns
// a square). Putting them on or taking them off is wielding, a round (seed 003).
func TestWearingBootsOfSpeed(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemBootsOfSpeed})
	everyGap(t, "boots carried", stepTurns(t, e, "a", 4), 10)
	if got := costOf(t, e, "a", UseItem{Index: 1}); got != CostRest || !p.rec.Items[1].Worn || !e.hasted(p) {
		t.Fatalf("putting the boots on cost %v%% (worn %v)", got, p.rec.Items[1].Worn)
	}
	everyGap(t, "boots worn", stepTurns(t, e, "a", 6), 5)
	if got := costOf(t, e, "a", UseItem{Index: 1}); got != CostRest || p.rec.Items[1].Worn {
		t.Fatalf("taking the boots off cost %v%% (worn %v)", got, p.rec.Items[1].Worn)
	}
	everyGap(t, "boots taken off", stepTurns(t, e, "a", 4), 10)
}

// One pair of boots at a time (DESIGN §12, "Equipment"): putting on a pair takes off the
// pair worn, of the other kind or the same, and says so; rings stay on, and putting on a
// ring leaves the boots on. Seed 000's boots of speed work "like a continuous Speed
// spell", of levitation "like a continuous Levitation spell": only the pair worn works.
func TestOnePairOfBootsAtATime(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemBootsOfSpeed}, Item{Kind: ItemBootsOfLevitation},
		Item{Kind: ItemBootsOfSpeed}, Item{Kind: ItemRingOfLight, Worn: true}, Item{Kind: ItemRingOfProtection})
	worn := func() string {
		var on []string
		for i, it := range p.rec.Items {
			if it.Worn {
				on = append(on, fmt.Sprint(i))
			}
		}
		return strings.Join(on, " ")
	}
	for _, c := range []struct {
		use          int
		worn         string
		took         string // the line that says which pair came off, if one did
		haste, float bool
	}{
		{1, "1 4", "", true, false},
		{2, "2 4", "You take off the boots of speed.", false, true},
		{3, "3 4", "You take off the boots of levitation.", true, false},
		{1, "1 4", "You take off the boots of speed.", true, false},  // a pair of the same kind
		{5, "1 4 5", "", true, false},                                // a ring: the boots stay on
		{1, "4 5", "You take off the boots of speed.", false, false}, // off: no pair is worn
	} {
		n := len(p.msgs())
		do(e, "a", UseItem{Index: c.use})
		lines := strings.Join(p.msgs()[n:], "\n")
		if got := worn(); got != c.worn || e.hasted(p) != c.haste || e.levitating(p) != c.float {
			t.Fatalf("using item %d: worn %q (want %q), hasted %v, levitating %v:\n%s", c.use, got, c.worn, e.hasted(p), e.levitating(p), lines)
		}
		if c.took != "" && !strings.Contains(lines, c.took) || c.took == "" && strings.Count(lines, "You take off") > 0 {
			t.Fatalf("using item %d, the knight was told:\n%s\nwant %q", c.use, lines, c.took)
		}
	}
}

func TestTwoRingsAtMost(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemRingOfLight}, Item{Kind: ItemRingOfProtection}, Item{Kind: ItemRingOfRegeneration})
	do(e, "a", UseItem{Index: 1})
	do(e, "a", UseItem{Index: 2})
	do(e, "a", UseItem{Index: 3})
	if p.rec.Items[3].Worn || !strings.Contains(sub.lastMessage(), "ring on each hand") {
		t.Fatalf("a third ring went on: %q", sub.lastMessage())
	}
	if !sub.last().Self.Light {
		t.Fatal("a worn ring of light does not light the knight's way")
	}
}

// Seed 000: "Of Regeneration: When worn, this ring replaces 1 hit and spell unit for every
// 25 moves."
func TestRingOfRegeneration(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemRingOfRegeneration, Worn: true})
	p.rec.Hits, p.rec.SpellUnits = 1, 0
	for i := range 50 {
		do(e, "a", Move{Dir: []Dir{East, West}[i%2]})
	}
	if p.rec.Hits != 3 || p.rec.SpellUnits != 2 || p.rec.Moves != 50 {
		t.Fatalf("after 50 moves (counted %d): hits %d spells %d, want 3 and 2", p.rec.Moves, p.rec.Hits, p.rec.SpellUnits)
	}
}

// Seed 000, manuals: each adds 1 to its characteristic; vile darkness "takes away half of
// your available hit points". A manual is used up.
func TestReadingManuals(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemManualOfGainfulExercise}, Item{Kind: ItemManualOfVileDarkness})
	p.rec.Hits = 10
	do(e, "a", UseItem{Index: 1})
	if p.rec.Str != 11 || len(p.rec.Items) != 2 {
		t.Fatalf("after gainful exercise: Str %d, %d items", p.rec.Str, len(p.rec.Items))
	}
	do(e, "a", UseItem{Index: 1})
	if p.rec.Hits != 5 || len(p.rec.Items) != 1 {
		t.Fatalf("after vile darkness: hits %d, %d items", p.rec.Hits, len(p.rec.Items))
	}
}

// Seed 000: "Arrows automatically kill any mythical type monster. They do not work on any
// other monster."
func TestArrowsOfSlaying(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemQuiver, Count: 2})
	p.rec.Hits, p.rec.MaxHits = 1000, 1000
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{0, 0}, -1, e.rng)
	e.startFight(p, rat)
	e.enqueue("a", p.session, Shoot{})
	stepUntil(t, e, "the arrow", func() bool { return p.rec.Items[1].Count == 1 })
	if rat.fight == nil {
		t.Fatal("an arrow of slaying killed a giant rat")
	}
	e.leaveFight(p)
	e.removeMonster(rat)
	dragon := e.spawn(1, mustMonster(t, "dragon"), Pos{0, 0}, -1, e.rng)
	e.startFight(p, dragon)
	e.enqueue("a", p.session, Shoot{})
	stepUntil(t, e, "the dragon to die", func() bool { return p.fight == nil })
	if len(p.rec.Items) != 1 {
		t.Fatalf("the empty quiver is still carried: %+v", p.rec.Items)
	}
	if !strings.Contains(strings.Join(p.lastFight, " "), "dead") {
		t.Fatalf("log: %q", p.lastFight)
	}
}

// Seed 000: "After a battle, any magic item may be lost." One battle in ten costs a magic
// item; a normal sword is never lost.
func TestMagicMayBeLostAfterABattle(t *testing.T) {
	e, p, _ := inventoryEngine(t)
	lost := 0
	const n = 20000
	for range n {
		p.rec.Items = []Item{{Kind: ItemSword}, {Kind: ItemRingOfLight}}
		e.mayLoseMagic(p)
		switch len(p.rec.Items) {
		case 1:
			if p.rec.Items[0].Kind != ItemSword {
				t.Fatal("the normal sword was lost")
			}
			lost++
		case 2:
		default:
			t.Fatal("more than one item lost")
		}
	}
	if f := float64(lost) / n; f < 0.09 || f > 0.11 {
		t.Fatalf("magic lost after %.3f of battles, want 0.10", f)
	}
}

// Seed 000: "'Percent kills' ... is determined by: (experience minus treasure) divided by
// experience."
func TestPercentKills(t *testing.T) {
	for _, tc := range []struct{ exp, treasure, want int }{{0, 0, 0}, {1000, 250, 75}, {33260, 33260, 0}, {500, 0, 100}} {
		a := Adventurer{Experience: tc.exp, TreasureExperience: tc.treasure}
		if got := a.PercentKills(); got != tc.want {
			t.Errorf("exp %d treasure %d: %d%%, want %d%%", tc.exp, tc.treasure, got, tc.want)
		}
	}
}

// Seed 002: "Use a potion from the hero's inventory". A potion of healing restores 3d6
// hits, never above the maximum; it is used up; a knight who is not wounded keeps it.
func TestPotionOfHealing(t *testing.T) {
	potion := Item{Kind: ItemPotionHealing}
	e, p, _ := inventoryEngine(t, potion, potion, potion)
	p.rec.Hits, p.rec.MaxHits = 1, 100
	if cost := e.act(p, UseItem{Index: 1}); cost != CostPotionPouch { // the first potion is in the belt pouch
		t.Fatalf("drinking cost %v", cost)
	}
	if p.rec.Hits < 1+3 || p.rec.Hits > 1+18 || len(p.rec.Items) != 3 {
		t.Fatalf("after the potion: hits %d, %d items", p.rec.Hits, len(p.rec.Items))
	}
	if want := fmt.Sprintf("Kay a drinks a potion of healing and recovers %d hits.", p.rec.Hits-1); lastMsg(p) != want {
		t.Fatalf("%q, want %q", lastMsg(p), want)
	}
	p.rec.Hits = 99
	e.act(p, UseItem{Index: 1})
	if p.rec.Hits != 100 || lastMsg(p) != "Kay a drinks a potion of healing and recovers 1 hit." {
		t.Fatalf("near the top: hits %d, %q", p.rec.Hits, lastMsg(p))
	}
	if cost := e.act(p, UseItem{Index: 1}); cost != 0 || len(p.rec.Items) != 2 || !strings.Contains(lastMsg(p), "keep the potion") {
		t.Fatalf("unwounded: cost %v, %d items, %q", cost, len(p.rec.Items), lastMsg(p))
	}
}

// A potion of spell units restores 2, never above SpellUnitsForLevel.
func TestPotionOfSpellUnits(t *testing.T) {
	potion := Item{Kind: ItemPotionSpellUnits}
	e, p, _ := inventoryEngine(t, potion, potion, potion)
	p.rec.SpellUnits = 0 // level 1: 4 at most (seed 000: "units = (level+1) × 2")
	e.act(p, UseItem{Index: 1})
	if p.rec.SpellUnits != 2 || len(p.rec.Items) != 3 || lastMsg(p) != "Kay a drinks a potion of spell units and regains 2 spell units." {
		t.Fatalf("units %d, %d items, %q", p.rec.SpellUnits, len(p.rec.Items), lastMsg(p))
	}
	p.rec.SpellUnits = 3
	e.act(p, UseItem{Index: 1})
	if p.rec.SpellUnits != 4 || len(p.rec.Items) != 2 {
		t.Fatalf("capped: units %d", p.rec.SpellUnits)
	}
	if cost := e.act(p, UseItem{Index: 1}); cost != 0 || len(p.rec.Items) != 2 || p.rec.SpellUnits != 4 {
		t.Fatalf("full: cost %v, units %d", cost, p.rec.SpellUnits)
	}
}

// In a battle the potion is the knight's move and every hero reads it in the battle log
// (seed 002: "Merlin used a health potion and recovered 300 HP!"); outside the dungeon
// potions work too.
func TestPotionsInABattleAndOutside(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemPotionHealing})
	p.rec.Hits, p.rec.MaxHits = 500, 1000
	fightWith(t, e, p, "giant rat")
	enc := p.fight
	e.enqueue("a", p.session, UseItem{Index: 1})
	stepUntil(t, e, "the potion", func() bool { return len(p.rec.Items) == 1 })
	if !strings.Contains(strings.Join(enc.log, "\n"), "Kay a drinks a potion of healing and recovers") {
		t.Fatalf("battle log %q", enc.log)
	}

	e2 := fightEngine(t, nil)
	q, _ := outsideKnight(t, e2, "b", e2.outside.grid.Entrance)
	q.rec.Items = append(q.rec.Items, Item{Kind: ItemPotionSpellUnits})
	q.rec.SpellUnits = 0
	if cost := e2.act(q, UseItem{Index: 1}); cost != CostPotionPouch || q.rec.SpellUnits != 2 {
		t.Fatalf("outside: cost %v, units %d", cost, q.rec.SpellUnits)
	}
}

// The gem and jewelry of a hoard are items worth their value; Value stays the whole
// hoard (coins and valuables) and Lines tell it as before.
func TestTreasureValuables(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	kinds := map[ItemKind]int{}
	for range 20000 {
		depth := 1 + r.IntN(10)
		tr := RollTreasure(r, depth)
		sum := tr.Coins
		if len(tr.Lines) != 1+len(tr.Valuables) || tr.Coins < 0 {
			t.Fatalf("treasure %+v", tr)
		}
		for i, it := range tr.Valuables {
			sum += it.Value
			kinds[it.Kind]++
			want := fmt.Sprintf("a gem worth %d", it.Value)
			if it.Kind == ItemJewelry {
				want = fmt.Sprintf("jewelry worth %d", it.Value)
			}
			if tr.Lines[1+i] != want || it.Value <= 0 || it.Magic() {
				t.Fatalf("valuable %+v told as %q", it, tr.Lines[1+i])
			}
			if p, ok := SellPrice(it); !ok || p != it.Value {
				t.Fatalf("%s sells for %d", it.Name(), p)
			}
		}
		if sum != tr.Value {
			t.Fatalf("coins %d and valuables %+v make %d, Value %d", tr.Coins, tr.Valuables, sum, tr.Value)
		}
	}
	// Seed 000 rulings: a gem one time in three, jewelry one in six.
	if g, j := kinds[ItemGem], kinds[ItemJewelry]; g < 6300 || g > 7000 || j < 3000 || j > 3700 {
		t.Fatalf("%d gems and %d pieces of jewelry in 20000 hoards", g, j)
	}
	if n := (Item{Kind: ItemJewelry, Value: 700}).Name(); n != "piece of jewelry worth 700" {
		t.Fatalf("name %q", n)
	}
}

// An item kind outside the table (from a newer version's record) is a "thing"; a magic
// sword (+1..+3) is magic, the plain one is not; shields and armour always are.
func TestItemKindsAndMagic(t *testing.T) {
	if got := (Item{Kind: NumItemKinds}).Info().Name; got != "thing" {
		t.Fatalf("an item kind past the table is %q", got)
	}
	for _, c := range []struct {
		it    Item
		magic bool
	}{{Item{Kind: ItemSword}, false}, {Item{Kind: ItemSword, Plus: 1}, true}, {Item{Kind: ItemShield}, true},
		{Item{Kind: ItemPotionHealing}, false}, {Item{Kind: ItemGem, Value: 9}, false}, {Item{Kind: ItemRingOfLight}, true}} {
		if got := c.it.Magic(); got != c.magic {
			t.Errorf("%s: magic %v, want %v", c.it.Name(), got, c.magic)
		}
	}
}

// A hoard (DESIGN §12, "Treasure") by dungeon level: coins of one metal, silver or gold on
// the first two levels and electrum from the third, platinum from the sixth, as many more
// as the level is deep (gold 2d50 × depth pieces); a gem worth d10 × 50 × depth, jewelry
// d10 × 100 × depth; a magic item's plus at most 1 + depth/3 (and 3), the six rings alike.
func TestHoardsByDepth(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, depth := range []int{1, 2, 3, 6, 9} {
		metals, gems, jewels, pluses := map[string]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
		rings := map[ItemKind]bool{}
		for range 20000 {
			tr := RollTreasure(r, depth)
			var n int
			var metal string
			fmt.Sscanf(tr.Lines[0], "%d %s pieces", &n, &metal)
			metals[metal] = true
			if metal == "gold" && (n < 2*depth || n > 100*depth || n%depth != 0 || tr.Coins != n) {
				t.Fatalf("depth %d: %d gold pieces worth %d", depth, n, tr.Coins)
			}
			if metal == "silver" && tr.Coins != n/10 {
				t.Fatalf("depth %d: %d silver pieces worth %d gold", depth, n, tr.Coins)
			}
			for _, v := range tr.Valuables {
				switch v.Kind {
				case ItemGem:
					gems[v.Value] = true
				case ItemJewelry:
					jewels[v.Value] = true
				}
			}
			if it := tr.Item; it != nil {
				if it.Kind == ItemSword || it.Kind == ItemShield || it.Kind == ItemArmour {
					pluses[it.Plus] = true
				}
				if isRing(it.Kind) {
					rings[it.Kind] = true
				}
			}
		}
		wantMetals := map[int]int{1: 2, 2: 2, 3: 3, 6: 4, 9: 4}[depth]
		if len(metals) != wantMetals {
			t.Errorf("depth %d: coins of %v, want %d metals", depth, metals, wantMetals)
		}
		for k := 1; k <= 10; k++ {
			if !gems[k*50*depth] || !jewels[k*100*depth] {
				t.Errorf("depth %d: no gem worth %d or jewelry worth %d", depth, k*50*depth, k*100*depth)
			}
		}
		if len(gems) != 10 || len(jewels) != 10 {
			t.Errorf("depth %d: %d gem worths and %d jewelry worths, want 10 each", depth, len(gems), len(jewels))
		}
		if want := min(3, 1+depth/3); len(pluses) != want || !pluses[want] {
			t.Errorf("depth %d: pluses %v, want 1..%d", depth, pluses, want)
		}
		if len(rings) != 6 {
			t.Errorf("depth %d: rings found %v, want all six kinds", depth, rings)
		}
	}
}
