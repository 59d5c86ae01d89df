package talk

import (
	"context"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Lines of talk: the world's going out (Send), the others' coming in.

// Send takes a line the world sends abroad (world.Abroad). It is called on the world's
// goroutine and never waits: the line is queued, or dropped when the queue is full (a
// whisper's sender is then told so).
func (b *Bus) Send(l world.FarLine) {
	l.Realm = b.cfg.Realm
	if b.started.Load() && b.out.put(func(ctx context.Context) { b.sendLine(ctx, l) }) {
		return
	}
	if l.Kind == world.ChatWhisper {
		b.answered(l, world.FarAnswer{Status: world.FarDropped})
	}
}

// sendLine publishes a line; a whisper waits for its answer off the queue's goroutine.
func (b *Bus) sendLine(ctx context.Context, l world.FarLine) {
	switch l.Kind {
	case world.ChatShout:
		b.publish(b.from("shout"), toLine(l), maxLineBytes)
	case world.ChatChannel:
		if validWord(l.To) {
			b.publish(b.from("channel", l.To), toLine(l), maxLineBytes)
		}
	case world.ChatWhisper:
		select {
		case b.inFlight <- struct{}{}:
			b.wg.Go(func() {
				defer func() { <-b.inFlight }()
				b.whisper(ctx, l)
			})
		default:
			b.out.dropped.Add(1)
			b.answered(l, world.FarAnswer{Status: world.FarDropped})
		}
	}
}

// whisper sends a whisper to its realm and tells the world how it went.
func (b *Bus) whisper(ctx context.Context, l world.FarLine) {
	if !validWord(l.ToRealm) {
		b.answered(l, world.FarAnswer{Status: world.FarUnreachable})
		return
	}
	data, err := encode(toLine(l), maxLineBytes)
	if err != nil {
		b.refused(err)
		b.answered(l, world.FarAnswer{Status: world.FarDropped})
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	b.counts.sent.Add(1)
	reply, err := b.nc.RequestWithContext(ctx, b.from("whisper", l.ToRealm), data)
	if err != nil { // no one listens for that realm (nats.ErrNoResponders), or it did not answer in time
		b.answered(l, world.FarAnswer{Status: world.FarUnreachable})
		return
	}
	m, err := decode[answerMsg](reply.Data, maxSmallBytes)
	if err != nil {
		b.refused(err)
		b.answered(l, world.FarAnswer{Status: world.FarUnreachable})
		return
	}
	b.answered(l, fromAnswer(m))
}

// answered tells the world what became of a whisper, when there is something to tell.
func (b *Bus) answered(l world.FarLine, a world.FarAnswer) {
	if a.Status == world.FarDelivered && !a.Away {
		return
	}
	if b.w != nil {
		b.toWorld(func(ctx context.Context) error { return b.w.WhisperAnswered(ctx, l, a) })
	}
}

// readLine reads a line from another realm, or counts why it cannot.
func (b *Bus) readLine(msg *nats.Msg) (world.FarLine, bool) {
	m, err := decode[lineMsg](msg.Data, maxLineBytes)
	if err != nil {
		b.refused(err)
		return world.FarLine{}, false
	}
	l, err := fromLine(m)
	if err == nil && l.Realm != sender(msg.Subject) {
		err = errInvalid // a line says it comes from a realm other than the one that sent it
	}
	if err != nil {
		b.refused(err)
		return l, false
	}
	return l, l.Realm != b.cfg.Realm
}

// onLine takes a shout or a channel line.
func (b *Bus) onLine(msg *nats.Msg) {
	l, ok := b.readLine(msg)
	if !ok || l.Kind == world.ChatWhisper {
		return
	}
	if l.Kind == world.ChatChannel && msg.Subject != b.subject("channel", l.To, l.Realm) {
		b.counts.bad.Add(1) // a channel line on another channel's subject
		return
	}
	b.counts.received.Add(1)
	b.toWorld(func(ctx context.Context) error {
		_, err := b.w.HearFar(ctx, l)
		return err
	})
}

// onWhisper takes a whisper for a knight of this realm and answers how it went: an answer
// only once the world has taken it, or "dropped" at once when the queue is full.
func (b *Bus) onWhisper(msg *nats.Msg) {
	l, ok := b.readLine(msg)
	if !ok || l.Kind != world.ChatWhisper {
		return
	}
	l.ToRealm = b.cfg.Realm
	b.counts.received.Add(1)
	queued := b.toWorld(func(ctx context.Context) error {
		a, err := b.w.HearFar(ctx, l)
		if err == nil {
			b.respond(msg, a)
		}
		return err
	})
	if !queued {
		b.respond(msg, world.FarAnswer{Status: world.FarDropped})
	}
}

// respond answers a whisper.
func (b *Bus) respond(msg *nats.Msg, a world.FarAnswer) {
	if data, err := encode(toAnswer(a), maxSmallBytes); err == nil {
		_ = msg.Respond(data) // the whisperer's realm is gone: no one to tell
	}
}
