package app

import (
	"fmt"
	"slices"
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
	return append(words, plainWord{prefixes: []string{"/"}, usage: "/COMMAND", help: "works as on the drawn screen's chat line; each has its word here too",
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
		{words: []string{"way", "route"}, usage: "way exit", help: "says the way along what you know to the exit (way up, way down, way room 2 too; way on to the nearest unexplored opening)",
			topic: topicLooking, when: following, run: (*Model).wordWay},
		{words: []string{"explore"}, help: "walks to the nearest opening you have not been through and on, stopping at anything new, a junction, a door or a known danger, and says why",
			topic: topicWalking, when: playing, run: (*Model).wordExplore},
		{words: []string{"brief"}, help: "says a step that changes little in a few words (the default)",
			topic: topicLooking, when: playing, only: func(c plainCall) bool { return c.rest == "" }, run: (*Model).wordStyle},
		{words: []string{"verbose"}, help: "says every step in full", topic: topicLooking, when: playing,
			only: func(c plainCall) bool { return c.rest == "" }, run: (*Model).wordStyle},
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
		{words: []string{"board", "boards"}, usage: "board NAME [week]", help: "reads a board of the living (board alone names them), for all time or this week",
			topic: topicOthers, when: playing, run: (*Model).wordBoard},
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
		c.v, c.have = world.View{}, m.watch.seen != nil
		if c.have {
			c.v = *m.watch.seen
		}
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
	if m.watch.replay != nil {
		if cmd, ok := m.replayWord(line); ok {
			return cmd
		}
	}
	if strings.TrimSpace(line) != "" {
		m.say(watchingWords())
		if m.watch.replay != nil {
			m.say(replayWords())
		}
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
