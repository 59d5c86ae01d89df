package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Group battles (seeds 000 and 002, DESIGN §6): many heroes against many monsters. The
// battle panel beside the view lists every combatant, the statistics screen (x) shows all
// of their numbers without spending the turn, and t (or Tab) chooses which monster this
// knight's blows, spells and arrows go at. Screen-reader mode says the same in sentences.

// sender is what the game's keys reach the world through: the session's *world.Player,
// or a test's recorder.
type sender interface {
	Do(ctx context.Context, c world.Command) error
	Party(ctx context.Context, a world.PartyAction) error
}

// battle is the group-battle and party state of a session. It is part of the Model.
type battle struct {
	// to, when set, takes the commands instead of the player (tests record them).
	to sender
	// The target last asked for, and the target the view showed when it was asked: until
	// a view shows another target, t goes on from the one asked for, so two quick presses
	// move two monsters along.
	asked, askedFrom int
	asking           bool
	statsBack        screen // where the statistics screen returns to
	statsTop         int    // the first line of the statistics shown, when they scroll
}

// sender is where commands go: the test's recorder, or the knight's player (nil when the
// knight is not in the world).
func (m *Model) sender() sender {
	if m.bt.to != nil {
		return m.bt.to
	}
	if pl := m.player.Load(); pl != nil {
		return pl
	}
	return nil
}

// groupKey handles the keys of battles and parties on the dungeon screen: t, Tab and
// shift+Tab choose the target and x opens the statistics (in a fight), P the party
// screen. handled is false for keys the game should have.
func (m *Model) groupKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	f := m.view.Fight
	switch k.String() {
	case "t", "tab":
		if f != nil {
			m.cycleTarget(1)
			return nil, true
		}
	case "shift+tab", "T":
		if f != nil {
			m.cycleTarget(-1)
			return nil, true
		}
	case "x":
		if f != nil {
			m.screen, m.bt.statsBack, m.bt.statsTop = screenStats, screenPlay, 0
			return nil, true
		}
	case "P":
		m.screen = screenParty
		return nil, true
	}
	return nil, false
}

// statsKey is a key on the statistics screen: looking costs nothing, t changes the
// target, f, r and s act (and go back to the battle panel), anything else goes back.
func (m *Model) statsKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch s {
	case "t", "tab":
		m.cycleTarget(1)
		return nil
	case "shift+tab", "T":
		m.cycleTarget(-1)
		return nil
	case "up", "k":
		m.bt.statsTop = max(0, m.bt.statsTop-1)
		return nil
	case "down", "j":
		m.bt.statsTop++ // drawStats stops it at the end
		return nil
	}
	m.do(fightKeys[s]) // f, r and s act from here too; anything else just goes back
	m.screen = screenPlay
	return nil
}

// standing are the indexes of the monsters of a battle still standing.
func standing(f *world.FightView) []int {
	var out []int
	for i, mo := range f.Monsters {
		if !mo.Dead {
			out = append(out, i)
		}
	}
	return out
}

// nextTarget is the standing monster step places after from (wrapping around), and
// whether it is another monster than from.
func nextTarget(f *world.FightView, from, step int) (int, bool) {
	n := len(f.Monsters)
	if n == 0 {
		return 0, false
	}
	for i := 1; i <= n; i++ {
		j := ((from+step*i)%n + n) % n
		if !f.Monsters[j].Dead {
			return j, j != from
		}
	}
	return 0, false
}

// cycleTarget asks the world to aim this knight at the next (step 1) or the previous
// (step -1) standing monster. Choosing is free: it never costs the turn.
func (m *Model) cycleTarget(step int) {
	f := m.view.Fight
	if f == nil {
		return
	}
	from := f.Target
	if a := m.bt.asked; m.bt.asking && f.Target == m.bt.askedFrom && a >= 0 && a < len(f.Monsters) && !f.Monsters[a].Dead {
		from = a // the world has not shown the last choice yet
	}
	to, ok := nextTarget(f, from, step)
	if !ok {
		if len(standing(f)) == 1 {
			m.chat.note = "Only one monster stands: it is your target."
		}
		return
	}
	m.setTarget(to)
}

