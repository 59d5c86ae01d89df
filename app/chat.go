package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// chatInputLimit bounds what the chat line holds: a letter (/mail NAME and
// world.MaxLetterRunes) and some to spare; the world cuts a line of chat to
// world.MaxChatRunes after cleaning it.
const chatInputLimit = 600

// chatLine is the one-line chat input that Enter (or ') opens over the dungeon screen,
// in the pattern of the admin console. It is part of the Model and owned by its program.
type chatLine struct {
	open    bool
	input   lineInput
	history lineHistory
	note    string // a one-line note shown in the message area until the next key
}

func newChatLine() chatLine {
	return chatLine{input: lineInput{prompt: "Say: ", limit: chatInputLimit}}
}

// chatAction is what a typed chat line asks for, one type an action: a line for the
// world (chatSay), a channel's, a party's or a letter's action, a report, going away,
// reading the letters, the party screen, a change to the mute list, or only a note for
// the player (chatNote). sendChat carries it out.
type chatAction interface {
	// do carries the action out and returns a note for the player, if any, and a
	// command (reading the letters asks the world).
	do(m *Model) (note string, cmd tea.Cmd)
}

// The chat line's actions.
type (
	chatSay     world.Chat          // a line of chat for the world
	chatChannel world.ChannelAction // joining, leaving or listing channels
	chatParty   world.PartyAction   // a party's action (party.go)
	chatLetter  named               // a letter: to whom, and the text
	chatReport  named               // a report: about whom, and why
	chatAway    string              // going away, with the reason
	chatMail    struct{}            // reading the letters
	chatScreen  struct{}            // opening the party screen
	chatMute    struct {            // muting a knight, or unmuting it
		name string
		mute bool
	}
	chatNote string // only a note for the player
	chatBell string // the bell's setting (alert.go), or "" to be told it
)

func (a chatSay) do(m *Model) (string, tea.Cmd) {
	return m.toWorld(func(pl *world.Player) error { return pl.Chat(m.ctx, world.Chat(a)) }), nil
}

func (a chatChannel) do(m *Model) (string, tea.Cmd) {
	return m.toWorld(func(pl *world.Player) error { return pl.Channel(m.ctx, world.ChannelAction(a)) }), nil
}

func (a chatLetter) do(m *Model) (string, tea.Cmd) {
	find := m.p.FindKnight
	if find == nil || m.p.Guest { // the world knows every knight there is, or tells the guest it cannot write
		return m.toWorld(func(pl *world.Player) error { return pl.SendLetter(m.ctx, a.name, a.text, m.now()) }), nil
	}
	pl := m.player.Load()
	if pl == nil {
		return notInTheGame, nil
	}
	ctx, e, sent := m.ctx, m.p.Engine, m.now()
	// The records are asked off the world and off the screen's program: a knight the
	// world does not know is looked up, made known to it, then written to.
	return "", func() tea.Msg {
		if names, err := pl.UnknownRecipient(ctx, a.name, a.text); err == nil && len(names) > 0 {
			if k, ok := find(ctx, names); ok {
				_ = e.KnowKnight(ctx, k.ID, k.Name) // not known, the world says so to the letter
			}
		}
		if pl.SendLetter(ctx, a.name, a.text, sent) != nil {
			return chatNoteMsg(lineNotSent)
		}
		return nil
	}
}

// chatNoteMsg is a note for the player that came after its chat line was sent.
type chatNoteMsg string

// chatNote shows a note that came after the chat line was sent: said in plain mode,
// shown until the next key otherwise.
func (m *Model) chatNote(note string) {
	if m.pl.active {
		m.say(note)
		return
	}
	m.chat.note = note
}

func (a chatReport) do(m *Model) (string, tea.Cmd) {
	return m.toWorld(func(pl *world.Player) error { return pl.Report(m.ctx, a.name, a.text) }), nil
}

func (a chatAway) do(m *Model) (string, tea.Cmd) {
	return m.toWorld(func(pl *world.Player) error { return pl.Away(m.ctx, string(a)) }), nil
}

func (chatMail) do(m *Model) (string, tea.Cmd) {
	if m.player.Load() == nil {
		return notInTheGame, nil
	}
	return "", m.openMail()
}

func (a chatParty) do(m *Model) (string, tea.Cmd) { return m.partyAction(world.PartyAction(a)), nil }

