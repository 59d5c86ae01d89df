package world

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Moderation: what the world keeps of what is said, for the reports players
// file; admins' silences, under which a knight plays on but cannot talk; and the counts of
// what was said and refused, for the metrics.
//
// What is kept: every line said aloud — says, emotes, shouts, channel lines — for
// HistoryTurns (24 hours by default, -chat-history) and at most maxHistory lines;
// whispers only for ReportTurns (10 minutes), and only the knight they were whispered to
// can put them in a report. Party talk and letters are not kept here. None of it is
// written to disk but what a report carries.

// talkKind is a kind of thing a knight says or sends, as the metrics count them.
type talkKind uint8

const (
	talkSay talkKind = iota
	talkEmote
	talkShout
	talkWhisper
	talkParty
	talkChannel
	talkLetter
	talkReport
	talkRequest // a party invitation or asking
	talkAway    // an away reason, which the who-list shows
	numTalkKinds
)

// talkKindNames are the kinds' names in the metrics.
var talkKindNames = [numTalkKinds]string{
	talkSay: "say", talkEmote: "emote", talkShout: "shout", talkWhisper: "whisper", talkParty: "party",
	talkChannel: "channel", talkLetter: "letter", talkReport: "report", talkRequest: "request", talkAway: "away",
}

// chatTalk is the talk kind of each kind of chat line.
var chatTalk = [numChatKinds]talkKind{
	ChatSay: talkSay, ChatShout: talkShout, ChatWhisper: talkWhisper, ChatParty: talkParty,
	ChatEmote: talkEmote, ChatReply: talkWhisper, ChatChannel: talkChannel,
}

// talkCounts counts what was sent and what flood control refused, by kind.
type talkCounts struct {
	said, refused [numTalkKinds]uint64
}

// TalkCounts is what was said and refused since the engine started, for the metrics.
type TalkCounts struct {
	// Said counts what was sent, by kind: say, emote, shout, whisper (replies too), party,
	// channel, letter, report, request (party invitations and askings), away (a reason).
	Said map[string]uint64
	// Refused counts what flood control refused, by the same kinds.
	Refused map[string]uint64
}

// TalkCounts reads the counts.
func (e *Engine) TalkCounts(ctx context.Context) (TalkCounts, error) {
	out := TalkCounts{Said: map[string]uint64{}, Refused: map[string]uint64{}}
	err := e.query(ctx, func() {
		for k, name := range talkKindNames {
			out.Said[name] = e.soc.counts.said[k]
			out.Refused[name] = e.soc.counts.refused[k]
		}
	})
	return out, err
}

// keptLine is a line kept for reports and channel history.
type keptLine struct {
	seq  uint64 // its place among all the lines kept, which may share a turn
	turn uint64
	// speaker is the NameKey of the speaker's name (for the mutes of who reads it),
	// speakerID its knight id, name its name, guest whether it is a guest: a report finds
	// the lines of one knight, never of another that took its name since.
	speaker, speakerID, name string
	guest                    bool
	where                    string // "say", "emote", "shout", a channel's name, or "whisper"
	to                       string // for a whisper, the id of the knight it was for
	line                     string // as its listeners read it
}

// keep remembers a line p said, for reports (and, on a channel, its history).
func (e *Engine) keep(p *player, kind ChatKind, ch *Channel, to, text string) {
	e.soc.lineSeq++
	k := keptLine{seq: e.soc.lineSeq, turn: e.turn, speaker: NameKey(p.rec.Name), speakerID: p.rec.ID,
		name: p.rec.Name, guest: p.rec.Guest}
	switch kind {
	case ChatSay:
		k.where, k.line = "say", p.rec.Name+" says: "+text
	case ChatEmote:
		k.where, k.line = "emote", emote(p.rec.Name, text)
	case ChatShout:
		k.where, k.line = "shout", p.rec.Name+" shouts: "+text
	case ChatChannel:
		k.where, k.line = ch.Name, channelLine(ch, p.rec.Name, text)
		e.keepOnChannel(ch, k)
	case ChatWhisper, ChatReply:
		k.where, k.to, k.line = "whisper", to, p.rec.Name+" whispers: "+text
		e.soc.whispers = append(e.soc.whispers, k)
		return
	default:
		return // party talk is the party's
	}
	e.keepPublic(k)
}

