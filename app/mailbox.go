package app

import (
	"context"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Mailbox hands views from the engine to one session. It holds only the newest view: the
// engine never waits for a session, and a session that falls behind skips straight to the
// latest picture of the world.
type Mailbox struct{ ch chan world.View }

// NewMailbox makes an empty mailbox.
func NewMailbox() *Mailbox { return &Mailbox{ch: make(chan world.View, 1)} }

// Deliver replaces whatever view is waiting with v. It never blocks; it is called by the
// engine goroutine only (one sender), so the loop ends within two passes.
func (m *Mailbox) Deliver(v world.View) {
	for {
		select {
		case m.ch <- v:
			return
		default:
		}
		select {
		case <-m.ch:
		default:
		}
	}
}

// Next waits for the next view, or returns false when ctx ends.
func (m *Mailbox) Next(ctx context.Context) (world.View, bool) {
	select {
	case v := <-m.ch:
		return v, true
	case <-ctx.Done():
		return world.View{}, false
	}
}
