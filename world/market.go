package world

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// The markets of the surface (seed 002: "Market spaces, where items can be bought or
// sold"; DESIGN §4: weapons, armour and potions are bought and sold there, gems and
// jewelry sold).

// Buy buys one of the market's wares, by its index in MarketView.Wares. Item is the ware
// the player saw there: another knight's purchase can move the lines, and a line that no
// longer holds it is refused rather than sold in its place. The zero Item (a plain sword,
// never a ware) checks nothing.
type Buy struct {
	Index int
	Item  Item
}

// Sell sells one of the knight's items, by its index in Self.Items.
type Sell struct{ Index int }

func (Buy) isCommand()  {}
func (Sell) isCommand() {}

// PriceLine is one line of MarketPrices: an item and what a market asks for it, in gold.
type PriceLine struct {
	Item  Item
	Price int
}

// MarketPrices is the market price table: what every market asks for the wares it deals
// in. A market pays half of it (see SellPrice). Ruling: the prices are set against
// RollTreasure's hoards (a level-1 guard leaves about 220 gold in coins and valuables, a
// level-5 guard about five times that): a potion is a fraction of a first hoard, a +1
// piece a good first trip, and each plus costs about three times the one below, so a +3
// sword is a deep trip's reward.
var MarketPrices = [...]PriceLine{
	{Item{Kind: ItemSword, Plus: 1}, 300},
	{Item{Kind: ItemSword, Plus: 2}, 1000},
	{Item{Kind: ItemSword, Plus: 3}, 3000},
	{Item{Kind: ItemShield, Plus: 1}, 200},
	{Item{Kind: ItemShield, Plus: 2}, 700},
	{Item{Kind: ItemShield, Plus: 3}, 2000},
	{Item{Kind: ItemArmour, Plus: 1}, 250},
	{Item{Kind: ItemArmour, Plus: 2}, 800},
	{Item{Kind: ItemArmour, Plus: 3}, 2500},
	{Item{Kind: ItemPotionHealing}, 60},
	{Item{Kind: ItemPotionSpellUnits}, 90},
}

// The size of a market's stock: MinWares..MaxWares lines of the price table, each with
// 1..MaxWareCount of the item.
const (
	MinWares     = 4
	MaxWares     = 8
	MaxWareCount = 5
)

// RestockTurns is how often a market gets back one item it has sold: 2400 turns, one
// minute at the default 25 ms tick. Each time, the first ware (in the market's order)
// below the count it was stocked with gains one.
const RestockTurns = 2400

// PriceOf is what a market asks for an item: its line of MarketPrices, or for a gem or
// jewelry its worth. ok is false for an item the markets do not deal in (boots, rings,
// quivers, manuals, the plain sword).
func PriceOf(it Item) (price int, ok bool) {
	if it.Kind == ItemGem || it.Kind == ItemJewelry {
		return it.Value, it.Value > 0
	}
	for _, l := range MarketPrices {
		if l.Item.Kind == it.Kind && l.Item.Plus == it.Plus {
			return l.Price, true
		}
	}
	return 0, false
}

// SellPrice is what a market pays for an item: its full worth for a gem or jewelry
// (seed 000: treasure is worth its value in gold), half the asking price for the rest
// (rounded down, at least 1). ok is false for an item no market buys.
func SellPrice(it Item) (price int, ok bool) {
	p, ok := PriceOf(it)
	if !ok {
		return 0, false
	}
	if it.Kind == ItemGem || it.Kind == ItemJewelry {
		return p, true
	}
	return max(1, p/2), true
}

// market is one market space's stock, owned by the engine goroutine.
type market struct {
	name      string
	stock     []stockLine
	restocked uint64 // the turn the last restock period ended
}

// stockLine is one ware and the count it was stocked with (0 for an item a knight sold
// here, which is never restocked and leaves the list when it is bought).
type stockLine struct {
	Ware
	start int
}

// newMarket stocks the market at index i of the surface's cells from its own stream
// (seed + i): MinWares..MaxWares lines of the price table, 1..MaxWareCount of each.
// Ruling: potions (both kinds) are always stocked when potions is set, which the engine
// sets for every other market, so at least half the markets sell them.
func newMarket(seed uint64, i int, name string, potions bool, turn uint64) *market {
	r := rand.New(rand.NewPCG(seed+uint64(i), marketStream))
	n := MinWares + r.IntN(MaxWares-MinWares+1)
	chosen := make([]bool, len(MarketPrices))
	have := 0
	if potions {
		for j, l := range MarketPrices {
			if l.Item.Kind == ItemPotionHealing || l.Item.Kind == ItemPotionSpellUnits {
				chosen[j] = true
				have++
			}
		}
	}
	for _, j := range r.Perm(len(MarketPrices)) {
		if have >= n {
			break
		}
		if !chosen[j] {
			chosen[j] = true
			have++
		}
	}
	m := &market{name: name, restocked: turn}
	for j, l := range MarketPrices {
		if chosen[j] {
			c := 1 + r.IntN(MaxWareCount)
			m.stock = append(m.stock, stockLine{Ware{Item: l.Item, Price: l.Price, Count: c}, c})
		}
	}
	return m
}

