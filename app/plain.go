package app

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Screen-reader mode (DESIGN §11): the whole game as an append-only transcript. Nothing
// is drawn and nothing is repainted: each thing the game has to say is printed once, as a
// line of plain sentences, above a one-line prompt on the terminal's normal screen.
// The player types commands (north, look, fight, cast 1 e, say hello) and presses Enter,
// as screen-reader users of MUDs expect; arrow keys walk, shift+arrows open doors.
// Everything the full screen does can be done here. The words, and what each does, are
// the table in words.go; this file has the mode's state, its input line, what it tells
// of the game as views come, and the longer work of some words.

// Screen-reader mode tuning:
//
//	constant          value   effect
//	plainInputLimit   400     characters one typed line may hold
//	plainKeep         400     lines of transcript kept for Text (tests, the log)
//	plainFirst        5       messages told on the first view after joining or watching
//	plainPromptWait   2 s     the longest the prompt waits for a line's answer
const (
	plainInputLimit = 400
	plainKeep       = 400
	plainFirst      = 5
	plainPromptWait = 2 * time.Second
)

// plainState is screen-reader mode's state. It is part of the Model.
type plainState struct {
	active  bool
	line    lineInput // the line being typed
	history lineHistory
	out     []string // lines waiting to be printed (by View)
	// transcript is what has been printed, newest last (the last plainKeep lines).
	transcript []string
	// own and watched are what has been told of the player's own knight and of the knight
	// it watches, kept apart so a stretch of watching does not lose the player's messages.
	own, watched told
	pending      string // a question waiting for its answer ("retire")
	// walk is a walk of several squares (west 7) under way: its way, the squares still
	// to go after the one asked for, and the squares walked. explore says it is an
	// explore, which chooses each step's way itself; knownAt is the knight's map when
	// the explore began, so what it finds is told from what it walks through.
	walk struct {
		dir          world.Dir
		left, walked int
		explore      bool
		knownAt      []byte
	}
	// awaiting says a line entered asked the world (or the server) and its answer has
	// not come: the prompt is written after the answer, not before it, or
	// after plainPromptWait, or at the next key. asked says the line being run asked;
	// awaited counts the lines that did, so a late plainPromptMsg is told from a timely one.
	awaiting, asked bool
	awaited         uint64
	// sold says a sale was asked for: when it is done, the knight's things and the
	// market's wares are numbered anew, and that is said (renumbered).
	sold bool
	// warned is the square of a known danger a walk has just stopped before, saying so:
	// the step's description leaves it out rather than say it twice (warnedOut).
	warned *world.Pos
}

// plainPromptMsg says the answer of the awaited line it counts is late: the prompt is
// written.
type plainPromptMsg uint64

// told is how far the views of one knight have been told: the newest message and fight
// line (the view's counters), so each is told once, and whether it was the knight's move.
type told struct {
	said, fightSeq uint64
	yourMove       bool
	offered        string // the actions the move prompt last said in this battle
	seen           sightings
	graceTold      time.Duration // the last of the grace's marks (30 s, 10 s) said in this move
	waitingFor     string        // the heroes this knight's battle was last said to wait for
	// faintWait is set once a fainted knight has been told whom its battle waits for:
	// it can do nothing until the battle ends, so each round's wait is no news to it.
	faintWait bool
}

// graceMarks are the times left of a battle's grace that screen-reader mode says.
var graceMarks = []time.Duration{30 * time.Second, 10 * time.Second}

// reset clears what belongs to one stretch of the mode (the typed line, lines not yet
// printed, a question); the history and the transcript stay.
func (ps *plainState) reset() {
	ps.out, ps.pending, ps.awaiting = nil, "", false
	ps.line.close()
	ps.own.yourMove, ps.watched.yourMove = false, false
	ps.own.offered, ps.watched.offered = "", ""
}

// endWalk ends a walk or an explore under way.
func (ps *plainState) endWalk() {
	ps.walk.left, ps.walk.walked, ps.walk.explore, ps.walk.knownAt = 0, 0, false, nil
}

