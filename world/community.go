package world

import "context"

// The community: what the knights say and write to one another beyond a line of
// chat, and what admins do about it — channels (channel.go), letters to knights who are
// not online (mail.go), being away (away.go), and silences, reports and the history they
// read (moderation.go). This file holds their state in the engine, the configuration the
// server gives them, the records they hand to the server to keep, and the few hooks the
// engine calls: a knight arriving, leaving, its view, and the checkpoint.

// CommunityConfig is the part of Config the community reads. The server loads its records
// from the store at start and sets its windows from -tick, as it sets ChatWindowTurns.
type CommunityConfig struct {
	// HistoryTurns is how long what is said aloud (says, emotes, shouts, channels) is kept
	// for reports and channel history; DefaultHistoryTurns when zero, nothing kept when
	// negative. Whispers are kept only for ReportTurns.
	HistoryTurns int
	// ReportTurns is how far back a report reaches: the reported knight's lines of that
	// long go with it; DefaultReportTurns when zero.
	ReportTurns int
	// HourTurns is the turns of an hour, which reports are counted in (MaxReportsPerHour);
	// DefaultHourTurns when zero.
	HourTurns int
	// Knights are the stored knights, for letters to knights who are not online.
	Knights []KnownKnight
	// Mail are the letters waiting, by the recipient knight's id (Adventurer.ID).
	Mail map[string][]Letter
	// Silences are the silences still running when the server started, by knight id.
	Silences []Silence
	// Archive is where letters and reports go to be kept; nil keeps them in the engine only.
	Archive Archive
	// Abroad takes the lines that leave for other realms (realms.go); nil: the server is
	// alone, and talk stays in it.
	Abroad Abroad
}

// Tuning, at the default 25 ms tick:
//
//	constant              value      effect
//	DefaultHistoryTurns   3456000    what is said aloud is kept 24 hours (-chat-history)
//	DefaultReportTurns    24000      a report carries the reported knight's lines of the last 10 minutes
//	DefaultHourTurns      144000     an hour, which reports are counted in
//	maxHistory            20000      lines said aloud kept at most, whatever their age
const (
	DefaultHistoryTurns = 3456000
	DefaultReportTurns  = 24000
	DefaultHourTurns    = 144000
	maxHistory          = 20000
)

// Archive receives the community's records to keep: letters and reports. It is called
// from the engine goroutine and must not block on disk.
type Archive interface {
	// PutMail replaces the whole mailbox of the knight whose id is to; an empty one is
	// deleted.
	PutMail(to string, letters []Letter)
	// PutReport keeps a report filed by a player.
	PutReport(r Report)
}

// KnownKnight is a stored knight as the community knows it: its id (Adventurer.ID,
// the same whichever of its keys plays it), its name, and whether it has died or retired
// (letters no longer reach it). A guest is never one: it is not stored.
type KnownKnight struct {
	ID    string
	Name  string
	Ended bool
}

// socialState is the engine's community, owned by the engine goroutine.
type socialState struct {
	channels [numChannels]channelState // the channels' recent lines (channel.go)
	// public are the lines said aloud, whispers the whispers, oldest first, for reports
	// (moderation.go).
	public, whispers []keptLine
	lineSeq          uint64
	known            map[string]KnownKnight // every knight ever here but guests, by NameKey of its name (mail.go)
	mail             map[string][]Letter    // letters waiting, by the recipient knight's id (mail.go)
	nextLetter       uint64
	silenced         map[string]silence  // by knight id, a guest's too (moderation.go)
	reported         map[string][]uint64 // the turns of each reporter's reports in the last hour, by its id; all guests' under guestsReported (moderation.go)
	counts           talkCounts
	far              map[string][]FarKnight // the knights of other realms, by realm (realms.go)
}

