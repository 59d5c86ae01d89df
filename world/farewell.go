package world

import "context"

// Farewell tells every session that the server is going down: each gets a last view with
// Ended set to reason, and closes itself (its knight leaves the world and is saved, as on
// any disconnect). The knights stay in the world until their sessions leave, so a session
// that is too stalled to close is still saved by SaveAll.
func (e *Engine) Farewell(ctx context.Context, reason string) (int, error) {
	n := 0
	err := e.query(ctx, func() {
		for _, p := range e.order {
			if p.sub != nil {
				p.sub.Deliver(View{Turn: e.turn, Ended: reason})
				n++
			}
		}
	})
	return n, err
}