// say queues lines to be printed in screen-reader mode (and does nothing otherwise).
func (m *Model) say(lines ...string) {
	if !m.pl.active {
		return
	}
	for _, l := range lines {
		if l == "" {
			continue
		}
		m.pl.out = append(m.pl.out, l)
		m.pl.awaiting = false // the answer, or news: the prompt follows it
		m.pl.transcript = append(m.pl.transcript, l)
	}
	if over := len(m.pl.transcript) - plainKeep; over > 0 {
		m.pl.transcript = m.pl.transcript[over:]
	}
}

// plainPrompt is the prompt before the typed line.
const plainPrompt = "> "

// promptLine is the input line screen-reader mode shows, the cursor at its end (where a
// screen reader looks): the end of a line longer than the terminal, where the typing is.
func (m *Model) promptLine() string { return m.pl.line.lastRunes(m.width) }

// plainText is the transcript and the input line, for tests.
func (m *Model) plainText() string {
	return strings.Join(append(append([]string(nil), m.pl.transcript...), plainPrompt+m.pl.line.value()), "\n")
}

// paste adds pasted text to the typed line.
func (ps *plainState) paste(s string) {
	for _, r := range s {
		ps.typeRune(r)
	}
}

// typeRune types r, if it prints: the line keeps only what a screen reader can say.
func (ps *plainState) typeRune(r rune) {
	if unicode.IsPrint(r) {
		ps.line.push(r)
	}
}

// arrows walk in screen-reader mode; shifted, they open doors.
var plainArrows = map[string]world.Move{
	"up": {Dir: world.North}, "down": {Dir: world.South}, "right": {Dir: world.East}, "left": {Dir: world.West},
	"shift+up": {Dir: world.North, Door: true}, "shift+down": {Dir: world.South, Door: true},
	"shift+right": {Dir: world.East, Door: true}, "shift+left": {Dir: world.West, Door: true},
}

// plainKey handles a key in screen-reader mode: typing and editing the line, Enter to
// run it, arrows to walk (or to recall lines when there is nowhere to walk).
func (m *Model) plainKey(k tea.KeyPressMsg) tea.Cmd {
	ps := &m.pl
	s := k.String()
	if s != "enter" {
		ps.awaiting = false // the player goes on: the prompt is written with the key
	}
	ps.endWalk() // any key stops a walk
	if mv, ok := plainArrows[s]; ok && m.screen == screenPlay && m.haveView && (!m.view.Outside() || m.onSurface()) {
		m.walk(mv)
		return nil
	}
	switch s {
	case "enter":
		return m.plainEnter()
	case "backspace", "ctrl+h":
		ps.line.backspace()
	case "ctrl+u", "esc":
		ps.line.reset()
	case "ctrl+w":
		ps.line.deleteWordBackward()
	case "up", "ctrl+p":
		if line, ok := ps.history.prev(); ok {
			ps.line.set(line)
		}
	case "down", "ctrl+n":
		if line, ok := ps.history.next(); ok {
			ps.line.set(line)
		}
	case "space":
		ps.typeRune(' ')
	default:
		for _, r := range k.Text {
			ps.typeRune(r)
		}
	}
	return nil
}

// plainEnter runs the typed line. The prompt waits for its answer (terminal.plain): a
// line that asked the world or the server and said nothing yet waits for what comes,
// at most plainPromptWait.
func (m *Model) plainEnter() tea.Cmd {
	ps := &m.pl
	line := strings.TrimSpace(ps.line.value())
	ps.line.reset()
	m.say(plainPrompt + line)
	if line != "" {
		ps.history.add(line)
	}
	ps.history.reset()
	ps.asked = false
	cmd := m.plainLine(line)
	if (ps.asked || cmd != nil) && len(ps.out) == 1 && ps.out[0] == plainPrompt+line {
		ps.awaiting = true
		ps.awaited++
		n := ps.awaited
		cmd = tea.Batch(cmd, tea.Tick(plainPromptWait, func(time.Time) tea.Msg { return plainPromptMsg(n) }))
	}
	return cmd
}

