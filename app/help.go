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

var helpText = []string{
	"HELP: the knight's lesson",
	"",
	"You are a knight come to a dungeon full of treasure and, unfortunately,",
	"monsters too. Gather experience by fighting, by taking treasure, and now",
	"and then by finding magic.",
	"",
	"  walk          arrows, or h j k l",
	"  open a door   shift+arrow, H J K L, or d then a direction",
	"  stairs        > goes down, < goes up",
	"  leave         < on the exit (EX) of level 1",
	"  fight         f          run   r (not in rooms)   shoot   s (with arrows)",
	"  in a battle   t or Tab   the next monster to strike at   x  everyone's",
	"                statistics (looking costs no time); i drinks a potion",
	"  cast          1 2 3 4    (a spell of that level, costing that many units)",
	"  inventory     i          (wear or take off boots and rings, read manuals)",
	"  hall of fame  F          retire   R (outside; > goes back down)",
	"  outside       arrows walk the surface; on a market ($) b buys, s sells;",
	"                > goes down at the dungeon entrance (EX)",
	"  map           m          quit   q (your knight is saved where it stands)",
	"  chat          Enter or ' opens the chat line: plain text says to those",
	"                who see you, /me TEXT acts, /shout TEXT all, /w NAME TEXT",
	"                whispers, /r TEXT replies; /help lists the rest",
	"  channels      /newbie TEXT asks newcomers' questions, /ooc TEXT talks of",
	"                anything; /join NAME, /leave NAME, /channels",
	"  letters       e          your letters; /mail NAME TEXT writes to any",
	"                           knight, online or not",
	"  away          /afk [REASON] until your next key; /report NAME REASON",
	"                           tells the admins about a knight",
	"  party         P          the party; /invite NAME, /ask NAME, /accept,",
	"                /decline, /leave, /disband, /p TEXT talks to the party",
	"  messages      M          the message and chat log, to scroll back",
	"  who           w          who is in the game; a letter watches them",
	"  options       o          screen-reader mode, theme, colours, spectators,",
	"                           muted players; the title's y asks for the",
	"                           screen-reader mode (ssh -t host play --plain)",
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
	"",
	"THE MONSTERS (seed 000: \"Eight classes of monsters reside in the dungeon\")",
	"",
}

// helpLines is the whole help: the lesson, then the monster tables.
var helpLines = append(append([]string(nil), helpText...), world.MonsterTableLines()...)

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
	for _, l := range helpLines {
		lines = append(lines, wrapHang(l, w-4, hangOf(l))...)
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

// scrollHelp moves the help by a key and reports whether the key was a scrolling one.
func (m *Model) scrollHelp(key string) bool {
	lines, page := m.helpPage()
	if k, ok := letterScroll[key]; ok {
		key = k
	}
	return scrollKey(key, &m.helpTop, len(lines), page)
}

func (m *Model) drawHelp(c *canvas) {
	lines, page := m.helpPage()
	m.helpTop = max(0, min(m.helpTop, len(lines)-page))
	for i := 0; i < page && m.helpTop+i < len(lines); i++ {
		cls := clsText
		if m.helpTop+i == 0 {
			cls = clsTitle
		}
		c.text(2, 1+i, lines[m.helpTop+i], cls)
	}
	more := fmt.Sprintf("lines %d-%d of %d: arrows, space and b scroll; any other key returns",
		m.helpTop+1, min(m.helpTop+page, len(lines)), len(lines))
	c.text(2, c.h-1, more, clsTitle) // at most 72 columns
}

// helpKey scrolls the help; any other key returns to the game.
func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	if !m.scrollHelp(k.String()) {
		m.screen = screenPlay
	}
	return nil
}