// keepPublic keeps a line said aloud, for reports.
func (e *Engine) keepPublic(k keptLine) {
	if e.historyTurns() == 0 {
		return
	}
	if len(e.soc.public) >= maxHistory {
		e.soc.public = e.soc.public[:copy(e.soc.public, e.soc.public[1:])]
	}
	e.soc.public = append(e.soc.public, k)
}

// forgetHistory drops the lines older than they may be kept.
func (e *Engine) forgetHistory() {
	e.soc.public = e.older(e.soc.public, e.historyTurns())
	e.soc.whispers = e.older(e.soc.whispers, min(e.historyTurns(), e.reportTurns()))
	for i := range e.soc.channels {
		c := &e.soc.channels[i]
		c.lines = e.older(c.lines, e.historyTurns())
	}
}

// older drops the lines of ls, oldest first, that are keep turns old or more.
func (e *Engine) older(ls []keptLine, keep uint64) []keptLine {
	i := 0
	for i < len(ls) && e.turn-ls[i].turn >= keep {
		i++
	}
	if i == 0 {
		return ls
	}
	return ls[:copy(ls, ls[i:])]
}

// --- silences ---------------------------------------------------------------------------

// Silence is an admin's silencing of a knight (DESIGN §12, "A living community"): it
// plays on but what it says, shouts, whispers, writes or gives as an away reason reaches
// no one, until the silence ends. It holds the knight by its id, whichever of its keys
// plays it.
type Silence struct {
	// Knight is the knight's id (Adventurer.ID); a guest's lasts its session.
	Knight string
	// Turns is how long the silence lasts from now, in turns; zero lifts it.
	Turns uint64
	// Until says when it ends, as the knight is told ("2025-06-01 15:04 UTC"): the server
	// writes it, the world never reads the clock.
	Until string
	// Reason is the admin's reason, told to the knight.
	Reason string
}

// silence is a Silence running in the engine.
type silence struct {
	until  uint64 // the turn it ends
	text   string // Silence.Until
	reason string
}

// Silenced is what Silence did: the knight's name when it is online, and whether it was
// silenced before.
type Silenced struct {
	Name        string
	Online, Was bool
}

// Silence silences a knight, or lifts its silence (Turns zero), and tells the knight if
// it is online.
func (e *Engine) Silence(ctx context.Context, s Silence) (done Silenced, err error) {
	s.Reason = CleanText(s.Reason, MaxBroadcastRunes)
	err = e.query(ctx, func() {
		old, was := e.soc.silenced[s.Knight]
		was = was && e.turn < old.until
		done.Was = was
		if s.Turns == 0 {
			delete(e.soc.silenced, s.Knight)
		} else {
			e.soc.silenced[s.Knight] = silence{until: e.turn + s.Turns, text: s.Until, reason: s.Reason}
		}
		p, ok := e.players[s.Knight]
		if !ok {
			return
		}
		done.Name, done.Online = p.rec.Name, true
		switch {
		case s.Turns > 0:
			e.tell(p, MsgOwn, silencedNote(s.Until, s.Reason, true))
		case was:
			e.tell(p, MsgOwn, "An admin has lifted your silence: you may talk again.")
		}
		e.publish()
	})
	return done, err
}

// silencedNote is what a silenced knight is told: when it is silenced (now), and whenever
// it tries to talk.
func silencedNote(until, reason string, now bool) string {
	why := ""
	if reason != "" {
		why = " (" + strings.TrimRight(reason, ".") + ")"
	}
	if now {
		return fmt.Sprintf("An admin has silenced you until %s%s. You can play on, but what you say, shout, whisper or write reaches no one until then.", until, why)
	}
	return fmt.Sprintf("You are silenced until %s%s: no one hears you.", until, why)
}