// sayWho speaks the who-list.
func (m *Model) sayWho() {
	if m.who.note != "" {
		m.say(m.who.note)
		return
	}
	var ws []string
	for _, e := range m.who.entries {
		where := fmt.Sprintf("level %d knight, depth %d", e.Level, e.Depth)
		if e.Depth == 0 {
			where = fmt.Sprintf("level %d knight, outside", e.Level)
		}
		switch {
		case e.ID == m.p.Fingerprint:
			where += ", you"
		case !e.Watchable:
			where += ", no spectators"
		}
		if idle := m.idleFor(e); idle != "" {
			where += ", " + idle
		}
		if e.Away {
			where += ", " + strings.Trim(awayWords(e), "()")
		}
		ws = append(ws, fmt.Sprintf("%s (%s)", e.Name, where))
	}
	for _, k := range m.who.far {
		ws = append(ws, fmt.Sprintf("%s (level %d knight, in %s)", k.Name, k.Level, k.Realm))
	}
	if len(ws) == 0 {
		m.say("No one is in the game.")
		return
	}
	m.say(fmt.Sprintf("In the game, %d: %s. Type watch and a name to watch someone.", len(ws), strings.Join(ws, "; ")))
}

// sayConsole speaks the output of an admin console line.
func (m *Model) sayConsole(msg consoleResultMsg) {
	text := strings.TrimRight(msg.output, "\n")
	if text == "" {
		m.say(map[bool]string{true: "Done.", false: "Failed."}[msg.ok])
		return
	}
	for _, l := range strings.Split(text, "\n") {
		m.say(world.CleanLine(l))
	}
}

// plainKeys turns the keys world messages name into the words screen-reader mode takes.
var plainKeys = strings.NewReplacer(
	"Press < to", "Type up to",
	"Press > to", "Type down to",
	"; b buys, s sells.", ": type market for its wares.",
	"You are in a fight! f fights, r runs.", "You are in a fight! Type fight, or run.",
	"You are in a fight! f fights; there is no running from a room.", "You are in a fight! Type fight; there is no running from a room.",
	"There are no stairs down here.", "There are no stairs down here: way down says the way to the stairs you know.",
	// Key hints for sighted players, said as the words that do it.
	" (i to wear it)", " (type use and its letter to wear it)",
	" (i to read it)", " (type use and its letter to read it)",
	" (i to drink it)", " (type use and its letter to drink it)",
	"(/mail reads it.)", "(Type mail to read it.)",
	"(/mail reads them.)", "(Type mail to read them.)",
	"The next key you press brings you back.", "The next line you type brings you back.",
	// The channels, as the talking words say them.
	"where questions are welcome: /newbie TEXT asks everyone on it. (/channels lists the channels.)",
	"where questions are welcome: type newbie and your question to ask everyone on it. (Type channels for the list.)",
	"(/channels lists the channels; /NAME TEXT talks on one.)",
	"(Type channels for the list, and a channel's name and your words to talk on it.)",
	"(/c NAME TEXT; /channels lists them.)", "(Type a channel's name and your words; channels lists them.)",
	"/c NAME TEXT or /NAME TEXT", "a channel's name and your words",
)

// plainDoor is the door hint of the world's messages, which names keys: said in plain
// mode as the word and the very direction ("Type open east to open it.").
var plainDoor = regexp.MustCompile(`blocks the way (north|south|east|west)\. Shift\+arrow \(or d, then a direction\) (opens it|tries to break it down)\.`)

// plainSlash is a chat command's slash form in a world message ("(/accept Lis or
// /decline Lis)"): plain mode says the word that does it, without the slash.
var plainSlash = regexp.MustCompile(`(^|[\s(])/([a-z#]+)`)

