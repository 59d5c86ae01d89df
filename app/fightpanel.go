package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The battle panel beside the view: the combatants with their hits, whose move it is,
// the battle's log and the keys the knight can use now.

// fightPanelWidth is the width of the encounter panel on a screen w columns wide.
func fightPanelWidth(w int) int { return min(46, w/2) }

// drawFight draws the battle panel over the right side of the view: every monster of the
// battle by letter with its hits (> marks this knight's target), the heroes with theirs,
// the round and whose move it is, the log (newest at the bottom) and the keys. Once the
// battle is over it shows that battle's log until the knight walks on. The combatants
// come first; the log shows the newest entries that fit whole.
func (m *Model) drawFight(c *canvas, top, h int) {
	w := fightPanelWidth(c.w)
	title, lines, _ := m.fightPanelOnce(m.shown(), w, h)
	x := c.w - w
	box(c, x, top, w, h, title)
	for i, l := range lines {
		c.text(x+2, top+1+i, l.text, l.cls)
	}
}

// fightPanelOnce is fightPanel laid out once a frame at a size: a frame asks for the
// panel as it shares out its rows and again as it draws it, and laying out a battle is
// about a hundred allocations. It is asked only while drawPlay draws, which forgets the
// panel before and after.
func (m *Model) fightPanelOnce(v world.View, w, h int) (title string, lines []panelLine, shownLog []string) {
	p := &m.dun.panel
	if !p.ok || p.w != w || p.h != h {
		title, lines, shownLog = m.fightPanel(v, w, h)
		m.dun.panels++
		*p = panelMemo{ok: true, w: w, h: h, title: title, lines: lines, shown: shownLog}
	}
	return p.title, p.lines, p.shown
}

// fightPanel is what the battle panel w columns wide and h rows high shows of v: its
// title, its lines, and the entries of the log among them (the messages under the view
// show the rest).
func (m *Model) fightPanel(v world.View, w, h int) (title string, lines []panelLine, shownLog []string) {
	inner := w - 4
	rows := h - 2
	var foot []panelLine
	var log []string
	if f := v.Fight; f != nil {
		title = fightTitle(f, w-4)
		cls := clsDim
		if f.YourMove {
			cls = clsTitle
		}
		// In a narrow panel (a phone's) the move line says only whose move it is, leaving
		// its rows to the log.
		move := moveLine(f, m.tick())
		move = fit(inner, move, strings.TrimSuffix(move, waitsForYou))
		for _, l := range wrap(move, inner) {
			foot = append(foot, panelLine{l, cls})
		}
		// The combatants take what they need, leaving the log two lines under a rule if
		// they can (sharing lines if they must), else none. The note that there is no
		// running from a room shows only when every combatant has a line of its own with it.
		keys := battleKeys(v)
		note := keys[len(keys)-1] == noRunNote
		keyLines := func(ks []string) []panelLine {
			var out []panelLine
			for _, k := range pack(ks, inner) {
				out = append(out, panelLine{k, clsTitle})
			}
			return out
		}
		// The log keeps a rule and two lines, or as many as its newest entry takes (a
		// narrow panel's).
		logRows := 3
		if n := len(f.Log); n > 0 {
			logRows = 1 + max(2, len(wrap(f.Log[n-1], inner)))
		}
		form := formCut
		if note {
			with := keyLines(keys)
			if lines, form = combatantLines(v, inner, rows-len(foot)-len(with)-logRows); form == formFull {
				foot = append(foot, with...)
			}
			keys = keys[:len(keys)-1]
		}
		if form != formFull {
			foot = append(foot, keyLines(keys)...)
			if lines, form = combatantLines(v, inner, rows-len(foot)-logRows); form == formCut {
				lines, _ = combatantLines(v, inner, rows-len(foot))
			}
		}
		// The rule goes above the log only when the newest entry fits whole under it.
		if n := len(f.Log); len(lines) < rows-len(foot)-1 && (n == 0 || len(wrap(f.Log[n-1], inner)) <= rows-len(foot)-len(lines)-1) {
			lines = append(lines, panelLine{strings.Repeat("╌", inner), clsWall})
		}
		log = f.Log
	} else {
		title = " LAST FIGHT "
		log = v.LastFight
		if m.screen != screenWatch { // a spectator, or a replay's viewer, walks no knight
			for _, l := range wrap("Walk on to close this.", inner) {
				foot = append(foot, panelLine{l, clsTitle})
			}
		}
	}
	logText, from := logShown(log, inner, rows-len(lines)-len(foot))
	for _, l := range logText {
		lines = append(lines, panelLine{l, clsText})
	}
	for len(lines) < rows-len(foot) {
		lines = append(lines, panelLine{})
	}
	lines = append(lines, foot...)
	return title, lines[:min(len(lines), max(0, rows))], log[from:]
}

