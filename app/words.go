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

// Screen-reader mode's words: everything a player may type at its prompt, one row a word
// (with the words that mean the same), saying where it is taken (playing, in a battle,
// watching someone) and what it does. Every typed line is looked up here first, and help
// is made from the rows, so that a word and its help cannot part. Adding a word is a row
// and its function.

// plainWhen is a set of the prompts a word is taken at.
type plainWhen uint8

// The prompts, by what the line is typed about.
const (
	atPlay    plainWhen = 1 << iota // the player's own knight, in the game, not fighting
	atBattle                        // the player's own knight in a battle
	atWatch                         // another player's knight, watched
	atStart                         // the way in and out (title, roll, name, tombstone), whose screens take their own lines; help is a word there too
	playing   = atPlay | atBattle
	following = playing | atWatch // wherever a knight is followed: the reading words
	always    = following | atStart
)

// plainTopic is the part of the help a word is told in.
type plainTopic int

const (
	topicWalking plainTopic = iota
	topicLooking
	topicFighting
	topicParties
	topicThings
	topicOutside
	topicTalking
	topicOthers
	numTopics
)

// topicLines begin each topic's line of the help.
var topicLines = [numTopics]string{
	topicWalking:  "Walking:",
	topicLooking:  "Looking:",
	topicFighting: "Fighting:",
	topicParties:  "Parties:",
	topicThings:   "Things:",
	topicOutside:  "Outside, the directions walk the surface, look and map read it, and down at the dungeon entrance goes back in:",
	topicTalking:  "Talking:",
	topicOthers:   "Others:",
}

// plainWord is one word of screen-reader mode, a row of plainWords.
type plainWord struct {
	// words are what may be typed as a line's first word, the first of them the one the
	// help names; prefixes start a line instead ('hello, /w Bors hi, : stats).
	words, prefixes []string
	// usage is how the help shows the word typed ("open DIRECTION"); "" is the first
	// word. The help adds the other words that are not in it.
	usage string
	help  string // what it does, as the help says it after the usage
	topic plainTopic
	when  plainWhen
	// only is a further condition on the line, for a word that another row takes
	// otherwise; nil for none.
	only func(c plainCall) bool
	run  func(m *Model, c plainCall) tea.Cmd // what the word does
}

// plainCall is a typed line as the row that takes it reads it.
type plainCall struct {
	line     string     // the whole line, trimmed
	word     string     // its first word in lower case, or the prefix that starts it
	args     []string   // the words after the first (after the prefix)
	rest     string     // everything after the first word (the prefix), trimmed
	at       plainWhen  // the prompt it is typed at
	v        world.View // the view of the knight the prompt follows: its own, or the watched one
	have     bool       // whether a view has come yet
	question string     // the question the line answers ("retire"), if one was asked
}

// plainWords are the words, by topic. Where two rows have a word, their prompts or their
// only conditions keep them apart: no two rows take the same line (a test checks), so
// their order is only the help's. The words of walking, fighting and things are rows of
// the game's keys (gameKeys), the talking words the chat line's commands'
// (chatCommands); init (app.go) fills the table in, once those are.
var plainWords []plainWord

// plainWordTable is the words' table (plainWords): the keys' words, the words of their
// own, and the chat's.
func plainWordTable() []plainWord {
	var words []plainWord
	for _, k := range gameKeys {
		for _, w := range k.words {
			w.topic = k.topic
			words = append(words, w)
		}
	}
	words = append(words, ownWords()...)
	for _, c := range chatCommands {
		if c.word != nil {
			w := *c.word
			w.topic, w.when = topicTalking, playing
			if w.run == nil {
				w.run = (*Model).wordChat
			}
			words = append(words, w)
		}
	}
	return append(words, plainWord{prefixes: []string{"/"}, usage: "/COMMAND", help: "works as on the chat line (/help lists them)",
		topic: topicTalking, when: playing, run: (*Model).wordSlash})
}