// slashWord is the word of screen-reader mode that a chat command's slash form is (w is
// whisper, p is party), or "" when there is none.
func slashWord(cmd string) string {
	for _, c := range chatCommands {
		if slices.Contains(c.words, "/"+cmd) && c.word != nil {
			if slices.Contains(c.word.words, cmd) {
				return cmd // ooc is a word as newbie is
			}
			return c.word.words[0]
		}
	}
	for _, r := range plainWords {
		if slices.Contains(r.words, cmd) {
			return cmd
		}
	}
	if world.ChannelNamed(cmd) != nil {
		return cmd
	}
	return ""
}

// plainMessage adapts a world message to typed commands where it names keys or slash
// commands.
func plainMessage(s string) string {
	s = plainKeys.Replace(s)
	s = plainDoor.ReplaceAllStringFunc(s, func(hint string) string {
		m := plainDoor.FindStringSubmatch(hint)
		act := "open it"
		if m[2] != "opens it" {
			act = "try to break it down"
		}
		return fmt.Sprintf("blocks the way %s. Type open %s to %s.", m[1], m[1], act)
	})
	return plainSlash.ReplaceAllStringFunc(s, func(form string) string {
		m := plainSlash.FindStringSubmatch(form)
		if w := slashWord(m[2]); w != "" {
			return m[1] + w
		}
		return form
	})
}

// narrate tells what changed between two views of the knight this session follows (its
// own, or the one it watches): new fight lines and messages, where it now stands after a
// move, what came into sight, whose move it is. first is the first view after joining,
// watching or turning the mode on: it tells the last few messages and a full look.
func (m *Model) narrate(prev, v world.View, first bool) {
	ps := &m.pl.own
	if m.screen == screenWatch {
		ps = &m.pl.watched
	}
	first = first || v.Said < ps.said || v.FightSeq < ps.fightSeq
	if first {
		ps.said = v.Said - min(v.Said, plainFirst)
		ps.fightSeq = v.FightSeq - min(v.FightSeq, 3)
		ps.yourMove = false
	}
	if ps.seen != nil {
		newMsgs := v.Log.AppendLast(nil, min(int(v.Said-ps.said), v.Log.Len()))
		ps.seen.forgetFallen(v, newMsgs) // before anything is said of what went out of sight
	}
	news := m.tellMessages(ps, prev, v, first)
	if ps == &m.pl.own && m.pl.sold && len(v.Self.Items) < len(prev.Self.Items) {
		m.pl.sold = false
		m.say(renumbered(prev, v)...)
	}
	fought := v.FightSeq > ps.fightSeq
	ps.said, ps.fightSeq = v.Said, v.FightSeq
	if v.Dead != nil || v.Retired != nil || m.tellPlace(ps, prev, v, first, news) {
		return
	}
	if f := v.Fight; f != nil && f.YourMove && (!ps.yourMove || fought) {
		acts := promptActions(v)
		m.say(m.movePrompt(v, acts == ps.offered))
		ps.offered = acts
	}
	if v.Fight == nil {
		ps.offered = ""
	}
	m.sayWaits(ps, v)
	ps.yourMove = v.Fight != nil && v.Fight.YourMove
}

// tellMessages tells the view's new messages, and a change of hits or units they
// caused; it reports whether there were any. Fight lines are messages too (the world
// writes them to the message log as they happen), so telling the new messages tells the
// battle in its order.
func (m *Model) tellMessages(ps *told, prev, v world.View, first bool) (news bool) {
	if n := min(int(v.Said-ps.said), v.Log.Len()); n > 0 {
		news = true
		moved := v.Outside() && (prev.Self.Pos != v.Self.Pos || prev.Self.Depth != v.Self.Depth)
		for i := v.Log.Len() - n; i < v.Log.Len(); i++ {
			msg, kind := v.Log.Line(i), v.Log.Kind(i)
			if ps == &m.pl.own && msg == v.Self.Name+" hesitates." {
				msg = "You hesitate: the battle goes on without your move."
			}
			if moved && !first && surfaceArrival(msg) {
				continue // the step's own words say the place, and its word (surface.go)
			}
			if m.hushedLine(kind, msg) {
				continue
			}
			if ps == &m.pl.own {
				m.say(m.alertLine(v.Said-uint64(v.Log.Len()-i)+1, plainMessage(msg)))
				continue
			}
			m.say(plainMessage(msg))
		}
	}
	if !first && v.Fight == nil && prev.Self.Name == v.Self.Name {
		m.say(changeText(prev.Self, v.Self, news)...)
	}
	return news
}