// fightTitle is the battle box's title in room columns: a fight in the dungeon or a
// battle on the surface, and its round, said shorter in a phone's narrow box rather than
// left out.
func fightTitle(f *world.FightView, room int) string {
	kind, round := "FIGHT", strconv.Itoa(max(1, f.Round))
	if f.Surface {
		kind = "BATTLE"
	}
	// The widest form that fits, as fit would choose among the four, each made only when
	// the one before does not fit: the title is drawn on every frame of a battle. They
	// are ASCII, a column a byte.
	for _, between := range [...]string{", ROUND ", " ROUND ", ", RND "} {
		if 1+len(kind)+len(between)+len(round)+1 <= room {
			return " " + kind + between + round + " "
		}
	}
	return " " + kind + " " + round + " "
}

// panelLine is one line of a panel, with its look.
type panelLine struct {
	text string
	cls  class
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
	var standingEnds []int // where each standing monster's lines end in standingMons
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
		if !mo.Dead {
			standingEnds = append(standingEnds, len(standingMons))
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
	// Cut short: as many standing monsters as fit whole, a name never without its end.
	more := wrap(fit(w, "and more: x shows everyone", "and more: x"), w)
	var out []panelLine
	if n := len(standingMons) + 1 + len(sharedLines); n <= rows-len(more) {
		out = append(append(append(out, standingMons...), rule), sharedLines...)
	} else {
		shown := 0
		for _, end := range standingEnds {
			if end <= rows-len(more) {
				shown = end
			}
		}
		out = append(out, standingMons[:shown]...)
	}
	for _, l := range more {
		out = append(out, panelLine{l, clsDim})
	}
	return out, formCut
}

// logLines are the newest whole lines of a log wrapped to w, in at most rows lines: an
// entry that does not fit whole is left out, with every older one.
func logLines(log []string, w, rows int) []string {
	out, _ := logShown(log, w, rows)
	return out
}

// logShown is logLines, and the first entry of the log they show (len(log) for none).
func logShown(log []string, w, rows int) (out []string, from int) {
	from = len(log)
	for i := len(log) - 1; i >= 0; i-- {
		lines := wrap(log[i], w)
		if len(out)+len(lines) > rows {
			break
		}
		out, from = append(lines, out...), i
	}
	return out, from
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

// moveLine says whose move it is: this knight's (with the grace it has left while it
// holds up other heroes; a knight alone is never hurried), or whose the battle waits for,
// with each one's countdown.
func moveLine(f *world.FightView, tick time.Duration) string {
	if f.YourMove {
		if f.GraceLeft > 0 {
			return "Your move! " + graceBar(f.GraceLeft, f.GraceTurns) + " " + seconds(f.GraceLeft, tick)
		}
		return "Your move." + waitsForYou
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

// waitsForYou ends the move line of a knight the battle waits for however long it takes.
const waitsForYou = " The battle waits for you."

// seconds is a number of turns as the wall time it lasts, rounded up: "12 s".
func seconds(turns int, tick time.Duration) string {
	d := time.Duration(turns) * tick
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + " s"
}
