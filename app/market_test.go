package app

import (
	"reflect"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// b on a market opens its screen: the name, the knight's gold, the wares with their
// letters, prices and how many are left, and the knight's things. A letter buys; Tab and
// a letter sells; Esc or q goes back; the world's answer shows in the message line.
func TestMarketScreenBuysAndSells(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), size[0], size[1])
		keys(m, "b")
		if m.screen != screenMarket {
			t.Fatalf("b on a market did not open it (screen %d)", m.screen)
		}
		s := m.Text()
		for _, want := range []string{"THE MARKET OF THE GOLDEN LAMB", "Your gold: 120", "FOR SALE: a letter buys",
			"a  sword +1", "200", "b  shield", "90", "c  armour +2", "900", "d  ring of light", "none",
			"YOUR THINGS (Tab to sell)", "pays", "a  sword", "b  boots of speed (worn)", "c  potion of healing", "30", "d  gem worth 400", "400",
			"You climb out into the daylight.", "Esc or q: back"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%v: the market screen lacks %q:\n%s", size, want, s)
			}
		}
		if lines := strings.Split(s, "\n"); len(lines) != size[1] || len([]rune(lines[0])) != size[0] {
			t.Fatalf("%v: the market screen is %d lines of %d", size, len(lines), len([]rune(lines[0])))
		}
		keys(m, "b")
		if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Buy{Index: 1, Item: world.Item{Kind: world.ItemShield}}}) {
			t.Fatalf("b on the market screen sent %#v", got)
		}
		keys(m, "z", "e") // no such wares
		if got := rec.take(); len(got) != 0 {
			t.Fatalf("letters past the wares sent %#v", got)
		}
		keys(m, "tab")
		if s := m.Text(); !strings.Contains(s, "YOUR THINGS: a letter sells") || !strings.Contains(s, "FOR SALE (Tab to buy)") {
			t.Fatalf("Tab did not switch to selling:\n%s", s)
		}
		keys(m, "b", "e")
		if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Sell{Index: 1}}) {
			t.Fatalf("Tab, b, e sent %#v", got)
		}
		// The world answers in the message line.
		v := surfaceView(world.Pos{X: 2, Y: 0})
		v.Log = withLines(v.Log, "You sell the boots of speed for 400 gold pieces.")
		v.Self.Gold = 520
		m.Update(viewMsg(v))
		if s := m.Text(); m.screen != screenMarket || !strings.Contains(s, "You sell the boots of speed for 400 gold pieces.") || !strings.Contains(s, "Your gold: 520") {
			t.Fatalf("the world's answer is not shown:\n%s", s)
		}
		keys(m, "q")
		if m.screen != screenPlay {
			t.Fatal("q did not leave the market")
		}
		keys(m, "b", "esc")
		if m.screen != screenPlay {
			t.Fatal("Esc did not leave the market")
		}
		if got := rec.take(); len(got) != 0 {
			t.Fatalf("opening and leaving sent %#v", got)
		}
	}
}

// s on a market opens it on the knight's things, as the world's greeting says; in a
// battle s still shoots, and off a market it is the play screen's s.
func TestSOpensTheSellingList(t *testing.T) {
	m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 80, 24)
	keys(m, "s")
	if m.screen != screenMarket || !m.mk.selling {
		t.Fatalf("s on a market: screen %d, selling %v", m.screen, m.mk.selling)
	}
	keys(m, "c")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Sell{Index: 2}}) {
		t.Fatalf("s, c sent %#v", got)
	}
	keys(m, "esc", "b")
	if m.screen != screenMarket || m.mk.selling {
		t.Fatalf("b after s: screen %d, selling %v", m.screen, m.mk.selling)
	}
	m2, rec2 := viewModel(t, surfaceView(world.Pos{X: 1, Y: 1}), 80, 24)
	keys(m2, "s")
	if got := rec2.take(); m2.screen != screenPlay || !reflect.DeepEqual(got, []world.Command{world.Shoot{}}) {
		t.Fatalf("s off a market: screen %d, sent %#v", m2.screen, got)
	}
}

// The world's greeting on a market names keys; screen-reader mode names the words.
func TestPlainMarketGreeting(t *testing.T) {
	if got := plainMessage("You are at the Market of the Golden Lamb; b buys, s sells."); got != "You are at the Market of the Golden Lamb: type market for its wares." {
		t.Fatalf("greeting in screen-reader mode: %q", got)
	}
}

