package app

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The game's keys: one table, gameKeys, of what each key does on the dungeon (or surface)
// screen, where it applies, how the help tells it and the words screen-reader mode says
// for the same. The key handler, the keys part of the help and the words of walking,
// fighting and things read the table, so that a key, its help and its word cannot part.
// A new screen is a row of screens, a row here that opens it, and its functions.

// keyHelp is the short key help line of the dungeon screen (the options turn it off).
const keyHelp = "? help  Enter chat  o options  q quit"

// keyHelpShort is the key help line where the long one does not fit (a phone's screen).
const keyHelpShort = "? help"

// keyRow is one key, or the keys that do one thing, of the game's screen: a row of gameKeys.
type keyRow struct {
	// keys are the keys as Bubble Tea names them ("up", "shift+up", "K", "enter").
	keys []string
	// when says where the row applies (nil: wherever the game's screen shows). A key
	// goes to the first row that has it and applies; a key no row takes does nothing.
	when func(*Model) bool
	// label and help are the row's line of the help: what it is, in a word or two, and
	// the keys as a player says them, with anything more to tell ("arrows, or h j k l").
	label, help string
	topic       plainTopic // the part of the help it belongs to, as screen-reader mode's words
	// cmd is the command the keys send, for a row that only sends one (fight, run,
	// shoot); otherwise act is what the keys do.
	cmd world.Command
	act func(m *Model, p keyPress) tea.Cmd
	// words are screen-reader mode's words for what the row does, if it has any: rows of
	// plainWords, told under the row's topic.
	words []plainWord
}

// keyPress is a key as a row's act takes it.
type keyPress struct {
	key  string
	door bool // d was the key before: a direction opens a door
}

// gameKeys are the game's keys, in the help's order within each topic. Filled in by init
// (app.go): the words' rows read the table of words they are part of.
var gameKeys []keyRow

