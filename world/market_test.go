package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// atMarket joins a knight with gold on a market space of a fresh engine.
func atMarket(t *testing.T, gold int, items ...Item) (*Engine, *player, *recorder, *market) {
	t.Helper()
	rec := &recorder{}
	e := fightEngine(t, rec)
	g := e.outside.grid
	at, _ := findStep(t, g, SurfaceMarket, SurfaceCommon)
	p, sub := outsideKnight(t, e, "a", at)
	p.rec.Gold = gold
	p.rec.Items = append(p.rec.Items, items...)
	e.publish()
	return e, p, sub, e.marketAt(at)
}

// wareIndex finds a ware of the market by item.
func wareIndex(t *testing.T, m *market, it Item) int {
	t.Helper()
	for i, l := range m.stock {
		if l.Item == it {
			return i
		}
	}
	t.Fatalf("%s has no %s: %+v", m.name, it.Name(), m.wares())
	return -1
}

// Every market's stock: 4 to 8 lines of the price table at its prices, 1 to 5 of each,
// potions in at least half the markets, the same on every start with the same seed.
func TestMarketStock(t *testing.T) {
	for seed := range uint64(200) {
		e := newWithLevels(Config{Seed: seed, WanderChance: -1}, nil)
		again := newWithLevels(Config{Seed: seed, WanderChance: -1}, nil)
		potions := 0
		for i, m := range e.outside.markets {
			if n := len(m.stock); n < MinWares || n > MaxWares {
				t.Fatalf("seed %d: %s has %d wares", seed, m.name, n)
			}
			kinds := map[ItemKind]bool{}
			for j, l := range m.stock {
				price, ok := PriceOf(l.Item)
				if !ok || price != l.Price || l.Count < 1 || l.Count > MaxWareCount || l.start != l.Count {
					t.Fatalf("seed %d: %s sells %+v", seed, m.name, l)
				}
				if w := again.outside.markets[i].stock[j]; w != l {
					t.Fatalf("seed %d: %s stocked %+v, then %+v", seed, m.name, l, w)
				}
				kinds[l.Item.Kind] = true
			}
			if kinds[ItemPotionHealing] && kinds[ItemPotionSpellUnits] {
				potions++
			}
			if m.name != e.outside.grid.Markets[i] {
				t.Fatalf("market %d named %q", i, m.name)
			}
		}
		if n := len(e.outside.markets); n != 19 || potions*2 < n {
			t.Fatalf("seed %d: %d markets, %d with both potions", seed, n, potions)
		}
	}
}

// Buying takes the price, gives the item and takes it from the stock; selling it back
// gives half: the round trip loses exactly the margin, and the ware is back on the shelf.
func TestBuyAndSellBack(t *testing.T) {
	e, p, sub, m := atMarket(t, 5000)
	v := sub.last()
	if v.Surface.Market == nil || len(v.Surface.Market.Wares) != len(m.stock) {
		t.Fatalf("market view %+v", v.Surface.Market)
	}
	for i := range m.stock {
		l := m.stock[i]
		gold, items, saved := p.rec.Gold, len(p.rec.Items), len(e.cfg.Saver.(*recorder).saved)
		if cost := e.act(p, Buy{Index: i}); cost != 0 {
			t.Fatalf("buying cost %v of a round", cost)
		}
		if p.rec.Gold != gold-l.Price || len(p.rec.Items) != items+1 || p.rec.Items[items] != l.Item || m.stock[i].Count != l.Count-1 {
			t.Fatalf("bought %s: gold %d→%d, items %d→%d, stock %d→%d (%q)", l.Item.Name(), gold, p.rec.Gold,
				items, len(p.rec.Items), l.Count, m.stock[i].Count, lastMsg(p))
		}
		if want := fmt.Sprintf("You buy %s for %d gold; you have %d left.", english.A(l.Item.Name()), l.Price, p.rec.Gold); !strings.HasPrefix(lastMsg(p), want) {
			t.Fatalf("message %q, want %q", lastMsg(p), want)
		}
		if len(e.cfg.Saver.(*recorder).saved) != saved+1 {
			t.Fatal("a purchase was not saved at once")
		}
		e.act(p, Sell{Index: items})
		if margin := l.Price - l.Price/2; p.rec.Gold != gold-margin || len(p.rec.Items) != items || m.stock[i].Count != l.Count {
			t.Fatalf("sold %s back: gold %d, want %d; stock %d, want %d (%q)", l.Item.Name(), p.rec.Gold, gold-margin,
				m.stock[i].Count, l.Count, lastMsg(p))
		}
	}
	e.publish()
	if w := sub.last().Surface.Market.Wares; len(w) != len(m.stock) {
		t.Fatalf("view shows %d wares, the market has %d", len(w), len(m.stock))
	}
}