// setTarget sends the choice of target.
func (m *Model) setTarget(i int) {
	f := m.view.Fight
	m.bt.asked, m.bt.askedFrom, m.bt.asking = i, f.Target, true
	m.do(world.Target{Index: i})
}

// monsterLetter is the letter a monster of a battle goes by on the screen: a, b, c...
func monsterLetter(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return fmt.Sprint(i + 1)
}

// panelLine is one line of a panel, with its look.
type panelLine struct {
	text string
	cls  class
}

// rightAlign puts right at the end of a w-column line that starts with left. When both do
// not fit on one line, left is wrapped and right ends the line after it (or its last
// line, if it fits there): nothing is cut.
func rightAlign(left, right string, w int) []string {
	end := func(l string) string { return l + strings.Repeat(" ", max(0, w-textWidth(l)-textWidth(right))) + right }
	if textWidth(left)+1+textWidth(right) <= w {
		return []string{end(left)}
	}
	lines := wrap(left, w)
	if last := lines[len(lines)-1]; textWidth(last)+1+textWidth(right) <= w {
		return append(lines[:len(lines)-1], end(last))
	}
	return append(lines, end(""))
}

// hitsText is "12/20".
func hitsText(hits, maxHits int) string { return fmt.Sprintf("%d/%d", hits, maxHits) }

// How the battle panel lists the combatants, from the roomiest: a line for each, the
// fallen monsters counted, the heroes sharing lines, both, and cut short.
const (
	formFull = iota
	formFallenCounted
	formHeroesShared
	formBoth
	formCut
)

// combatantLines are the battle panel's list of monsters and heroes, w columns wide, in
// at most rows lines, and the form they take: when they do not all fit, the fallen
// monsters are counted rather than listed, then the heroes share lines; if even that is
// too long, the list ends with a line saying x shows everyone.
func combatantLines(v world.View, w, rows int) (lines []panelLine, form int) {
	f := v.Fight
	var mons, standingMons, heroes []panelLine
	fallen := 0
	for i, mo := range f.Monsters {
		mark := " "
		if i == f.Target && !mo.Dead {
			mark = ">"
		}
		state, cls := hitsText(mo.Hits, mo.MaxHits), clsText
		switch {
		case mo.Dead:
			state, cls = "dead", clsDim
			fallen++
		case mo.Held:
			state += " held"
		}
		if mark == ">" {
			cls = clsTitle
		}
		for _, l := range rightAlign(fmt.Sprintf("%s %s %s", mark, monsterLetter(i), english.Capital(mo.Name)), state, w) {
			mons = append(mons, panelLine{l, cls})
			if !mo.Dead {
				standingMons = append(standingMons, panelLine{l, cls})
			}
		}
	}
	var shared []string // the heroes in a sentence, for a panel too short for a line each
	for _, k := range f.Knights {
		state, cls := hitsText(k.Hits, k.MaxHits), clsText
		if k.Name == v.Self.Name {
			cls = clsSelf
		}
		if k.Fainted {
			state, cls = "fainted", clsDim
		}
		for _, l := range rightAlign("  "+k.Name, state, w) {
			heroes = append(heroes, panelLine{l, cls})
		}
		shared = append(shared, k.Name+" "+state)
	}
	var sharedLines []panelLine
	for _, l := range wrapHang("  "+strings.Join(shared, ", "), w, 2) {
		sharedLines = append(sharedLines, panelLine{l, clsText})
	}
	if fallen > 0 {
		standingMons = append(standingMons, panelLine{fmt.Sprintf("  and %s fallen", english.Count(fallen, "monster", "monsters")), clsDim})
	}
	rule := panelLine{strings.Repeat("╌", w), clsWall}
	forms := [][2][]panelLine{formFull: {mons, heroes}, formFallenCounted: {standingMons, heroes},
		formHeroesShared: {mons, sharedLines}, formBoth: {standingMons, sharedLines}}
	for form, t := range forms {
		if len(t[0])+1+len(t[1]) <= rows {
			return append(append(append([]panelLine(nil), t[0]...), rule), t[1]...), form
		}
	}
	out := append(append(append([]panelLine(nil), standingMons...), rule), sharedLines...)
	more := wrap("and more: x shows everyone", w)
	out = out[:max(0, rows-len(more))]
	for _, l := range more {
		out = append(out, panelLine{l, clsDim})
	}
	return out, formCut
}