// catchUp restocks the market for the RestockTurns periods that have ended by turn, and
// says whether the stock changed. It is done when the market is looked at or traded
// with, so it needs no work on every turn.
func (m *market) catchUp(turn uint64) bool {
	if turn < m.restocked+RestockTurns {
		return false // no period has ended yet
	}
	periods := (turn - m.restocked) / RestockTurns
	m.restocked += periods * RestockTurns
	changed := false
	for ; periods > 0; periods-- {
		i := slices.IndexFunc(m.stock, func(l stockLine) bool { return l.Count < l.start })
		if i < 0 {
			break
		}
		m.stock[i].Count++
		changed = true
	}
	return changed
}

// wares is the market's stock as a view shows it (a copy).
func (m *market) wares() []Ware {
	out := make([]Ware, len(m.stock))
	for i, l := range m.stock {
		out[i] = l.Ware
	}
	return out
}

// take puts an item a knight sold into the stock, to be bought back at PriceOf: on the
// line of the same item if there is one, else on a new line at the end.
func (m *market) take(it Item) {
	it.Worn = false
	for i := range m.stock {
		if l := &m.stock[i]; l.Item == it {
			l.Count++
			return
		}
	}
	price, _ := PriceOf(it)
	m.stock = append(m.stock, stockLine{Ware{Item: it, Price: price, Count: 1}, 0})
}

// marketAt is the market of the surface space pos, or nil.
func (e *Engine) marketAt(pos Pos) *market {
	g := e.outside.grid
	if g == nil || g.At(pos) != SurfaceMarket {
		return nil
	}
	return e.outside.markets[g.idx(pos)]
}

// tradeAt is the market the knight stands on, caught up to now; when there is none the
// knight is told so.
func (e *Engine) tradeAt(p *player) *market {
	var m *market
	if p.rec.Depth == 0 {
		m = e.marketAt(p.rec.Pos())
	}
	if m == nil {
		e.say(p, "There is no market here.")
		return nil
	}
	e.outside.changed = m.catchUp(e.turn) || e.outside.changed
	return m
}

// touchMarket marks the views of the other knights standing on p's market as changed.
func (e *Engine) touchMarket(p *player) {
	for _, q := range e.order {
		if q != p && q.rec.Depth == 0 && q.rec.Pos() == p.rec.Pos() {
			q.dirty = true
		}
	}
}

// buy buys the ware at index i of the market the knight stands on. Trading takes no
// time, like talking.
func (e *Engine) buy(p *player, i int, want Item) float64 {
	m := e.tradeAt(p)
	if m == nil {
		return 0
	}
	if i < 0 || i >= len(m.stock) {
		e.say(p, "The market has no such ware.")
		return 0
	}
	if want != (Item{}) && m.stock[i].Item != want {
		e.say(p, fmt.Sprintf("The %s is no longer on that line: the stock has changed. Look again.", want.Name()))
		return 0
	}
	l := &m.stock[i]
	it := l.Item
	switch {
	case l.Count <= 0:
		e.say(p, fmt.Sprintf("The %s is sold out here; come back later.", it.Name()))
		return 0
	case p.rec.Gold < l.Price:
		e.say(p, fmt.Sprintf("You have %d gold; the %s costs %d.", p.rec.Gold, it.Name(), l.Price))
		return 0
	}
	price := l.Price
	p.rec.Gold -= price
	l.Count--
	if l.Count == 0 && l.start == 0 {
		m.stock = slices.Delete(m.stock, i, i+1) // a knight's item, bought back
	}
	p.rec.Items = append(p.rec.Items, it)
	p.changed = true
	msg := fmt.Sprintf("You buy %s for %d gold; you have %d left.", english.A(it.Name()), price, p.rec.Gold)
	if it.Info().Drinkable {
		msg += " (i to drink it)"
		if inPouch(p.rec.Items, len(p.rec.Items)-1) {
			msg += " It goes in your belt pouch, quick to reach."
		}
	}
	e.say(p, msg)
	e.outside.changed = true
	e.saveNow(p)
	e.touchMarket(p)
	return 0
}

// sell sells the knight's item at index i to the market it stands on. Nothing is lost
// silently: an item the market does not buy stays with the knight, and an item sold goes
// into the market's stock.
func (e *Engine) sell(p *player, i int) float64 {
	m := e.tradeAt(p)
	if m == nil {
		return 0
	}
	if i < 0 || i >= len(p.rec.Items) {
		e.say(p, "You have no such item.")
		return 0
	}
	it := p.rec.Items[i]
	if it.Kind == ItemSword && it.Plus == 0 {
		e.say(p, "No one here wants your old sword.")
		return 0
	}
	price, ok := SellPrice(it)
	switch {
	case !ok:
		e.say(p, fmt.Sprintf("No one at %s buys %s; you keep it.", m.name, english.A(it.Name())))
		return 0
	case it.Worn:
		e.say(p, fmt.Sprintf("Take off the %s first.", it.Name()))
		return 0
	case it.Kind == ItemSword && swords(p.rec.Items) == 1:
		e.say(p, "A knight keeps at least one sword.")
		return 0
	}
	p.rec.Items = slices.Delete(p.rec.Items, i, i+1)
	p.rec.Gold += price
	p.changed = true
	m.take(it)
	e.outside.changed = true
	e.say(p, fmt.Sprintf("You sell the %s for %d gold; you have %d.", it.Name(), price, p.rec.Gold))
	e.earnFortune(p)
	e.saveNow(p)
	e.touchMarket(p)
	return 0
}
