package world

import (
	"context"
	"fmt"
)

// Away and idle: a knight says it is away, with a reason if it likes, until
// its next key (the session sends Back); the who-list shows that, and how long each
// knight has sent nothing. A whisper to a knight that is away tells the sender so.

// MaxAwayRunes caps an away reason after cleaning.
const MaxAwayRunes = 80

type awayReq struct {
	from
	away   bool
	reason string
}

// Away says the knight is away, for the reason given ("" for none), until Back.
func (p *Player) Away(ctx context.Context, reason string) error {
	return p.e.send(ctx, awayReq{p.from, true, reason})
}

// Back ends the knight's being away; the session sends it with the next key pressed.
func (p *Player) Back(ctx context.Context) error {
	return p.e.send(ctx, awayReq{p.from, false, ""})
}

func (m awayReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		if !m.away {
			if p.soc.away {
				p.soc.away, p.soc.awayReason = false, ""
				e.tell(p, MsgOwn, "You are back.")
			}
			return
		}
		reason := CleanText(m.reason, MaxAwayRunes)
		if reason != "" {
			// A reason is text others read in the who-list: it is talk.
			if note := e.silencedNote(p); note != "" {
				e.tell(p, MsgOwn, note+" (You are away without a reason.)")
				reason = ""
			} else if !e.allowTalk(p, talkAway) {
				e.tell(p, MsgOwn, floodNote(p)+" (You are away without a reason.)")
				reason = ""
			} else {
				e.soc.counts.said[talkAway]++
			}
		}
		p.soc.away, p.soc.awayReason = true, reason
		if reason != "" {
			e.tell(p, MsgOwn, fmt.Sprintf("You are away: %s. The next key you press brings you back.", reason))
		} else {
			e.tell(p, MsgOwn, "You are away. The next key you press brings you back.")
		}
	})
}

// awayNote tells a knight whispering to q that q is away.
func awayNote(q *player) string {
	if q.soc.awayReason != "" {
		return fmt.Sprintf("%s is away: %s.", q.rec.Name, q.soc.awayReason)
	}
	return q.rec.Name + " is away."
}

// whoEntry is p's row of the who-list.
func (e *Engine) whoEntry(p *player) WhoEntry {
	return WhoEntry{Name: p.rec.Name, ID: p.rec.ID, Level: p.rec.Level, Depth: p.rec.Depth,
		Watchable: !p.rec.Options.NoSpectators, Guest: p.rec.Guest, IdleTurns: e.turn - p.active, Away: p.soc.away, AwayReason: p.soc.awayReason,
		Deeds: p.rec.Deeds[:len(p.rec.Deeds):len(p.rec.Deeds)]}
}