func TestBuyingWithoutEnoughGoldOrSoldOut(t *testing.T) {
	e, p, _, m := atMarket(t, 0)
	l := m.stock[0]
	p.rec.Gold = l.Price - 1
	e.act(p, Buy{Index: 0})
	if want := fmt.Sprintf("You have %d gold; the %s costs %d.", l.Price-1, l.Item.Name(), l.Price); lastMsg(p) != want {
		t.Fatalf("%q, want %q", lastMsg(p), want)
	}
	if p.rec.Gold != l.Price-1 || len(p.rec.Items) != 1 || m.stock[0].Count != l.Count {
		t.Fatal("a refused purchase changed something")
	}
	p.rec.Gold = 100000
	for range l.Count {
		e.act(p, Buy{Index: 0})
	}
	gold := p.rec.Gold
	e.act(p, Buy{Index: 0})
	if !strings.Contains(lastMsg(p), "sold out") || p.rec.Gold != gold || len(p.rec.Items) != 1+l.Count || m.stock[0].Count != 0 {
		t.Fatalf("sold out: %q, gold %d→%d, %d items", lastMsg(p), gold, p.rec.Gold, len(p.rec.Items))
	}
	for _, i := range []int{-1, len(m.stock)} {
		if e.act(p, Buy{Index: i}); p.rec.Gold != gold {
			t.Fatal("buying nothing cost gold")
		}
	}
	// Off a market, nothing is traded.
	p.rec.X, p.rec.Y = e.outside.grid.Entrance.X, e.outside.grid.Entrance.Y
	if e.act(p, Buy{Index: 0}); lastMsg(p) != "There is no market here." || p.rec.Gold != gold {
		t.Fatalf("buying off a market: %q", lastMsg(p))
	}
	if e.act(p, Sell{Index: 1}); lastMsg(p) != "There is no market here." || p.rec.Gold != gold {
		t.Fatalf("selling off a market: %q", lastMsg(p))
	}
}

// Nothing is lost silently: what no market buys stays with the knight and says why.
func TestSellingWhatNobodyBuysKeepsIt(t *testing.T) {
	ring := Item{Kind: ItemRingOfLight, Worn: true}
	boots := Item{Kind: ItemBootsOfSpeed}
	manual := Item{Kind: ItemManualOfPhilosophy}
	quiver := Item{Kind: ItemQuiver, Count: 4}
	e, p, _, m := atMarket(t, 10, ring, boots, manual, quiver)
	stock := len(m.stock)
	e.act(p, Sell{Index: 0})
	if lastMsg(p) != "No one here wants your old sword." {
		t.Fatalf("selling the plain sword: %q", lastMsg(p))
	}
	for i := 1; i < 5; i++ {
		e.act(p, Sell{Index: i})
		if want := "No one at " + m.name + " buys "; !strings.HasPrefix(lastMsg(p), want) || !strings.HasSuffix(lastMsg(p), "; you keep it.") {
			t.Fatalf("selling %s: %q", p.rec.Items[i].Name(), lastMsg(p))
		}
	}
	if len(p.rec.Items) != 5 || p.rec.Gold != 10 || len(m.stock) != stock {
		t.Fatalf("items %+v, gold %d", p.rec.Items, p.rec.Gold)
	}
	// A knight's last sword is not sold, magic or not.
	p.rec.Items[0] = Item{Kind: ItemSword, Plus: 2}
	e.act(p, Sell{Index: 0})
	if lastMsg(p) != "A knight keeps at least one sword." || len(p.rec.Items) != 5 {
		t.Fatalf("selling the last sword: %q", lastMsg(p))
	}
	e.act(p, Sell{Index: 9})
	if lastMsg(p) != "You have no such item." {
		t.Fatalf("selling nothing: %q", lastMsg(p))
	}
}