// silencedNote is what p is told when it tries to talk while silenced, or "" when it may
// talk.
func (e *Engine) silencedNote(p *player) string {
	s, ok := e.soc.silenced[p.rec.ID] // the knight's id
	if !ok {
		return ""
	}
	if e.turn >= s.until {
		e.endSilence(p.rec.ID)
		return ""
	}
	return silencedNote(s.text, s.reason, false)
}

// endSilences ends the silences that have run out.
func (e *Engine) endSilences() {
	for id, s := range e.soc.silenced {
		if e.turn >= s.until {
			e.endSilence(id)
		}
	}
}

// endSilence ends a knight's silence, telling it.
func (e *Engine) endSilence(id string) {
	delete(e.soc.silenced, id)
	if p, ok := e.players[id]; ok {
		e.tell(p, MsgOwn, "Your silence is over: you may talk again.")
	}
}

// --- reports ----------------------------------------------------------------------------

// Report is a player's report of another knight to the admins, with what the reported
// knight said lately: every line it said aloud within ReportTurns, and the whispers it
// sent the reporter.
type Report struct {
	// From and FromKnight are the reporter's name and knight id, About and AboutKnight
	// the reported knight's (a guest's id is its session's: "guest-…"); AboutGuest says
	// the reported knight is a guest, FromGuest the reporter.
	From, FromKnight   string
	About, AboutKnight string
	FromGuest          bool
	AboutGuest         bool
	Reason             string
	Lines              []ReportLine
}

// ReportLine is one line a reported knight said.
type ReportLine struct {
	// Ago is how many turns before the report it was said.
	Ago uint64
	// Where is where it was said: say, emote, shout, a channel's name, or whisper (to the
	// reporter).
	Where string
	Line  string
}

// maxReportLines bounds the lines a report carries: the newest are kept.
const maxReportLines = 100

// How many reports are taken, so that a handful of reporters cannot bury the admins in
// hundreds of reports a minute. A report that updates the reporter's open one about the
// same knight counts too. A guest's session is its identity, and a guest may come back
// as a new one, so guests are counted together as well as each on its own.
//
//	constant                value  effect
//	MaxReportsPerHour       3      reports a knight with a key may file in an hour
//	MaxGuestReportsPerHour  5      reports all guests together may file in an hour, one each
const (
	MaxReportsPerHour      = 3
	MaxGuestReportsPerHour = 5
)

// guestsReported is the key of reported under which all guests' reports are counted
// (no knight id is empty).
const guestsReported = ""

// The lines a reporter past its count reads.
const (
	reportsPerHourNote = "You have filed %d reports in the last hour; the admins have them. Wait before you report again."
	guestReportNote    = "A guest may file one report, and the admins take only a few from guests in an hour. " +
		"Keep your knight with the code you are given when you leave, and it may report more."
)

// reportAllowed counts a report of p now, or says why it is not taken.
func (e *Engine) reportAllowed(p *player) (string, bool) {
	hour := e.cfg.Community.HourTurns
	if hour <= 0 {
		hour = DefaultHourTurns
	}
	recent := func(id string) []uint64 {
		turns := slices.DeleteFunc(e.soc.reported[id], func(t uint64) bool { return e.turn-t >= uint64(hour) })
		if len(turns) == 0 {
			delete(e.soc.reported, id)
		}
		return turns
	}
	if len(e.soc.reported) > maxTrackedReporters {
		for id := range e.soc.reported {
			recent(id)
		}
	}
	mine := recent(p.rec.ID)
	if p.rec.Guest {
		if len(mine) > 0 || len(recent(guestsReported)) >= MaxGuestReportsPerHour {
			return guestReportNote, false
		}
		e.soc.reported[guestsReported] = append(e.soc.reported[guestsReported], e.turn)
	} else if len(mine) >= MaxReportsPerHour {
		return fmt.Sprintf(reportsPerHourNote, len(mine)), false
	}
	e.soc.reported[p.rec.ID] = append(mine, e.turn)
	return "", true
}

