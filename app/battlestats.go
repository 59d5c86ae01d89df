package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The statistics screen (x in a battle): every combatant's numbers in two tables.

// statsKey is a key on the statistics screen: looking costs nothing, t changes the
// target, f, r and s act (and go back to the battle panel), anything else goes back.
func (m *Model) statsKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch s {
	case "t", "tab", "shift+tab", "T":
		return m.targetKey(keyPress{key: s})
	}
	if m.bt.stats.scrollBy(s, unmeasured, m.bt.stats.shown) { // drawStats stops it at the end
		return nil
	}
	m.do(fightCommand(s)) // f, r and s act from here too; anything else just goes back
	m.screen = screenPlay
	return nil
}

// column is one column of a table: a short and a long heading (the long ones are used
// when the whole table fits with them), its cells, whether it is aligned left, and
// whether its cells may wrap onto more lines (names do; a mark, a number never).
type column struct {
	short, long string
	cells       []string
	left, wraps bool
}

// tableWidths are the widths of a table's columns in w columns, the gap between them and
// whether the long headings are used (see table).
func tableWidths(cols []column, w int) (ws []int, gap int, long bool) {
	gap = 2
	widths := func(long bool) ([]int, int) {
		ws := make([]int, len(cols))
		total := 0
		for i, c := range cols {
			h := c.short
			if long {
				h = c.long
			}
			ws[i] = textWidth(h)
			for _, s := range c.cells {
				ws[i] = max(ws[i], textWidth(s))
			}
			total += ws[i]
		}
		return ws, total + gap*(len(cols)-1)
	}
	ws, total := widths(true)
	long = total <= w
	if !long {
		gap = 1
		ws, total = widths(false)
	}
	// Narrow the names, widest first, each to no less than its longest word or its
	// heading's, so that neither is cut mid-word.
	least := make([]int, len(cols))
	for i, c := range cols {
		least[i] = 1
		for _, s := range append([]string{c.short}, c.cells...) {
			for _, word := range strings.Fields(s) {
				least[i] = max(least[i], textWidth(word))
			}
		}
	}
	for total > w {
		widest := -1
		for i, c := range cols {
			if c.wraps && ws[i] > least[i] && (widest < 0 || ws[i] > ws[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		cut := min(total-w, ws[widest]-least[widest])
		ws[widest] -= cut
		total -= cut
	}
	return ws, gap, long
}

// tableWidth is the width of a table of columns ws wide, gap apart.
func tableWidth(ws []int, gap int) int {
	total := gap * (len(ws) - 1)
	for _, x := range ws {
		total += x
	}
	return total
}

// tableLine is one line of a table and the row it belongs to (-1 for a heading, or the
// blank line between the parts of a stacked table).
type tableLine struct {
	text string
	row  int
}

// table lays out columns in at most w columns: long headings two spaces apart when they
// fit, else short ones one space apart; when even those do not fit, the widest left column
// (the names) is narrowed and its cells wrap onto more lines of their row. The first line
// is the heading.
//
// A table still too wide (a phone's screen) is stacked: its first column and as many
// others as fit, then its first column and the rest, under a blank line.
func table(cols []column, w int) []tableLine {
	ws, gap, long := tableWidths(cols, w)
	if tableWidth(ws, gap) > w && len(cols) > 2 {
		k := len(cols) - 1
		for k > 2 {
			if sws, sgap, _ := tableWidths(cols[:k], w); tableWidth(sws, sgap) <= w {
				break
			}
			k--
		}
		rest := append([]column{cols[0]}, cols[k:]...)
		return append(append(table(cols[:k], w), tableLine{"", -1}), table(rest, w)...)
	}
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c.cells))
	}
	var out []tableLine
	for r := -1; r < rows; r++ {
		cells := make([][]string, len(cols))
		height := 1
		for i, c := range cols {
			s := c.short
			if long {
				s = c.long
			}
			if r >= 0 {
				s = ""
				if r < len(c.cells) {
					s = c.cells[r]
				}
			}
			cells[i] = wrap(s, ws[i])
			height = max(height, len(cells[i]))
		}
		for k := range height {
			var b strings.Builder
			for i, c := range cols {
				s := ""
				if k < len(cells[i]) {
					s = cells[i][k]
				}
				pad := strings.Repeat(" ", max(0, ws[i]-textWidth(s)))
				if i > 0 {
					b.WriteString(strings.Repeat(" ", gap))
				}
				if c.left {
					b.WriteString(s + pad)
				} else {
					b.WriteString(pad + s)
				}
			}
			out = append(out, tableLine{strings.TrimRight(b.String(), " "), r})
		}
	}
	return out
}