// Gems and jewelry sell for their full worth (seed 000: treasure's worth is gold) and can
// be bought back at that price; the line goes when the last is bought.
func TestSellingValuables(t *testing.T) {
	gem := Item{Kind: ItemGem, Value: 450}
	jewel := Item{Kind: ItemJewelry, Value: 700}
	e, p, _, m := atMarket(t, 0, gem, jewel)
	stock := len(m.stock)
	e.act(p, Sell{Index: 1})
	e.act(p, Sell{Index: 1})
	if p.rec.Gold != 1150 || len(p.rec.Items) != 1 || len(m.stock) != stock+2 {
		t.Fatalf("after selling a gem and jewelry: gold %d, items %+v, %d lines", p.rec.Gold, p.rec.Items, len(m.stock))
	}
	if lastMsg(p) != "You sell the piece of jewelry worth 700 for 700 gold; you have 1150." {
		t.Fatalf("%q", lastMsg(p))
	}
	i := wareIndex(t, m, gem)
	if m.stock[i].Price != 450 || m.stock[i].Count != 1 {
		t.Fatalf("the gem on sale: %+v", m.stock[i])
	}
	e.act(p, Buy{Index: i})
	if p.rec.Gold != 700 || len(m.stock) != stock+1 || p.rec.Items[1] != gem {
		t.Fatalf("buying the gem back: gold %d, %d lines, items %+v", p.rec.Gold, len(m.stock), p.rec.Items)
	}
}

// Gold is conserved: whatever a knight buys and sells, its gold moves by exactly the
// prices (the table price to buy, SellPrice to sell), and every item is either the
// knight's or on the market's shelf.
func TestTradingConservesGoldAndItems(t *testing.T) {
	e, p, _, m := atMarket(t, 20000, Item{Kind: ItemSword, Plus: 3}, Item{Kind: ItemShield, Plus: 2},
		Item{Kind: ItemGem, Value: 300}, Item{Kind: ItemPotionHealing})
	units := func() map[Item]int {
		n := map[Item]int{}
		for _, it := range p.rec.Items {
			n[it]++
		}
		for _, l := range m.stock {
			n[l.Item] += l.Count
		}
		return n
	}
	start := units()
	r := rand.New(rand.NewPCG(4, 4))
	want := p.rec.Gold
	bought, sold := 0, 0
	for range 500 {
		if r.IntN(2) == 0 && len(m.stock) > 0 {
			i := r.IntN(len(m.stock))
			l := m.stock[i]
			if l.Count > 0 && p.rec.Gold >= l.Price {
				want -= l.Price
				bought++
			}
			e.act(p, Buy{Index: i})
		} else {
			i := r.IntN(len(p.rec.Items))
			it := p.rec.Items[i]
			if price, ok := SellPrice(it); ok && !(it.Kind == ItemSword && swords(p.rec.Items) == 1) {
				want += price
				sold++
			}
			e.act(p, Sell{Index: i})
		}
		if p.rec.Gold != want || p.rec.Gold < 0 {
			t.Fatalf("gold %d, want %d (%q)", p.rec.Gold, want, lastMsg(p))
		}
	}
	if bought < 50 || sold < 50 {
		t.Fatalf("only %d bought and %d sold", bought, sold)
	}
	end := units()
	for it, n := range start {
		if end[it] != n {
			t.Fatalf("%s: %d at the start, %d at the end", it.Name(), n, end[it])
		}
	}
	for it, n := range end {
		if start[it] != n {
			t.Fatalf("%s: %d at the start, %d at the end", it.Name(), start[it], n)
		}
	}
}

// A market gets one item back every RestockTurns (one minute) on the first ware short of
// its stock, never above it; an item a knight sold is never restocked.
func TestMarketsRestock(t *testing.T) {
	e, p, sub, m := atMarket(t, 100000)
	l := m.stock[0]
	for range l.Count {
		e.act(p, Buy{Index: 0})
	}
	e.act(p, Buy{Index: 1})
	if m.stock[0].Count != 0 || m.stock[1].Count != m.stock[1].start-1 {
		t.Fatalf("stock %+v", m.stock)
	}
	e.turn += RestockTurns - 1
	m.catchUp(e.turn)
	if m.stock[0].Count != 0 {
		t.Fatal("restocked early")
	}
	e.turn++
	p.dirty = true
	e.publish()
	if w := sub.last().Surface.Market.Wares; w[0].Count != 1 {
		t.Fatalf("after a minute the view shows %d", w[0].Count)
	}
	e.turn += uint64(RestockTurns) * 100
	m.catchUp(e.turn)
	for _, s := range m.stock {
		if s.Count != s.start {
			t.Fatalf("after a long while %+v", m.stock)
		}
	}
}

