package app

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What each of screen-reader mode's words does: the acts its rows (plainWords) run.

// A word means one thing wherever it is typed: s is south in a battle too, so a line
// typed before the player has heard that a fight started cannot shoot an arrow.
// In a battle a step is not taken; the player is told what it may do.
const walkInBattle = "You are fighting: walking waits until the fight is over. Type fight to strike, run to run, or look to hear the battle."

// maxWalk is the most squares one line walks (west 7).
const maxWalk = 30

// walkCount reads the squares a walk asks for: none is 1.
func walkCount(args []string) (int, bool) {
	if len(args) == 0 {
		return 1, true
	}
	n, err := strconv.Atoi(args[0])
	return n, err == nil && len(args) == 1 && n >= 1
}

func (m *Model) wordWalk(c plainCall) tea.Cmd {
	n, _ := walkCount(c.args)
	m.walkSquares(c, plainDirs[c.word], n)
	return nil
}

// walkSquares walks n squares that way, stopping at anything new (walkOn). A walk of
// several squares does not step onto a known danger: it stops before it, and says that
// the way alone takes the step.
func (m *Model) walkSquares(c plainCall, d world.Dir, n int) {
	if c.at == atBattle {
		m.say(walkInBattle)
		return
	}
	m.pl.endWalk() // a new word ends any walk before it
	if n > 1 && !c.v.Outside() {
		if w := dangerAhead(c.v, c.v.Self.Pos, d); w != "" {
			m.say(w)
			return
		}
		m.pl.walk.dir, m.pl.walk.left = d, min(n, maxWalk)-1
	}
	m.walk(world.Move{Dir: d})
}

// walkOn takes a step of a walk of several squares: with nothing new (no message, no
// fight, nothing more in sight, no room or level entered, nothing underfoot, no side
// way, no known danger ahead) it asks for the next square and reports true, the step
// left unsaid. Else the walk stops here, and the player is told how far it went and
// why before the step is told.
func (m *Model) walkOn(prev, v world.View, news bool) bool {
	w := &m.pl.walk
	if w.left == 0 && w.walked == 0 && !w.explore {
		return false
	}
	if w.explore {
		return m.exploreOn(prev, v, news)
	}
	w.walked++
	why := m.walkNews(prev, v, news)
	var ways []string
	if why == "" && w.left > 0 && v.Level != nil {
		ways = sideWays(v, v.Self.Pos, w.dir)
		if d := dangerAhead(v, v.Self.Pos, w.dir); d != "" {
			ways = append(ways, d)
			ahead := v.Self.Pos.Step(w.dir)
			m.pl.warned = &ahead
		}
	}
	if w.left > 0 && why == "" && len(ways) == 0 {
		w.left--
		m.do(world.Move{Dir: w.dir})
		return true
	}
	switch {
	case w.left > 0 && why != "":
		m.say(fmt.Sprintf("You stop after %s %s: %s.", squares(w.walked), w.dir, why))
	case w.left > 0:
		m.say(fmt.Sprintf("You stop after %s %s.", squares(w.walked), w.dir))
		m.say(ways...)
	case w.walked > 1:
		m.say(fmt.Sprintf("You walk %s %s.", squares(w.walked), w.dir))
	}
	m.pl.endWalk()
	return false
}

// walkNews says why a step of a walk is worth stopping at ("something is new"), or ""
// for a step with nothing new: a message, a fight, something more in sight, a room or a
// level entered, a feature underfoot, treasure the knight's light shows.
func (m *Model) walkNews(prev, v world.View, news bool) string {
	fresh := m.freshInSight(v)
	room := v.Level != nil && v.Level.RoomAt(v.Self.Pos) >= 0 && (prev.Level == nil || prev.Level.RoomAt(prev.Self.Pos) != v.Level.RoomAt(v.Self.Pos))
	if news || fresh || room || v.Fight != nil || v.Self.Depth != prev.Self.Depth || v.Self.Feature != world.FeatNone || newTreasure(prev, v) {
		return "something is new"
	}
	return ""
}

