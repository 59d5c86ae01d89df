package app

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The help screen: the knight's lesson, the keys, and the monster tables, wrapped once
// for each width and shared by the sessions.

// helpLesson is the help before its keys (keyHelpLines, from gameKeys), and helpRules the
// lesson after them.
var (
	helpLesson = []string{
		"HELP: the knight's lesson",
		"",
		"You are a knight come to a dungeon full of treasure and, unfortunately,",
		"monsters too. Gather experience by fighting, by taking treasure, and now",
		"and then by finding magic.",
		"",
	}
	helpRules = []string{
		"",
		"Rooms hold monsters guarding treasure; stepping in starts a fight. You hit",
		"when a die of as many sides as your Dexterity rolls over 6. Death is final.",
		"Walls and doors lie between squares. Locked doors (═ ║) lead into rooms:",
		"throw yourself at one with shift+direction; Strength decides if it gives.",
		"Secret doors look like walls, but one time in six as a wall with a box (□).",
		"Hidden traps (··) show once known; \\/ is a chute and [] a pit.",
		"Other knights show as the first two letters of their names; you are ().",
		"A party fights together: members on your square share your battles, and",
		"one who falls while another stands faints, and comes to if the party wins.",
		"A whisper, your name said, an invitation or a battle waiting for you rings",
		"the bell when you are on another screen or away from the keys, and marks",
		"the status line (!); /bell all, mentions or off chooses (o too).",
		"",
		"THE MONSTERS (seed 000: \"Eight classes of monsters reside in the dungeon\")",
		"",
	}
)

// helpLines is the whole help: the lesson with the keys, then the monster tables (from
// line helpMonstersAt). It is made by init (app.go), once gameKeys is.
var (
	helpLines      []string
	helpMonstersAt int
)

// makeHelp is the whole help. Lines of prose, which start at the margin, are joined into
// paragraphs, so that each screen wraps them to its own width: a line broken for 80
// columns, wrapped again on a phone, left a word alone on a line ("and / now / and then").
func makeHelp() []string {
	lines := paragraphs(slices.Concat(helpLesson, []string{phoneKeysLine(), ""}, keyHelpLines(), helpRules))
	helpMonstersAt = len(lines)
	lines = append(lines, paragraphs(world.MonsterTableLines())...)
	return slices.Clip(lines)
}

// paragraphs is lines with each run of lines of prose (not indented, not blank) joined
// into one.
func paragraphs(lines []string) []string {
	var out []string
	prose := func(l string) bool { return l != "" && l[0] != ' ' }
	for i, l := range lines {
		if i > 0 && prose(l) && prose(lines[i-1]) && len(out) > 0 {
			out[len(out)-1] += " " + l
			continue
		}
		out = append(out, l)
	}
	return out
}

// helpNarrow is the most columns a screen's help has where its tables take a phone's
// layout: a key's text under its name rather than beside it, and the monster tables
// with short headings, stacked when they are still too wide.
const helpNarrow = 60

// narrowHelp is the help's lines laid out for w columns of a phone's screen.
func narrowHelp(w int) []string {
	var lines []string
	for _, l := range helpLines[:helpMonstersAt] {
		hang := hangOf(l)
		if hang > 0 {
			// "  walk          arrows, or h j k l" becomes "  walk  arrows, or h j k l",
			// its text hanging shortHang columns in.
			lead := len(l) - len(strings.TrimLeft(l, " "))
			if i := strings.Index(l[lead:], "  "); i >= 0 {
				l, hang = l[:lead+i]+"  "+strings.TrimLeft(l[lead+i:], " "), shortHang
			}
		}
		lines = append(lines, wrapHang(l, w, hang)...)
	}
	lines = append(lines, wrap(monsterKey, w)...)
	lines = append(lines, "")
	for c := range world.NumMonsterClasses {
		cols := []column{{short: "Name", long: "Name", left: true, wraps: true}, {short: "Lvl", long: "Lvl"}, {short: "Hit", long: "Hit"},
			{short: "Att", long: "Att"}, {short: "Dex", long: "Dex"}, {short: "Exp", long: "Exp"}, {short: "Spd", long: "Spd"}, {short: "×", long: "×"}}
		for _, k := range world.Monsters {
			if k.Class != c {
				continue
			}
			for i, s := range []string{k.Name, fmt.Sprint(k.Level), k.HitDice.String(), k.AttackDice.String(), fmt.Sprint(k.Dex),
				fmt.Sprint(k.Experience), fmt.Sprintf("%+d", k.Speed), fmt.Sprint(k.AttacksPerRound)} {
				cols[i].cells = append(cols[i].cells, s)
			}
		}
		lines = append(lines, c.String())
		lines = append(lines, indented(table(cols, w-1))...)
		lines = append(lines, "")
	}
	lines = append(lines, wrap(oddsKey, w)...)
	cols := []column{{short: "Lvl", long: "Lvl"}}
	for d := range world.MonsterLevelOdds {
		col := column{short: fmt.Sprintf("D%d", d+1), long: fmt.Sprintf("D%d", d+1)}
		for ml := range len(world.MonsterLevelOdds[d]) {
			if d == 0 {
				cols[0].cells = append(cols[0].cells, fmt.Sprint(ml+1))
			}
			col.cells = append(col.cells, fmt.Sprint(world.MonsterLevelOdds[d][ml]))
		}
		cols = append(cols, col)
	}
	return append(lines, indented(table(cols, w-1))...)
}