func (chatScreen) do(m *Model) (string, tea.Cmd) {
	if m.pl.active {
		return strings.Join(partySentences(m.view), " "), nil
	}
	m.screen = screenParty
	return "", nil
}

func (a chatMute) do(m *Model) (string, tea.Cmd) { return m.setMuted(a.name, a.mute), nil }

func (n chatNote) do(*Model) (string, tea.Cmd) { return string(n), nil }

func (b chatBell) do(m *Model) (string, tea.Cmd) { return m.setBell(string(b)), nil }

// notInTheGame answers an action that asks the world when the session has no knight in it.
const notInTheGame = "You are not in the game."

// lineNotSent is the note of a chat line the world did not take.
const lineNotSent = "The world is not answering; your line was not sent."

// toWorld sends an action to the world as the session's knight, and returns the note a
// failure leaves the player, or none.
func (m *Model) toWorld(send func(pl *world.Player) error) string {
	pl := m.player.Load()
	if pl == nil {
		return notInTheGame
	}
	if send(pl) != nil {
		return lineNotSent
	}
	return ""
}

// named is a knight's name (empty: the world reads it from the start of the text) and
// the text after it.
type named struct{ name, text string }

// quotedName reads a knight's name in quotes from the start of rest ("Gawain the Bold"
// hi), if it is there; otherwise the name is left to the world, which finds the longest
// name of a knight that starts the text.
func quotedName(rest string) named {
	if strings.HasPrefix(rest, `"`) {
		if name, text, ok := strings.Cut(rest[1:], `"`); ok {
			return named{name, strings.TrimSpace(text)}
		}
	}
	return named{"", rest}
}

// The chat line's commands: one row a command (with the spellings that mean the same),
// saying how it is typed, what it does and what it asks for. A typed line is looked up
// here, and the help is made from the rows, so that a command and its help cannot part.
// Adding a command is a row. Screen-reader mode's talking words are these rows' too: a
// row's word, spelled as the command without the slash (words.go reads them).

// chatTopic is the part of the help a command is told in.
type chatTopic int

const (
	chatTalking chatTopic = iota
	chatChannels
	chatLetters
	chatParties
	numChatTopics
)

// chatTopicLines begin each topic's sentence of the help; talking's needs none, its first
// row being plain text.
var chatTopicLines = [numChatTopics]string{
	chatChannels: "Channels:",
	chatLetters:  "Letters:",
	chatParties:  "Parties:",
}

// chatCommand is one command of the chat line, a row of chatCommands.
type chatCommand struct {
	// words are the command and its other spellings, in lower case with the slash, the
	// first of them the one the help names.
	words []string
	usage string // how the help shows it typed ("/w NAME TEXT")
	help  string // what it does, as the help says it after the usage
	topic chatTopic
	// parse reads the line: cmd is the command as typed, in lower case, and rest what
	// follows it, trimmed.
	parse func(cmd, rest string) chatAction
	// word is the command as screen-reader mode's talking word, if it is one: its
	// spellings without the slash (say shout, not /shout), how its help says it, and
	// what it runs when not the command itself (wordChat). plainWords has it under
	// talking, at the game's prompt.
	word *plainWord
}

// chatCommands are the commands, by topic, in the help's order; chatByWord finds a row by
// any of its words, and chatHelp is the help made from them. They are filled in by init
// (app.go), not by an initializer: /help reads the help made from the table.
var (
	chatCommands []chatCommand
	chatByWord   map[string]*chatCommand
	chatHelp     string
)

