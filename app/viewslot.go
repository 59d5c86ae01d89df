package app

import (
	"context"
	"sync"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// ViewSlot hands views from the engine to one session. It holds only the newest view: the
// engine never waits for a session, and a session that falls behind skips straight to the
// latest picture of the world.
//
// The view waits in the slot, and the session's program is only told that one is there
// (viewReadyMsg, which carries nothing): a View carried in a message was copied to the
// heap on every frame, the most allocated bytes of a busy server.
type ViewSlot struct {
	mu    sync.Mutex
	view  world.View
	full  bool
	ready chan struct{} // holds a token while a view may be waiting
}

// NewViewSlot makes an empty slot.
func NewViewSlot() *ViewSlot { return &ViewSlot{ready: make(chan struct{}, 1)} }

// Deliver replaces whatever view is waiting with v. It never blocks.
func (m *ViewSlot) Deliver(v world.View) {
	m.mu.Lock()
	m.view, m.full = v, true
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default: // the token is there already
	}
}

// Wait waits until a view may be waiting, or returns false when ctx ends. Take then gets
// it, or nothing if an earlier Take got it already.
func (m *ViewSlot) Wait(ctx context.Context) bool {
	select {
	case <-m.ready:
		return true
	case <-ctx.Done():
		return false
	}
}

// Take returns the waiting view and empties the slot; ok is false when it was empty.
func (m *ViewSlot) Take() (v world.View, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok = m.view, m.full
	m.view, m.full = world.View{}, false // the slot holds nothing of the world for later
	return v, ok
}

// Next waits for the next view, or returns false when ctx ends.
func (m *ViewSlot) Next(ctx context.Context) (world.View, bool) {
	for m.Wait(ctx) {
		if v, ok := m.Take(); ok {
			return v, true
		}
	}
	return world.View{}, false
}