// ownWords are the words that are neither a key's nor a chat command's.
func ownWords() []plainWord {
	return []plainWord{
		{words: []string{"look", "l", "describe"}, help: "says where you are and what you see (in your battle, every combatant too)",
			topic: topicLooking, when: following, run: (*Model).wordLook},
		{words: []string{"status", "st", "score", "stats", "hp"}, help: "reads your knight: characteristics, hits, spells working",
			topic: topicLooking, when: following, only: func(c plainCall) bool { return c.at != atBattle || c.word != "stats" }, // in a battle, its statistics
			run: (*Model).wordStatus},
		{words: []string{"map"}, usage: "map", help: "describes what you have seen; map grid draws it in plain characters",
			topic: topicLooking, when: following, run: (*Model).wordMap},
		{words: []string{"where", "position"}, help: "says your square and the nearest landmarks on your map",
			topic: topicLooking, when: following, run: (*Model).wordWhere},
		{words: []string{"way", "route"}, usage: "way exit", help: "says the way along what you know to the exit (way up, way down, way room 2 too)",
			topic: topicLooking, when: following, run: (*Model).wordWay},
		{words: []string{"messages", "msgs", "msg", "log"}, help: "repeats the last ten messages (messages 30 for more)",
			topic: topicLooking, when: following, run: (*Model).wordMessages},

		{words: []string{"invite"}, usage: "invite NAME", help: "invites a knight into your party",
			topic: topicParties, when: playing, run: (*Model).wordRequest},
		{words: []string{"ask"}, usage: "ask NAME", help: "asks to join theirs", topic: topicParties, when: playing, run: (*Model).wordRequest},
		{words: []string{"accept"}, usage: "accept NAME", help: "answers yes (the name only when several wait)",
			topic: topicParties, when: playing, run: (*Model).wordAnswer},
		{words: []string{"decline", "refuse"}, usage: "decline NAME", help: "answers no",
			topic: topicParties, when: playing, run: (*Model).wordAnswer},
		{words: []string{"party", "members", "group"}, help: "lists the members and what waits for an answer",
			topic: topicParties, when: playing, only: func(c plainCall) bool { return c.word != "party" || c.rest == "" }, run: (*Model).wordParty},
		{words: []string{"leave"}, usage: "leave party", help: "leaves it (leave and a channel's name leaves the channel)", topic: topicParties, when: playing, run: (*Model).wordLeave},
		{words: []string{"disband"}, help: "ends it, if you lead it", topic: topicParties, when: playing, run: (*Model).wordDisband},

		{words: []string{"market", "wares", "shop", "trade"}, help: "lists a market's wares and your things with numbers",
			topic: topicOutside, when: playing, run: (*Model).wordMarket},
		{words: []string{"buy"}, usage: "buy 2", help: "buys the second ware", topic: topicOutside, when: playing, run: (*Model).wordTrade},
		{words: []string{"sell"}, usage: "sell 1", help: "sells your first thing", topic: topicOutside, when: playing, run: (*Model).wordTrade},

		{words: []string{"who"}, help: "lists who is in the game", topic: topicOthers, when: playing, run: (*Model).wordWho},
		{words: []string{"watch"}, usage: "watch NAME", help: "follows another player's game, read-only, until you type stop",
			topic: topicOthers, when: playing, run: (*Model).wordWatch},
		{words: []string{"stop", "q", "quit", "leave", "exit", "unwatch"}, help: "stops watching",
			topic: topicOthers, when: atWatch, run: (*Model).wordStop},
		{words: []string{"fame", "scores", "hall"}, help: "reads the hall of fame", topic: topicOthers, when: playing, run: (*Model).wordFame},
		{words: []string{"retire"}, help: "retires your knight into the hall of fame, outside the dungeon; you are asked first",
			topic: topicOthers, when: playing, run: (*Model).wordRetire},
		{words: []string{"yes", "y"}, help: "answers the question asked", topic: topicOthers, when: playing, run: (*Model).wordYes},
		{words: []string{"options", "set", "option", "settings"}, help: "shows the settings; set and a name and a value changes one (set plain off)",
			topic: topicOthers, when: playing, run: (*Model).wordOptions},
		{prefixes: []string{":"}, usage: ": COMMAND", help: "runs an admin console command, for admins",
			topic: topicOthers, when: playing, run: (*Model).wordConsole},
		{words: []string{"quit", "q", "exit!", "logout", "bye"}, help: "leaves the game; your knight is saved where it stands",
			topic: topicOthers, when: playing, run: (*Model).wordQuit},
		{words: []string{"help", "?"}, usage: "help TOPIC", help: "says a topic; help alone names them, and help all says all this", topic: topicOthers, when: always, run: (*Model).wordHelp},
	}
}