// wordStyle is brief and verbose: how a step is said, kept with the key's options.
func (m *Model) wordStyle(c plainCall) tea.Cmd {
	o := m.opts.Clone()
	o.Verbose = c.word == "verbose"
	if o.Verbose {
		m.say("Done: every step is said in full. Type brief for a few words a step.")
	} else {
		m.say("Done: a step that changes little is said in a few words. Type verbose for every step in full, look for where you are.")
	}
	return m.setOptions(o)
}

// freshInSight reports whether something in sight has not been told.
func (m *Model) freshInSight(v world.View) bool {
	for _, t := range inSight(v) {
		if m.pl.own.seen[t.key] == nil {
			return true
		}
	}
	return false
}

// wordExplore walks towards the nearest unexplored opening on the knight's map, keeping
// off known dangers, and on through it, until something is worth a word (exploreOn).
func (m *Model) wordExplore(c plainCall) tea.Cmd {
	switch {
	case c.at == atBattle:
		m.say(walkInBattle)
		return nil
	case c.v.Outside() || c.v.Level == nil:
		m.say("You are outside the dungeon: type down to climb back in.")
		return nil
	}
	m.pl.endWalk()
	w := &m.pl.walk
	w.explore, w.knownAt = true, slices.Clone(c.v.Known)
	if !m.exploreStep(c.v, true) {
		m.pl.endWalk()
	}
	return nil
}

// exploreStep asks for an explore's next step, towards the nearest unexplored opening,
// and reports true; or says why the explore stops here and reports false. The first
// step of an explore goes through the opening or the door it stands at, the others
// stop there, for the listener to choose.
func (m *Model) exploreStep(v world.View, first bool) bool {
	w := &m.pl.walk
	stop := func(why string) bool {
		if w.walked > 0 {
			why = fmt.Sprintf("You stop after exploring %s: %s", squares(w.walked), why)
		}
		m.say(english.Capital(why))
		return false
	}
	os := nearestOpenings(v, 1)
	if len(os) == 0 {
		return stop("you know no unexplored opening on this level that a known way leads to, keeping off known dangers. " +
			"Type map for what you know, way up or way down for the stairs.")
	}
	o := os[0]
	d, e := o.dir, o.edge
	if len(o.steps) > 0 {
		d, e = o.steps[0].Dir, o.steps[0].Edge
	}
	switch {
	case first:
	case len(o.steps) == 0:
		return stop(openingWord(o.opening) + " leads where you have not been; explore goes through it.")
	case e != world.EdgeOpen:
		return stop(fmt.Sprintf("%s is to the %s on the way; explore goes through it.", edgeWord(seenEdge(v, v.Self.Pos, d)), d))
	}
	w.dir = d
	m.do(world.Move{Dir: d, Door: e != world.EdgeOpen})
	return true
}

// exploreOn takes an explore's next step after one taken, or stops it, saying why: at
// anything a walk stops at (a message, a fight, something in sight, treasure the light
// shows, a level, a feature underfoot), at a room or a junction it had not seen, at a feature it had not seen,
// at an unexplored opening or a door (exploreStep), after maxWalk squares.
func (m *Model) exploreOn(prev, v world.View, news bool) bool {
	w := &m.pl.walk
	w.walked++
	l, p := v.Level, v.Self.Pos
	why := ""
	var ways []string
	switch {
	case news || v.Fight != nil || l == nil || v.Self.Depth != prev.Self.Depth:
		why = "something is new."
	case m.freshInSight(v):
		why = "something comes into sight."
	case newTreasure(prev, v):
		why = "your light shows treasure."
	case v.Self.Feature != world.FeatNone:
		why = "you come to the " + v.Self.Feature.String() + "."
	case l.RoomAt(p) >= 0 && !world.Bit(w.knownAt, p.Y*l.W+p.X):
		why = "you come into a room."
	case newFeature(v, w.knownAt) != "":
		why = "you see " + newFeature(v, w.knownAt) + "."
	case !world.Bit(w.knownAt, p.Y*l.W+p.X) && waysOut(v, p) > 2:
		ways = sideWays(v, p, w.dir) // a junction found is a choice; a bend is none
	}
	if why == "" && len(ways) == 0 && w.walked >= maxWalk {
		why = "explore goes on when you type it again."
	}
	switch {
	case why != "":
		m.say(fmt.Sprintf("You stop after exploring %s: %s", squares(w.walked), why))
	case len(ways) > 0:
		m.say(fmt.Sprintf("You stop after exploring %s.", squares(w.walked)))
		m.say(ways...)
	case m.exploreStep(v, false):
		return true
	}
	m.pl.endWalk()
	return false
}

