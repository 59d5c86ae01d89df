package app

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The market screen (seed 002: "items can be bought or sold"): on a market space b opens
// it on the wares, s on the knight's things (as the world's greeting says). It lists the market's wares (a letter buys one) and the knight's things (Tab, then
// a letter sells one); the world answers in the message line. Esc or q goes back, and
// leaving the market's space closes it. Letters skip q, which always goes back, so a
// slip of the finger never sells a seventeenth thing.

// marketState is the market screen's state. It is part of the Model.
type marketState struct {
	selling bool     // the letters sell the knight's things, not buy the wares
	lists   [2]pager // the wares and the knight's things, when they scroll
}

// marketHere is the market the knight stands on, or nil.
func (m *Model) marketHere() *world.MarketView {
	if !m.onSurface() {
		return nil
	}
	return m.view.Surface.Market
}

// openMarket opens the market screen, on the selling list or the buying one, when the
// knight is on a market and not in a battle. It reports whether it opened.
func (m *Model) openMarket(selling bool) bool {
	if m.marketHere() == nil || m.view.Fight != nil {
		return false
	}
	m.screen, m.mk = screenMarket, marketState{selling: selling}
	return true
}

// closeMarketIfLeft goes back to the play screen when a view finds the knight no longer
// on the market whose screen is open (the party moved on, a battle began elsewhere).
func (m *Model) closeMarketIfLeft() {
	if m.screen == screenMarket && m.marketHere() == nil {
		m.screen = screenPlay
	}
}

// marketList is the list the market's letters work on, which its keys scroll.
func (m *Model) marketList() *pager {
	if m.mk.selling {
		return &m.mk.lists[1]
	}
	return &m.mk.lists[0]
}

// marketKey handles a key on the market screen.
func (m *Model) marketKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	mv := m.marketHere()
	if mv == nil {
		m.screen = screenPlay
		return nil
	}
	switch {
	case s == "esc", closeKey(s):
		m.screen = screenPlay
		return nil
	case s == "tab", s == "shift+tab":
		m.mk.selling = !m.mk.selling
		return nil
	case s == "1", s == "2": // a phone's keyboard has no Tab: 1 buys, 2 sells
		m.mk.selling = s == "2"
		return nil
	}
	p, active := m.marketLayout(mv), 0
	lines := p.wares
	if m.mk.selling {
		lines, active = p.things, 1
	}
	if len(lines) > p.rows && m.mk.lists[active].scrollBy(s, len(lines), p.rows-1) {
		return nil
	}
	i, capital := listIndex(s)
	switch {
	case i < 0, capital:
	case m.mk.selling && i < len(m.view.Self.Items):
		m.do(world.Sell{Index: i})
	case !m.mk.selling && i < len(mv.Wares):
		m.do(world.Buy{Index: i, Item: mv.Wares[i].Item})
	}
	return nil
}

// wareLeft says how many of a ware are left, in four columns.
func wareLeft(w world.Ware) string {
	if w.Count <= 0 {
		return "none"
	}
	return strconv.Itoa(w.Count)
}

// marketPage is the market screen laid out at one size: two columns for the lists, and
// from the bottom the status line, the keys and the newest messages.
type marketPage struct {
	colW, x0, xr  int
	single        bool // one list at a time, the one the letters work on (a phone's screen)
	listTop, rows int  // the lists' first row and how many rows each has
	wares, things []panelLine
	keys, status  []string
	msgs          []panelLine
}

// marketEntry is one entry of a market list: its letter and name (wrapped under its start
// when long) with tail at the end of its last line, colW wide.
func marketEntry(i int, name, tail string, colW int, cls class) []panelLine {
	letter := "   " // past the letters: screen-reader mode's buy and sell reach it by number
	if i < listLetters {
		letter = fmt.Sprintf("%c  ", listLetter(i))
	}
	lines := wrapHang(letter+name, colW-textWidth(tail)-1, 3)
	out := make([]panelLine, len(lines))
	for j, l := range lines {
		out[j] = panelLine{l, cls}
	}
	last := &out[len(out)-1]
	last.text += strings.Repeat(" ", max(1, colW-textWidth(last.text)-textWidth(tail))) + tail
	return out
}