// chatCommandTable is the chat line's table (chatCommands).
func chatCommandTable() []chatCommand {
	return []chatCommand{
		{words: []string{"/say"}, usage: "Plain text (or /say TEXT)", help: "says to those who see you", parse: talk(world.ChatSay),
			word: &plainWord{words: []string{"say"}, prefixes: []string{"'", `"`}, usage: "say TEXT (or 'TEXT)", help: "says it to those who see you",
				run: (*Model).wordSay}},
		{words: []string{"/me", "/emote", "/em"}, usage: "/me TEXT", help: `acts it out (/me waves: "Kay waves.")`,
			word: &plainWord{words: []string{"me", "emote"}, usage: "me TEXT", help: `acts it out to those who see you: me waves is "Kay waves."`},
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatNote(`Act out what? /me TEXT: "/me waves" shows your name and "waves." to those who see you.`)
				}
				return talk(world.ChatEmote)("", rest)
			}},
		{words: []string{"/shout", "/sh", "/yell"}, usage: "/shout TEXT", help: "reaches everyone", parse: talk(world.ChatShout),
			word: &plainWord{words: []string{"shout", "yell"}, usage: "shout TEXT", help: "says it to everyone"}},
		{words: []string{"/w", "/whisper", "/tell", "/t", "/msg"}, usage: "/w NAME TEXT", help: "whispers",
			word: &plainWord{words: []string{"whisper", "tell"}, usage: "whisper NAME TEXT", help: "says it to one knight"},
			parse: func(_, rest string) chatAction {
				n := quotedName(rest)
				return chatSay{Kind: world.ChatWhisper, To: n.name, Text: n.text}
			}},
		{words: []string{"/r", "/reply", "/re"}, usage: "/r TEXT", help: "answers the last who whispered to you", parse: talk(world.ChatReply),
			word: &plainWord{words: []string{"reply", "re"}, usage: "reply TEXT", help: "whispers to the last knight who whispered to you"}},
		{words: []string{"/p"}, usage: "/p TEXT", help: "is for your party", parse: talk(world.ChatParty),
			word: &plainWord{words: []string{"party", "p"}, usage: "party TEXT", help: "says it to your party",
				only: func(c plainCall) bool { return c.word != "party" || c.rest != "" }}}, // party alone lists the party
		{words: []string{"/afk", "/away"}, usage: "/afk [REASON]", help: "says you are away until your next key",
			word:  &plainWord{words: []string{"afk", "away"}, usage: "afk REASON", help: "says you are away (the reason is yours to give) until your next key"},
			parse: func(_, rest string) chatAction { return chatAway(rest) }},
		{words: []string{"/mute", "/ignore"}, usage: "/mute NAME", help: "hides a knight's chat",
			word: &plainWord{words: []string{"mute"}, usage: "mute NAME", help: "leaves a knight out of what you hear"},
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatNote("Mute whom? /mute NAME hides that knight's chat.")
				}
				return chatMute{rest, true}
			}},
		{words: []string{"/unmute", "/unignore"}, usage: "/unmute NAME", help: "shows it again",
			word: &plainWord{words: []string{"unmute"}, usage: "unmute NAME", help: "lets it be heard again"},
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatNote("Unmute whom? /unmute NAME.")
				}
				return chatMute{rest, false}
			}},
		{words: []string{"/bell"}, usage: "/bell all|mentions|off", help: "chooses what rings your bell when you are on another screen or away (mentions: whispers, your name, invitations, battles)",
			word: &plainWord{words: []string{"bell"}, usage: "bell all, mentions or off",
				help: `chooses what is said with "Alert:" before it when you have pressed no key for 30 seconds (mentions: whispers, your name, invitations, battles; all: every line said to you too)`},
			parse: func(_, rest string) chatAction { return chatBell(rest) }},
		{words: []string{"/report"}, usage: "/report NAME REASON", help: "tells the admins",
			word: &plainWord{words: []string{"report"}, usage: "report NAME REASON", help: "tells the admins about a knight, with what it said lately"},
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatNote("Report whom? /report NAME REASON tells the admins, with what that knight said lately.")
				}
				n := quotedName(rest)
				return chatReport(n)
			}},
		{words: []string{"/help", "/?"}, usage: "/help", help: "says all this",
			parse: func(string, string) chatAction { return chatNote(chatHelp) }},

		{words: []string{"/c", "/ch", "/channel"}, usage: "/c NAME TEXT", help: "talks on a channel", topic: chatChannels,
			parse: func(_, rest string) chatAction {
				name, text, _ := strings.Cut(rest, " ")
				if name == "" {
					return chatNote("Talk on which channel? /c NAME TEXT; /channels lists them.")
				}
				return chatSay{Kind: world.ChatChannel, To: name, Text: strings.TrimSpace(text)}
			}},
		{words: channelCommands(), usage: channelCommandUsage(), help: "talks on that channel", topic: chatChannels,
			word: &plainWord{words: channelWords(), usage: channelUsage(),
				help: "talks on that channel, wherever its knights are (newbie is for questions: ask anything)"},
			parse: func(cmd, rest string) chatAction {
				name := world.ChannelNamed(cmd[1:]).Name // a row's word is a channel's
				if rest == "" {
					return chatNote(fmt.Sprintf("Say what on %s? /%s TEXT.", name, name))
				}
				return chatSay{Kind: world.ChatChannel, To: name, Text: rest}
			}},
		{words: []string{"/join"}, usage: "/join NAME", help: "joins one", topic: chatChannels,
			word: &plainWord{words: []string{"join"}, usage: "join CHANNEL", help: "joins a channel and reads its last lines"},
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatNote("Join which channel? /join NAME; /channels lists them.")
				}
				return chatChannel{Kind: world.ChannelJoin, Name: rest}
			}},
		{words: []string{"/leave"}, usage: "/leave NAME", help: "leaves it (alone, your party)", topic: chatChannels,
			parse: func(_, rest string) chatAction {
				if rest == "" || strings.EqualFold(rest, "party") {
					return chatParty{Kind: world.PartyLeave}
				}
				return chatChannel{Kind: world.ChannelLeave, Name: rest}
			}},
		{words: []string{"/channels"}, usage: "/channels", help: "lists them", topic: chatChannels,
			word: &plainWord{words: []string{"channels"}, help: "lists the channels, and which you are on"},
			parse: func(string, string) chatAction {
				return chatChannel{Kind: world.ChannelList}
			}},

		{words: []string{"/mail", "/letter", "/write"}, usage: "/mail NAME TEXT", help: "writes to any knight, online or not; /mail alone reads yours",
			word: &plainWord{words: []string{"mail", "letters", "letter"}, usage: "mail",
				help: "reads your letters; mail NAME TEXT writes to any knight, online or not; mail delete 2 deletes the second",
				run:  (*Model).wordMail},
			topic: chatLetters, parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatMail{}
				}
				n := quotedName(rest)
				return chatLetter(n)
			}},

		{words: []string{"/invite", "/inv"}, usage: "/invite NAME", help: "asks a knight into your party", topic: chatParties,
			parse: partyNamed(world.PartyInvite, "Invite")},
		{words: []string{"/ask"}, usage: "/ask NAME", help: "asks to join theirs", topic: chatParties,
			parse: partyNamed(world.PartyAsk, "Ask")},
		{words: []string{"/accept"}, usage: "/accept [NAME]", help: "takes an invitation or a request", topic: chatParties,
			parse: partyAnswer(world.PartyAccept)},
		{words: []string{"/decline"}, usage: "/decline [NAME]", help: "turns one down", topic: chatParties,
			parse: partyAnswer(world.PartyDecline)},
		{words: []string{"/disband"}, usage: "/disband", help: "ends yours", topic: chatParties,
			parse: func(string, string) chatAction {
				return chatParty{Kind: world.PartyDisband}
			}},
		{words: []string{"/party"}, usage: "/party", help: "opens the party screen", topic: chatParties,
			parse: func(_, rest string) chatAction {
				if rest == "" {
					return chatScreen{}
				}
				return talk(world.ChatParty)("", rest)
			}},
	}
}