func gameKeyTable() []keyRow {
	return []keyRow{
		{keys: stepKeys(false), when: (*Model).walking, label: "walk", help: "arrows, or h j k l (outside, on the surface too)",
			topic: topicWalking, act: (*Model).stepKey, words: []plainWord{
				{words: []string{"north", "south", "east", "west", "n", "s", "e", "w"}, usage: "north, south, east, west",
					help: "walk a square that way (outside, a space); west 7 walks up to seven, stopping at anything new", when: playing,
					only: func(c plainCall) bool { _, ok := walkCount(c.args); return ok }, run: (*Model).wordWalk},
				{words: []string{"go", "walk"}, usage: "go DIRECTION", help: "walks that way too", when: playing, run: (*Model).wordGo},
			}},
		{keys: append(stepKeys(true), "d"), when: (*Model).walking, label: "open a door", help: "shift+arrow, H J K L, or d then a direction",
			topic: topicWalking, act: (*Model).doorKey, words: []plainWord{
				{words: []string{"open", "door", "d", "force", "search", "unlock"}, usage: "open DIRECTION",
					help: "opens, forces or searches for a door that way (d alone goes down)", when: playing, run: (*Model).wordOpen},
			}},
		{keys: []string{">"}, label: "down", help: "> takes the stairs down, and outside goes back in at the dungeon entrance (EX)",
			topic: topicWalking, act: (*Model).downKey, words: []plainWord{
				{words: []string{"down", ">", "descend", "enter"}, help: "takes the stairs down, and at the entrance outside goes back into the dungeon",
					when: playing, run: (*Model).wordDown},
			}},
		{keys: []string{"<"}, label: "up", help: "< takes the stairs up, and on the exit (EX) of level 1 leaves the dungeon",
			topic: topicWalking, cmd: world.Climb{}, words: []plainWord{
				{words: []string{"up", "u", "<", "climb", "ascend", "exit"}, help: "takes the stairs up; up on the exit of level 1 leaves the dungeon",
					when: playing, run: (*Model).wordUp},
			}},

		{keys: []string{"m"}, label: "map", help: "m   where you have been", topic: topicLooking, act: open(screenMap)},
		{keys: []string{"M", "ctrl+p"}, label: "messages", help: "M   the message and chat log, to scroll back", topic: topicLooking, act: open(screenLog)},
		{keys: []string{"C"}, label: "your knight", help: "C   your knight: characteristics, and the deeds it has done", topic: topicLooking,
			act: open(screenSheet), words: []plainWord{
				{words: []string{"deeds", "deed", "sheet"}, help: "lists your deeds, in the order earned (status says how many, and the newest)",
					topic: topicLooking, when: playing, run: (*Model).wordDeeds},
			}},

		// On a market, s sells: sell is before shoot.
		{keys: []string{"b"}, when: (*Model).onSurface, label: "buy", help: "b   on a market ($)", topic: topicOutside, act: (*Model).buyKey},
		{keys: []string{"s"}, when: (*Model).canTrade, label: "sell", help: "s   on a market ($)", topic: topicOutside, act: (*Model).sellKey},
		{keys: []string{"R"}, when: (*Model).outside, label: "retire", help: "R   outside: into the hall of fame",
			topic: topicOutside, act: open(screenRetire)},

		{keys: []string{"f"}, label: "fight", help: "f   strikes at your target", topic: topicFighting, cmd: world.Fight{}, words: []plainWord{
			{words: []string{"fight", "f", "attack", "kill", "k", "hit"}, help: "strikes at your target", when: playing, run: (*Model).wordFight},
		}},
		{keys: []string{"r"}, label: "run", help: "r   runs (not in rooms)", topic: topicFighting, cmd: world.Run{}, words: []plainWord{
			{words: []string{"run", "r", "flee"}, help: "runs (not from a room)", when: playing, run: (*Model).wordRun},
		}},
		{keys: []string{"s"}, label: "shoot", help: "s   looses an arrow of slaying (with arrows)", topic: topicFighting, cmd: world.Shoot{}, words: []plainWord{
			{words: []string{"shoot", "fire"}, help: "looses an arrow of slaying", when: playing, run: (*Model).wordShoot},
		}},
		{keys: []string{"1", "2", "3", "4"}, label: "cast", help: "1 2 3 4    (a spell of that level, costing that many units)",
			topic: topicFighting, act: (*Model).castKey, words: []plainWord{
				{words: []string{"cast", "c"}, usage: "cast 1 e",
					help: "casts the fifth spell of level 1; cast light casts one by its name, cast esp north with a direction",
					when: playing, run: (*Model).wordCast},
				{words: []string{"1", "2", "3", "4"}, usage: "1 e, 2 a, 3 b or 4 c", help: "cast too, the level and the letter alone",
					when: playing, run: (*Model).wordCastLevel},
				{words: []string{"spells", "spell"}, help: "lists them all; spells 2 lists level 2's with what they do",
					when: playing, run: (*Model).wordSpells},
			}},
		{keys: []string{"t", "tab", "T", "shift+tab"}, when: (*Model).fighting, label: "target",
			help: "t or Tab   in a battle, the next monster to strike at; T or shift+Tab the one before", topic: topicFighting,
			act: (*Model).targetKey, words: []plainWord{
				{words: []string{"target", "aim"}, usage: "target 2",
					help: "aims at another monster in a battle, without costing your move (or target and its name; target alone aims at the next)",
					when: playing, run: (*Model).wordTarget},
			}},
		{keys: []string{"x"}, when: (*Model).fighting, label: "statistics", help: "x   in a battle, everyone's statistics (looking costs no time)",
			topic: topicFighting, act: open(screenStats), words: []plainWord{
				{words: []string{"stats", "x", "statistics"}, help: "gives every combatant's statistics in a battle, without costing your move",
					when: atBattle, run: (*Model).wordStatistics},
			}},

		{keys: []string{"P"}, label: "party", help: "P   the party; /invite NAME, /ask NAME, /accept, /decline, /leave, /disband, /p TEXT talks to the party",
			topic: topicParties, act: open(screenParty)},

		{keys: []string{"i"}, label: "inventory", help: "i   (wear or take off boots and rings, read manuals; in a battle i drinks a potion)",
			topic: topicThings, act: open(screenInventory), words: []plainWord{
				{words: []string{"inventory", "i", "inv", "items"}, help: "lists what you carry, by letter", when: playing, run: (*Model).wordInventory},
				{words: []string{"use", "wear", "remove", "read", "takeoff", "wield"}, usage: "use LETTER", help: "wears, takes off, reads or drinks it",
					when: playing, run: (*Model).wordUse},
				{words: []string{"drop"}, usage: "drop LETTER", help: "leaves it", when: playing, run: (*Model).wordDrop},
			}},

		{keys: []string{"enter", "'"}, label: "chat", help: "Enter or ' opens the chat line: plain text says to those who see you, " +
			"/me TEXT acts, /shout TEXT all, /w NAME TEXT whispers, /r TEXT replies; /newbie TEXT asks newcomers' questions, " +
			"/ooc TEXT talks of anything, /join NAME, /leave NAME, /channels; /afk [REASON] until your next key; " +
			"/report NAME REASON tells the admins about a knight; /help lists the rest", topic: topicTalking, act: (*Model).chatOpenKey},
		{keys: []string{"e"}, label: "letters", help: "e   your letters; /mail NAME TEXT writes to any knight, online or not",
			topic: topicTalking, act: (*Model).mailOpenKey},

		{keys: []string{"w"}, label: "who", help: "w   who is in the game; a letter watches them", topic: topicOthers, act: (*Model).whoOpenKey},
		{keys: []string{"F"}, label: "hall of fame", help: "F   the knights who retired with honour, then the boards of the living " +
			"(deepest level, monsters slain, gold won, deeds): h/l or left/right the pages, w this week or all time", topic: topicOthers, act: (*Model).fameOpenKey},
		{keys: []string{"o"}, label: "options", help: "o   screen-reader mode, theme, colours, spectators, muted players, death replays; " +
			"the title's y asks for the screen-reader mode (ssh -t host play --plain)", topic: topicOthers, act: (*Model).optionsOpenKey},
		{keys: []string{"?", "f1"}, label: "help", help: "? or F1   this help", topic: topicOthers, act: open(screenHelp)},
		{keys: []string{":"}, label: "console", help: ":   the admin console, for admins", topic: topicOthers, act: (*Model).consoleOpenKey},
		{keys: []string{"q"}, label: "quit", help: "q   (your knight is saved where it stands)", topic: topicOthers, act: open(screenQuit)},
	}
}