// logLines are the newest whole lines of a log wrapped to w, in at most rows lines: an
// entry that does not fit whole is left out, with every older one.
func logLines(log []string, w, rows int) []string {
	var out []string
	for i := len(log) - 1; i >= 0; i-- {
		lines := wrap(log[i], w)
		if len(out)+len(lines) > rows {
			break
		}
		out = append(lines, out...)
	}
	return out
}

// graceBar is how much of its grace (total turns) a knight has left to choose, as a bar of
// ten cells.
func graceBar(left, total int) string {
	if total <= 0 {
		total = world.DefaultGraceTurns
	}
	n := min(10, (left*10+total-1)/total)
	return strings.Repeat("█", max(0, n)) + strings.Repeat("░", 10-max(0, n))
}

// The actions a fight offers are the ones the knight has (issue 14): the world refuses the
// rest, but a key line should not send a player to a refusal.

// hasArrows reports whether the knight carries an arrow of slaying, to shoot.
func hasArrows(s world.Self) bool {
	for _, it := range s.Items {
		if it.Kind == world.ItemQuiver && it.Count > 0 {
			return true
		}
	}
	return false
}

// fightInRoom reports whether the knight fights in a room, where it may not run (seed
// 000): the battle was met there, or the knight stands in one.
func fightInRoom(v world.View) bool {
	if v.Fight.InRoom {
		return true
	}
	return v.Self.Depth > 0 && v.Level != nil && v.Level.RoomAt(v.Self.Pos) >= 0
}

// allHeld reports whether every monster still standing is charmed, held or asleep: then
// a knight may walk away from them even in a room (the world's rule).
func allHeld(f *world.FightView) bool {
	st := standing(f)
	for _, i := range st {
		if !f.Monsters[i].Held {
			return false
		}
	}
	return len(st) > 0
}

// runWay is how the knight may leave the fight: "run", "leave" (held monsters, in a
// room), or "" when it may not.
func runWay(v world.View) string {
	switch {
	case !fightInRoom(v):
		return "run"
	case allHeld(v.Fight):
		return "leave"
	}
	return ""
}

// battleKeys are the keys of a fight the knight can use now, for the panel's foot.
func battleKeys(v world.View) []string {
	f := v.Fight
	keys := []string{"f fight"}
	if way := runWay(v); way != "" {
		keys = append(keys, "r "+way)
	}
	if hasArrows(v.Self) {
		keys = append(keys, "s shoot")
	}
	keys = append(keys, "1-4 cast", "i items")
	if len(standing(f)) > 1 {
		keys = append(keys, "t target")
	}
	keys = append(keys, "x stats")
	if runWay(v) == "" {
		keys = append(keys, noRunNote)
	}
	return keys
}

// noRunNote ends a room's keys: why r is not among them.
const noRunNote = "(no running from a room)"

// pack lays out items in lines of at most w columns, two spaces apart, never splitting
// one (an item wider than a line is wrapped on lines of its own).
func pack(items []string, w int) []string { return packSep(items, w, "  ") }

// packSep is pack with sep between the items on a line.
func packSep(items []string, w int, sep string) []string {
	var out []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
		case textWidth(cur)+textWidth(sep)+textWidth(it) <= w:
			cur += sep + it
			continue
		default:
			out = append(out, cur)
		}
		lines := wrap(it, w)
		out = append(out, lines[:len(lines)-1]...)
		cur = lines[len(lines)-1]
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// moveLine says whose move it is: this knight's (with the grace it has left while it
// holds up other heroes; a knight alone is never hurried), or whose the battle waits for,
// with each one's countdown.
func moveLine(f *world.FightView, tick time.Duration) string {
	if f.YourMove {
		if f.GraceLeft > 0 {
			return "Your move! " + graceBar(f.GraceLeft, f.GraceTurns) + " " + seconds(f.GraceLeft, tick)
		}
		return "Your move. The battle waits for you."
	}
	if len(standing(f)) == 0 {
		return "The battle is won."
	}
	var waiting []string
	for _, k := range f.Knights {
		switch {
		case k.Choosing && k.GraceLeft > 0:
			waiting = append(waiting, k.Name+" ("+seconds(k.GraceLeft, tick)+")")
		case k.Choosing:
			waiting = append(waiting, k.Name)
		}
	}
	if len(waiting) > 0 {
		return "Waiting for " + strings.Join(waiting, ", ") + "..."
	}
	return "The battle goes on..."
}