// chatIndex finds the rows of cmds by each of their words.
func chatIndex(cmds []chatCommand) map[string]*chatCommand {
	by := map[string]*chatCommand{}
	for i := range cmds {
		for _, w := range cmds[i].words {
			by[w] = &cmds[i]
		}
	}
	return by
}

// talk is the parse of a command whose rest is the text of a line of chat of that kind.
func talk(kind world.ChatKind) func(cmd, rest string) chatAction {
	return func(_, rest string) chatAction { return chatSay{Kind: kind, Text: rest} }
}

// partyNamed is the parse of a party command that needs a knight's name (/invite, /ask):
// everything after the command is the name.
func partyNamed(kind world.PartyActionKind, verb string) func(cmd, rest string) chatAction {
	return func(cmd, rest string) chatAction {
		name := partyName(rest)
		if name == "" {
			return chatNote(fmt.Sprintf("%s whom? %s NAME.", verb, cmd))
		}
		return chatParty{Kind: kind, Name: name}
	}
}

// partyAnswer is the parse of an answer to a party's invitation or request, whose name
// may be left out.
func partyAnswer(kind world.PartyActionKind) func(cmd, rest string) chatAction {
	return func(_, rest string) chatAction {
		return chatParty{Kind: kind, Name: partyName(rest)}
	}
}