// maxTrackedReporters is how many reporters' counts are kept before the old ones are
// swept out all at once.
const maxTrackedReporters = 1000

type reportReq struct {
	from
	about  string // the name, then the reason
	reason string // set when the name was given apart (quoted)
}

// Report files a report about a knight, online or not: text is the knight's name (the
// longest run of words that is a knight's name) and then why, unless about is given.
func (p *Player) Report(ctx context.Context, about, text string) error {
	return p.e.send(ctx, reportReq{p.from, about, text})
}

func (m reportReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		k, reason, note := e.knightIn(m.about, m.reason, "Report whom? (/report NAME REASON)", true)
		if note != "" {
			e.tell(p, MsgOwn, note)
			return
		}
		reason = CleanText(reason, MaxChatRunes)
		switch {
		case k.ID == p.rec.ID:
			e.tell(p, MsgOwn, "You cannot report yourself.")
			return
		case reason == "":
			e.tell(p, MsgOwn, fmt.Sprintf("Say why, after the name: /report %s REASON.", k.Name))
			return
		case !e.allowTalk(p, talkReport):
			e.tell(p, MsgOwn, floodNote(p))
			return
		}
		if note, ok := e.reportAllowed(p); !ok {
			e.tell(p, MsgOwn, note)
			return
		}
		r := Report{From: p.rec.Name, FromKnight: p.rec.ID, FromGuest: p.rec.Guest,
			About: k.Name, AboutKnight: k.ID, AboutGuest: k.guest, Reason: reason,
			Lines: e.saidLately(k.ID, p.rec.ID)}
		e.soc.counts.said[talkReport]++
		if a := e.cfg.Community.Archive; a != nil {
			a.PutReport(r)
		}
		e.tell(p, MsgOwn, fmt.Sprintf("Your report about %s is with the admins, with %s %s said lately. Thank you.",
			k.Name, countLines(len(r.Lines)), k.Name))
	})
}

// saidLately is what the knight speaker (an id) said within the report window: its lines
// said aloud, and its whispers to reporter (an id), oldest first, the newest
// maxReportLines of them.
func (e *Engine) saidLately(speaker, reporter string) []ReportLine {
	since := e.reportTurns()
	var kept []keptLine
	add := func(ls []keptLine, whispers bool) {
		for _, l := range ls {
			if l.speakerID == speaker && e.turn-l.turn < since && (!whispers || l.to == reporter) {
				kept = append(kept, l)
			}
		}
	}
	add(e.soc.public, false)
	add(e.soc.whispers, true)
	// Two lists, each oldest first: merged in the order the lines were said.
	slices.SortFunc(kept, func(a, b keptLine) int { return cmp.Compare(a.seq, b.seq) })
	kept = kept[max(0, len(kept)-maxReportLines):]
	out := make([]ReportLine, len(kept))
	for i, l := range kept {
		out[i] = ReportLine{Ago: e.turn - l.turn, Where: l.where, Line: l.line}
	}
	return out
}

// speakerNamed is the knight that last said something kept under the name, for a report
// about a knight that is neither online nor stored: a guest that has left.
func (e *Engine) speakerNamed(name string) (namedKnight, bool) {
	key := NameKey(name)
	for _, ls := range [][]keptLine{e.soc.public, e.soc.whispers} {
		for i := len(ls) - 1; i >= 0; i-- {
			if l := ls[i]; l.speaker == key {
				return namedKnight{KnownKnight{ID: l.speakerID, Name: l.name}, l.guest}, true
			}
		}
	}
	return namedKnight{}, false
}

// countLines is "no lines", "1 line", "3 lines".
func countLines(n int) string {
	switch n {
	case 0:
		return "no lines"
	case 1:
		return "the 1 line"
	}
	return fmt.Sprintf("the %d lines", n)
}
