package talk

import (
	"context"
	"sync/atomic"
)

// queue is a bounded queue of work done in order by one goroutine: what the world hands
// the bus, what the bus hands the world. Putting never waits: when the queue is full the
// work is dropped and counted, so a slow world never holds up NATS's goroutines, and a slow
// NATS never holds up the world.
type queue struct {
	work    chan func(context.Context)
	dropped atomic.Uint64
}

func newQueue(room int) *queue { return &queue{work: make(chan func(context.Context), room)} }

// put queues f, or drops it and reports false when the queue is full.
func (q *queue) put(f func(context.Context)) bool {
	select {
	case q.work <- f:
		return true
	default:
		q.dropped.Add(1)
		return false
	}
}

// run does the queued work until ctx ends.
func (q *queue) run(ctx context.Context) {
	for {
		select {
		case f := <-q.work:
			f(ctx)
		case <-ctx.Done():
			return
		}
	}
}
