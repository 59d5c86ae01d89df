package world

import (
	"fmt"
	"math/rand/v2"
)

// ItemKind is a kind of equipment or magic item (seed 000, "Treasure" and "Equipment").
type ItemKind uint8

// The items of seed 000, plus MAG's two rings (free action, sustain strength; seed 001).
const (
	ItemSword ItemKind = iota // Plus 0 is the knight's normal sword
	ItemShield
	ItemArmour
	ItemBootsOfSpeed
	ItemBootsOfLevitation
	ItemRingOfLight
	ItemRingOfProtection
	ItemRingOfInvisibility
	ItemRingOfRegeneration
	ItemRingOfFreeAction
	ItemRingOfSustainStrength
	ItemQuiver // Count arrows of mythical slaying
	ItemManualOfBodilyHealth
	ItemManualOfGainfulExercise
	ItemManualOfQuickness
	ItemManualOfPhilosophy
	ItemManualOfVileDarkness
	// Seed 002's potions and the valuables of seed 000's treasure, sold in the markets.
	// New kinds go here, before NumItemKinds: saved items keep their numbers.
	ItemPotionHealing    // restores 3d6 hits
	ItemPotionSpellUnits // restores 2 spell units
	ItemGem              // Value gold pieces
	ItemJewelry          // Value gold pieces
	NumItemKinds
)

// ItemInfo is what every item of a kind shares.
type ItemInfo struct {
	Name     string
	Weight   int  // in the units of CarryCapacity
	Wearable bool // boots and rings work only while worn (seed 000: "You must wear boots to have an effect")
	Readable bool // manuals
	// Drinkable marks the potions (seed 002: "Use a potion from the hero's inventory");
	// drinking one uses it up.
	Drinkable bool
	Magic     bool // may be lost after a battle
	// MagicOdds is the kind's share of the magic items hoards hold, in 600ths (DESIGN's
	// Treasure ruling: a ring is 25 in 100, its six kinds alike, so 25 in 600 each); 0
	// for a kind a hoard never holds as its magic item. RollMagicItem rolls from this column.
	MagicOdds int
}

// Items is the item table, indexed by ItemKind.
var Items = [NumItemKinds]ItemInfo{
	ItemSword:                   {Name: "sword", Weight: 10, MagicOdds: 108},
	ItemShield:                  {Name: "shield", Weight: 15, Magic: true, MagicOdds: 72},
	ItemArmour:                  {Name: "armour", Weight: 30, Magic: true, MagicOdds: 60},
	ItemBootsOfSpeed:            {Name: "boots of speed", Weight: 5, Wearable: true, Magic: true, MagicOdds: 30},
	ItemBootsOfLevitation:       {Name: "boots of levitation", Weight: 5, Wearable: true, Magic: true, MagicOdds: 30},
	ItemRingOfLight:             {Name: "ring of light", Wearable: true, Magic: true, MagicOdds: 25},
	ItemRingOfProtection:        {Name: "ring of protection", Wearable: true, Magic: true, MagicOdds: 25},
	ItemRingOfInvisibility:      {Name: "ring of invisibility", Wearable: true, Magic: true, MagicOdds: 25},
	ItemRingOfRegeneration:      {Name: "ring of regeneration", Wearable: true, Magic: true, MagicOdds: 25},
	ItemRingOfFreeAction:        {Name: "ring of free action", Wearable: true, Magic: true, MagicOdds: 25},
	ItemRingOfSustainStrength:   {Name: "ring of sustain strength", Wearable: true, Magic: true, MagicOdds: 25},
	ItemQuiver:                  {Name: "quiver of arrows of mythical slaying", Weight: 3, Magic: true, MagicOdds: 60},
	ItemManualOfBodilyHealth:    {Name: "manual of bodily health", Weight: 5, Readable: true, Magic: true, MagicOdds: 18},
	ItemManualOfGainfulExercise: {Name: "manual of gainful exercise", Weight: 5, Readable: true, Magic: true, MagicOdds: 18},
	ItemManualOfQuickness:       {Name: "manual of quickness of action", Weight: 5, Readable: true, Magic: true, MagicOdds: 18},
	ItemManualOfPhilosophy:      {Name: "manual of philosophy", Weight: 5, Readable: true, Magic: true, MagicOdds: 18},
	ItemManualOfVileDarkness:    {Name: "manual of vile darkness", Weight: 5, Readable: true, Magic: true, MagicOdds: 18},
	// Potions and valuables are not magic: a battle never takes them.
	ItemPotionHealing:    {Name: "potion of healing", Weight: 1, Drinkable: true},
	ItemPotionSpellUnits: {Name: "potion of spell units", Weight: 1, Drinkable: true},
	ItemGem:              {Name: "gem"},
	ItemJewelry:          {Name: "piece of jewelry"},
}