// hushedLine reports whether the options' filters quiet a line of the messages of kind
// kind: another member's party talk (NoPartyChat; the party's invitations and comings
// and goings are said still), and another knight joining or leaving the game
// (NoMovements; a death or a retirement is said still).
func (m *Model) hushedLine(kind world.MsgKind, msg string) bool {
	switch kind {
	case world.MsgParty:
		return m.opts.NoPartyChat && strings.Contains(msg, " (party): ")
	case world.MsgComing:
		return m.opts.NoMovements
	}
	return false
}

// renumbered says, after a sale, that the numbers of the market's list changed with it:
// the knight's things that follow the one sold move up one, and a ware the market did not
// have before goes on its list.
func renumbered(prev, v world.View) []string {
	var out []string
	if len(v.Self.Items) == 0 {
		out = append(out, "You have nothing more to sell.")
	} else {
		var is []string
		for i, it := range v.Self.Items {
			is = append(is, fmt.Sprintf("%d, %s", i+1, it.Name()))
		}
		out = append(out, "Your things are numbered anew: "+strings.Join(is, "; ")+".")
	}
	if p, n := prev.Surface, v.Surface; p != nil && n != nil && p.Market != nil && n.Market != nil && len(n.Market.Wares) != len(p.Market.Wares) {
		out = append(out, "The market's wares are numbered anew too: type market for the list.")
	}
	return out
}

// surfaceArrival reports whether a world message is the line a knight stepping onto a
// market or the dungeon entrance is given ("You are at the entrance of the dungeon
// (EX)."), which screen-reader mode's description of the step says again.
func surfaceArrival(msg string) bool {
	return strings.HasPrefix(msg, "You are at ") && (strings.HasSuffix(msg, "; b buys, s sells.") || strings.HasPrefix(msg, "You are at the entrance of the dungeon"))
}

// tellOwnWhileWatching tells the player's own new messages while it watches another
// knight, each marked as its own, rather than holding them back until the watch stops.
func (m *Model) tellOwnWhileWatching(prev, v world.View) {
	ps := &m.pl.own
	if v.Said < ps.said {
		return // a view older than what was told: narrate catches up after the watch
	}
	if n := min(int(v.Said-ps.said), v.Log.Len()); n > 0 {
		for i, msg := range v.Log.AppendLast(nil, n) {
			m.say("Your own game: " + m.alertLine(v.Said-uint64(n-i)+1, plainMessage(msg)))
		}
	}
	if v.Fight == nil && prev.Self.Name == v.Self.Name {
		for _, l := range changeText(prev.Self, v.Self, false) {
			m.say("Your own game: " + l)
		}
	}
	ps.said, ps.fightSeq = v.Said, v.FightSeq
}

// tellPlace tells where the knight stands and what it sees: all of it on the first view
// and after a step, else what came into sight or went. It reports true for a step of a
// longer walk with nothing new, which is not told (walkOn).
func (m *Model) tellPlace(ps *told, prev, v world.View, first, news bool) (walking bool) {
	if ps.seen == nil {
		ps.seen = sightings{}
	}
	switch {
	case first:
		m.say(m.lookText(v, true)...)
	case v.Self.Depth != prev.Self.Depth || v.Self.Pos != prev.Self.Pos:
		walking = ps == &m.pl.own && m.walkOn(prev, v, news)
		if !walking {
			m.say(m.warnedOut(v, m.stepText(prev, v))...)
		}
	case v.Outside():
		if !m.opts.NoMovements {
			m.say(surfaceComings(prev, v)...) // surface.go
		}
		return false
	case news && ps == &m.pl.own && m.walkBroken():
		m.say(m.lookText(v, false)...)
	default:
		m.say(ps.seen.updateHushed(v, false, m.quietTurns(), m.memoryTurns(), m.hushedSightings)...)
		return false
	}
	ps.seen.update(v, true, m.quietTurns(), m.memoryTurns()) // all in sight has been told
	return walking
}