// newFeature names a feature in the knight's sight that was not on its map in known
// ("the stairs down", "a chute": a level has one of each stairs and many chutes), or "".
func newFeature(v world.View, known []byte) string {
	l := v.Level
	for y := range l.H {
		for x := range l.W {
			q := world.Pos{X: x, Y: y}
			f := l.Feature(q)
			switch {
			case f == world.FeatNone || !visible(v, q) || world.Bit(known, y*l.W+x):
			case f == world.FeatChute || f == world.FeatPit:
				return english.A(f.String())
			default:
				return "the " + f.String()
			}
		}
	}
	return ""
}

// walkBroken ends a walk of several squares that a message broke into without a step
// (a wall or a locked door ahead, a voice): it says how far the walk went, and reports
// whether there was one, so the place it stopped at is told (its steps were not).
func (m *Model) walkBroken() bool {
	w := &m.pl.walk
	if w.left == 0 && w.walked == 0 && !w.explore {
		return false
	}
	switch {
	case w.walked > 0 && w.explore:
		m.say(fmt.Sprintf("You stop after exploring %s.", squares(w.walked)))
	case w.walked > 0:
		m.say(fmt.Sprintf("You stop after %s %s.", squares(w.walked), w.dir))
	}
	m.pl.endWalk()
	return true
}

func (m *Model) wordGo(c plainCall) tea.Cmd {
	if d, ok := plainDir(c.args); ok {
		n, _ := walkCount(c.args[1:])
		m.walkSquares(c, d, n)
	} else {
		m.say("Go which way? north, south, east or west.")
	}
	return nil
}

func (m *Model) wordOpen(c plainCall) tea.Cmd {
	switch d, ok := plainDir(c.args); {
	case ok:
		m.walk(world.Move{Dir: d, Door: true})
	case c.word == "d":
		m.plainClimb(true)
	default:
		m.say("Open which way? For example: open east.")
	}
	return nil
}

func (m *Model) wordDown(plainCall) tea.Cmd {
	m.plainClimb(true)
	return nil
}

func (m *Model) wordUp(plainCall) tea.Cmd {
	m.plainClimb(false)
	return nil
}

// wordLook says where the knight is; in its own battle, every combatant too.
func (m *Model) wordLook(c plainCall) tea.Cmd {
	if c.at == atWatch && !c.have {
		return nil // nothing to see yet
	}
	m.say(m.lookText(c.v, true)...)
	if ps := &m.pl.own; c.at != atWatch && ps.seen != nil {
		ps.seen.update(c.v, true, m.quietTurns(), m.memoryTurns()) // all in sight is told
	}
	if c.at == atBattle && len(c.args) == 0 {
		m.say(statsSentences(c.v)[1:]...)
	}
	return nil
}

func (m *Model) wordStatistics(c plainCall) tea.Cmd {
	m.say(statsSentences(c.v)...)
	return nil
}

func (m *Model) wordStatus(c plainCall) tea.Cmd {
	m.say(statusText(c.v)...)
	return nil
}

func (m *Model) wordDeeds(c plainCall) tea.Cmd {
	m.say(deedsText(c.v)...)
	return nil
}

func (m *Model) wordMap(c plainCall) tea.Cmd {
	if len(c.args) > 0 && strings.EqualFold(c.args[0], "grid") {
		m.say(mapGrid(c.v)...)
	} else {
		m.say(mapText(c.v)...)
	}
	return nil
}