// Item is one thing a knight carries.
type Item struct {
	Kind  ItemKind `json:"kind"`
	Plus  int      `json:"plus,omitempty"`  // swords, shields, armour: +1..+3
	Count int      `json:"count,omitempty"` // arrows in a quiver
	Worn  bool     `json:"worn,omitempty"`
	// Value is a gem's or jewelry's worth in gold pieces: what a market pays for it.
	Value int `json:"value,omitempty"`
}

// Info is the item's kind.
func (it Item) Info() *ItemInfo {
	if it.Kind < NumItemKinds {
		return &Items[it.Kind]
	}
	return &ItemInfo{Name: "thing"}
}

// Magic reports whether the item can be lost after a battle: every magic item, and a
// sword only when it is a magic (+1..+3) one.
func (it Item) Magic() bool {
	return it.Info().Magic || (it.Kind == ItemSword && it.Plus > 0)
}

// Name is how the item is written: "sword +2", "quiver of 12 arrows of mythical slaying",
// "gem worth 400".
func (it Item) Name() string {
	info := it.Info()
	switch {
	case it.Kind == ItemQuiver:
		return fmt.Sprintf("quiver of %d arrows of mythical slaying", it.Count)
	case it.Plus != 0:
		return fmt.Sprintf("%s %+d", info.Name, it.Plus)
	case it.Kind == ItemGem || it.Kind == ItemJewelry:
		return fmt.Sprintf("%s worth %d", info.Name, it.Value)
	}
	return info.Name
}

// Treasure is what a killed guard leaves behind (seed 000: "collect the treasures the
// monsters have"): coins and valuables worth Value gold pieces, and perhaps a magic item.
type Treasure struct {
	Lines []string // "230 gold pieces", "a gem worth 400"
	Value int      // gold pieces, coins and valuables together; also the experience it brings
	// Coins is the worth of the coins alone, in gold pieces (silver counted in tenths,
	// rounded down): the gold the hoard puts in the purse.
	Coins int
	// Valuables are its gem and jewelry as items (ItemGem, ItemJewelry with their Value),
	// to be carried and sold in a market for their worth.
	Valuables []Item
	Item      *Item
}

// coinKinds are seed 000's coins with their worth in gold pieces per coin (tenths for
// silver): silver 1/10, gold 1, electrum 2, platinum 5.
var coinKinds = [...]struct {
	name   string
	tenths int // worth of one coin in tenths of a gold piece
	dice   Dice
}{
	{"silver", 1, D(4, 100)},
	{"gold", 10, D(2, 50)},
	{"electrum", 20, D(1, 50)},
	{"platinum", 50, D(1, 30)},
}