// warnedOut leaves out of a step's lines the known danger a walk has just stopped
// before (Model.pl.warned): the walk's own line said where it is and how to step onto it.
func (m *Model) warnedOut(v world.View, lines []string) []string {
	q := m.pl.warned
	if m.pl.warned = nil; q == nil || v.Level == nil {
		return lines
	}
	at := rel(v.Self.Pos, *q)
	return slices.DeleteFunc(lines, func(l string) bool {
		return l == featureThere(v.Level.Feature(*q), at) || l == "A known trap: "+at+"."
	})
}

// sayMessages repeats the last messages of a view: ten, or as many as the line asks.
func (m *Model) sayMessages(v world.View, line string) {
	n := 10
	if f := strings.Fields(line); len(f) > 1 {
		if k, err := strconv.Atoi(f[1]); err == nil && k > 0 {
			n = k
		}
	}
	msgs := v.Log.AppendLast(nil, n)
	if len(msgs) == 0 {
		m.say("No messages yet.")
		return
	}
	m.say(fmt.Sprintf("The last %s, oldest first:", english.Count(len(msgs), "message")))
	for _, msg := range msgs {
		m.say(plainMessage(msg))
	}
}

// walk asks for a move, in the dungeon.
func (m *Model) walk(mv world.Move) {
	if m.onSurface() { // the surface's grid has no doors (surface.go)
		m.do(world.Move{Dir: mv.Dir})
		return
	}
	if m.view.Outside() {
		m.say("You are outside the dungeon: type down to climb back in.")
		return
	}
	m.do(mv)
}

// plainClimb takes the stairs (down or up), or goes back down from outside.
func (m *Model) plainClimb(down bool) {
	switch {
	case m.view.Outside() && down:
		m.do(world.Enter{})
	case m.view.Outside():
		m.say("You are already outside the dungeon.")
	default:
		m.do(world.Climb{Down: down})
	}
}

// itemArg reads the letter (or the start of the name) of a carried item.
func (m *Model) itemArg(args []string) (int, bool) {
	items := m.view.Self.Items
	if len(args) == 0 {
		m.say("Which? Type inventory for the letters.")
		return 0, false
	}
	a := strings.ToLower(strings.Join(args, " "))
	if i, _ := listIndex(a); i >= 0 && i < len(items) {
		return i, true
	}
	for i, it := range items {
		if strings.HasPrefix(strings.ToLower(it.Name()), a) {
			return i, true
		}
	}
	m.say("You carry no such thing. Type inventory for the letters.")
	return 0, false
}

// plainCast casts from typed words: a level and a letter (cast 1 e), or a name (cast
// light, cast magic missile); ESP takes a direction last (cast esp north). A level alone
// lists its spells.
func (m *Model) plainCast(args []string) {
	if len(args) == 0 {
		m.say(spellsText(m.view, 0)...)
		return
	}
	var sp world.SpellID
	var dir world.Dir
	dirGiven := false
	takeDir := func(w string) bool {
		d, ok := plainDirs[strings.ToLower(w)]
		if ok {
			dir, dirGiven = d, true
		}
		return ok
	}
	if lvl, err := strconv.Atoi(args[0]); err == nil {
		// cast LEVEL LETTER [DIRECTION]
		spells := world.SpellsOfLevel(lvl)
		if len(spells) == 0 {
			m.say("Spells are of levels 1 to 4.")
			return
		}
		if len(args) < 2 || len(args[1]) != 1 || args[1][0] < 'a' || int(args[1][0]-'a') >= len(spells) {
			m.say(spellsText(m.view, lvl)...)
			return
		}
		sp = spells[args[1][0]-'a']
		if len(args) > 2 {
			takeDir(args[2])
		}
	} else {
		// cast NAME [DIRECTION]
		found := false
		for _, words := range [][]string{args, args[:len(args)-1]} {
			if len(words) == 0 || found {
				continue
			}
			name := strings.ToLower(strings.Join(words, " "))
			for l := 1; l <= 4 && !found; l++ {
				for _, s := range world.SpellsOfLevel(l) {
					if strings.ToLower(s.Info().Name) == name {
						sp, found = s, true
						break
					}
				}
			}
			if found && len(words) < len(args) && !takeDir(args[len(args)-1]) {
				found = false
			}
		}
		if !found {
			m.say(fmt.Sprintf("There is no spell called %q. Type spells for the list.", world.CleanText(strings.Join(args, " "), 30)))
			return
		}
	}
	if sp == world.SpellESP && !dirGiven {
		m.say("ESP looks one way: add the direction, for example cast esp north.")
		return
	}
	m.do(world.Cast{Spell: sp, Dir: dir})
}

