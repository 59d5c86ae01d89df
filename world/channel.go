package world

import (
	"context"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Channels: talk between the knights on a channel, wherever they stand. A
// knight joins and leaves a channel as it likes, and its choice is saved with it
// (Adventurer.Channels); on a channel it never chose it is as the channel's row says: a
// new knight is on newbie until it reaches level 3. A channel line reaches every knight
// on the channel who does not mute the speaker, and the channel's last
// MaxChannelHistory lines are shown to a knight who joins it (if said within the
// history's time, moderation.go).

// Channel is one channel, a row of Channels.
type Channel struct {
	Name  string
	About string // what it is for, as /channels says
	// Below is the level below which a knight is on the channel unless it left it; 0: no
	// one is on it who did not join it.
	Below int
}

// numChannels is the number of channels.
const numChannels = 2

// Channels are the channels, by the order /channels lists them.
var Channels = [numChannels]Channel{
	{Name: "newbie", About: "questions about the game, asked and answered; no question is too small", Below: 3},
	{Name: "ooc", About: "out of character: anything but the game"},
}

// MaxChannelHistory is how many of a channel's last lines a knight who joins it reads.
const MaxChannelHistory = 50

// channelState is a channel's recent lines, oldest first.
type channelState struct {
	lines []keptLine
}

// ChannelActionKind is what a channel action does.
type ChannelActionKind uint8

// The channel actions.
const (
	ChannelJoin  ChannelActionKind = iota // join the channel Name, reading its last lines
	ChannelLeave                          // leave the channel Name
	ChannelList                           // list the channels
)

// ChannelAction is one channel command from a player. Like talking, it takes no time.
type ChannelAction struct {
	Kind ChannelActionKind
	Name string
}

type channelReq struct {
	from
	act ChannelAction
}

// Channel sends a channel action.
func (p *Player) Channel(ctx context.Context, a ChannelAction) error {
	return p.e.send(ctx, channelReq{p.from, a})
}

// ChannelNamed is the channel with the name, compared without regard to case (a leading
// # is allowed), or nil.
func ChannelNamed(name string) *Channel {
	name = strings.TrimPrefix(strings.TrimSpace(name), "#")
	for i := range Channels {
		if strings.EqualFold(Channels[i].Name, name) {
			return &Channels[i]
		}
	}
	return nil
}

// index is the channel's place in Channels.
func (c *Channel) index() int {
	for i := range Channels {
		if &Channels[i] == c {
			return i
		}
	}
	return -1
}

func (m channelReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		if m.act.Kind == ChannelList {
			e.listChannels(p)
			return
		}
		ch := ChannelNamed(m.act.Name)
		if ch == nil {
			e.tell(p, MsgChannel, noChannelNote(m.act.Name))
			return
		}
		on := e.onChannel(p, ch)
		switch {
		case m.act.Kind == ChannelJoin && on:
			e.tell(p, MsgChannel, fmt.Sprintf("You are on %s already. (/%s TEXT talks there.)", ch.Name, ch.Name))
		case m.act.Kind == ChannelJoin:
			e.setChannel(p, ch, true)
			e.sayChannelHistory(p, ch)
			e.tell(p, MsgChannel, fmt.Sprintf("You join %s: %s. (/%s TEXT talks there; /leave %s leaves it.)", ch.Name, ch.About, ch.Name, ch.Name))
		case !on:
			e.tell(p, MsgChannel, fmt.Sprintf("You are not on %s. (/join %s joins it.)", ch.Name, ch.Name))
		default:
			e.setChannel(p, ch, false)
			e.tell(p, MsgChannel, fmt.Sprintf("You leave %s. (/join %s comes back.)", ch.Name, ch.Name))
		}
	})
}

// onChannel reports whether p is on the channel.
func (e *Engine) onChannel(p *player, ch *Channel) bool {
	if on, chose := p.rec.Channels[ch.Name]; chose {
		return on
	}
	return p.rec.Level < ch.Below
}

// setChannel records p's choice to be on the channel or not; it is saved with the knight.
func (e *Engine) setChannel(p *player, ch *Channel, on bool) {
	if p.rec.Channels == nil {
		p.rec.Channels = map[string]bool{}
	}
	p.rec.Channels[ch.Name] = on
	p.changed = true
}

// channelsOf names the channels p is on.
func (e *Engine) channelsOf(p *player) []string {
	var out []string
	for i := range Channels {
		if e.onChannel(p, &Channels[i]) {
			out = append(out, Channels[i].Name)
		}
	}
	return out
}