// directions are the keys of the four directions: an arrow, and the letter of the vi
// editor's keys. Shifted (shift+arrow, the capital), they open doors.
var directions = [...]struct {
	arrow, letter string
	dir           world.Dir
}{{"up", "k", world.North}, {"down", "j", world.South}, {"left", "h", world.West}, {"right", "l", world.East}}

// stepKeys are the keys of the directions, the shifted ones (door) or not.
func stepKeys(door bool) []string {
	var out []string
	for _, d := range directions {
		if door {
			out = append(out, "shift+"+d.arrow, strings.ToUpper(d.letter))
		} else {
			out = append(out, d.arrow, d.letter)
		}
	}
	return out
}

// keyDir is the direction a key steps in, and whether it opens a door (a shifted one).
func keyDir(key string) (d world.Dir, door, ok bool) {
	for _, dk := range directions {
		switch key {
		case dk.arrow, dk.letter:
			return dk.dir, false, true
		case "shift+" + dk.arrow, strings.ToUpper(dk.letter):
			return dk.dir, true, true
		}
	}
	return 0, false, false
}

// dungeonTakers are who takes a key on the dungeon (or surface) screen, in order: the
// first that takes it has it.
var dungeonTakers = [...]func(*Model, tea.KeyPressMsg) (tea.Cmd, bool){
	(*Model).consoleKey, // the admin console, while it is open
	(*Model).chatKey,    // the chat line, while it is open
	(*Model).gameKey,    // the game's keys: gameKeys
}