// promptAt is the prompt a line is typed at now.
func (m *Model) promptAt() plainWhen {
	switch {
	case m.screen == screenWatch:
		return atWatch
	case screens[m.screen].typed != nil:
		return atStart
	case m.view.Fight != nil:
		return atBattle
	}
	return atPlay
}

// plainCall reads a typed line at the prompt at.
func (m *Model) plainCall(line string, at plainWhen) plainCall {
	c := plainCall{line: line, at: at, v: m.view, have: m.haveView}
	if at == atWatch {
		c.v, c.have = m.watch.view, m.watch.have
	}
	if f := strings.Fields(line); len(f) > 0 {
		c.word, c.args = strings.ToLower(f[0]), f[1:]
		c.rest = strings.TrimSpace(strings.TrimPrefix(line, f[0]))
	}
	return c
}

// takes reports whether the row takes the line, and gives the line as the row reads it.
func (r *plainWord) takes(c plainCall) (plainCall, bool) {
	if r.when&c.at == 0 {
		return c, false
	}
	ok := slices.Contains(r.words, c.word)
	for _, p := range r.prefixes {
		if !ok && strings.HasPrefix(c.line, p) {
			c.word, c.rest, ok = p, strings.TrimSpace(c.line[len(p):]), true
			c.args = strings.Fields(c.rest)
		}
	}
	return c, ok && (r.only == nil || r.only(c))
}

// find is the row that takes the line, and the line as that row reads it.
func (c plainCall) find() (*plainWord, plainCall, bool) {
	for i := range plainWords {
		if rc, ok := plainWords[i].takes(c); ok {
			return &plainWords[i], rc, true
		}
	}
	return nil, c, false
}

// plainLine runs one typed line: a word of the prompt it is typed at, or else the line
// of the screen (the way in and out, watching); on the screens of the game, which
// screen-reader mode has no page for, it is the game's prompt.
func (m *Model) plainLine(line string) tea.Cmd {
	typed := screens[m.screen].typed
	if typed == nil {
		m.screen = screenPlay // a screen of the game: the line is for the game's prompt
	}
	c := m.plainCall(line, m.promptAt())
	if c.at&playing != 0 && c.word != "" {
		// A question is answered by the next line, whatever it is.
		c.question, m.pl.pending = m.pl.pending, ""
	}
	if r, rc, ok := c.find(); ok {
		return r.run(m, rc)
	}
	if typed != nil {
		return typed(m, line)
	}
	if c.word != "" {
		m.say(fmt.Sprintf("I do not know %q. Type help for the commands.", world.CleanText(strings.Fields(line)[0], 20)))
	}
	return nil
}

// plainHelp is the help of the prompt at (the way in has the game's): a line of how to
// type, then a line a topic, with each word's usage, the words that mean the same, and
// what it does.
func plainHelp(at plainWhen) []string {
	out := []string{"Commands: type a word and press Enter. Arrow keys also walk, and shift with an arrow opens a door."}
	if at == atWatch {
		out = []string{"Commands while you watch: type a word and press Enter."}
	} else {
		at = playing
	}
	for t := range numTopics {
		var said []string
		for _, r := range plainWords {
			if r.topic == t && r.when&at != 0 {
				said = append(said, r.helpSentence())
			}
		}
		if len(said) > 0 {
			out = append(out, topicLines[t]+" "+strings.Join(said, " "))
		}
	}
	return out
}

// helpSentence is the word's sentence in the help: "look (or l, where, describe) says
// where you are and what you see."
func (r plainWord) helpSentence() string {
	usage := r.usage
	if usage == "" {
		usage = r.words[0]
	}
	shown := map[string]bool{}
	for _, w := range strings.FieldsFunc(usage, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' }) {
		shown[w] = true
	}
	var also []string
	for _, w := range r.words {
		if !shown[w] {
			also = append(also, w)
		}
	}
	if len(also) > 0 {
		usage += " (or " + strings.Join(also, ", ") + ")"
	}
	return usage + " " + r.help + "."
}

