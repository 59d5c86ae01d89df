package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The knight's own pages: the inventory and the spell menus.

// invFoot is the inventory's keys.
const invFoot = "A letter wears, takes off, reads or drinks that item; a capital drops it; other keys return."

// invPage is the inventory laid out at the screen's size.
type invPage struct {
	lines []string // the things, a long one hanging under its start
	msg   []string // the newest message
	keys  []string
	page  int // lines of the list shown at once
}

// inventoryPage lays out the inventory at the screen's size: the list from row 5, then
// the newest message and the keys at the bottom; a list longer than the room scrolls,
// with a line under it saying which part is shown.
func (m *Model) inventoryPage() invPage {
	w, h := m.frameSize()
	var p invPage
	for i, it := range m.view.Self.Items {
		letter := "   " // no letter is left for it: screen-reader mode's use reaches it by name
		if i < listLetters {
			letter = fmt.Sprintf("%c  ", listLetter(i))
		}
		line := letter + it.Name()
		switch info := it.Info(); {
		case info.Wearable && it.Worn:
			line += "  (worn; press to take off)"
		case info.Wearable:
			line += "  (press to wear)"
		case info.Readable:
			line += "  (press to read)"
		case inUseMark(m.view.Self.Items, i) != "":
			line += "  (" + inUseMark(m.view.Self.Items, i) + ")"
		}
		p.lines = append(p.lines, wrapHang(line, w-6, 3)...)
	}
	if m.view.Log.Len() > 0 {
		p.msg = wrap(m.view.Log.Last(), w-4)
	}
	p.keys = wrap(invFoot, w-4)
	p.page = h - 1 - 5 - len(p.msg) - len(p.keys) // a blank row above the foot
	if len(p.lines) > p.page {
		p.keys = wrap(invFoot+" "+pageKeysHint+" pages the list, up and down scroll it.", w-4)
		p.page = h - 1 - 5 - len(p.msg) - len(p.keys) - 1 // and the line saying what is shown
	}
	p.page = max(1, p.page)
	return p
}

func (m *Model) drawInventory(c *canvas) {
	s := m.view.Self
	c.text(2, 1, "INVENTORY", clsTitle)
	c.text(2, 3, fmt.Sprintf("Gold %d   Treasure experience %d", s.Gold, s.TreasureExperience), clsText)
	p := m.inventoryPage()
	m.inv.draw(c, 4, 5, p.lines, p.page, clsText)
	if len(p.lines) > p.page {
		from, to := m.inv.span(len(p.lines), p.page)
		c.text(4, 5+p.page, fmt.Sprintf("(lines %d-%d of %d)", from, to, len(p.lines)), clsDim)
	}
	y := c.h - 1 - len(p.keys) - len(p.msg)
	for _, l := range p.msg {
		c.text(2, y, l, clsDim)
		y++
	}
	for _, l := range p.keys {
		c.text(2, y, l, clsTitle)
		y++
	}
}

// drawSpells draws the menu of one level's spells over the dungeon view, each spell's help
// wrapped under its start.
func (m *Model) drawSpells(c *canvas) {
	m.drawPlay(c)
	v := m.view
	fighting := v.Fight != nil
	spells := world.SpellsOfLevel(m.dun.spellLvl)
	w := min(c.w-2, 120)
	x, y := (c.w-w)/2, 2
	lines := m.spellMenu(spells, fighting, w-2, true)
	if len(lines) >= c.h-y {
		// On a low screen the spells' help goes (the help, ?, has it): every spell's
		// letter stays in view.
		lines = m.spellMenu(spells, fighting, w-2, false)
	}
	// The menu's rows are cleared across the screen when it is nearly as wide, so no
	// word of what is under it shows at its sides.
	x0, x1 := x, x+w
	if w >= c.w-2 {
		x0, x1 = 0, c.w
	}
	for yy := y; yy < y+len(lines)+1; yy++ {
		for xx := x0; xx < x1; xx++ {
			c.set(xx, yy, ' ', clsText)
		}
	}
	for i, l := range lines {
		c.text(x+1, y+i, l.text, l.cls)
	}
}

// spellMenu is the lines of a spell menu w columns wide, each spell's help hanging from
// its name when helped.
func (m *Model) spellMenu(spells []world.SpellID, fighting bool, w int, helped bool) []panelLine {
	v := m.view
	var lines []panelLine
	for _, l := range wrap(fmt.Sprintf("LEVEL %d SPELLS: %s each; you have %d. Cast in: fight, walk or any.", m.dun.spellLvl, english.Count(m.dun.spellLvl, "unit"), v.Self.SpellUnits), w) {
		lines = append(lines, panelLine{l, clsTitle})
	}
	lines = append(lines, panelLine{})
	for i, sp := range spells {
		info := sp.Info()
		when := "walk"
		switch {
		case info.Anytime:
			when = "any"
		case info.Combat:
			when = "fight"
		}
		cls := clsText
		if !sp.CastableIn(fighting) || v.Self.SpellUnits < m.dun.spellLvl {
			cls = clsDim
		}
		head := fmt.Sprintf("%c  %-17s %-6s ", 'a'+i, info.Name, when)
		text := head + info.Help
		if !helped {
			text = head
		}
		for _, l := range wrapHang(text, w, textWidth(head)) {
			lines = append(lines, panelLine{l, cls})
		}
	}
	lines = append(lines, panelLine{})
	foot := "A letter casts that spell; any other key closes this."
	if !helped {
		foot = "A letter casts it; other keys close this (the help, ?, tells what each does)."
	}
	for _, l := range wrap(foot, w) {
		lines = append(lines, panelLine{l, clsTitle})
	}
	return lines
}

// spellsKey is a key on a spell menu: a spell's letter casts it (ESP asks for a direction
// first); any key returns to the game.
func (m *Model) spellsKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	m.screen = screenPlay
	spells := world.SpellsOfLevel(m.dun.spellLvl)
	if len(s) == 1 && s[0] >= 'a' && int(s[0]-'a') < len(spells) {
		sp := spells[s[0]-'a']
		if sp == world.SpellESP {
			m.screen = screenESP // ESP needs a direction to look in
			return nil
		}
		m.do(world.Cast{Spell: sp})
	}
	return nil
}

// espKey is the direction ESP looks in.
func (m *Model) espKey(k tea.KeyPressMsg) tea.Cmd {
	m.screen = screenPlay
	if d, _, ok := keyDir(k.String()); ok {
		m.do(world.Cast{Spell: world.SpellESP, Dir: d})
	}
	return nil
}

// inventoryKey is a key on the inventory: the arrows, space and - scroll a long list, a
// letter uses that item, a capital drops it; any other key returns to the game.
func (m *Model) inventoryKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if p := m.inventoryPage(); len(p.lines) > p.page && m.inv.scrollBy(s, len(p.lines), p.page) {
		return nil
	}
	switch i, capital := listIndex(s); {
	case i < 0:
		m.screen = screenPlay
	case i >= len(m.view.Self.Items):
	case capital:
		m.do(world.Drop{Index: i})
	default:
		m.do(world.UseItem{Index: i})
	}
	return nil
}