// dungeonKey is a key on the dungeon (or surface) screen.
func (m *Model) dungeonKey(k tea.KeyPressMsg) tea.Cmd {
	for _, take := range dungeonTakers {
		if cmd, ok := take(m, k); ok {
			return cmd
		}
	}
	return nil
}

// gameKey runs the first row of gameKeys that has the key and applies. A key after d
// that is no direction forgets the d.
func (m *Model) gameKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	p := keyPress{key: k.String(), door: m.dun.doorMode}
	m.dun.doorMode = false
	r := m.keyRow(p.key)
	switch {
	case r == nil:
		return nil, true
	case r.cmd != nil:
		m.do(r.cmd)
		return nil, true
	}
	return r.act(m, p), true
}

// keyRow is the row of gameKeys that takes key now, or nil.
func (m *Model) keyRow(key string) *keyRow {
	for i := range gameKeys {
		if r := &gameKeys[i]; slices.Contains(r.keys, key) && (r.when == nil || r.when(m)) {
			return r
		}
	}
	return nil
}

// fightCommand is the command a key of the fighting rows sends (f, r, s), or nil: the
// statistics screen takes them too.
func fightCommand(key string) world.Command {
	for _, r := range gameKeys {
		if r.topic == topicFighting && r.cmd != nil && slices.Contains(r.keys, key) {
			return r.cmd
		}
	}
	return nil
}

// keyHelpLines are the keys part of the help: a line a row, by topic.
func keyHelpLines() []string {
	var out []string
	for t := range numTopics {
		for _, r := range gameKeys {
			if r.topic == t && r.help != "" {
				out = append(out, fmt.Sprintf("  %-12s  %s", r.label, r.help))
			}
		}
	}
	return out
}

// phoneKey says a key is on every keyboard, a phone's too: a letter, a digit or a sign,
// or Enter; not Esc, Tab, a shifted arrow or a function key.
func phoneKey(key string) bool { return len([]rune(key)) == 1 || key == "enter" }

// closeKey says a key closes the screen it is pressed on: q or Backspace, on every
// screen but a text field (a phone has no Esc). So no list picks with q (listLetter).
func closeKey(key string) bool { return key == "q" || key == "backspace" }

// listLetters is how many entries of a list have letters: a to z without q.
const listLetters = 25

// listLetter is the letter of entry i of a list a screen's letters pick from (the
// inventory, the letters, the who-list, a market): a to z without q, which closes the
// screen; the 17th entry is r. Its capital (without Q) is the entry's second act (drop,
// delete). Screen-reader mode's words use the same letters.
func listLetter(i int) rune {
	r := rune('a' + i)
	if r >= 'q' {
		r++
	}
	return r
}

// listIndex is the entry of a list a key's letter picks, and whether it is the capital;
// -1 for a key that is no list's letter (q and Q among them).
func listIndex(key string) (i int, capital bool) {
	if len(key) != 1 {
		return -1, false
	}
	c := key[0]
	if capital = c >= 'A' && c <= 'Z'; capital {
		c += 'a' - 'A'
	}
	if c < 'a' || c > 'z' || c == 'q' {
		return -1, false
	}
	i = int(c - 'a')
	if c > 'q' {
		i--
	}
	return i, capital
}

// phoneKeysLine is the help's short list of the game's keys as a phone types them (every
// row of gameKeys has one): "h j k l walk  H J K L d open a door  > down ...".
func phoneKeysLine() string {
	parts := []string{"Keys on any keyboard:"}
	for _, r := range gameKeys {
		var ks []string
		for _, k := range r.keys {
			if phoneKey(k) && k != "enter" {
				ks = append(ks, k)
			}
		}
		parts = append(parts, strings.Join(ks, " ")+" "+r.label+";")
	}
	line := strings.Join(parts, " ")
	return line[:len(line)-1] + "; Backspace or q closes a screen; space and - page a list."
}