// seconds is a number of turns as the wall time it lasts, rounded up: "12 s".
func seconds(turns int, tick time.Duration) string {
	d := time.Duration(turns) * tick
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + " s"
}

// --- the statistics screen ------------------------------------------------------------

// column is one column of a table: a short and a long heading (the long ones are used
// when the whole table fits with them), its cells, and whether it is aligned left.
type column struct {
	short, long string
	cells       []string
	left        bool
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
	if total > w { // narrow the names, to no less than their longest word
		widest := -1
		for i, c := range cols {
			if c.left && (widest < 0 || ws[i] > ws[widest]) {
				widest = i
			}
		}
		if widest >= 0 {
			least := 1
			for _, s := range cols[widest].cells {
				for _, word := range strings.Fields(s) {
					least = max(least, textWidth(word))
				}
			}
			ws[widest] = max(least, ws[widest]-(total-w))
		}
	}
	return ws, gap, long
}

// tableLine is one line of a table and the row it belongs to (-1 for the heading).
type tableLine struct {
	text string
	row  int
}

// table lays out columns in at most w columns: long headings two spaces apart when they
// fit, else short ones one space apart; when even those do not fit, the widest left column
// (the names) is narrowed and its cells wrap onto more lines of their row. The first line
// is the heading.
func table(cols []column, w int) []tableLine {
	ws, gap, long := tableWidths(cols, w)
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
		{short: "Hero", long: "Hero", left: true}, {short: "Lvl", long: "Level"}, {short: "Hits", long: "Hits"},
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
		{short: "", long: "", left: true}, {short: "Monster", long: "Monster", left: true},
		{short: "Class", long: "Class", left: true}, {short: "Lvl", long: "Level"}, {short: "Hits", long: "Hits"},
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
			return fmt.Sprintf("lines %d-%d of %d: up and down scroll", first+1, min(first+rows, len(body)), len(body))
		}
		rows -= len(pack(append(keys, where(len(body), len(body))), w))
		m.bt.statsTop = max(0, min(m.bt.statsTop, len(body)-rows))
		keyLines = pack(append(keys, where(m.bt.statsTop, rows)), w)
	} else {
		rows -= len(keyLines)
	}
	m.bt.statsTop = max(0, min(m.bt.statsTop, len(body)-rows))
	for i, l := range body[m.bt.statsTop:min(len(body), m.bt.statsTop+rows)] {
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
	if m.bt.statsTop > 0 || y+len(footLines) > end {
		return
	}
	for i, l := range logLines(f.Log, w, end-len(footLines)-1-y) {
		c.text(2, y+i, l, clsDim)
	}
	for i, l := range footLines {
		c.text(2, end-len(footLines)+i, l, clsDim)
	}
}

// wrapAll wraps each line to w columns.
func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, wrap(l, w)...)
	}
	return out
}

// --- the battle in words ------------------------------------------------------------

// monsterWords is one monster of a battle in a sentence: "1, a troll (Giant, level 3), 12
// of 20 hits, your target".
func monsterWords(f *world.FightView, i int, full bool) string {
	mo := f.Monsters[i]
	s := fmt.Sprintf("%d, %s", i+1, english.A(mo.Name))
	if full {
		s += fmt.Sprintf(" (%s, level %d)", mo.Class, mo.Level)
	}
	switch {
	case mo.Dead:
		return s + ", dead"
	case mo.Held:
		s += ", held"
	}
	s += fmt.Sprintf(", %d of %d hits", mo.Hits, mo.MaxHits)
	if i == f.Target {
		s += ", your target"
	}
	return s
}