func (m *Model) wordWhere(c plainCall) tea.Cmd {
	if c.v.Outside() || c.v.Level == nil {
		m.say(whereSentences(c.v, false)...)
	} else {
		m.say(whereText(c.v))
	}
	return nil
}

func (m *Model) wordWay(c plainCall) tea.Cmd {
	m.say(wayText(c.v, c.args))
	return nil
}

func (m *Model) wordMessages(c plainCall) tea.Cmd {
	m.sayMessages(c.v, c.line)
	return nil
}

func (m *Model) wordFight(plainCall) tea.Cmd {
	m.do(world.Fight{})
	return nil
}

func (m *Model) wordRun(plainCall) tea.Cmd {
	m.do(world.Run{})
	return nil
}

func (m *Model) wordShoot(plainCall) tea.Cmd {
	m.do(world.Shoot{})
	return nil
}

func (m *Model) wordCast(c plainCall) tea.Cmd {
	m.plainCast(c.args)
	return nil
}

// wordCastLevel is cast without the word: the level first (1 e).
func (m *Model) wordCastLevel(c plainCall) tea.Cmd {
	m.plainCast(append([]string{c.word}, c.args...))
	return nil
}

func (m *Model) wordSpells(c plainCall) tea.Cmd {
	lvl := 0
	if len(c.args) > 0 {
		lvl, _ = strconv.Atoi(c.args[0])
	}
	m.say(spellsText(c.v, max(0, min(lvl, 4)))...)
	return nil
}

func (m *Model) wordTarget(c plainCall) tea.Cmd {
	m.plainTarget(c.rest) // battlewords.go
	return nil
}

// wordRequest invites a knight into the party, or asks to join its party.
func (m *Model) wordRequest(c plainCall) tea.Cmd {
	kind := world.PartyInvite
	if c.word == "ask" {
		kind = world.PartyAsk
	}
	name := partyName(c.rest)
	if name == "" {
		m.say(fmt.Sprintf("%s whom? Type %s and a knight's name.", english.Capital(c.word), c.word))
		return nil
	}
	m.sayNote(m.partyAction(world.PartyAction{Kind: kind, Name: name}))
	return nil
}

// wordAnswer accepts or declines an invitation or an asking.
func (m *Model) wordAnswer(c plainCall) tea.Cmd {
	kind := world.PartyAccept
	if c.word != "accept" {
		kind = world.PartyDecline
	}
	m.sayNote(m.partyAction(world.PartyAction{Kind: kind, Name: partyName(c.rest)}))
	return nil
}

func (m *Model) wordParty(c plainCall) tea.Cmd {
	m.say(partySentences(c.v)...)
	return nil
}

func (m *Model) wordLeave(c plainCall) tea.Cmd {
	if len(c.args) == 1 && world.ChannelNamed(c.args[0]) != nil {
		return m.plainChat("/leave " + c.args[0])
	}
	if len(c.args) == 0 || !strings.EqualFold(c.args[0], "party") {
		m.say("Type leave party to leave your party, leave and a channel's name to leave the channel, or quit to leave the game.")
		return nil
	}
	m.sayNote(m.partyAction(world.PartyAction{Kind: world.PartyLeave}))
	return nil
}

func (m *Model) wordDisband(plainCall) tea.Cmd {
	m.sayNote(m.partyAction(world.PartyAction{Kind: world.PartyDisband}))
	return nil
}

func (m *Model) wordInventory(c plainCall) tea.Cmd {
	m.say(inventoryText(c.v)...)
	return nil
}

func (m *Model) wordUse(c plainCall) tea.Cmd {
	if i, ok := m.itemArg(c.args); ok {
		m.do(world.UseItem{Index: i})
	}
	return nil
}

func (m *Model) wordDrop(c plainCall) tea.Cmd {
	if i, ok := m.itemArg(c.args); ok {
		m.do(world.Drop{Index: i})
	}
	return nil
}

func (m *Model) wordMarket(c plainCall) tea.Cmd {
	m.say(marketText(c.v)...)
	return nil
}

