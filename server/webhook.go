package server

import (
	"fmt"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/webhook"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The bridge out (-webhook, DESIGN §12 "A bridge out"): the world's tidings and the
// admins' broadcasts, said in public words and handed to the webhook's queue, which
// never blocks the world. On a realm each is posted by the server whose world saw it
// (a knight plays in one realm at a time) or whose admin typed it, so once realm-wide.

// webhookGrace is how long a stopping server lets the webhook post what is queued,
// after the world has stopped and before the store closes.
const webhookGrace = 3 * time.Second

// openWebhook makes the webhook's poster when the server has a -webhook; nil otherwise.
func (s *Server) openWebhook() error {
	if s.cfg.Webhook == "" {
		return nil
	}
	p, err := webhook.New(webhook.Config{URL: s.cfg.Webhook, Server: s.cfg.Name, Realm: s.cfg.Realm}, s.log)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	s.hook = p
	return nil
}

// herald is the world's herald when the server has a webhook (nil otherwise, and the
// world tells no one).
func (s *Server) herald() world.Herald {
	if s.hook == nil {
		return nil
	}
	return webhookHerald{s}
}

// webhookHerald hands the world's tidings to the webhook, on the world's goroutine.
type webhookHerald struct{ s *Server }

// Proclaim implements world.Herald.
func (h webhookHerald) Proclaim(t world.Tiding) {
	if e, ok := tidingEvent(t, h.s.now()); ok {
		h.s.hook.Post(e)
	}
}

// postBroadcast posts an admin's broadcast as the knights read it (text cleaned).
func (s *Server) postBroadcast(text string) {
	s.hook.Post(webhook.Event{Kind: webhook.KindBroadcast, Time: s.now().UTC(),
		Fields: map[string]any{"message": text}, Text: "[admin] " + text})
}

// tidingEvent is a tiding as the webhook posts it, or false when it is not posted: a
// guest's knight is not saved, ranked or in the hall of fame, and is not told of
// outside either. A knight that keeps its replays private has only the fact of its death
// told ("Kay has died."): not what slew it, where or at which level. A retirement, a
// first level and a rare deed are told in full, as the hall of fame and the who-list
// show them to anyone (a deed's words name no one else and no place but a dungeon level,
// which the who-list shows).
func tidingEvent(t world.Tiding, at time.Time) (webhook.Event, bool) {
	if t.Guest {
		return webhook.Event{}, false
	}
	e := webhook.Event{Time: at.UTC(), Knight: t.Knight}
	switch t.Kind {
	case world.TidingDeath:
		e.Kind = webhook.KindDeath
		if t.Private {
			e.Text = t.Knight + " has died."
			return e, true
		}
		e.Fields = map[string]any{"level": t.Level, "killer": t.Killer, "depth": t.Depth}
		e.Text = fmt.Sprintf("%s, a knight of level %d, has been slain by %s %s.", t.Knight, t.Level, t.Killer, world.Death{Depth: t.Depth}.Where())
	case world.TidingRetirement:
		e.Kind = webhook.KindRetirement
		e.Fields = map[string]any{"level": t.Level, "experience": t.Experience}
		e.Text = fmt.Sprintf("%s retires with honour into the hall of fame, at level %d with %d experience.", t.Knight, t.Level, t.Experience)
	case world.TidingFirstLevel:
		e.Kind = webhook.KindFirstLevel
		e.Fields = map[string]any{"level": t.Level}
		e.Text = fmt.Sprintf("%s, a new knight, has reached level %d.", t.Knight, t.Level)
	case world.TidingDeed:
		e.Kind = webhook.KindDeed
		e.Fields = map[string]any{"deed": t.Deed.ID, "title": t.Deed.Title}
		e.Text = t.Deed.Said(t.Knight)
	default:
		return webhook.Event{}, false
	}
	return e, true
}