// marketLayout lays out the market screen at the screen's size.
func (m *Model) marketLayout(mv *world.MarketView) marketPage {
	w, h := m.frameSize()
	s := m.view.Self
	p := marketPage{colW: min(56, (w-3)/2), listTop: 3}
	p.x0 = (w - (2*p.colW + 3)) / 2
	p.xr = p.x0 + p.colW + 3
	if w < MinFullWidth { // the lists take the width one at a time, Tab between them
		p.single, p.colW, p.x0, p.xr = true, w-2, 1, 1
	}
	// The list the letters work on is bright, the other faint.
	buyCls, sellCls := clsText, clsDim
	if m.mk.selling {
		buyCls, sellCls = clsDim, clsText
	}
	for i, wr := range mv.Wares {
		cls := buyCls
		if wr.Count <= 0 || wr.Price > s.Gold {
			cls = clsDim
		}
		p.wares = append(p.wares, marketEntry(i, wr.Item.Name(), fmt.Sprintf("%5d %4s", wr.Price, wareLeft(wr)), p.colW, cls)...)
	}
	// The knight's things, with what a market pays for each (world.SellPrice); a thing
	// no market buys is faint.
	for i, it := range s.Items {
		name := it.Name()
		if it.Worn {
			name += " (worn)"
		}
		cls, tail := sellCls, "    -"
		if price, ok := world.SellPrice(it); ok {
			tail = fmt.Sprintf("%5d", price)
		} else {
			cls = clsDim
		}
		p.things = append(p.things, marketEntry(i, name, tail, p.colW, cls)...)
	}
	keys := []string{"a letter buys that ware", "Tab or 2: sell instead", "Esc or q: back"}
	if m.mk.selling {
		keys = []string{"a letter sells that thing", "Tab or 1: buy instead", "Esc or q: back"}
	}
	p.status = statusLines(s, m.statusMark(), w)
	p.keys = packSep(keys, w-p.x0, "   ")
	p.msgs = messageLines(m.view.Log, w-p.x0, msgLines)
	// The lists end above a blank row, the messages, the keys and the status line.
	p.rows = max(2, h-len(p.status)-len(p.keys)-len(p.msgs)-1-p.listTop)
	if len(p.wares) > p.rows || len(p.things) > p.rows {
		p.keys = packSep(append(keys, pageKeysHint+", up and down: more"), w-p.x0, "   ")
		p.rows = max(2, h-len(p.status)-len(p.keys)-len(p.msgs)-1-p.listTop)
	}
	return p
}

// marketMore is the line ending a list too long for its column: where the rest is.
func marketMore(active bool) string {
	if active {
		return "(more: " + pageKeysHint + " pages)"
	}
	return "(more: Tab, then up and down)"
}

// drawMarket draws the market screen: the name and the knight's gold, the wares and the
// knight's things side by side (the list the letters work on is bright, and scrolls when
// it is longer than its column), the last messages, the keys and the status line.
func (m *Model) drawMarket(c *canvas) {
	mv := m.marketHere()
	s := m.view.Self
	if mv == nil {
		c.text(2, 2, "You are no longer at a market. Any key returns.", clsText)
		return
	}
	p := m.marketLayout(mv)
	x0, xr, colW := p.x0, p.xr, p.colW
	title := strings.ToUpper(marketTitle(mv.Name))
	gold := fmt.Sprintf("Your gold: %d", s.Gold)
	full := 2*colW + 3 // the width of the two lists
	if p.single {
		full = colW
	}
	titleLines := wrap(title, full)
	for i, l := range titleLines {
		c.text(x0, i, l, clsTitle)
	}
	goldRow := len(titleLines) - 1
	if textWidth(titleLines[goldRow])+2+textWidth(gold) > full {
		goldRow++ // a name too long to share its row
	}
	c.text(x0+full-textWidth(gold), goldRow, gold, clsTitle)
	if p.single {
		m.drawMarketList(c, p)
		m.drawMarketFoot(c, p)
		return
	}

	listEnd := p.listTop + p.rows
	sepEnd := min(listEnd, p.listTop+max(12, len(p.wares)+1, len(p.things)+1))
	for y := 2; y < sepEnd; y++ {
		c.set(x0+colW+1, y, '│', clsWall)
	}
	buyHeadCls, sellHeadCls := clsTitle, clsDim
	buyHead, sellHead := "FOR SALE: a letter buys", "YOUR THINGS (Tab to sell)"
	if m.mk.selling {
		buyHeadCls, sellHeadCls = clsDim, clsTitle
		buyHead, sellHead = "FOR SALE (Tab to buy)", "YOUR THINGS: a letter sells"
	}
	c.text(x0, 2, buyHead, buyHeadCls) // at most 23 columns: a column is 38 or more
	c.text(x0+colW-9, 2, "gold left", clsDim)
	c.text(xr, 2, sellHead, sellHeadCls)
	c.text(xr+colW-4, 2, "pays", clsDim)

	list := func(x int, lines []panelLine, pg *pager, active bool, none string) {
		if len(lines) == 0 {
			c.text(x, p.listTop, none, clsDim)
			return
		}
		rows := p.rows
		if len(lines) > rows {
			rows-- // the last row says there is more
			c.text(x, p.listTop+rows, marketMore(active), clsDim)
		}
		top := pg.first(len(lines), rows)
		for i := 0; i < rows && top+i < len(lines); i++ {
			c.text(x, p.listTop+i, lines[top+i].text, lines[top+i].cls)
		}
	}
	list(x0, p.wares, &m.mk.lists[0], !m.mk.selling, "Nothing is for sale today.")
	list(xr, p.things, &m.mk.lists[1], m.mk.selling, "You carry nothing to sell.")
	m.drawMarketFoot(c, p)
}