// Where a row applies.

// walking is true where the direction keys walk: in the dungeon, and on the surface's grid.
func (m *Model) walking() bool { return m.view.Self.Depth > 0 || m.onSurface() }

// outside is true outside the dungeon.
func (m *Model) outside() bool { return m.view.Outside() }

// fighting is true in a battle.
func (m *Model) fighting() bool { return m.view.Fight != nil }

// canTrade is true on a market's square of the surface, out of a battle (in one, s shoots).
func (m *Model) canTrade() bool {
	return m.onSurface() && m.marketHere() != nil && m.view.Fight == nil
}

// What the rows do.

// open is the act of a row that opens a screen, its list (if it has one) from its start.
func open(s screen) func(*Model, keyPress) tea.Cmd {
	return func(m *Model, _ keyPress) tea.Cmd {
		m.screen = s
		if list := screens[s].list; list != nil {
			list(m).home()
		}
		return nil
	}
}

// stepKey walks a square; in the dungeon a shifted key, or any after d, throws the
// knight at a door there instead. The surface's grid has no doors.
func (m *Model) stepKey(p keyPress) tea.Cmd {
	d, door, _ := keyDir(p.key)
	if m.onSurface() {
		m.do(world.Move{Dir: d})
		return nil
	}
	m.do(world.Move{Dir: d, Door: door || p.door})
	m.keep = !p.door && m.screen == screenPlay // the door hint, if shown, goes
	return nil
}

// doorKey opens a door: a shifted direction, or d, which asks for the direction.
func (m *Model) doorKey(p keyPress) tea.Cmd {
	if p.key == "d" {
		m.dun.doorMode = m.view.Self.Depth > 0
		return nil
	}
	return m.stepKey(p)
}

// downKey takes the stairs down; outside, it goes back down into the dungeon.
func (m *Model) downKey(keyPress) tea.Cmd {
	if m.view.Outside() {
		m.do(world.Enter{})
	} else {
		m.do(world.Climb{Down: true})
	}
	return nil
}

func (m *Model) castKey(p keyPress) tea.Cmd {
	m.dun.spellLvl = int(p.key[0] - '0')
	m.screen = screenSpells
	return nil
}

// targetKey chooses the next target (t, Tab) or the one before (T, shift+Tab).
func (m *Model) targetKey(p keyPress) tea.Cmd {
	step := 1
	if p.key == "T" || p.key == "shift+tab" {
		step = -1
	}
	m.cycleTarget(step)
	return nil
}

func (m *Model) buyKey(keyPress) tea.Cmd {
	m.openMarket(false)
	return nil
}

func (m *Model) sellKey(keyPress) tea.Cmd {
	m.openMarket(true)
	return nil
}

func (m *Model) whoOpenKey(keyPress) tea.Cmd {
	m.screen, m.who = screenWho, whoList{}
	return m.askWho()
}

func (m *Model) optionsOpenKey(keyPress) tea.Cmd {
	m.openOptions()
	return nil
}

func (m *Model) mailOpenKey(keyPress) tea.Cmd { return m.openMail() }

func (m *Model) chatOpenKey(keyPress) tea.Cmd { return m.openChat() }

func (m *Model) consoleOpenKey(keyPress) tea.Cmd { return m.openConsole() }

// quitKey answers "Leave the dungeon for now?": y, q or Enter leaves.
func (m *Model) quitKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "y", "q", "enter":
		return tea.Quit
	}
	m.screen = screenPlay
	return nil
}

// retireKey answers "Retire this knight?": y retires.
func (m *Model) retireKey(k tea.KeyPressMsg) tea.Cmd {
	m.screen = screenPlay
	if k.String() == "y" {
		m.do(world.Retire{})
	}
	return nil
}