// Letters skip q, which always leaves: the seventeenth thing is r.
func TestMarketLettersSkipQ(t *testing.T) {
	for i := range listLetters {
		l := listLetter(i)
		if j, capital := listIndex(string(l)); l == 'q' || j != i || capital {
			t.Fatalf("entry %d has letter %c, which indexes %d", i, l, j)
		}
		if j, capital := listIndex(strings.ToUpper(string(l))); j != i || !capital {
			t.Fatalf("entry %d's capital indexes %d", i, j)
		}
	}
	if i, _ := listIndex("q"); listLetter(16) != 'r' || i != -1 {
		t.Fatal("q is not skipped")
	}
	if i, _ := listIndex("Q"); i != -1 {
		t.Fatal("Q is not skipped")
	}
	v := surfaceView(world.Pos{X: 2, Y: 0})
	for range 18 {
		v.Self.Items = append(v.Self.Items, world.Item{Kind: world.ItemShield})
	}
	m, rec := viewModel(t, v, 80, 24)
	keys(m, "b", "tab", "r")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.Sell{Index: 16}}) {
		t.Fatalf("r sold %#v, want the seventeenth thing", got)
	}
	s := m.Text()
	last := string(listLetter(len(v.Self.Items)-1)) + "  shield"
	if !strings.Contains(s, "(more: "+pageKeysHint+" pages)") || strings.Contains(s, last) {
		t.Fatalf("%d things at 80×24 do not say there are more:\n%s", len(v.Self.Items), s)
	}
	// The list scrolls, its letters staying the things' own.
	keys(m, "end")
	if s := m.Text(); !strings.Contains(s, last) || strings.Contains(s, "│ a  sword") {
		t.Fatalf("End does not show the end of the list:\n%s", s)
	}
	// The inventory's letters are the market's, on the screen and in words: r is the
	// seventeenth thing, R drops it.
	keys(m, "esc", "i", "r", "R")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.UseItem{Index: 16}, world.Drop{Index: 16}}) {
		t.Fatalf("r and R on the inventory sent %#v, want the seventeenth thing used and dropped", got)
	}
	if keys(m, "end"); !strings.Contains(m.Text(), "r  shield") || strings.Contains(m.Text(), "q  shield") {
		t.Fatalf("the inventory's letters are not the market's:\n%s", m.Text())
	}
	m.screen, m.pl.active = screenPlay, true
	m.plainLine("use r")
	m.plainLine("drop r")
	if got := rec.take(); !reflect.DeepEqual(got, []world.Command{world.UseItem{Index: 16}, world.Drop{Index: 16}}) {
		t.Fatalf("use r and drop r sent %#v, want the seventeenth thing used and dropped", got)
	}
	if said := strings.Join(inventoryText(m.view), " "); !strings.Contains(said, "r: shield") || strings.Contains(said, "q: shield") {
		t.Fatalf("the inventory in words does not letter as the screen does: %s", said)
	}
}

// Leaving the market's space (the party moves on) closes its screen.
func TestLeavingTheMarketClosesIt(t *testing.T) {
	m, _ := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 80, 24)
	keys(m, "b")
	m.Update(viewMsg(surfaceView(world.Pos{X: 3, Y: 0})))
	if m.screen != screenPlay {
		t.Fatalf("the market stayed open off its space (screen %d)", m.screen)
	}
	if s := m.Text(); !strings.Contains(s, "Common ground:") {
		t.Fatalf("after leaving the market:\n%s", s)
	}
}

// Screen-reader mode: market lists the wares and the knight's things with numbers, buy N
// and sell N (or a name, or a letter for sell) trade; off a market they say so.
func TestPlainMarket(t *testing.T) {
	m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 80, 24)
	m.pl.active, m.opts.Plain = true, true
	typeLine := func(line string) { enterLine(m, line) }
	typeLine("look")
	if s := m.Text(); !strings.Contains(s, "You are on the surface, at a market: the Market of the Golden Lamb. Type market for its wares.") {
		t.Fatalf("look on a market:\n%s", s)
	}
	typeLine("market")
	s := m.Text()
	for _, want := range []string{
		"The Market of the Golden Lamb sells: 1, sword +1, 200 gold pieces (3 left); 2, shield, 90 gold pieces (1 left); 3, armour +2, 900 gold pieces (2 left); 4, ring of light, 150 gold pieces (sold out).",
		"You have 120 gold pieces.",
		"Your things: 1, sword, which no market buys; 2, boots of speed (worn), which no market buys; 3, potion of healing, for 30 gold pieces; 4, gem worth 400, for 400 gold pieces.",
		"Type buy and a number",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("market lacks %q:\n%s", want, s)
		}
	}
	typeLine("buy 2")
	typeLine("sell 1")
	typeLine("buy armour")
	typeLine("sell boots")
	typeLine("sell b")
	want := []world.Command{world.Buy{Index: 1, Item: world.Item{Kind: world.ItemShield}}, world.Sell{Index: 0}, world.Buy{Index: 2, Item: world.Item{Kind: world.ItemArmour, Plus: 2}}, world.Sell{Index: 1}, world.Sell{Index: 1}}
	if got := rec.take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("trading words sent %#v, want %#v", got, want)
	}
	typeLine("buy 9")
	typeLine("buy")
	typeLine("buy dragon")
	typeLine("sell 0")
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("bad trades sent %#v", got)
	}
	s = m.Text()
	for _, want := range []string{"There is no number 9 to buy.", "Buy which?", "The market sells no such thing.", "There is no number 0 to sell."} {
		if !strings.Contains(s, want) {
			t.Fatalf("bad trades are not answered with %q:\n%s", want, s)
		}
	}
	m.view = surfaceView(world.Pos{X: 3, Y: 0})
	typeLine("buy 1")
	if got := rec.take(); len(got) != 0 || !strings.Contains(m.Text(), "There is no market here") {
		t.Fatalf("buy off a market sent %#v:\n%s", got, m.Text())
	}
}

// Odd lines at a market are answered, and no control character reaches the transcript.
func TestPlainMarketOddLines(t *testing.T) {
	m, rec := viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 80, 24)
	m.pl.active = true
	for _, line := range []string{"buy \x1b[2J", "sell 99999999999999999999", "buy -1", "sell \xff", "buy 1\x9b2J",
		"market market", "map grid grid", "sell", "buy 0", "sell -3", "buy " + strings.Repeat("9", 300)} {
		m.plainLine(line)
	}
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("odd lines sent %#v", got)
	}
	for _, r := range m.plainText() {
		if r == 0x1b || r == 0x7f || (r < 0x20 && r != '\n') || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("the transcript carries control character %U:\n%s", r, m.plainText())
		}
	}
}