func (m *Model) wordTrade(c plainCall) tea.Cmd {
	m.pl.sold = m.pl.sold || c.word == "sell" // the numbers move once it is sold (renumbered)
	m.plainTrade(c.word == "sell", c.args)    // market.go
	return nil
}

func (m *Model) wordSay(c plainCall) tea.Cmd { return m.plainChat("/say " + c.rest) }

// wordChat runs a talking word as the chat line's command it spells without the slash
// (shout TEXT is /shout TEXT): the chat line's table reads it, and a test checks that
// every such word is one of its commands.
func (m *Model) wordChat(c plainCall) tea.Cmd {
	return m.plainChat("/" + c.word + " " + c.rest)
}

func (m *Model) wordSlash(c plainCall) tea.Cmd { return m.plainChat(c.line) }

func (m *Model) wordConsole(c plainCall) tea.Cmd { return m.plainConsole(c.rest) }

func (m *Model) wordWho(plainCall) tea.Cmd { return m.askWho() }

func (m *Model) wordWatch(c plainCall) tea.Cmd {
	if c.rest == "" {
		m.say("Watch whom? Type who for the list, then watch and a name.")
		return nil
	}
	return m.watchName(c.rest)
}

// wordStop stops watching (and ends a spectator's session); a replay goes back to the
// screen it was asked from.
func (m *Model) wordStop(plainCall) tea.Cmd {
	if m.watch.only {
		return tea.Quit
	}
	if m.watch.replay != nil {
		return m.leaveReplay()
	}
	m.stopWatching("You stop watching.")
	return nil
}

func (m *Model) wordFame(plainCall) tea.Cmd {
	lines := []string{"No knight has retired yet."}
	if m.p.Fame != nil {
		lines = m.p.Fame()
	}
	m.say("The hall of fame:")
	for _, l := range fameSentences(lines) {
		m.say(world.CleanLine(l))
	}
	m.say("The boards of the living: board and a name (" + strings.Join(world.BoardNames(), ", ") + "), and week for this week.")
	return nil
}

// wordBoard says a board of the living (board NAME [week]), or, alone, names the boards.
func (m *Model) wordBoard(c plainCall) tea.Cmd {
	names := strings.Join(world.BoardNames(), ", ")
	if len(c.args) == 0 {
		m.say("The boards of the living: " + names + ". Say board and a name, and week for this week: board slain week.")
		return nil
	}
	b, ok := world.BoardByName(strings.ToLower(c.args[0]))
	week := len(c.args) == 2 && strings.EqualFold(c.args[1], "week")
	switch {
	case !ok:
		m.say(fmt.Sprintf("There is no board %s; the boards are %s.", world.CleanLine(c.args[0]), names))
		return nil
	case len(c.args) > 1 && !week:
		m.say("Say board and a name, and week for this week: board " + world.Boards[b].Name + " week.")
		return nil
	case m.p.Board == nil:
		m.say("The boards cannot be read here.")
		return nil
	}
	page, err := m.p.Board(b, week)
	if err != nil {
		m.say("The board could not be read just now.")
		return nil
	}
	for _, l := range boardSentences(page, week) {
		m.say(l)
	}
	return nil
}

// boardSentences says a board as sentences, its title first: "1. Kay, level 2: 9
// monsters slain (yours)."
func boardSentences(page world.BoardPage, week bool) []string {
	b, _ := world.BoardByName(page.Board)
	bd := world.Boards[b]
	title := bd.Title + ", for all time:"
	if week {
		title = bd.Title + ", this week:"
	}
	out := []string{title}
	if len(page.Rows) == 0 {
		return append(out, "No knight is on it yet.")
	}
	for _, r := range page.Rows {
		s := fmt.Sprintf("%d. %s, level %d: "+bd.Say, r.Rank, world.CleanLine(r.Name), r.Level, r.Value)
		if r.Yours {
			s += " (yours)"
		}
		out = append(out, s+".")
	}
	return out
}

