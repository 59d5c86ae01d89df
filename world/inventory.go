package world

import (
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// What a knight does with the items it carries: wearing and taking off, drinking,
// reading, dropping, and gaining them. The items themselves and the treasure they come
// from are item.go's tables.

// UseItem wears or takes off the boots or ring at Index of the knight's items, reads the
// manual there (seed 000: "Touch them to wear or remove them."), or drinks the potion
// there (seed 002).
type UseItem struct{ Index int }

func (UseItem) isCommand() {}

// maxRings is how many rings a knight can wear at once: one on each hand.
const maxRings = 2

func isRing(k ItemKind) bool  { return k >= ItemRingOfLight && k <= ItemRingOfSustainStrength }
func isBoots(k ItemKind) bool { return k == ItemBootsOfSpeed || k == ItemBootsOfLevitation }

func (e *Engine) useItem(p *player, i int) float64 {
	if i < 0 || i >= len(p.rec.Items) {
		return 0
	}
	it := &p.rec.Items[i]
	info := it.Info()
	p.changed = true
	switch {
	case info.Wearable && it.Worn:
		it.Worn = false
		e.say(p, fmt.Sprintf("You take off the %s.", it.Name()))
	case info.Wearable:
		rings := 0
		for j, o := range p.rec.Items {
			if o.Worn && isBoots(o.Kind) && isBoots(it.Kind) {
				p.rec.Items[j].Worn = false // one pair of boots at a time
				e.say(p, fmt.Sprintf("You take off the %s.", o.Name()))
			}
			if o.Worn && isRing(o.Kind) {
				rings++
			}
		}
		if isRing(it.Kind) && rings >= maxRings {
			e.say(p, "You already wear a ring on each hand; take one off first.")
			return 0
		}
		it.Worn = true
		e.say(p, fmt.Sprintf("You put on the %s.", it.Name()))
	case info.Readable:
		e.read(p, i)
		defer e.saveNow(p) // the manual is used up
	case info.Drinkable:
		return e.drink(p, i)
	default:
		e.say(p, notWorn(it))
		return 0
	}
	if p.rec.Depth > 0 {
		e.look(p) // a ring of light changes what the knight sees
	}
	return CostRest // seed 003: wielding and the like take a full round
}

// PotionHealing is the hits a potion of healing restores, never above the knight's
// maximum. Ruling (seed 002 gives potions no numbers): 3d6, about two Cure spells.
var PotionHealing = D(3, 6)

// PotionSpellUnits is the spell units a potion of spell units restores, never above
// SpellUnitsForLevel. Ruling: 2, the cost of one level-2 spell.
const PotionSpellUnits = 2

// PouchSlots is how many potions a knight's belt pouch holds. Seed 003: "To quaff a
// potion ... takes one full round. The exception is that if the potion ... is equipped
// into a belt pouch, the action takes only 10% of a round." Ruling: every knight wears a
// belt pouch, as it carries its sword (seed 000's "well-equipped knight"), and it holds
// the first PouchSlots potions the knight carries, in the order of its items: drinking
// one of them costs CostPotionPouch, any other potion CostPotion, and drinking one makes
// room for the next. Two is enough to matter in a fight and few enough that a knight
// laden with potions still pays for most of them.
const PouchSlots = 2

// inPouch reports whether the potion at index i of items is in the belt pouch: fewer
// than PouchSlots potions come before it.
func inPouch(items []Item, i int) bool {
	n := 0
	for _, it := range items[:i] {
		if it.Info().Drinkable {
			n++
		}
	}
	return n < PouchSlots
}

// drink drinks the potion at index i (seed 002: "Use a potion from the hero's
// inventory"); it is used up, and it costs a round, a tenth of one from the belt pouch
// (PouchSlots). In a battle every hero reads it in the battle log ("Merlin used a health
// potion and recovered 300 HP!"). Ruling: a knight whose hits (or spell units) are full
// keeps the potion, and it costs nothing.
func (e *Engine) drink(p *player, i int) float64 {
	r := &p.rec
	it := r.Items[i]
	cost := CostPotion
	if inPouch(r.Items, i) {
		cost = CostPotionPouch
	}
	var line string
	switch it.Kind {
	case ItemPotionHealing:
		if r.Hits >= r.MaxHits {
			e.say(p, "You are not wounded; you keep the potion of healing.")
			return 0
		}
		n := min(PotionHealing.Roll(e.rng), r.MaxHits-r.Hits)
		r.Hits += n
		line = fmt.Sprintf("%s drinks a potion of healing and recovers %s.", r.Name, english.Count(n, "hit"))
	case ItemPotionSpellUnits:
		most := SpellUnitsForLevel(r.Level)
		if r.SpellUnits >= most {
			e.say(p, "Your spell units are full; you keep the potion of spell units.")
			return 0
		}
		n := min(PotionSpellUnits, most-r.SpellUnits)
		r.SpellUnits += n
		line = fmt.Sprintf("%s drinks a potion of spell units and regains %s.", r.Name, english.Count(n, "spell unit"))
	default:
		return 0
	}
	r.Items = append(r.Items[:i], r.Items[i+1:]...)
	p.changed = true
	if p.fight != nil {
		p.fight.logf("%s", line)
	} else {
		e.say(p, line)
	}
	e.saveNow(p) // the potion is used up
	return cost
}

// read reads a manual (seed 000, "Manuals"), which is used up.
func (e *Engine) read(p *player, i int) {
	r := &p.rec
	switch r.Items[i].Kind {
	case ItemManualOfBodilyHealth:
		r.Con++
		e.say(p, "You read the manual of bodily health. Your Constitution rises by 1.")
	case ItemManualOfGainfulExercise:
		r.Str++
		e.say(p, "You read the manual of gainful exercise. Your Strength rises by 1.")
	case ItemManualOfQuickness:
		r.Dex++
		e.say(p, "You read the manual of quickness of action. Your Dexterity rises by 1.")
	case ItemManualOfPhilosophy:
		r.Int++
		e.say(p, "You read the manual of philosophy. Your Intelligence rises by 1.")
	case ItemManualOfVileDarkness:
		// "Reading this takes away half of your available hit points (just to keep you honest)."
		r.Hits = max(1, r.Hits-r.Hits/2)
		e.say(p, "You read the manual of vile darkness. Half your hits drain away, just to keep you honest.")
	}
	r.Items = append(r.Items[:i], r.Items[i+1:]...)
}

// Drop leaves the item at Index behind for good (seed 003: dropping costs half a round).
// The knight's last sword cannot be dropped.
type Drop struct{ Index int }

func (Drop) isCommand() {}

func (e *Engine) drop(p *player, i int) float64 {
	if i < 0 || i >= len(p.rec.Items) {
		return 0
	}
	it := p.rec.Items[i]
	if it.Kind == ItemSword && swords(p.rec.Items) == 1 {
		e.say(p, "A knight keeps at least one sword.")
		return 0
	}
	p.rec.Items = append(p.rec.Items[:i], p.rec.Items[i+1:]...)
	e.say(p, fmt.Sprintf("You leave the %s behind.", it.Name()))
	e.saveNow(p)
	return CostDrop
}

// swords counts the swords among items.
func swords(items []Item) int {
	n := 0
	for _, it := range items {
		if it.Kind == ItemSword {
			n++
		}
	}
	return n
}

// gain gives a knight an item; arrows go into the quiver it has, up to seed 000's 31.
func (e *Engine) gain(p *player, it Item) {
	if it.Kind == ItemQuiver {
		for i := range p.rec.Items {
			if q := &p.rec.Items[i]; q.Kind == ItemQuiver {
				q.Count = min(MaxArrows, q.Count+it.Count)
				e.say(p, fmt.Sprintf("You find arrows of mythical slaying; your quiver holds %d.", q.Count))
				return
			}
		}
		it.Count = min(MaxArrows, it.Count)
	}
	p.rec.Items = append(p.rec.Items, it)
	p.changed = true
	msg := "You find " + english.A(it.Name()) + "!"
	if it.Info().Wearable {
		msg += " (i to wear it)"
	} else if it.Info().Readable {
		msg += " (i to read it)"
	}
	e.say(p, msg)
}

// carry gives a knight an item without a word: one the message that found it named.
func (e *Engine) carry(p *player, it Item) {
	p.rec.Items = append(p.rec.Items, it)
	p.changed = true
}

// notWorn is what using an item that is neither worn, read nor drunk says: a sword,
// shield or armour is used as the best of its kind (the inventory marks it), arrows are
// shot, and gems and jewelry are treasure, sold at a market.
func notWorn(it *Item) string {
	switch it.Kind {
	case ItemSword, ItemShield, ItemArmour:
		return fmt.Sprintf("The %s needs no wearing: you use the best you carry.", it.Name())
	case ItemQuiver:
		return "Arrows of slaying are shot in a fight: s shoots one."
	default:
		return fmt.Sprintf("The %s is treasure: a market pays its worth, %d gold.", Items[it.Kind].Name, it.Value)
	}
}

// InUse reports whether the knight uses item i of its items: boots and rings while worn,
// and of its swords, shields and armours the best of each kind (the first of them, when
// two are as good), which alone count (DESIGN §12, "Equipment"). The inventory marks them.
func InUse(items []Item, i int) bool {
	it := items[i]
	switch it.Kind {
	case ItemSword, ItemShield, ItemArmour:
		for j, o := range items {
			if o.Kind == it.Kind && (o.Plus > it.Plus || o.Plus == it.Plus && j < i) {
				return false
			}
		}
		return true
	}
	return it.Info().Wearable && it.Worn
}