// drawMarketList draws the one list a narrow market screen shows: the one its letters
// work on.
func (m *Model) drawMarketList(c *canvas, p marketPage) {
	head, tail, lines, pg, none := "FOR SALE: a letter buys", "gold left", p.wares, &m.mk.lists[0], "Nothing is for sale today."
	if m.mk.selling {
		head, tail, lines, pg, none = "YOUR THINGS: a letter sells", "pays", p.things, &m.mk.lists[1], "You carry nothing to sell."
	}
	c.text(p.x0, 2, head, clsTitle)
	if textWidth(head)+1+textWidth(tail) <= p.colW {
		c.text(p.x0+p.colW-textWidth(tail), 2, tail, clsDim)
	}
	if len(lines) == 0 {
		c.text(p.x0, p.listTop, none, clsDim)
		return
	}
	rows := p.rows
	if len(lines) > rows {
		rows-- // the last row says there is more
		c.text(p.x0, p.listTop+rows, marketMore(true), clsDim)
	}
	top := pg.first(len(lines), rows)
	for i := 0; i < rows && top+i < len(lines); i++ {
		c.text(p.x0, p.listTop+i, lines[top+i].text, lines[top+i].cls)
	}
}

// drawMarketFoot draws the market screen's messages, keys and status line.
func (m *Model) drawMarketFoot(c *canvas, p marketPage) {
	x0 := p.x0
	y := c.h - len(p.status) - len(p.keys) - len(p.msgs)
	for _, l := range p.msgs {
		c.text(x0, y, l.text, l.cls)
		y++
	}
	for _, l := range p.keys {
		c.text(x0, y, l, clsTitle)
		y++
	}
	for _, l := range p.status {
		c.text(0, y, l, clsTitle)
		y++
	}
}

// marketText lists the market's wares and the knight's things with numbers, for
// screen-reader mode's market command.
func marketText(v world.View) []string {
	if !v.Outside() || v.Surface == nil || v.Surface.Market == nil {
		return []string{"There is no market here: markets are the dollar spaces of the surface. Type map to find one."}
	}
	mv := v.Surface.Market
	title := english.Capital(marketTitle(mv.Name))
	var out []string
	if len(mv.Wares) == 0 {
		out = append(out, title+" has nothing for sale today.")
	} else {
		var ws []string
		for i, w := range mv.Wares {
			left := fmt.Sprintf("%d left", w.Count)
			if w.Count <= 0 {
				left = "sold out"
			}
			ws = append(ws, fmt.Sprintf("%d, %s, %s (%s)", i+1, w.Item.Name(), english.Count(w.Price, "gold piece", "gold pieces"), left))
		}
		out = append(out, fmt.Sprintf("%s sells: %s.", title, strings.Join(ws, "; ")))
	}
	out = append(out, fmt.Sprintf("You have %s.", english.Count(v.Self.Gold, "gold piece", "gold pieces")))
	if len(v.Self.Items) == 0 {
		out = append(out, "You carry nothing to sell.")
	} else {
		var is []string
		for i, it := range v.Self.Items {
			w := fmt.Sprintf("%d, %s", i+1, it.Name())
			if it.Worn {
				w += " (worn)"
			}
			if price, ok := world.SellPrice(it); ok {
				w += ", for " + english.Count(price, "gold piece", "gold pieces")
			} else {
				w += ", which no market buys"
			}
			is = append(is, w)
		}
		out = append(out, "Your things: "+strings.Join(is, "; ")+".")
	}
	return append(out, "Type buy and a number to buy one, sell and a number to sell one of your things.")
}

// plainTrade buys or sells from typed words: buy 2, sell 1 (the numbers market lists);
// sell takes an item's letter or name too, as use does, and buy a ware's name.
func (m *Model) plainTrade(sell bool, args []string) {
	v := m.view
	if !v.Outside() || v.Surface == nil || v.Surface.Market == nil {
		m.say(marketText(v)[0])
		return
	}
	verb, n := "buy", len(v.Surface.Market.Wares)
	if sell {
		verb, n = "sell", len(v.Self.Items)
	}
	if len(args) == 0 {
		m.say(fmt.Sprintf("%s which? Type market for the numbers.", english.Capital(verb)))
		return
	}
	i := -1
	if k, err := strconv.Atoi(args[0]); err == nil {
		if k < 1 || k > n {
			m.say(fmt.Sprintf("There is no number %s to %s. Type market for the numbers.", world.CleanText(args[0], 12), verb))
			return
		}
		i = k - 1
	} else if sell {
		var ok bool
		if i, ok = m.itemArg(args); !ok {
			return
		}
	} else {
		a := strings.ToLower(strings.Join(args, " "))
		for j, w := range v.Surface.Market.Wares {
			if strings.HasPrefix(strings.ToLower(w.Item.Name()), a) {
				i = j
				break
			}
		}
		if i < 0 {
			m.say("The market sells no such thing. Type market for the numbers.")
			return
		}
	}
	if sell {
		m.do(world.Sell{Index: i})
	} else {
		m.do(world.Buy{Index: i, Item: v.Surface.Market.Wares[i].Item})
	}
}