// plainChat sends a chat line and says the note, if any.
func (m *Model) plainChat(line string) tea.Cmd {
	note, cmd := m.sendChat(line)
	if note != "" {
		m.say(note)
	}
	return cmd
}

// plainConsole runs an admin console line.
func (m *Model) plainConsole(line string) tea.Cmd {
	if m.p.Admin == nil {
		m.say(consoleForAdmins)
		return nil
	}
	if line == "" {
		m.say("Type : and an admin command, for example : stats.")
		return nil
	}
	run := m.p.Admin
	return func() tea.Msg {
		out, ok := run(line)
		return consoleResultMsg{out, ok}
	}
}

// plainOptions speaks the options, or changes one: set plain off, set theme contrast,
// set colour 16, set keys off, set spectators off.
func (m *Model) plainOptions(line string) tea.Cmd {
	f := strings.Fields(strings.ToLower(line))
	if len(f) < 3 {
		var ws []string
		for _, r := range append(m.optionRows(), m.listeningRows()...) {
			ws = append(ws, r[0]+": "+r[1])
		}
		m.say("Options: "+strings.Join(ws, "; ")+".",
			"To change one, type set and its name and value: set plain off; set theme contrast or plato; set colour auto, truecolor, 256, 16 or none; set keys on or off; set spectators on or off; set replays private or public; set verbose on or off (brief or verbose alone too); set sightings, movements or party on or off; set bell all, mentions or off. mute NAME and unmute NAME filter chat.")
		return nil
	}
	o, done := m.opts.Clone(), "Done."
	on := f[2] == "on" || f[2] == "yes" || f[2] == "true"
	switch f[1] {
	case "plain", "reader", "screenreader", "screen-reader":
		if !on {
			// Asked first, with the way back: once off, the game draws boxes and speaks
			// no more, so the player hears how to return before it does.
			m.pl.pending = "plain off"
			m.say("Turn screen-reader mode off? The game then draws its screen, with boxes and a map, instead of speaking lines. " +
				"To come back, press o for the options and then a, or connect with play --plain. Type yes to turn it off, anything else to keep it.")
			return nil
		}
		o.Plain, done = true, "Done: every connection of your key starts in screen-reader mode."
	case "theme":
		if f[2] == "contrast" || f[2] == "high" {
			o.Theme = themeContrast
		} else {
			o.Theme = themePlato
		}
	case "colour", "color", "colours", "colors":
		o.Colour = ""
		for _, c := range colourChoices {
			if c.key == f[2] {
				o.Colour = c.key
			}
		}
	case "keys":
		o.HideKeys = !on
	case "spectators", "watching", "watchers":
		o.NoSpectators = !on
	case "replays", "replay":
		o.PrivateReplays = f[2] == "private" || f[2] == "off" || f[2] == "no"
	case "verbose":
		o.Verbose = on
	case "brief":
		o.Verbose = !on
	case "sightings", "sighting", "monsters":
		o.NoSightings = !on
	case "movements", "movement", "moves", "others":
		o.NoMovements = !on
	case "party", "chatter":
		o.NoPartyChat = !on
	case "bell", "alerts":
		m.say(m.setBell(f[2]))
		return nil
	default:
		m.say(fmt.Sprintf("There is no option %q. Type options for the list.", world.CleanText(f[1], 20)))
		return nil
	}
	m.say(done)
	return m.setOptions(o)
}