// heroNames are the other heroes of the battle by name, and the fainted ones (this
// knight included, as "you").
func heroNames(v world.View) (others []string, fainted []string) {
	for _, k := range v.Fight.Knights {
		if k.Name == v.Self.Name {
			if k.Fainted {
				fainted = append(fainted, "you")
			}
			continue
		}
		if k.Fainted {
			fainted = append(fainted, k.Name)
			continue
		}
		others = append(others, fmt.Sprintf("%s (%d of %d hits)", k.Name, k.Hits, k.MaxHits))
	}
	return others, fainted
}

// battleSentence says how a battle stands: who fights whom, each monster's hits and
// which is the knight's target, the fallen and fainted.
func battleSentence(v world.View) string {
	f := v.Fight
	if f == nil {
		return ""
	}
	others, fainted := heroNames(v)
	who := "You"
	if len(others) > 0 {
		who = "You and " + english.List(others)
	}
	where := "a battle"
	if f.Surface {
		where = "a battle on the surface"
	}
	var foes, dead []string
	for i, mo := range f.Monsters {
		if mo.Dead {
			dead = append(dead, fmt.Sprintf("%s (%d)", english.The(mo.Name), i+1))
			continue
		}
		foes = append(foes, monsterWords(f, i, true))
	}
	var s string
	if len(foes) == 0 {
		s = fmt.Sprintf("%s, in %s, have no monster left standing.", who, where)
	} else {
		s = fmt.Sprintf("%s are in %s, round %d, against %s: %s.", who, where, max(1, f.Round),
			english.Count(len(foes), "monster", "monsters"), strings.Join(foes, "; "))
	}
	if len(dead) > 0 {
		s += " Fallen: " + english.List(dead) + "."
	}
	if len(fainted) > 0 {
		s += " Fainted: " + english.List(fainted) + "."
	}
	return s + fmt.Sprintf(" You have %d of %d hits.", v.Self.Hits, v.Self.MaxHits)
}

// battlePrompt is what the knight may do when a battle waits for it, with how the
// battle stands: its target, the other monsters, the fainted.
func battlePrompt(v world.View) string { return battleStanding(v) + " " + promptActions(v) + "." }

// battleStanding is the first part of the move prompt: the knight's target and the other
// monsters with their hits, its own hits and the fainted.
func battleStanding(v world.View) string {
	f := v.Fight
	s := "Your move"
	if foe := f.Foe(); foe != nil {
		s += fmt.Sprintf(": your target is %s (%d), %s", english.The(foe.Name), f.Target+1, english.Count(foe.Hits, "hit", "hits"))
		if foe.Held {
			s += ", held"
		}
		var rest []string
		for i, mo := range f.Monsters {
			if i != f.Target && !mo.Dead {
				rest = append(rest, fmt.Sprintf("%s (%d) %s", english.The(mo.Name), i+1, english.Count(mo.Hits, "hit", "hits")))
			}
		}
		if len(rest) > 0 {
			s += "; also " + english.List(rest)
		}
	}
	s += fmt.Sprintf(". You have %d of %d hits.", v.Self.Hits, v.Self.MaxHits)
	if _, fainted := heroNames(v); len(fainted) > 0 {
		s += " Fainted: " + english.List(fainted) + "."
	}
	return s
}

// promptActions is what the move prompt offers: only what the knight can do now.
func promptActions(v world.View) string {
	do := []string{"f to fight"}
	switch runWay(v) {
	case "run":
		do = append(do, "r to run")
	case "leave":
		do = append(do, "r to walk away from the held monsters")
	}
	if hasArrows(v.Self) {
		do = append(do, "shoot")
	}
	do = append(do, "cast")
	s := "Type " + strings.Join(do[:len(do)-1], ", ") + ", or " + do[len(do)-1]
	if len(do) == 2 {
		s = "Type " + do[0] + " or " + do[1]
	}
	if runWay(v) == "" {
		s += "; there is no running from a room"
	}
	if len(standing(v.Fight)) > 1 {
		s += "; target and a number changes your target"
	}
	return s
}

