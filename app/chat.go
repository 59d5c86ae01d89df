package app

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// chatInputLimit bounds what the chat line holds: a letter (/mail NAME and
// world.MaxLetterRunes) and some to spare; the world cuts a line of chat to
// world.MaxChatRunes after cleaning it.
const chatInputLimit = 600

// chatHelp says what the chat line takes.
const chatHelp = "Plain text says to those who see you; /me TEXT acts it out (/me waves: \"Kay waves.\"); /shout TEXT reaches everyone; /w NAME TEXT whispers, /r TEXT answers the last who whispered to you; /p TEXT is for your party; /mute NAME and /unmute NAME filter. " +
	"Channels: /newbie TEXT (questions welcome) and /ooc TEXT talk on them (or /c NAME TEXT), /join NAME, /leave NAME, /channels. " +
	"Letters: /mail NAME TEXT writes to any knight, online or not; /mail alone reads yours. /afk [REASON] says you are away until your next key; /report NAME REASON tells the admins. " +
	"Parties: /invite NAME, /ask NAME (to join theirs), /accept [NAME], /decline [NAME], /leave (alone: the party), /disband, /party (the party screen)."

// chatLine is the one-line chat input that Enter (or ') opens over the dungeon screen,
// in the pattern of the admin console. It is part of the Model and owned by its program.
type chatLine struct {
	open    bool
	input   textinput.Model
	history lineHistory
	note    string // a one-line note shown in the message area until the next key
}

func newChatLine() chatLine {
	ti := textinput.New()
	ti.CharLimit = chatInputLimit
	ti.Prompt = "Say: "
	return chatLine{input: ti}
}