// sayWaits tells the waiting of a battle of several heroes, which would otherwise be
// silence between "joins the fight" and the result: the grace left to choose, at 30 s
// and at 10 s, and, once the knight has chosen, which heroes the battle waits for; a
// fainted knight hears that once, not at every round it cannot act in.
func (m *Model) sayWaits(ps *told, v world.View) {
	f := v.Fight
	if f == nil || !f.YourMove || !ps.yourMove {
		ps.graceTold = 0
	}
	if f == nil {
		ps.waitingFor, ps.faintWait = "", false
		return
	}
	if f.YourMove && f.GraceLeft > 0 {
		left := time.Duration(f.GraceLeft) * m.tick()
		for _, mark := range graceMarks {
			if left <= mark && (ps.graceTold == 0 || ps.graceTold > mark) {
				if ps.yourMove { // the prompt of this move said the whole time
					m.say(fmt.Sprintf("%d seconds left to choose your move.", int((left+time.Second-1)/time.Second)))
				}
				ps.graceTold = mark
			}
		}
	}
	var waiting []string
	for _, k := range f.Knights {
		if k.Choosing && k.Name != v.Self.Name {
			waiting = append(waiting, k.Name)
		}
	}
	w := english.List(waiting)
	if f.YourMove {
		w = "" // the others wait with it: once it has chosen, whom it waits for is news
	}
	fainted := slices.ContainsFunc(f.Knights, func(k world.FightKnight) bool { return k.Name == v.Self.Name && k.Fainted })
	if !fainted {
		ps.faintWait = false
	}
	if w != "" && w != ps.waitingFor && !(fainted && ps.faintWait) {
		m.say("The battle waits for " + w + ".")
		ps.faintWait = fainted
	}
	ps.waitingFor = w
}

// changeText says a change of hits or spell units outside a fight, after the lines that
// caused it (else a spear trap takes 3 hits without a word): a loss always, a gain
// when a line came with it (slow healing is not told at every point).
func changeText(was, now world.Self, news bool) []string {
	var out []string
	switch d := now.Hits - was.Hits; {
	case d < 0:
		out = append(out, fmt.Sprintf("You lose %s: %d of %d left.", english.Count(-d, "hit"), now.Hits, now.MaxHits))
	case d > 0 && news:
		out = append(out, fmt.Sprintf("You gain %s: %d of %d.", english.Count(d, "hit"), now.Hits, now.MaxHits))
	}
	switch d := now.SpellUnits - was.SpellUnits; {
	case d < 0:
		out = append(out, fmt.Sprintf("You spend %s: %d left.", english.Count(-d, "spell unit"), now.SpellUnits))
	case d > 0:
		out = append(out, fmt.Sprintf("You gain %s: %d now.", english.Count(d, "spell unit"), now.SpellUnits))
	}
	return out
}

// PlainMsg turns screen-reader mode on or off for this connection, as the play page's
// switch asks: on as play --plain starts it (for this connection only), off as plain off
// (for the key's next connections too).
type PlainMsg bool

// plainAsked turns screen-reader mode on or off as a PlainMsg asks.
func (m *Model) plainAsked(on bool) tea.Cmd {
	o := m.opts.Clone()
	if on {
		o.PlainHere = true
	} else {
		o.Plain, o.PlainHere = false, false
	}
	return m.setOptions(o)
}

// plainWidth is the width screen-reader mode's lines are broken at: the terminal's, or
// 0 (never) for a log that wraps them itself (Params.PlainUnbroken).
func (m *Model) plainWidth() int {
	if m.p.PlainUnbroken {
		return 0
	}
	return m.width
}