// fameColumns splits a row of the hall of fame's table: its columns are two spaces
// apart or more, and a name has single spaces at most.
var fameColumns = regexp.MustCompile(`\s{2,}`)

// fameSentences reads the hall of fame's table (RANK NAME LEVEL EXPERIENCE KILLS
// RETIRED) as sentences (a screen reader reads a table cell by cell): "1. Kay, level 3,
// 12000 experience, 80% of it from kills, retired 2026-12-01 (yours)." Lines that are
// no such table are said as they are.
func fameSentences(lines []string) []string {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "RANK") {
		return lines
	}
	var out []string
	for _, l := range lines[1:] {
		f := fameColumns.Split(strings.TrimSpace(l), -1)
		if len(f) < 6 {
			out = append(out, l)
			continue
		}
		s := fmt.Sprintf("%s. %s, level %s, %s experience, %s of it from kills, retired %s", f[0], f[1], f[2], f[3], f[4], f[5])
		if len(f) > 6 {
			s += " " + f[6]
		}
		out = append(out, s+".")
	}
	return out
}

// wordRetire asks whether to retire; the next line answers.
func (m *Model) wordRetire(c plainCall) tea.Cmd {
	if !c.v.Outside() {
		m.say("You can retire only outside the dungeon: go up the exit of level 1 first.")
		return nil
	}
	m.pl.pending = "retire"
	m.say("Retire this knight into the hall of fame? Its adventures end. Type yes to retire, anything else to stay.")
	return nil
}

func (m *Model) wordYes(c plainCall) tea.Cmd {
	switch c.question {
	case "retire":
		m.do(world.Retire{})
	case "quit":
		return m.leaveNow()
	case "plain off":
		o := m.opts.Clone()
		o.Plain, o.PlainHere = false, false
		return m.setOptions(o)
	default:
		m.say("There is no question to answer.")
	}
	return nil
}

// leaveNow says goodbye and ends the session; the server saves the knight.
func (m *Model) leaveNow() tea.Cmd {
	if m.p.Guest {
		m.say("Farewell. Your code to keep this knight follows.")
	} else {
		m.say("Your knight is saved where it stands. Farewell.")
	}
	return tea.Quit
}

func (m *Model) wordOptions(c plainCall) tea.Cmd { return m.plainOptions(c.line) }

// wordQuit asks whether to leave, and says the knight is saved, as the full screen does,
// so a stray quit does not end the game unasked; quit again, or yes, leaves.
func (m *Model) wordQuit(c plainCall) tea.Cmd {
	if c.question == "quit" {
		return m.leaveNow()
	}
	m.pl.pending = "quit"
	q := "Leave the game for now? Your knight is saved where it stands."
	if m.p.Guest {
		q = "Leave? A guest is not saved: you get a code to keep this knight."
	}
	m.say(q + " Type yes to leave, anything else to stay.")
	return nil
}

// wordHelp is help: the index of topics (helpIndex), help and a topic, or help all.
// Watching, it is the few words that work there.
func (m *Model) wordHelp(c plainCall) tea.Cmd {
	switch {
	case c.at == atWatch || (len(c.args) == 1 && strings.EqualFold(c.args[0], "all")):
		m.say(plainHelp(c.at)...)
	case len(c.args) == 0:
		m.say(helpIndex())
	case strings.HasPrefix(strings.ToLower(c.args[0]), "monster") && len(c.args) > 1:
		what := strings.Join(c.args[1:], " ")
		if lines := monsterClassSentences(what); lines != nil {
			m.say(lines...)
		} else if lines := oneMonsterSentences(what); lines != nil {
			m.say(lines...)
		} else {
			m.say(fmt.Sprintf("No monster or class is called %q.", world.CleanText(what, 30)))
			m.say(monsterSentences(c.v)...)
		}
	default:
		if lines, ok := topicHelp(c.args[0], c.v); ok {
			m.say(lines...)
		} else {
			m.say(fmt.Sprintf("There is no help on %q. %s", world.CleanText(c.args[0], 20), helpIndex()))
		}
	}
	return nil
}
