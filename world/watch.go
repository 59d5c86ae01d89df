package world

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Spectating (DESIGN §9): a watcher receives every view of the watched player, the same
// immutable values its own session gets, through its own Subscriber, and draws them at its
// own terminal's size. Watchers are registered on the engine goroutine like everything
// else; the watched player's views list who is watching, and turning spectators off in
// the options ends every watch.

// Errors of Watch.
var (
	// ErrNotOnline is returned when no knight of the name is in the game.
	ErrNotOnline = errors.New("no knight of that name is in the game")
	// ErrNoSpectators is returned when the knight has turned spectating off.
	ErrNoSpectators = errors.New("that knight does not allow spectators")
)

// RefusedError is a Watch refused by the knight named Name (spelled as the knight spells
// it); it wraps ErrNoSpectators.
type RefusedError struct{ Name string }

func (e *RefusedError) Error() string { return e.Name + ": " + ErrNoSpectators.Error() }

// Unwrap makes errors.Is(err, ErrNoSpectators) hold.
func (e *RefusedError) Unwrap() error { return ErrNoSpectators }

// watcher is one spectator of a player, owned by the engine goroutine.
type watcher struct {
	id   uint64
	name string // the spectator, as the watched player reads it
	sub  Subscriber
}

// Watch is a spectator's handle on the player it watches. It is safe to use from any
// goroutine; Stop becomes a message to the engine.
type Watch struct {
	e      *Engine
	knight string // the watched knight's id
	id     uint64
	name   string
}

// Name is the watched knight's name.
func (w *Watch) Name() string { return w.name }

type watchReq struct {
	target, name string
	sub          Subscriber
	reply        chan watchReply
}

type watchReply struct {
	w   *Watch
	err error
}

func (m watchReq) handle(e *Engine) {
	w, err := e.watch(m)
	m.reply <- watchReply{w, err}
}

type unwatchReq struct {
	knight string // the watched knight's id
	id     uint64
}

// Watch starts delivering the views of the knight named target (without regard to case)
// to sub as well as to its own session; name is how the spectator is shown to the
// watched player. The first view is delivered at once. It fails with ErrNotOnline,
// ErrNoSpectators, or ErrAmbiguousName when several knights online share the name.
// When the watched knight leaves the game, or turns spectating off, sub gets a last view
// with Ended set, saying why.
func (e *Engine) Watch(ctx context.Context, target, name string, sub Subscriber) (*Watch, error) {
	reply := make(chan watchReply, 1)
	if err := e.send(ctx, watchReq{strings.TrimSpace(target), name, sub, reply}); err != nil {
		return nil, err
	}
	select {
	case r := <-reply:
		return r.w, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.done:
		return nil, ErrStopped
	}
}

// Stop ends the watch; the watched player is told. It does nothing when the watch has
// already ended.
func (w *Watch) Stop(ctx context.Context) error {
	return w.e.send(ctx, unwatchReq{w.knight, w.id})
}

// watch is Watch on the engine goroutine.
func (e *Engine) watch(m watchReq) (*Watch, error) {
	var p *player
	for _, q := range e.order {
		if strings.EqualFold(q.rec.Name, m.target) {
			if p != nil {
				return nil, fmt.Errorf("%q: %w", m.target, ErrAmbiguousName)
			}
			p = q
		}
	}
	if p == nil {
		return nil, fmt.Errorf("%q: %w", m.target, ErrNotOnline)
	}
	if p.rec.Options.NoSpectators {
		return nil, &RefusedError{Name: p.rec.Name}
	}
	e.nextWatch++
	p.watchers = append(p.watchers, &watcher{id: e.nextWatch, name: m.name, sub: m.sub})
	e.say(p, english.Capital(m.name)+" is watching you.")
	e.publish() // the new watcher's first view
	return &Watch{e: e, knight: p.rec.ID, id: e.nextWatch, name: p.rec.Name}, nil
}

// handle is Stop on the engine goroutine.
func (m unwatchReq) handle(e *Engine) {
	p, ok := e.players[m.knight]
	if !ok {
		return
	}
	i := slices.IndexFunc(p.watchers, func(w *watcher) bool { return w.id == m.id })
	if i < 0 {
		return
	}
	name := p.watchers[i].name
	p.watchers = slices.Delete(p.watchers, i, i+1)
	e.say(p, english.Capital(name)+" stopped watching you.")
	e.publish()
}

// endWatches ends every watch of p, giving each watcher a last view that says why.
func (e *Engine) endWatches(p *player, why string) {
	for _, w := range p.watchers {
		w.sub.Deliver(View{Turn: e.turn, Ended: why})
	}
	p.watchers = nil
	p.dirty = true
}

// watcherNames lists who watches p, in the order they started.
func (p *player) watcherNames() []string {
	if len(p.watchers) == 0 {
		return nil
	}
	out := make([]string, 0, len(p.watchers))
	for _, w := range p.watchers {
		if !slices.Contains(out, w.name) { // a knight watching from two sessions is one watcher
			out = append(out, w.name)
		}
	}
	return out
}