// channelToTalk is the channel a line of p's is for, or nil and a note.
func (e *Engine) channelToTalk(p *player, name string) (*Channel, string) {
	ch := ChannelNamed(name)
	switch {
	case strings.TrimSpace(name) == "":
		return nil, "Which channel? (/c NAME TEXT; /channels lists them.)"
	case ch == nil:
		return nil, noChannelNote(name)
	case !e.onChannel(p, ch):
		return nil, fmt.Sprintf("You are not on %s. (/join %s joins it.)", ch.Name, ch.Name)
	}
	return ch, ""
}

// talkOnChannel gives p's line to everyone on the channel who does not mute p.
func (e *Engine) talkOnChannel(p *player, ch *Channel, text string) {
	line := channelLine(ch, p.rec.Name, text)
	e.hearOnChannel(ch, p, p.rec.Name, line)
	e.tell(p, MsgChannel, line)
	e.sendAbroad(p, FarLine{Kind: ChatChannel, To: ch.Name, Text: text})
}

// hearOnChannel gives line, of the knight named name, to everyone on ch but skip (the
// knight itself, or nil) who does not mute that name.
func (e *Engine) hearOnChannel(ch *Channel, skip *player, name, line string) {
	for _, q := range e.order {
		if q != skip && e.onChannel(q, ch) && !q.rec.Options.Mutes(name) {
			e.hearKind(q, MsgChannel, line)
		}
	}
}

// channelLine is a channel line as its listeners read it: "[newbie] Kay: where is the
// exit?"
func channelLine(ch *Channel, name, text string) string {
	return "[" + ch.Name + "] " + name + ": " + text
}

// keepOnChannel keeps a channel line for the knights who join the channel later.
func (e *Engine) keepOnChannel(ch *Channel, k keptLine) {
	if e.historyTurns() == 0 {
		return
	}
	c := &e.soc.channels[ch.index()]
	if len(c.lines) >= MaxChannelHistory {
		c.lines = c.lines[:copy(c.lines, c.lines[1:])]
	}
	c.lines = append(c.lines, k)
}

// sayChannelHistory tells p the channel's last lines, leaving out the knights it mutes.
func (e *Engine) sayChannelHistory(p *player, ch *Channel) {
	var lines []string
	for _, l := range e.soc.channels[ch.index()].lines {
		// The checkpoint forgets old lines; between checkpoints they are left out here.
		if e.turn-l.turn < e.historyTurns() && !p.rec.Options.mutesKey(l.speaker) {
			lines = append(lines, l.line)
		}
	}
	if len(lines) == 0 {
		e.tell(p, MsgChannel, fmt.Sprintf("Nothing has been said on %s lately.", ch.Name))
		return
	}
	e.tell(p, MsgChannel, fmt.Sprintf("The last %s said on %s:", english.Count(len(lines), "line", "lines"), ch.Name))
	for _, l := range lines {
		e.tell(p, MsgChannel, l)
	}
}

// listChannels tells p the channels, how many knights online are on each, and whether p is.
func (e *Engine) listChannels(p *player) {
	e.tell(p, MsgChannel, "Channels (/join NAME, /leave NAME, /c NAME TEXT or /NAME TEXT):")
	for i := range Channels {
		ch := &Channels[i]
		n := 0
		for _, q := range e.order {
			if e.onChannel(q, ch) {
				n++
			}
		}
		you := "you are not on it"
		if e.onChannel(p, ch) {
			you = "you are on it"
		}
		e.tell(p, MsgChannel, fmt.Sprintf("%s: %s (%s online on it; %s).", ch.Name, ch.About, english.Count(n, "knight", "knights"), you))
	}
}

// noChannelNote answers a channel name that is none.
func noChannelNote(name string) string {
	names := make([]string, len(Channels))
	for i, c := range Channels {
		names[i] = c.Name
	}
	return fmt.Sprintf("There is no channel named %s; the channels are %s.", CleanText(name, MaxNameLen+10), english.List(names))
}

// onChannelsNote tells a knight arriving which channels it is on.
func onChannelsNote(names []string) string {
	if len(names) == 1 && names[0] == Channels[0].Name {
		return fmt.Sprintf("You are on the %s channel, where questions are welcome: /%s TEXT asks everyone on it. (/channels lists the channels.)", names[0], names[0])
	}
	return fmt.Sprintf("You are on %s. (/channels lists the channels; /NAME TEXT talks on one.)", english.List(names))
}