// channelCommands are the channels' names as commands that talk on them: /newbie TEXT,
// and /#newbie TEXT as a channel is written elsewhere.
func channelCommands() []string {
	var out, hashed []string
	for _, ch := range world.Channels {
		out = append(out, "/"+ch.Name)
		hashed = append(hashed, "/#"+ch.Name)
	}
	return append(out, hashed...)
}

// channelCommandUsage is how the help shows them: "/newbie TEXT or /ooc TEXT".
func channelCommandUsage() string {
	var out []string
	for _, ch := range world.Channels {
		out = append(out, "/"+ch.Name+" TEXT")
	}
	return strings.Join(out, " or ")
}

// makeChatHelp makes the help from the rows: a sentence a topic, its commands in clauses.
func makeChatHelp() string {
	var sentences []string
	for t := range numChatTopics {
		var clauses []string
		for _, c := range chatCommands {
			if c.topic == t {
				clauses = append(clauses, c.usage+" "+c.help)
			}
		}
		s := strings.Join(clauses, "; ") + "."
		if h := chatTopicLines[t]; h != "" {
			s = h + " " + s
		}
		sentences = append(sentences, s)
	}
	return strings.Join(sentences, " ")
}

// parseChat reads a chat line the way chat clients do: plain text says, and a line
// starting with a slash is the command of chatCommands its first word names (in any
// case), or a note that it is none, with the help. An empty line asks for nothing (nil).
func parseChat(line string) chatAction {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	if !strings.HasPrefix(line, "/") {
		return chatSay{Kind: world.ChatSay, Text: line}
	}
	cmd, rest, _ := strings.Cut(line, " ")
	c, ok := chatByWord[strings.ToLower(cmd)]
	if !ok {
		return chatNote(fmt.Sprintf("%s is not a chat command. %s", world.CleanText(cmd, 20), chatHelp))
	}
	return c.parse(strings.ToLower(cmd), strings.TrimSpace(rest))
}

// sendChat carries out a typed chat line and returns a note for the player, if any, and
// a command (reading the letters asks the world).
func (m *Model) sendChat(line string) (string, tea.Cmd) {
	a := parseChat(line)
	if a == nil {
		return "", nil
	}
	return a.do(m)
}

// setMuted adds a name to the mute list or takes it off, and says what it did.
func (m *Model) setMuted(raw string, mute bool) string {
	name, err := world.CleanName(raw)
	if err != nil {
		return "That is not a knight's name."
	}
	o := m.opts.Clone()
	muted := o.Mutes(name)
	switch {
	case mute && muted:
		return name + " is already muted."
	case mute:
		o.Muted = append(o.Muted, name)
	case !muted:
		return name + " is not muted."
	default:
		k := world.NameKey(name)
		kept := o.Muted[:0]
		for _, n := range o.Muted {
			if world.NameKey(n) != k {
				kept = append(kept, n)
			}
		}
		o.Muted = kept
	}
	m.setOptions(o) // the world confirms it in the message log
	return ""
}

// comeBack ends the knight's being away (/afk) at the first key pressed after it, as
// the world was told it would: any key, whatever screen it is pressed on.
func (m *Model) comeBack() {
	if !m.view.Self.Away || m.backSent {
		return
	}
	if pl := m.player.Load(); pl != nil {
		_ = pl.Back(m.ctx) // fails only when the session or the world is ending
		m.backSent = true
	}
}

// openChat opens the chat line (Enter or ' on the dungeon screen).
func (m *Model) openChat() tea.Cmd {
	m.chat.open = true
	m.chat.input.open(&m.chat.history)
	return nil
}

// chatKey handles a key for the chat line: while it is open every key is its own.
// handled is false for keys the game should have.
func (m *Model) chatKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	ch := &m.chat
	s := k.String()
	if !ch.open {
		ch.note = "" // a note shows until the next key
		return nil, false
	}
	switch {
	case s == "esc", s == "backspace" && ch.input.empty(): // a phone has no Esc
		ch.open = false
		ch.input.close()
	case s == "enter":
		line := strings.TrimSpace(ch.input.value())
		ch.open = false
		ch.input.close()
		if line == "" {
			return nil, true
		}
		ch.history.add(line)
		var cmd tea.Cmd
		ch.note, cmd = m.sendChat(line)
		return cmd, true
	case s == "up", s == "down":
		ch.history.recall(s == "up", &ch.input)
	default:
		ch.input.key(k)
	}
	return nil, true
}

