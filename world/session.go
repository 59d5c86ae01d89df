package world

import (
	"context"
	"fmt"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// A session's life in the world, as the server sees it: joining (or taking a knight
// over), sending commands, leaving, and the questions it asks meanwhile (who is on, a
// knight's live record, its party, saving everyone now); then the same on the engine
// goroutine, with the lines everyone reads when a knight comes and goes.

// Player is a session's handle on its adventurer in the world. It is safe to use from the
// session's goroutines; every call becomes a message to the engine.
type Player struct {
	e *Engine
	from
}

// TakenOverMessage ends the game of a session whose knight another session took over.
const TakenOverMessage = "This knight has been taken over by another connection: one of its keys connected again."

// Join puts the adventurer into the world and starts delivering views to sub. If the
// same knight is already playing (by the same key or another of its keys: the record's
// ID is the knight's id), the new session takes the adventurer over (with its
// live state) and the old session is told to close.
func (e *Engine) Join(ctx context.Context, rec Adventurer, sub Subscriber) (*Player, error) {
	reply := make(chan *Player, 1)
	if err := e.send(ctx, joinReq{rec.Clone(), sub, reply}); err != nil {
		return nil, err
	}
	select {
	case p := <-reply:
		return p, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-e.done:
		return nil, ErrStopped
	}
}

// Do asks for an action; it is carried out when the adventurer's energy allows.
func (p *Player) Do(ctx context.Context, cmd Command) error {
	return p.e.send(ctx, cmdReq{p.from, cmd})
}

// Leave takes the adventurer out of the world and returns its final record (already
// handed to the Saver). ok is false when another session had taken the adventurer over.
func (p *Player) Leave(ctx context.Context) (rec Adventurer, ok bool, err error) {
	reply := make(chan leaveReply, 1)
	if err := p.e.send(ctx, leaveReq{p.from, reply}); err != nil {
		return Adventurer{}, false, err
	}
	select {
	case r := <-reply:
		return r.rec, r.ok, nil
	case <-ctx.Done():
		return Adventurer{}, false, ctx.Err()
	case <-p.e.done:
		return Adventurer{}, false, ErrStopped
	}
}

// WhoEntry is one online player in the who-list.
type WhoEntry struct {
	Name  string `json:"name"`
	ID    string `json:"fingerprint"` // the knight's id
	Level int    `json:"level"`
	Depth int    `json:"depth"`
	// Watchable is false when the player has turned spectating off.
	Watchable bool `json:"-"`
	// Guest is set for a guest's knight.
	Guest bool `json:"guest,omitempty"`
	// IdleTurns is how long the player has sent nothing; Away says it said it is away,
	// with AwayReason (away.go).
	IdleTurns  uint64 `json:"-"`
	Away       bool   `json:"-"`
	AwayReason string `json:"-"`
	// Deeds are the knight's deeds in the order earned (shared: never modify).
	Deeds []Deed `json:"-"`
}

// Who lists the players online, in the order they joined.
func (e *Engine) Who(ctx context.Context) ([]WhoEntry, error) {
	var out []WhoEntry
	err := e.query(ctx, func() { out = e.who() })
	return out, err
}

// Lookup returns the live record of an online adventurer, by the knight's id.
func (e *Engine) Lookup(ctx context.Context, id string) (rec Adventurer, online bool, err error) {
	err = e.query(ctx, func() {
		if p, ok := e.players[id]; ok {
			rec, online = e.record(p), true
		}
	})
	return rec, online, err
}

// Party lists the party of an online knight (by its id), its leader first; nil when the
// knight is alone or not online.
func (e *Engine) Party(ctx context.Context, id string) ([]PartyMember, error) {
	var out []PartyMember
	err := e.query(ctx, func() {
		if p, ok := e.players[id]; ok {
			if pt := e.parties.of[p]; pt != nil {
				out = partyList(pt)
			}
		}
	})
	return out, err
}

// SaveAll hands every live adventurer to the Saver now and reports how many there were.
func (e *Engine) SaveAll(ctx context.Context) (n int, err error) {
	err = e.query(ctx, func() { n = e.saveAll() })
	return n, err
}

// --- on the engine goroutine ---

type joinReq struct {
	rec   Adventurer
	sub   Subscriber
	reply chan *Player
}

func (m joinReq) handle(e *Engine) { m.reply <- e.join(m.rec, m.sub) }

type leaveReq struct {
	from
	reply chan leaveReply
}

func (m leaveReq) handle(e *Engine) {
	rec, ok := e.leave(m.id, m.session)
	m.reply <- leaveReply{rec, ok}
}

type leaveReply struct {
	rec Adventurer
	ok  bool
}

type cmdReq struct {
	from
	cmd Command
}

func (m cmdReq) handle(e *Engine) { e.enqueue(m.id, m.session, m.cmd) }

func (e *Engine) join(rec Adventurer, sub Subscriber) *Player {
	e.nextSession++
	if old, ok := e.players[rec.ID]; ok {
		if old.sub != nil {
			old.sub.Deliver(View{Turn: e.turn, Ended: TakenOverMessage})
		}
		old.sub, old.session, old.dirty = sub, e.nextSession, true
		if old.fight == nil {
			e.keepSafe(old) // the new connection has not seen the screen yet
		}
		e.say(old, "Welcome back, "+old.rec.Name+". (Your other connection was closed.)")
		e.greet(old)
		e.publish()
		return &Player{e, from{rec.ID, old.session}}
	}
	e.nextSeq++
	p := &player{rec: rec, session: e.nextSession, sub: sub, mapIdx: -1, dirty: true, changed: true, seq: e.nextSeq, active: e.turn,
		log: LogWriter{Max: maxMessages}}
	e.prelude(p)               // the last moments of the knight its player lost
	renamed := e.takeRename(p) // before anyone reads its name; told after the welcome
	e.keepSafe(p)              // nothing attacks it before it has read its first screen
	e.levelsChanged()
	e.announce(nil, MsgComing, p.rec.Name+" joins the game.")
	e.players[rec.ID] = p
	e.order = append(e.order, p)
	defer e.saveNow(p) // a new knight exists on disk from its first moment
	if p.rec.Depth > len(e.levels) || p.rec.Depth < 0 {
		p.rec.Depth = 1 // the dungeon has fewer levels than when it left: back to the top
		p.rec.X, p.rec.Y = -1, -1
	}
	e.beginWeek(p)
	if p.rec.Depth > 0 {
		l := e.levels[p.rec.Depth-1]
		if pos := p.rec.Pos(); !l.In(pos) || l.Terrain(pos) == Rock || p.rec.regenerated(l) {
			// The square is gone, or the level was rebuilt while the knight was away (an
			// admin's regen): it starts again from the level's up stairs.
			p.rec.X, p.rec.Y = l.Up.X, l.Up.Y
		}
		p.prev = p.rec.Pos() // a knight turned back from a battle stays where it is
		e.stand(p)
		e.arrive(p)
		e.moved(p, p.rec.Depth, p.rec.Pos(), p.rec.Pos()) // those who see it arrive
		e.earnDepth(p)                                    // a new knight's first level of the dungeon: told before the welcome, which stays in sight
		e.say(p, fmt.Sprintf("Welcome, %s. You stand on level %d of the dungeon.", p.rec.Name, p.rec.Depth))
	} else {
		e.arriveOnSurface(p)
		e.moved(p, 0, p.rec.Pos(), p.rec.Pos()) // those outside see it come
		e.say(p, fmt.Sprintf("Welcome, %s. You are outside the dungeon.", p.rec.Name))
	}
	e.greet(p)
	if renamed != "" {
		e.say(p, renamed)
	}
	e.publish()
	return &Player{e, from{rec.ID, p.session}}
}

func (e *Engine) leave(id string, session uint64) (Adventurer, bool) {
	p := from{id, session}.player(e)
	if p == nil {
		return Adventurer{}, false
	}
	e.leaveFight(p)
	rec := e.remove(p)
	e.publish()
	return rec, true
}

// remove takes a player out of the world, handing its final record to the Saver.
func (e *Engine) remove(p *player) Adventurer {
	e.partyLeft(p)
	e.socialLeft(p)
	rec := e.record(p)
	if e.cfg.Saver != nil {
		e.put(rec)
	}
	delete(e.players, p.rec.ID)
	e.order = slices.DeleteFunc(e.order, func(q *player) bool { return q == p })
	e.unstand(p)
	e.levelsChanged()
	bye := farewell(p)
	e.endWatches(p, bye)
	kind := MsgComing // a knight leaving; a death or a retirement is news
	if p.rec.Death != nil || p.rec.Retirement != nil {
		kind = MsgGame
	}
	e.announce(nil, kind, bye)
	if p.rec.Depth > 0 {
		e.moved(p, p.rec.Depth, p.rec.Pos(), p.rec.Pos()) // those who saw it go
		e.state[p.rec.Depth-1].changed = true
	} else {
		e.moved(p, 0, p.rec.Pos(), p.rec.Pos()) // those outside see it go
	}
	return rec
}

func (e *Engine) enqueue(id string, session uint64, cmd Command) {
	p := from{id, session}.player(e)
	if p == nil {
		return
	}
	e.stir(p)
	if t, ok := cmd.(Target); ok {
		e.setTarget(p, t.Index) // choosing takes no time, so it does not wait in the queue
		e.publish()
		return
	}
	if len(p.queue) >= maxQueued {
		p.dropped++ // told when the queue has run out (droppedNote)
		return
	}
	p.queue = append(p.queue, cmd)
}

// droppedNote tells a knight how many of its commands were dropped, once its queue has
// run out: six quick steps may take two, and the player should hear of the other four.
func (e *Engine) droppedNote(p *player) {
	if p.dropped == 0 || len(p.queue) > 0 {
		return
	}
	e.say(p, fmt.Sprintf("%s dropped: you gave them faster than you can act.", english.Capital(english.Count(p.dropped, "command"))))
	p.dropped = 0
}

// who is the who-list, on the engine goroutine.
func (e *Engine) who() []WhoEntry {
	var out []WhoEntry
	for _, p := range e.order {
		out = append(out, e.whoEntry(p))
	}
	return out
}

// announce puts a line of kind k in the messages of everyone online but except (which
// may be nil): joins and leaves (MsgComing), deaths and retirements.
//
// The line does not send a view at once: with many knights online, a view for everyone
// at every join would cost the square of their number (the load tool measured the server
// stalling at 1000). It shows with the knight's next view, or at its own turn of the idle
// refresh (newsDue) if none comes first: at most a view a second for each knight however
// many join, and none for a knight walking, whose steps bring it. The next view alone is
// not enough: a knight standing with nothing in sight may not be sent one for minutes.
func (e *Engine) announce(except *player, k MsgKind, msg string) {
	for _, q := range e.order {
		if q != except {
			noteKind(q, k, msg)
			q.news = true
		}
	}
}

// farewell is the line everyone else reads when p leaves the world, by how it left.
func farewell(p *player) string {
	switch r := p.rec; {
	case r.Death != nil:
		return fmt.Sprintf("%s has been slain by %s %s.", r.Name, r.Death.Killer, r.Death.Where())
	case r.Retirement != nil:
		return fmt.Sprintf("%s retires with honour into the hall of fame.", r.Name)
	}
	return fmt.Sprintf("%s leaves the game.", p.rec.Name)
}