// chatAction is what a typed chat line asks for: a line for the world, a change to the
// mute list, or only a note for the player.
type chatAction struct {
	chat    *world.Chat
	party   *world.PartyAction
	channel *world.ChannelAction
	letter  *named  // a letter: to whom, and the text
	report  *named  // a report: about whom, and why
	away    *string // going away, with the reason
	screen  bool    // open the party screen
	mail    bool    // read the letters
	mute    string
	unmute  string
	note    string
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

// parseChat reads a chat line the way chat clients do: plain text says; /shout, /w (or
// /whisper, /tell) NAME and /p shout, whisper and talk to the party; /me acts, /r replies
// to the last whisper. A name with spaces may be quoted (/w "Gawain the Bold" hello, and
// so for /mail and /report); unquoted, the world finds the longest name of a knight that
// starts the text. The party commands (/invite NAME, /ask NAME, /accept [NAME],
// /decline [NAME], /leave, /disband) take everything after the command as the name;
// /party alone opens the party screen. Channels are /join NAME, /leave NAME (with a name:
// bare /leave is still the party's), /c NAME TEXT or /NAME TEXT, and /channels; /mail
// NAME TEXT writes a letter and /mail alone reads them; /afk [REASON]; /report NAME
// REASON.
func parseChat(line string) chatAction {
	line = strings.TrimSpace(line)
	if line == "" {
		return chatAction{}
	}
	if !strings.HasPrefix(line, "/") {
		return chatAction{chat: &world.Chat{Kind: world.ChatSay, Text: line}}
	}
	cmd, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(cmd) {
	case "/say":
		return chatAction{chat: &world.Chat{Kind: world.ChatSay, Text: rest}}
	case "/shout", "/sh", "/yell":
		return chatAction{chat: &world.Chat{Kind: world.ChatShout, Text: rest}}
	case "/w", "/whisper", "/tell", "/t", "/msg":
		n := quotedName(rest)
		return chatAction{chat: &world.Chat{Kind: world.ChatWhisper, To: n.name, Text: n.text}}
	case "/r", "/reply":
		return chatAction{chat: &world.Chat{Kind: world.ChatReply, Text: rest}}
	case "/me", "/emote", "/em":
		if rest == "" {
			return chatAction{note: `Act out what? /me TEXT: "/me waves" shows your name and "waves." to those who see you.`}
		}
		return chatAction{chat: &world.Chat{Kind: world.ChatEmote, Text: rest}}
	case "/c", "/ch", "/channel":
		name, text, _ := strings.Cut(rest, " ")
		if name == "" {
			return chatAction{note: "Talk on which channel? /c NAME TEXT; /channels lists them."}
		}
		return chatAction{chat: &world.Chat{Kind: world.ChatChannel, To: name, Text: strings.TrimSpace(text)}}
	case "/join":
		if rest == "" {
			return chatAction{note: "Join which channel? /join NAME; /channels lists them."}
		}
		return chatAction{channel: &world.ChannelAction{Kind: world.ChannelJoin, Name: rest}}
	case "/channels":
		return chatAction{channel: &world.ChannelAction{Kind: world.ChannelList}}
	case "/mail", "/letter", "/write":
		if rest == "" {
			return chatAction{mail: true}
		}
		n := quotedName(rest)
		return chatAction{letter: &n}
	case "/afk", "/away":
		return chatAction{away: &rest}
	case "/report":
		if rest == "" {
			return chatAction{note: "Report whom? /report NAME REASON tells the admins, with what that knight said lately."}
		}
		n := quotedName(rest)
		return chatAction{report: &n}
	case "/p", "/party":
		if rest == "" && strings.EqualFold(cmd, "/party") {
			return chatAction{screen: true}
		}
		return chatAction{chat: &world.Chat{Kind: world.ChatParty, Text: rest}}
	case "/invite", "/inv", "/ask":
		kind, verb := world.PartyInvite, "Invite"
		if strings.EqualFold(cmd, "/ask") {
			kind, verb = world.PartyAsk, "Ask"
		}
		name := partyName(rest)
		if name == "" {
			return chatAction{note: fmt.Sprintf("%s whom? %s NAME.", verb, strings.ToLower(cmd))}
		}
		return chatAction{party: &world.PartyAction{Kind: kind, Name: name}}
	case "/accept", "/decline":
		kind := world.PartyAccept
		if strings.EqualFold(cmd, "/decline") {
			kind = world.PartyDecline
		}
		return chatAction{party: &world.PartyAction{Kind: kind, Name: partyName(rest)}}
	case "/leave":
		// Alone, /leave leaves the party, as it always has; with a name, the channel.
		if rest == "" || strings.EqualFold(rest, "party") {
			return chatAction{party: &world.PartyAction{Kind: world.PartyLeave}}
		}
		return chatAction{channel: &world.ChannelAction{Kind: world.ChannelLeave, Name: rest}}
	case "/disband":
		return chatAction{party: &world.PartyAction{Kind: world.PartyDisband}}
	case "/mute", "/ignore":
		if rest == "" {
			return chatAction{note: "Mute whom? /mute NAME hides that knight's chat."}
		}
		return chatAction{mute: rest}
	case "/unmute", "/unignore":
		if rest == "" {
			return chatAction{note: "Unmute whom? /unmute NAME."}
		}
		return chatAction{unmute: rest}
	case "/help", "/?":
		return chatAction{note: chatHelp}
	}
	if ch := world.ChannelNamed(cmd[1:]); ch != nil { // /newbie TEXT, /ooc TEXT
		if rest == "" {
			return chatAction{note: fmt.Sprintf("Say what on %s? /%s TEXT.", ch.Name, ch.Name)}
		}
		return chatAction{chat: &world.Chat{Kind: world.ChatChannel, To: ch.Name, Text: rest}}
	}
	return chatAction{note: fmt.Sprintf("%s is not a chat command. %s", world.CleanText(cmd, 20), chatHelp)}
}

// sendChat carries out a typed chat line and returns a note for the player, if any, and
// a command (reading the letters asks the world).
func (m *Model) sendChat(line string) (string, tea.Cmd) {
	a := parseChat(line)
	pl := m.player.Load()
	needsKnight := a.chat != nil || a.channel != nil || a.letter != nil || a.report != nil || a.away != nil || a.mail
	if needsKnight && pl == nil {
		return "You are not in the game.", nil
	}
	var err error
	switch {
	case a.chat != nil:
		err = pl.Chat(m.ctx, *a.chat)
	case a.channel != nil:
		err = pl.Channel(m.ctx, *a.channel)
	case a.letter != nil:
		err = pl.SendLetter(m.ctx, a.letter.name, a.letter.text, m.now())
	case a.report != nil:
		err = pl.Report(m.ctx, a.report.name, a.report.text)
	case a.away != nil:
		err = pl.Away(m.ctx, *a.away)
	case a.mail:
		return "", m.openMail()
	case a.party != nil:
		return m.partyAction(*a.party), nil
	case a.screen:
		if m.pl.active {
			return strings.Join(partySentences(m.view), " "), nil
		}
		m.screen = screenParty
	case a.mute != "":
		return m.setMuted(a.mute, true), nil
	case a.unmute != "":
		return m.setMuted(a.unmute, false), nil
	}
	if err != nil {
		return "The world is not answering; your line was not sent.", nil
	}
	return a.note, nil
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

// chatKey handles a key for the chat line: Enter or ' on the dungeon screen opens it, and
// while it is open every key is its own. handled is false for keys the game should have.
func (m *Model) chatKey(k tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	ch := &m.chat
	s := k.String()
	if !ch.open {
		ch.note = ""
		if s != "enter" && s != "'" {
			return nil, false
		}
		ch.open = true
		ch.history.reset()
		ch.input.Reset()
		return ch.input.Focus(), true
	}
	switch s {
	case "esc":
		ch.open = false
		ch.input.Blur()
	case "enter":
		line := strings.TrimSpace(ch.input.Value())
		ch.open = false
		ch.input.Blur()
		if line == "" {
			return nil, true
		}
		ch.history.add(line)
		var cmd tea.Cmd
		ch.note, cmd = m.sendChat(line)
		return cmd, true
	case "up", "down":
		ch.history.recall(s == "up", &ch.input)
	default:
		var c tea.Cmd
		ch.input, c = ch.input.Update(k)
		return c, true
	}
	return nil, true
}

// openChatWith opens the chat line on the dungeon screen with text already typed (the
// party screen's keys start a party command this way).
func (m *Model) openChatWith(text string) tea.Cmd {
	m.screen = screenPlay
	ch := &m.chat
	ch.open, ch.note = true, ""
	ch.history.reset()
	ch.input.Reset()
	ch.input.SetValue(text)
	ch.input.CursorEnd()
	return ch.input.Focus()
}

// chatLineHelp is what the open chat line takes, shown above it.
const chatLineHelp = "Enter sends, Esc cancels. /me, /shout, /w NAME, /r, /p party, /newbie, /mail NAME, /help"

// drawChat draws the open chat line in place of the last message, with what it takes on
// the rows above, or the note of the last line sent.
func (m *Model) drawChat(c *canvas) {
	if m.screen != screenPlay || m.console.open {
		return
	}
	ch := &m.chat
	row := m.lay.msgRow()
	blank := strings.Repeat(" ", c.w)
	if !ch.open {
		if ch.note != "" {
			drawAbove(c, row, wrap(ch.note, c.w), clsText)
		}
		return
	}
	drawAbove(c, row-1, wrap(chatLineHelp, c.w), clsDim)
	c.text(0, row, blank, clsText)
	in := ch.input.Prompt + ch.input.Value() + "_"
	c.text(0, row, inputTail(in, c.w), clsSelf)
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

// inputTail is the end of a typed line that fits in w columns: an input field shows
// where the typing is, as every line editor does.
func inputTail(in string, w int) string {
	r := []rune(in)
	for len(r) > 0 && textWidth(string(r)) > w {
		r = r[1:]
	}
	return string(r)
}

// logFoot is the message log's keys.
const logFoot = "arrows, space and b scroll; Enter in the dungeon opens the chat line; any other key returns"

// logPage is the message log at the screen's size: every message wrapped to the width
// (a long one hangs under its start), the keys, and how many rows show the messages.
func (m *Model) logPage() (lines, foot []string, page int) {
	w, h := m.frameSize()
	for _, msg := range m.view.Messages {
		lines = append(lines, wrapHang(msg, w-4, 2)...)
	}
	foot = wrap(logFoot, w-4)
	return lines, foot, max(1, h-2-len(foot))
}

// scrollLog moves the message log by a key and reports whether the key was a scrolling one.
func (m *Model) scrollLog(key string) bool {
	lines, _, page := m.logPage()
	last := max(0, len(lines)-page)
	top := m.logTop
	if top < 0 {
		top = last
	}
	if k, ok := letterScroll[key]; ok {
		key = k
	}
	if !scrollKey(key, &top, len(lines), page) {
		return false
	}
	m.logTop = top
	if m.logTop >= last {
		m.logTop = -1 // follow the newest lines again
	}
	return true
}

// drawLog draws the scroll-back of the player's messages: game messages, chat and
// announcements, newest at the bottom.
func (m *Model) drawLog(c *canvas) {
	msgs := m.view.Messages
	lines, foot, page := m.logPage()
	title := "MESSAGES AND CHAT: the last " + english.Count(len(msgs), "message", "messages")
	top := m.logTop
	if top < 0 || top > len(lines)-page {
		top = max(0, len(lines)-page)
	}
	if len(lines) > page {
		title += fmt.Sprintf(", lines %d-%d of %d", top+1, min(top+page, len(lines)), len(lines))
	}
	c.text(2, 0, title, clsTitle) // at most 67 columns
	for i := 0; i < page && top+i < len(lines); i++ {
		c.text(2, 1+i, lines[top+i], clsText)
	}
	if len(msgs) == 0 {
		c.text(2, 2, "Nothing yet.", clsDim)
	}
	for i, l := range foot {
		c.text(2, c.h-len(foot)+i, l, clsTitle)
	}
}

// logKey scrolls the message log; any other key returns to the game.
func (m *Model) logKey(k tea.KeyPressMsg) tea.Cmd {
	if !m.scrollLog(k.String()) {
		m.screen = screenPlay
	}
	return nil
}