// openChatWith opens the chat line on the dungeon screen with text already typed (the
// party screen's keys start a party command this way).
func (m *Model) openChatWith(text string) tea.Cmd {
	m.screen = screenPlay
	ch := &m.chat
	ch.open, ch.note = true, ""
	ch.input.open(&ch.history)
	ch.input.set(text)
	return nil
}

// chatLineHelp is what the open chat line takes, shown above it.
const chatLineHelp = "Enter sends, Esc or Backspace cancels. /me, /shout, /w NAME, /r, /p party, /newbie, /mail NAME, /help"

// drawChat draws the open chat line in place of the last message, with what it takes on
// the rows above, or the note of the last line sent.
func (m *Model) drawChat(c *canvas) {
	if m.screen != screenPlay || m.consoleOpen() {
		return
	}
	ch := &m.chat
	row := m.dun.lay.msgRow()
	blank := strings.Repeat(" ", c.w)
	if !ch.open {
		if ch.note != "" {
			drawAbove(c, row, wrap(ch.note, c.w), clsText)
		}
		return
	}
	drawAbove(c, row-1, wrap(chatLineHelp, c.w), clsDim)
	c.text(0, row, blank, clsText)
	c.text(0, row, ch.input.tail(c.w, "_"), clsSelf)
}

// drawAbove writes lines on blanked rows ending at row bottom, over whatever is there.
func drawAbove(c *canvas, bottom int, lines []string, cls class) {
	blank := strings.Repeat(" ", c.w)
	for i, l := range lines {
		y := bottom - len(lines) + 1 + i
		c.text(0, y, blank, cls)
		c.text(0, y, l, cls)
	}
}

// logFoot is the message log's keys.
const logFoot = pageKeysHint + " pages, arrows scroll; Enter in the dungeon opens the chat line; any other key returns"

// logPage is the message log at the screen's size: every message wrapped to the width
// (a long one hangs under its start), the keys, and how many rows show the messages.
func (m *Model) logPage() (lines, foot []string, page int) {
	w, h := m.frameSize()
	for _, msg := range m.view.Log.All() {
		lines = append(lines, wrapHang(msg, w-4, 2)...)
	}
	foot = wrap(logFoot, w-4)
	return lines, foot, max(1, h-2-len(foot))
}

// drawLog draws the scroll-back of the player's messages: game messages, chat and
// announcements, newest at the bottom.
func (m *Model) drawLog(c *canvas) {
	n := m.view.Log.Len()
	lines, foot, page := m.logPage()
	// The heading says less on a phone rather than be cut: which lines show before how
	// many messages there are.
	count := english.Count(n, "message", "messages")
	title := fit(c.w-2, "MESSAGES AND CHAT: the last "+count, "MESSAGES AND CHAT: "+count, "MESSAGES: "+count)
	if len(lines) > page {
		from, to := m.log.span(len(lines), page)
		title = fit(c.w-2, fmt.Sprintf("MESSAGES AND CHAT: the last %s, lines %d-%d of %d", count, from, to, len(lines)),
			fmt.Sprintf("MESSAGES AND CHAT: lines %d-%d of %d", from, to, len(lines)),
			fmt.Sprintf("MESSAGES AND CHAT, %d-%d of %d", from, to, len(lines)), fmt.Sprintf("MESSAGES %d-%d of %d", from, to, len(lines)))
	}
	c.text(2, 0, title, clsTitle)
	m.log.draw(c, 2, 1, lines, page, clsText)
	if n == 0 {
		c.text(2, 2, "Nothing yet.", clsDim)
	}
	for i, l := range foot {
		c.text(2, c.h-len(foot)+i, l, clsTitle)
	}
}

// logKey scrolls the message log; any other key returns to the game.
func (m *Model) logKey(k tea.KeyPressMsg) tea.Cmd {
	if lines, _, page := m.logPage(); !m.log.scrollBy(k.String(), len(lines), page) {
		m.screen = screenPlay
	}
	return nil
}

// channelWords are the channels' names, as words that talk on them.
func channelWords() []string {
	var out []string
	for _, ch := range world.Channels {
		out = append(out, ch.Name)
	}
	return out
}

// channelUsage is how the help shows the channels' words: "newbie TEXT or ooc TEXT".
func channelUsage() string {
	var out []string
	for _, ch := range world.Channels {
		out = append(out, ch.Name+" TEXT")
	}
	return strings.Join(out, " or ")
}