// plus is "+2", "+0", "-1".
func plus(n int) string { return fmt.Sprintf("%+d", n) }

// attackText is a monster's attack: its dice, times its attacks a round when more than one.
func attackText(mo world.FightMonster) string {
	s := mo.Attack.String()
	if mo.AttacksPerRound > 1 {
		s += fmt.Sprintf("×%d", mo.AttacksPerRound)
	}
	return s
}

// heroTable is the statistics of the heroes of a battle.
func heroTable(v world.View, w int) []tableLine { return table(heroColumns(v), w) }

// heroColumns are heroTable's columns.
func heroColumns(v world.View) []column {
	f := v.Fight
	cols := []column{
		{short: "Hero", long: "Hero", left: true, wraps: true}, {short: "Lvl", long: "Level"}, {short: "Hits", long: "Hits"},
		{short: "SU", long: "Spell units"}, {short: "Str", long: "Str"}, {short: "Int", long: "Int"},
		{short: "Con", long: "Con"}, {short: "Dex", long: "Dex"}, {short: "Swd", long: "Sword"},
		{short: "Shd", long: "Shield"}, {short: "Arm", long: "Armour"}, {short: "Blows", long: "Blows"},
		{short: "Dodge", long: "Dodge"}, {short: "", long: "", left: true},
	}
	for _, k := range f.Knights {
		name := k.Name
		if k.Name == v.Self.Name {
			name += " (you)"
		}
		state := ""
		if k.Fainted {
			state = "fainted"
		}
		for i, s := range []string{name, fmt.Sprint(k.Level), hitsText(k.Hits, k.MaxHits), fmt.Sprint(k.SpellUnits),
			fmt.Sprint(k.Str), fmt.Sprint(k.Int), fmt.Sprint(k.Con), fmt.Sprint(k.Dex),
			plus(k.Sword), plus(k.Shield), plus(k.Armour), fmt.Sprint(k.Blows), fmt.Sprintf("%d%%", k.Dodge), state} {
			cols[i].cells = append(cols[i].cells, s)
		}
	}
	return cols
}

// monsterTable is the statistics of the monsters of a battle, the target marked.
func monsterTable(f *world.FightView, w int) []tableLine { return table(monsterColumns(f), w) }

// monsterColumns are monsterTable's columns.
func monsterColumns(f *world.FightView) []column {
	cols := []column{
		{short: "", long: "", left: true}, {short: "Monster", long: "Monster", left: true, wraps: true},
		{short: "Class", long: "Class", left: true, wraps: true}, {short: "Lvl", long: "Level"}, {short: "Hits", long: "Hits"},
		{short: "Attack", long: "Attack"}, {short: "To-hit", long: "To-hit die"}, {short: "Spd", long: "Speed"},
		{short: "Dodge", long: "Dodge"}, {short: "Exp", long: "Experience"}, {short: "", long: "", left: true},
	}
	for i, mo := range f.Monsters {
		mark := "  " + monsterLetter(i)
		if i == f.Target && !mo.Dead {
			mark = "> " + monsterLetter(i)
		}
		state := ""
		switch {
		case mo.Dead:
			state = "dead"
		case mo.Held:
			state = "held"
		}
		for j, s := range []string{mark, english.Capital(mo.Name), mo.Class, fmt.Sprint(mo.Level), hitsText(mo.Hits, mo.MaxHits),
			attackText(mo), fmt.Sprintf("d%d", mo.Dex), plus(mo.Speed), fmt.Sprintf("%d%%", mo.Dodge),
			fmt.Sprint(mo.Experience), state} {
			cols[j].cells = append(cols[j].cells, s)
		}
	}
	return cols
}