// watchingWords says which words work while watching, for a line that is none of them.
func watchingWords() string {
	var ws []string
	for _, r := range plainWords {
		if r.topic == topicLooking && r.when&atWatch != 0 {
			ws = append(ws, r.words[0])
		}
	}
	return "You are watching: " + english.List(ws) + " work, and stop stops watching."
}

// watchLine is a line typed while watching that is no word of the prompt's.
func (m *Model) watchLine(line string) tea.Cmd {
	if strings.TrimSpace(line) != "" {
		m.say(watchingWords())
	}
	return nil
}

// plainDirs are the words for directions.
var plainDirs = map[string]world.Dir{
	"n": world.North, "north": world.North, "s": world.South, "south": world.South,
	"e": world.East, "east": world.East, "w": world.West, "west": world.West,
}

// plainDir reads a direction word.
func plainDir(args []string) (world.Dir, bool) {
	if len(args) == 0 {
		return 0, false
	}
	d, ok := plainDirs[strings.ToLower(args[0])]
	return d, ok
}

// sayNote says a note, if there is one.
func (m *Model) sayNote(note string) {
	if note != "" {
		m.say(note)
	}
}

// --- what the words do --------------------------------------------------------------

// A word means one thing wherever it is typed (issue 29): s is south in a battle too,
// where a line typed before the player heard the fight had started once shot an arrow.
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

// walkSquares walks n squares that way, stopping at anything new (walkOn).
func (m *Model) walkSquares(c plainCall, d world.Dir, n int) {
	if c.at == atBattle {
		m.say(walkInBattle)
		return
	}
	if n > 1 && !c.v.Outside() {
		m.pl.walk.dir, m.pl.walk.left, m.pl.walk.walked = d, min(n, maxWalk)-1, 0
	}
	m.walk(world.Move{Dir: d})
}

// walkOn takes a step of a walk of several squares: with nothing new (no message, no
// fight, nothing more in sight, no room or level entered, nothing underfoot) it asks
// for the next square and reports true, the step left unsaid. Else the walk stops here,
// and the player is told how far it went before the step is told.
func (m *Model) walkOn(prev, v world.View, news bool) bool {
	w := &m.pl.walk
	if w.left == 0 && w.walked == 0 {
		return false
	}
	w.walked++
	fresh := false
	for _, t := range inSight(v) {
		fresh = fresh || m.pl.own.seen[t.key] == nil
	}
	room := v.Level != nil && v.Level.RoomAt(v.Self.Pos) >= 0 && (prev.Level == nil || prev.Level.RoomAt(prev.Self.Pos) != v.Level.RoomAt(v.Self.Pos))
	if w.left > 0 && !news && !fresh && !room && v.Fight == nil && v.Self.Depth == prev.Self.Depth && v.Self.Feature == world.FeatNone {
		w.left--
		m.do(world.Move{Dir: w.dir})
		return true
	}
	if w.left > 0 {
		m.say(fmt.Sprintf("You stop after %s %s: something is new.", squares(w.walked), w.dir))
	} else if w.walked > 1 {
		m.say(fmt.Sprintf("You walk %s %s.", squares(w.walked), w.dir))
	}
	w.left, w.walked = 0, 0
	return false
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
		ps.seen.update(c.v, true, m.quietTurns()) // all in sight is told
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
	m.plainTrade(c.word == "sell", c.args) // market.go
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

// wordStop stops watching (and ends a spectator's session).
func (m *Model) wordStop(plainCall) tea.Cmd {
	if m.watch.only {
		return tea.Quit
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
	return nil
}

// fameColumns splits a row of the hall of fame's table: its columns are two spaces
// apart or more, and a name has single spaces at most.
var fameColumns = regexp.MustCompile(`\s{2,}`)

// fameSentences reads the hall of fame's table (RANK NAME LEVEL EXPERIENCE KILLS
// RETIRED) as sentences (issue 29: a table is read cell by cell): "1. Kay, level 3,
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
		o.Plain = false
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

// wordQuit asks whether to leave, as the full screen does (issue 29: quit left without
// the question or the reassurance); quit again, or yes, leaves.
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
		if lines := monsterClassSentences(strings.Join(c.args[1:], " ")); lines != nil {
			m.say(lines...)
		} else {
			m.say(monsterSentences()...)
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