// RollTreasure rolls a guard's hoard on dungeon level depth. Rulings (docs/DESIGN.md):
// coins of one metal, more valuable metals likelier deeper, scaled by depth; a gem worth
// d10×50×depth one time in three, jewelry worth d10×100×depth one time in six; a magic
// item one time in five plus 2% a level. The gem and jewelry are also Valuables, items to
// sell; Value stays the whole hoard's worth (coins and valuables), as Lines tell it.
func RollTreasure(r *rand.Rand, depth int) Treasure {
	depth = max(1, depth)
	var t Treasure
	var line string
	t.Coins, line = rollCoins(r, depth)
	t.Value += t.Coins
	t.Lines = append(t.Lines, line)
	if r.IntN(3) == 0 {
		v := (1 + r.IntN(10)) * 50 * depth
		t.Value += v
		t.Valuables = append(t.Valuables, Item{Kind: ItemGem, Value: v})
		t.Lines = append(t.Lines, fmt.Sprintf("a gem worth %d", v))
	}
	if r.IntN(6) == 0 {
		v := (1 + r.IntN(10)) * 100 * depth
		t.Value += v
		t.Valuables = append(t.Valuables, Item{Kind: ItemJewelry, Value: v})
		t.Lines = append(t.Lines, fmt.Sprintf("jewelry worth %d", v))
	}
	if r.Float64() < 0.20+0.02*float64(depth) {
		it := RollMagicItem(r, depth)
		t.Item = &it
	}
	return t
}

// rollCoins rolls the coins of a hoard on dungeon level depth (at least 1): coins of one
// metal, the more valuable metals likelier deeper, and as many more as the level is deep.
// It returns their worth in gold pieces (silver counted in tenths, rounded down) and the
// line that tells them ("230 gold pieces").
func rollCoins(r *rand.Rand, depth int) (gold int, line string) {
	metal := min(len(coinKinds)-1, r.IntN(2+depth/3))
	ck := coinKinds[metal]
	n := ck.dice.Roll(r) * depth
	return n * ck.tenths / 10, fmt.Sprintf("%d %s pieces", n, ck.name)
}

// SurfacePurse rolls the coins a monster killed in a surface battle carries (seed 002:
// "If the heroes win the fight, they earn money and experience"). Ruling: the coins of a
// guard's hoard on the dungeon level of the monster's level, and nothing else: gems,
// jewelry and magic items stay the dungeon's rewards. The coins are gold for the markets,
// not treasure experience: a battle comes at every sixth step outside and the markets are
// next door, and the experience the seed promises is the kill's. It returns the gold and
// the line that tells the coins.
func SurfacePurse(r *rand.Rand, level int) (gold int, line string) {
	return rollCoins(r, max(1, level))
}

// RollMagicItem picks a magic item, each kind by its MagicOdds in the item table; deeper
// levels give better pluses.
func RollMagicItem(r *rand.Rand, depth int) Item {
	roll := r.IntN(magicOddsTotal)
	kind := ItemKind(0)
	for roll >= Items[kind].MagicOdds {
		roll -= Items[kind].MagicOdds
		kind++
	}
	switch kind {
	case ItemSword, ItemShield, ItemArmour:
		return Item{Kind: kind, Plus: min(3, 1+r.IntN(1+depth/3))}
	case ItemQuiver:
		return Item{Kind: kind, Count: 1 + r.IntN(MaxArrows)}
	}
	return Item{Kind: kind}
}

// magicOddsTotal is the sum of the item table's MagicOdds, which RollMagicItem rolls within.
var magicOddsTotal = func() int {
	n := 0
	for _, info := range Items {
		n += info.MagicOdds
	}
	return n
}()

// best is the highest plus among the carried items of a kind (seed 000: a sword, shield or
// armour's "plus" counts; a knight uses the best it has), or 0.
func best(items []Item, kind ItemKind) int {
	b := 0
	for _, it := range items {
		if it.Kind == kind {
			b = max(b, it.Plus)
		}
	}
	return b
}

// wearing reports whether the knight wears an item of the kind.
func wearing(items []Item, kind ItemKind) bool {
	for _, it := range items {
		if it.Kind == kind && it.Worn {
			return true
		}
	}
	return false
}

// carried is the weight of everything the knight carries.
func carried(items []Item) int {
	w := 0
	for _, it := range items {
		w += it.Info().Weight
	}
	return w
}