// playerSocial is a knight's part of the community while it is in the world.
type playerSocial struct {
	// replyTo is the id of the last knight who whispered to it, for /r, and replyName
	// that knight's name: a reply goes to that knight, never to another who took the name
	// since (a guest's name is let go when it leaves).
	replyTo, replyName string
	away               bool // it said it is away (away.go), until its next key
	awayReason         string
}

// initSocial loads the community from the configuration.
func (e *Engine) initSocial() {
	c := e.cfg.Community
	e.soc.known = map[string]KnownKnight{}
	for _, k := range c.Knights {
		e.soc.known[NameKey(k.Name)] = k
	}
	e.soc.mail = map[string][]Letter{}
	for to, ls := range c.Mail {
		for _, l := range ls {
			e.soc.nextLetter++
			l.ID = e.soc.nextLetter
			e.soc.mail[to] = append(e.soc.mail[to], l)
		}
	}
	e.soc.silenced = map[string]silence{}
	e.soc.reported = map[string][]uint64{}
	for _, s := range c.Silences {
		if s.Turns > 0 {
			e.soc.silenced[s.Knight] = silence{until: e.turn + s.Turns, text: s.Until, reason: s.Reason}
		}
	}
}

// greet tells a knight arriving (joining, or taken over by a new connection) what waits
// for it: its letters and its channels. It also enters the knight in the community's book
// of knights, so letters reach it; a guest is left out, as it is never saved.
func (e *Engine) greet(p *player) {
	if !p.rec.Guest {
		e.soc.known[NameKey(p.rec.Name)] = KnownKnight{ID: p.rec.ID, Name: p.rec.Name}
	}
	if n := e.unread(p); n > 0 {
		e.tell(p, MsgLetter, unreadNote(n))
	}
	if names := e.channelsOf(p); len(names) > 0 {
		e.tell(p, MsgChannel, onChannelsNote(names))
	}
}

// socialLeft is the community's part of a knight leaving the world: a dead or retired
// knight's name no longer takes letters, and the letters waiting for it are dropped (the
// knight its keys roll next, under the same id, starts with none).
func (e *Engine) socialLeft(p *player) {
	if !p.rec.Ended() || p.rec.Guest {
		return
	}
	e.soc.known[NameKey(p.rec.Name)] = KnownKnight{ID: p.rec.ID, Name: p.rec.Name, Ended: true}
	e.dropMail(p.rec.ID)
}

// dropMail deletes the mailbox of the knight id, if it has one.
func (e *Engine) dropMail(id string) {
	if len(e.soc.mail[id]) > 0 {
		delete(e.soc.mail, id)
		e.archiveMail(id)
	}
}

type forgetReq struct{ id string }

// ForgetKnight tells the community that the knight id is no longer stored (a key that
// played it went to another knight, and it had no other: DESIGN §12, "Keys and guests"):
// its name takes no more letters, and its letters are dropped, so a knight that takes
// the name later reads none of them.
func (e *Engine) ForgetKnight(ctx context.Context, id string) error {
	return e.send(ctx, forgetReq{id})
}

func (m forgetReq) handle(e *Engine) {
	for k, kk := range e.soc.known {
		if kk.ID == m.id {
			delete(e.soc.known, k)
		}
	}
	e.dropMail(m.id)
}

// fillSocial puts the knight's part of the community in its view.
func (e *Engine) fillSocial(p *player, v *View) {
	v.Self.Unread = e.unread(p)
	v.Self.Away = p.soc.away
}

// socialTick is the community's clock, run at every checkpoint: history past its time is
// forgotten, and silences that have run out end.
func (e *Engine) socialTick() {
	e.forgetHistory()
	e.endSilences()
}

func (e *Engine) historyTurns() uint64 {
	switch h := e.cfg.Community.HistoryTurns; {
	case h < 0:
		return 0
	case h == 0:
		return DefaultHistoryTurns
	default:
		return uint64(h)
	}
}

func (e *Engine) reportTurns() uint64 {
	if r := e.cfg.Community.ReportTurns; r > 0 {
		return uint64(r)
	}
	return DefaultReportTurns
}