// Buy names the ware it expects: when the lines have moved under the player (another
// knight bought the last of a line before it), the purchase is refused, never swapped.
func TestBuyingAMovedLineIsRefused(t *testing.T) {
	e, p, _, m := atMarket(t, 5000)
	if len(m.stock) < 2 {
		t.Skip("the market has one line")
	}
	want := m.stock[1].Item
	gold, items := p.rec.Gold, len(p.rec.Items)
	e.act(p, Buy{Index: 0, Item: want})
	if p.rec.Gold != gold || len(p.rec.Items) != items || !strings.Contains(lastMsg(p), "the stock has changed") {
		t.Fatalf("a moved line was sold: gold %d→%d, %q", gold, p.rec.Gold, lastMsg(p))
	}
	e.act(p, Buy{Index: 1, Item: want})
	if p.rec.Gold == gold || p.rec.Items[len(p.rec.Items)-1] != want {
		t.Fatalf("the right line was refused: %q", lastMsg(p))
	}
}

// The markets' stock is saved with the levels, as the surface's state (depth 0), at the
// checkpoint after a trade, and is as it was after a restart: what was bought is gone and
// what was sold is there. A state saved for another surface (another seed) is ignored.
func TestMarketStockSurvivesARestart(t *testing.T) {
	gem := Item{Kind: ItemGem, Value: 120}
	e, p, _, m := atMarket(t, 5000, gem)
	saver := e.cfg.Saver.(*recorder)
	e.saveLevels(false)
	surfaceStates := func() []LevelState {
		var out []LevelState
		for _, ls := range saver.levels {
			if ls.Depth == 0 {
				out = append(out, ls)
			}
		}
		return out
	}
	if n := len(surfaceStates()); n != 0 {
		t.Fatalf("%d surface states saved before any trade", n)
	}
	e.act(p, Buy{Index: 0})
	e.act(p, Sell{Index: slices.Index(p.rec.Items, gem)})
	e.saveLevels(false)
	states := surfaceStates()
	if len(states) != 1 {
		t.Fatalf("%d surface states saved after a trade, want 1", len(states))
	}
	e.saveLevels(false)
	if len(surfaceStates()) != 1 {
		t.Fatal("the surface was saved again with nothing changed")
	}

	again := New(Config{Seed: e.cfg.Seed, Levels: states})
	m2 := again.marketAt(p.rec.Pos())
	if got, want := m2.wares(), m.wares(); !slices.Equal(got, want) {
		t.Fatalf("after a restart the market has %+v, before %+v", got, want)
	}
	if m2.stock[len(m2.stock)-1].Item != gem {
		t.Fatalf("the gem sold is not in the stock after a restart: %+v", m2.wares())
	}
	fresh := New(Config{Seed: e.cfg.Seed}).marketAt(p.rec.Pos()).wares()
	if slices.Equal(fresh, m.wares()) {
		t.Fatal("the trade changed nothing to restore")
	}
	// A damaged state loses only its bad lines.
	bad := states[0]
	bad.Markets = slices.Clone(bad.Markets)
	for i := range bad.Markets {
		if bad.Markets[i].Square == again.outside.grid.idx(p.rec.Pos()) {
			bad.Markets[i].Stock = append(slices.Clone(bad.Markets[i].Stock),
				StockState{Item: Item{Kind: NumItemKinds + 3}, Price: 5, Count: 1}, StockState{Item: gem, Price: 9, Count: -2})
		}
	}
	damaged := New(Config{Seed: e.cfg.Seed, Levels: []LevelState{bad}})
	if got := damaged.marketAt(p.rec.Pos()).wares(); !slices.Equal(got, m.wares()) {
		t.Fatalf("a damaged state gave %+v, want %+v", got, m.wares())
	}
	other := New(Config{Seed: e.cfg.Seed + 1, Levels: states})
	want := New(Config{Seed: e.cfg.Seed + 1})
	for sq, om := range other.outside.markets {
		if !slices.Equal(om.wares(), want.outside.markets[sq].wares()) {
			t.Fatalf("another seed's surface took the saved stock at %d", sq)
		}
	}
}