// drawStats draws the statistics of every combatant of the battle (seed 002: looking
// "will not consume the turn"). It is drawn from each new view, so it stays live.
func (m *Model) drawStats(c *canvas) {
	v := m.view
	f := v.Fight
	w := c.w - 4
	if f == nil {
		c.text(2, 1, "BATTLE STATISTICS", clsTitle)
		c.text(2, 3, "The battle is over.", clsText)
		for i, l := range logLines(v.LastFight, w, c.h-7) {
			c.text(2, 5+i, l, clsDim)
		}
		c.text(2, c.h-1, "Any key returns.", clsTitle)
		return
	}
	title := fmt.Sprintf("BATTLE STATISTICS, ROUND %d", max(1, f.Round))
	c.text(2, 0, title, clsTitle)
	if note := "Looking costs no time."; textWidth(title)+2+textWidth(note) <= w {
		c.text(2+textWidth(title)+2, 0, note, clsDim)
	}
	var body []panelLine
	for _, l := range heroTable(v, w) {
		cls := clsText
		switch {
		case l.row < 0:
			cls = clsTitle
		case f.Knights[l.row].Fainted:
			cls = clsDim
		case f.Knights[l.row].Name == v.Self.Name:
			cls = clsSelf
		}
		body = append(body, panelLine{l.text, cls})
	}
	body = append(body, panelLine{})
	for _, l := range monsterTable(f, w) {
		cls := clsText
		switch {
		case l.row < 0:
			cls = clsTitle
		case f.Monsters[l.row].Dead:
			cls = clsDim
		case l.row == f.Target:
			cls = clsTitle
		}
		body = append(body, panelLine{l.text, cls})
	}
	keys := []string{moveLine(f, m.tick()) + " "}
	if len(standing(f)) > 1 {
		keys = append(keys, "t next target")
	}
	keys = append(keys, "f fight", "Esc returns")
	top, rows := 2, c.h-2 // the body's rows, above the keys
	keyLines := pack(keys, w)
	if len(body) > rows-len(keyLines) {
		// Tables taller than the screen scroll, and the keys say which lines show (the
		// room is reckoned with the widest numbers).
		where := func(first, rows int) string {
			return fmt.Sprintf("lines %d-%d of %d: %s pages, up and down scroll", first+1, min(first+rows, len(body)), len(body), pageKeysHint)
		}
		rows -= len(pack(append(keys, where(len(body), len(body))), w))
		keyLines = pack(append(keys, where(m.bt.stats.first(len(body), rows), rows)), w)
	} else {
		rows -= len(keyLines)
	}
	first := m.bt.stats.first(len(body), rows)
	for i, l := range body[first:min(len(body), first+rows)] {
		c.text(2, top+i, l.text, l.cls)
	}
	for i, l := range keyLines {
		c.text(2, c.h-len(keyLines)+i, l, clsTitle)
	}
	// In the rows the tables leave: what the columns mean, then the newest lines of the
	// log, so the battle is seen going on.
	y := top + len(body) + 1
	foot := []string{
		"Attack: damage dice × attacks a round. To-hit: the die, hitting above 6.",
		"Dodge: the chance to avoid a blow or a spell. > marks your target.",
	}
	if w < 100 {
		foot = append([]string{"SU spell units. Swd Shd Arm: sword, shield and armour plus."}, foot...)
	}
	footLines := wrapAll(foot, w)
	end := top + rows
	if first > 0 || y+len(footLines) > end {
		return
	}
	for i, l := range logLines(f.Log, w, end-len(footLines)-1-y) {
		c.text(2, y+i, l, clsDim)
	}
	for i, l := range footLines {
		c.text(2, end-len(footLines)+i, l, clsDim)
	}
}