// statsSentences are every combatant's statistics, as sentences.
func statsSentences(v world.View) []string {
	f := v.Fight
	if f == nil {
		return []string{"You are not in a battle."}
	}
	out := []string{fmt.Sprintf("Battle statistics, round %d. Looking costs no time.", max(1, f.Round))}
	for _, k := range f.Knights {
		name := k.Name
		if k.Name == v.Self.Name {
			name += " (you)"
		}
		s := fmt.Sprintf("%s: level %d, %d of %d hits, %s; Strength %d, Intelligence %d, Constitution %d, Dexterity %d; sword %s, shield %s, armour %s; %s a round; dodges %d%%.",
			name, k.Level, k.Hits, k.MaxHits, english.Count(k.SpellUnits, "spell unit", "spell units"), k.Str, k.Int, k.Con, k.Dex,
			plus(k.Sword), plus(k.Shield), plus(k.Armour), english.Count(k.Blows, "blow", "blows"), k.Dodge)
		if k.Fainted {
			s += " Fainted."
		}
		out = append(out, s)
	}
	for i, mo := range f.Monsters {
		s := fmt.Sprintf("Monster %d, %s: %s of level %d, %d of %d hits; attacks %s for %s; to-hit die d%d; speed %s; dodges %d%%; worth %d experience.",
			i+1, english.The(mo.Name), english.A(mo.Class), mo.Level, mo.Hits, mo.MaxHits,
			timesARound(mo.AttacksPerRound), mo.Attack, mo.Dex, plus(mo.Speed), mo.Dodge, mo.Experience)
		switch {
		case mo.Dead:
			s += " Dead."
		case mo.Held:
			s += " Held: it does not fight back."
		}
		if i == f.Target && !mo.Dead {
			s += " Your target."
		}
		out = append(out, s)
	}
	return out
}

// timesARound is "once a round", "twice a round", "3 times a round".
func timesARound(n int) string {
	switch n {
	case 1:
		return "once a round"
	case 2:
		return "twice a round"
	}
	return fmt.Sprintf("%d times a round", n)
}

// targetArg reads the monster a typed target names: its number (1 is the first), its
// letter, or the start of its name (the first standing one that matches).
func targetArg(f *world.FightView, arg string) (int, bool) {
	arg = strings.ToLower(strings.TrimSpace(arg))
	if arg == "" {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(arg, &n); err == nil && fmt.Sprint(n) == arg {
		return n - 1, n >= 1 && n <= len(f.Monsters)
	}
	if len(arg) == 1 && arg[0] >= 'a' && int(arg[0]-'a') < len(f.Monsters) {
		return int(arg[0] - 'a'), true
	}
	arg = strings.TrimPrefix(strings.TrimPrefix(arg, "the "), "a ")
	for _, dead := range []bool{false, true} {
		for i, mo := range f.Monsters {
			if mo.Dead == dead && strings.HasPrefix(strings.ToLower(mo.Name), arg) {
				return i, true
			}
		}
	}
	return 0, false
}

// plainTarget is the typed target command.
func (m *Model) plainTarget(rest string) {
	f := m.view.Fight
	if f == nil {
		m.say("You are not in a battle.")
		return
	}
	if rest == "" {
		to, ok := nextTarget(f, f.Target, 1)
		if !ok {
			m.say("Only one monster stands: it is your target. Type target and a number to choose another when there are more.")
			return
		}
		m.setTarget(to)
		m.say(fmt.Sprintf("Your target is now %s.", monsterWords(f, to, false)))
		return
	}
	i, ok := targetArg(f, rest)
	switch {
	case !ok:
		m.say(fmt.Sprintf("There is no monster %q in this battle. Type stats for the list.", world.CleanText(rest, 30)))
	case f.Monsters[i].Dead:
		m.say(fmt.Sprintf("%s is dead already.", english.Capital(english.The(f.Monsters[i].Name))))
	case i == f.Target:
		m.say(fmt.Sprintf("%s is your target already.", english.Capital(english.The(f.Monsters[i].Name))))
	default:
		m.setTarget(i)
		m.say(fmt.Sprintf("Your target is now %s.", monsterWords(f, i, false)))
	}
}
