package world

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Chat (DESIGN §9): a knight says a line to those who can see it, acts it out (an emote,
// heard as a say is), shouts to the whole server, whispers to one knight (or replies to
// the last who whispered to it), talks to its party (party.go) or on a channel
// (channel.go). Every line is cleaned (CleanText) on the engine goroutine before it is
// put in anyone's messages, whoever sent it; a silenced knight's lines go nowhere
// (moderation.go), and a knight that talks too fast (a guest sooner) has its excess lines
// dropped with a note. Lines are messages like any other: they reach a terminal through the player's
// view. What is said aloud is kept for a while for reports (moderation.go).
//
// Tuning, at the default 25 ms tick:
//
//	constant / config              value   effect
//	ChatLines                      5       lines a knight may send within the window
//	GuestChatLines                 2       lines a guest may send within it
//	DefaultChatWindowTurns         400     the window: 10 s; Config.ChatWindowTurns overrides
//
// The window is counted in turns, so the world still never reads the clock; the server
// sets Config.ChatWindowTurns from its tick.
const (
	ChatLines              = 5
	GuestChatLines         = 2
	DefaultChatWindowTurns = 400
)

// ChatKind says who a line of chat is for.
type ChatKind uint8

// The kinds of chat.
const (
	ChatSay     ChatKind = iota // the knights who can see the speaker
	ChatShout                   // everyone online
	ChatWhisper                 // one knight, by name
	ChatParty                   // the speaker's party
	ChatEmote                   // an action, "Sir Kay waves.", heard by those who would hear a say
	ChatReply                   // a whisper to the last knight who whispered to the speaker
	ChatChannel                 // a channel (channel.go), named by To
	numChatKinds
)

// Chat is one line a player sends.
type Chat struct {
	Kind ChatKind
	// To names the knight a whisper is for, or the channel of a channel line. When a
	// whisper's To is empty, the knight's name is read from the start of Text: the longest
	// run of words that is the name of a knight online (names may hold spaces).
	To   string
	Text string
}

// Notes chat leaves in the sender's messages.
const (
	// FloodNote is what a knight who talks too fast is told; the line was not sent.
	// GuestFloodNote is what a guest is told, at its stricter allowance (GuestChatLines).
	FloodNote      = "You are talking too fast: that line was not sent. (At most 5 lines in 10 seconds.)"
	GuestFloodNote = "You are talking too fast: that line was not sent. (A guest may send 2 lines in 10 seconds; a knight with a key, 5.)"
	// NobodyHears follows a line said where no other knight could hear it.
	nobodyHears = " (no one is near enough to hear)"
)

type chatReq struct {
	from
	chat Chat
}

// Chat sends a line of chat. It is carried out at once, whatever the knight's energy:
// talking takes no time.
func (p *Player) Chat(ctx context.Context, c Chat) error {
	return p.e.send(ctx, chatReq{p.from, c})
}

// talker is the recent chat of one knight, for flood control: the turns of the lines it
// sent within the window, oldest first. It is kept by knight id, so reconnecting,
// opening a second connection or changing keys does not reset it.
type talker struct {
	turns []uint64
}

// chatLine is a line of chat on its way: who it is for, read from the Chat, and its
// text, cleaned.
type chatLine struct {
	kind  ChatKind
	party []*player  // ChatParty: the speaker's party
	ch    *Channel   // ChatChannel: the channel
	to    *player    // ChatWhisper, ChatReply: the knight whispered to
	far   *FarKnight // or the knight of another realm whispered to (realms.go)
	text  string
}

// toID is the id of the knight a whisper is for.
func (l chatLine) toID() string {
	switch {
	case l.to != nil:
		return l.to.rec.ID
	case l.far != nil:
		return l.far.ID
	}
	return ""
}

// handle is Chat on the engine goroutine.
func (m chatReq) handle(e *Engine) {
	if m.chat.Kind >= numChatKinds {
		return
	}
	m.carryOut(e, func(p *player) {
		l, note := e.address(p, m.chat)
		if note != "" {
			e.tell(p, MsgOwn, note) // a refusal: who it tried to whisper to is its own affair
			return
		}
		e.soc.counts.said[chatTalk[l.kind]]++
		e.sayLine(p, l)
		e.keep(p, l.kind, l.ch, l.toID(), l.text)
	})
}

// address reads a line of chat: who it is for and its text, or else a note for the
// speaker saying why it goes nowhere (silenced, no one to take it, nothing printable
// left, talking too fast). A line it lets through counts against the flood allowance.
func (e *Engine) address(p *player, c Chat) (l chatLine, note string) {
	if note := e.silencedNote(p); note != "" {
		return l, note
	}
	l = chatLine{kind: c.Kind, text: CleanText(c.Text, 0)} // cut to length once the whisper's name is taken off
	switch c.Kind {
	case ChatParty:
		if l.party = e.partyMembers(p); l.party == nil {
			return l, NoPartyNote
		}
	case ChatChannel:
		if l.ch, note = e.channelToTalk(p, c.To); l.ch == nil {
			return l, note
		}
	case ChatReply:
		if l.to, note = e.replyee(p); l.to == nil {
			if l.far = e.farByID(p.soc.replyTo); l.far == nil {
				return l, note
			}
		}
	case ChatWhisper:
		if note = e.addressWhisper(&l, c.To); note != "" {
			return l, note
		}
	}
	if l.text = CleanText(l.text, MaxChatRunes); l.text == "" {
		return l, "Say what? (Nothing printable was left of that line.)"
	}
	if !e.allowTalk(p, chatTalk[l.kind]) {
		return l, floodNote(p)
	}
	return l, ""
}

// addressWhisper finds the knight a whisper is for, here or else in another realm, and
// takes its name off the line's text; or it returns the note for the speaker.
func (e *Engine) addressWhisper(l *chatLine, to string) (note string) {
	text := l.text
	if l.to, l.text, note = e.whisperee(to, text); l.to != nil {
		return ""
	}
	if l.far, l.text = e.farWhisperee(to, text); l.far != nil {
		return ""
	}
	return note
}

// sayLine gives the line to those it is for (but those who mute the speaker), and the
// speaker its own copy.
func (e *Engine) sayLine(p *player, l chatLine) {
	from, text := p.rec.Name, l.text
	switch l.kind {
	case ChatShout:
		e.say(p, "You shout: "+text)
		for _, q := range e.order {
			if q != p && !q.rec.Options.Mutes(from) {
				e.hear(q, from+" shouts: "+text)
			}
		}
		e.sendAbroad(p, FarLine{Kind: ChatShout, Text: text})
	case ChatParty:
		e.tell(p, MsgParty, "You tell the party: "+text)
		for _, q := range l.party {
			if q != p && !q.rec.Options.Mutes(from) {
				e.tell(q, MsgParty, from+" (party): "+text)
			}
		}
	case ChatWhisper, ChatReply:
		if l.far != nil {
			e.whisperFar(p, l.far, text)
			return
		}
		e.whisper(p, l.to, text)
	case ChatChannel:
		e.talkOnChannel(p, l.ch, text)
	case ChatEmote:
		line := emote(from, text)
		e.aloud(p, line, line)
	default:
		e.aloud(p, "You say: "+text, from+" says: "+text)
	}
}

// whisper gives a whisper to the knight it is for, who may then reply to the speaker,
// telling the speaker when that knight is away.
func (e *Engine) whisper(p, to *player, text string) {
	from := p.rec.Name
	e.tell(p, MsgWhisper, fmt.Sprintf("You whisper to %s: %s", to.rec.Name, text))
	if to != p && !to.rec.Options.Mutes(from) {
		e.tell(to, MsgWhisper, from+" whispers: "+text)
		to.soc.replyTo, to.soc.replyName = p.rec.ID, from
	}
	if to.soc.away {
		e.tell(p, MsgWhisper, awayNote(to))
	}
}

// aloud gives a line said in the room to the knights who hear the speaker (and do not
// mute it), and mine to the speaker, saying so when no one heard. Who hears is who sees
// the speaker's square or stands on it; outside, everyone outside, together in the
// daylight. They are found where they stand (watchersOf): a line said on a level of
// thousands asks the knights around the speaker, not each of them.
func (e *Engine) aloud(p *player, mine, theirs string) {
	heard := false
	give := func(q *player) {
		if q == p {
			return
		}
		heard = true
		if !q.rec.Options.Mutes(p.rec.Name) {
			e.hear(q, theirs)
		}
	}
	if p.rec.Depth == 0 {
		for _, q := range e.onLevel(0) {
			give(q)
		}
	} else {
		for q := range e.watchersOf(p.rec.Depth, p.rec.Pos(), true) {
			give(q)
		}
	}
	if !heard {
		mine += nobodyHears
	}
	e.say(p, mine)
}

// emote is the line of an action: the knight's name, then the text ("Kay waves."), a
// full stop added when the text ends without a mark of its own. A text that starts with
// an apostrophe or a comma follows the name at once ("Kay's sword gleams.").
func emote(name, text string) string {
	line := name + " " + text
	if strings.HasPrefix(text, "'") || strings.HasPrefix(text, ",") {
		line = name + text
	}
	if last, _ := utf8.DecodeLastRuneInString(text); !strings.ContainsRune(".!?\"')…", last) {
		line += "."
	}
	return line
}

// replyee is the knight a reply goes to: the last who whispered to p, if still online
// (that knight, by its id: never another that has taken its name since).
func (e *Engine) replyee(p *player) (*player, string) {
	id, name := p.soc.replyTo, p.soc.replyName
	if id == "" {
		return nil, "No one has whispered to you yet. (/w NAME TEXT whispers; /r TEXT then answers the last who whispered to you.)"
	}
	if q := e.players[id]; q != nil {
		return q, ""
	}
	if _, stored := e.soc.known[NameKey(name)]; stored && !p.rec.Guest {
		return nil, fmt.Sprintf("%s is not in the game now. (/mail %s TEXT leaves a letter.)", name, name)
	}
	return nil, name + " is not in the game now."
}

// hear gives q a line another knight said to everyone around (or shouted). It is what
// others do, like their steps (crowd.go): it reaches an active screen within
// ActiveRefreshTurns and an idle one at its refresh, so a line said in a crowded room
// costs a frame a listener at most that often, not one each at once. Whispers and party
// talk, said to a few, show at once (say).
func (e *Engine) hear(q *player, line string) { e.hearKind(q, MsgGame, line) }

// hearKind is hear for a line of kind k.
func (e *Engine) hearKind(q *player, k MsgKind, line string) {
	noteKind(q, k, line)
	q.seen = true
}

// whisperee finds who a whisper is for: the knight online named to, or else the knight
// whose name starts text (the longest that matches), and the text left to whisper. When
// there is no such knight it returns nil and a note for the sender.
func (e *Engine) whisperee(to, text string) (q *player, rest, note string) {
	if to = strings.TrimSpace(to); to != "" {
		if q := e.online(to); q != nil {
			return q, text, ""
		}
		return nil, "", fmt.Sprintf("No knight named %s is in the game.", CleanText(to, MaxNameLen+10))
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return nil, "", "Whisper to whom? Type /w, a name, then the words."
	}
	if name, rest := splitAddressee("", text, func(n string) bool { return e.online(n) != nil }); name != "" {
		return e.online(name), rest, ""
	}
	return nil, "", fmt.Sprintf("No knight named %s is in the game.", CleanText(words[0], MaxNameLen+10))
}

// splitAddressee reads who a whisper is for: the name to, if known takes it, or else the
// longest run of words starting text that known takes; and the text left. The name is ""
// when there is none.
func splitAddressee(to, text string, known func(string) bool) (name, rest string) {
	if to = strings.TrimSpace(to); to != "" {
		if known(to) {
			return to, text
		}
		return "", ""
	}
	words := strings.Fields(text)
	for k := min(len(words), MaxNameLen); k >= 1; k-- {
		if n := strings.Join(words[:k], " "); known(n) {
			return n, strings.Join(words[k:], " ")
		}
	}
	return "", ""
}

// online is the knight online with the name, compared without regard to case; when
// several share it (names from before they were unique), the first to have joined.
func (e *Engine) online(name string) *player {
	for _, q := range e.order {
		if strings.EqualFold(q.rec.Name, name) {
			return q
		}
	}
	return nil
}

// allowChat counts a line against the flood allowance of the knight id and reports
// whether it may be sent: at most ChatLines lines within the window.
func (e *Engine) allowChat(id string, guest bool) bool {
	if e.talk == nil {
		e.talk = map[string]*talker{}
	}
	t := e.talk[id]
	if t == nil {
		t = &talker{}
		e.talk[id] = t
	}
	t.forget(e.turn, e.chatWindow())
	if len(t.turns) >= ChatLines || (guest && len(t.turns) >= GuestChatLines) {
		return false
	}
	t.turns = append(t.turns, e.turn)
	return true
}

// floodNote is what p is told of a line allowChat refused.
func floodNote(p *player) string {
	if p.rec.Guest {
		return GuestFloodNote
	}
	return FloodNote
}

// allowTalk is allowChat for a line of one kind (with a guest's stricter allowance),
// counting the lines it refuses.
func (e *Engine) allowTalk(p *player, kind talkKind) bool {
	if e.allowChat(p.rec.ID, p.rec.Guest) {
		return true
	}
	e.soc.counts.refused[kind]++
	return false
}

// forget drops the lines older than the window.
func (t *talker) forget(now, window uint64) {
	i := 0
	for i < len(t.turns) && now-t.turns[i] >= window {
		i++
	}
	t.turns = t.turns[:copy(t.turns, t.turns[i:])]
}

func (e *Engine) chatWindow() uint64 {
	if e.cfg.ChatWindowTurns > 0 {
		return uint64(e.cfg.ChatWindowTurns)
	}
	return DefaultChatWindowTurns
}

// forgetTalk drops the flood counts of knights that have been quiet for a whole window, so
// the map does not grow with every knight that ever spoke. It runs at every checkpoint, and
// so do the parties' clock (partyTick) and the community's (socialTick: history past
// its time, silences that have ended), which have no call of their own in Step.
func (e *Engine) forgetTalk() {
	e.partyTick()
	e.socialTick()
	for id, t := range e.talk {
		if t.forget(e.turn, e.chatWindow()); len(t.turns) == 0 {
			delete(e.talk, id)
		}
	}
}