// monsterKey and oddsKey say what the narrow monster tables' short headings mean.
const (
	monsterKey = "Lvl: level; Hit and Att: " +
		"the dice of its hits and of its attack; Dex: its to-hit die; Exp: the experience it is worth; Spd: its speed; ×: attacks a round."
	oddsKey = "Where are the monsters? The chance in percent of meeting each monster level (Lvl, down) on each dungeon level " +
		"(D1 to D10, across)."
)

// indented is a table's lines, a column in from the margin.
func indented(t []tableLine) []string {
	out := make([]string, len(t))
	for i, l := range t {
		out[i] = " " + l.text
	}
	return out
}

// helpScreen is what the help screen keeps: where it is scrolled to, and its lines as
// last wrapped, with the width they were wrapped to.
type helpScreen struct {
	pager
	w     int
	lines []string
}

// helpPage is the help at the screen's size: its lines wrapped to the width (a line of
// the key table hangs under its description), and how many show at once.
func (m *Model) helpPage() (lines []string, page int) {
	w, h := m.frameSize()
	if m.help.lines == nil || m.help.w != w { // wrapped once for the width
		m.help.w, m.help.lines = w, helpWrapped.at(w)
	}
	return m.help.lines, max(1, h-3)
}

// helpWrapped is the help wrapped for each width some session has shown it at: the same
// for everyone, and read only, so the sessions share them. It keeps at most
// helpWidthsKept widths, and starts afresh when full (a client resizing through every
// width shuts no one else out).
var helpWrapped = wrappedHelp{byWidth: map[int][]string{}}

const helpWidthsKept = 64

type wrappedHelp struct {
	mu      sync.Mutex
	byWidth map[int][]string
}

// at is the help's lines at width w.
func (wh *wrappedHelp) at(w int) []string {
	wh.mu.Lock()
	lines, ok := wh.byWidth[w]
	wh.mu.Unlock()
	if ok {
		return lines
	}
	if w-4 <= helpNarrow {
		lines = narrowHelp(w - 4)
	} else {
		for _, l := range helpLines {
			lines = append(lines, wrapHang(l, w-4, hangOf(l))...)
		}
	}
	lines = slices.Clip(lines) // an append by a reader never writes into the shared array
	wh.mu.Lock()
	if len(wh.byWidth) >= helpWidthsKept {
		wh.byWidth = map[int][]string{} // the sessions showing the old ones keep them
	}
	wh.byWidth[w] = lines
	wh.mu.Unlock()
	return lines
}

// hangOf is where the wrapped lines of a line of a table start (the help's keys, the
// console's command list): under the text after its label ("  cast          1 2 3 4  ..."
// hangs under the keys), or under its own start.
func hangOf(line string) int {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	if lead == 0 {
		return 0
	}
	if i := strings.Index(line[lead:], "  "); i >= 0 {
		rest := line[lead+i:]
		return lead + i + len(rest) - len(strings.TrimLeft(rest, " "))
	}
	return lead
}

func (m *Model) drawHelp(c *canvas) {
	lines, page := m.helpPage()
	m.help.draw(c, 2, 1, lines, page, clsText)
	from, to := m.help.span(len(lines), page)
	if from == 1 {
		c.text(2, 1, lines[0], clsTitle)
	}
	more := fit(c.w-2, fmt.Sprintf("lines %d-%d of %d: %s pages, arrows scroll; any other key returns", from, to, len(lines), pageKeysHint),
		fmt.Sprintf("lines %d-%d of %d: %s pages, j k scroll; q returns", from, to, len(lines), pageKeysHint),
		fmt.Sprintf("%d-%d of %d: %s page, q returns", from, to, len(lines), pageKeysHint))
	c.text(2, c.h-1, more, clsTitle)
}

// helpKey scrolls the help; any other key returns to the game.
func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	if lines, page := m.helpPage(); !m.help.scrollBy(k.String(), len(lines), page) {
		m.screen = screenPlay
	}
	return nil
}