// Every stock size of MinWares..MaxWares comes up over 200 surfaces (3800 markets), each
// count 1..MaxWareCount too.
func TestMarketStockSizesCoverTheRange(t *testing.T) {
	sizes, counts := map[int]bool{}, map[int]bool{}
	for seed := range uint64(200) {
		e := newWithLevels(Config{Seed: seed, WanderChance: -1}, nil)
		for _, m := range e.outside.markets {
			sizes[len(m.stock)] = true
			for _, l := range m.stock {
				counts[l.start] = true
			}
		}
	}
	for n := MinWares; n <= MaxWares; n++ {
		if !sizes[n] {
			t.Errorf("no market stocked %d wares: sizes %v", n, sizes)
		}
	}
	for n := 1; n <= MaxWareCount; n++ {
		if !counts[n] {
			t.Errorf("no ware stocked %d of: counts %v", n, counts)
		}
	}
}

// Each market's stock comes from a stream of its own (the seed plus the market's place),
// the same on every server of the seed: seed 1977's first market, as it is.
func TestTheFirstMarketOfSeed1977(t *testing.T) {
	e := newWithLevels(Config{Seed: 1977, WanderChance: -1}, nil)
	first := e.outside.grid.marketIndices()[0]
	m := e.outside.markets[first]
	var got []string
	for _, w := range m.wares() {
		got = append(got, fmt.Sprintf("%s %d×%d", w.Item.Name(), w.Count, w.Price))
	}
	// Changing this changes every server's markets.
	const want = "the Market of the Dancing Bear: sword +3 1×3000, shield +2 3×700, armour +2 2×800, potion of healing 3×60, potion of spell units 5×90"
	if got := m.name + ": " + strings.Join(got, ", "); got != want {
		t.Fatalf("seed 1977's first market is\n%s,\nwant\n%s", got, want)
	}
}

// A market restocks one ware a period (RestockTurns), counted from the last period's end:
// two potions short, it has one back after a period, still one a turn later, and both
// after two periods, never more than it was stocked with; from a market stocked late in
// the world's life as from one stocked at the start.
func TestMarketsRestockOneAPeriod(t *testing.T) {
	const start = 12345
	m := &market{name: "the Market of the Test", restocked: start,
		stock: []stockLine{{Ware{Item: Item{Kind: ItemPotionHealing}, Price: 60, Count: 1}, 3}}}
	for _, step := range []struct {
		turn uint64
		want int
	}{{start, 1}, {start + RestockTurns - 1, 1}, {start + RestockTurns, 2}, {start + RestockTurns + 1, 2}, {start + 2*RestockTurns - 1, 2}, {start + 2*RestockTurns, 3}, {start + 9*RestockTurns, 3}} {
		m.catchUp(step.turn)
		if got := m.stock[0].Count; got != step.want {
			t.Fatalf("at turn %d the ware has %d, want %d", step.turn, got, step.want)
		}
	}
}

// What a market buys: a gem worth nothing is not bought; an item the knight does not
// have cannot be sold.
func TestNoSaleOfWhatIsNotThere(t *testing.T) {
	e, p, _, _ := atMarket(t, 0, Item{Kind: ItemGem, Value: 0})
	if _, ok := PriceOf(Item{Kind: ItemGem}); ok {
		t.Fatal("a gem worth nothing has a price")
	}
	e.act(p, Sell{Index: 1})
	if len(p.rec.Items) != 2 || p.rec.Gold != 0 {
		t.Fatalf("sold a worthless gem: gold %d", p.rec.Gold)
	}
	e.act(p, Sell{Index: 2})
	if lastMsg(p) != "You have no such item." {
		t.Fatalf("selling the item after the last: %q", lastMsg(p))
	}
}

// A trade changes what every knight standing on the market sees (touchMarket), and no one
// else's view.
func TestATradeShowsToTheOthersAtTheMarket(t *testing.T) {
	e, p, _, m := atMarket(t, 100000)
	here, _ := outsideKnight(t, e, "b", p.rec.Pos())
	away, _ := outsideKnight(t, e, "c", e.outside.grid.Entrance)
	e.publish()
	before := m.stock[0].Count
	e.act(p, Buy{Index: 0})
	if !here.dirty || away.dirty {
		t.Fatalf("after a purchase: the knight at the market to be shown %v, the one away %v", here.dirty, away.dirty)
	}
	e.publish()
	if w := here.sub.(*recorder).last().Surface.Market.Wares[0]; w.Count != before-1 {
		t.Fatalf("the other knight at the market sees %d, want %d", w.Count, before-1)
	}
}
