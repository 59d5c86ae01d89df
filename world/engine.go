// Package world owns the rules and the shared state of the game: the dungeon, the
// adventurers in it, and time. One goroutine (Engine.Run) owns all of it; sessions talk to
// the engine by messages and get back immutable views. The package does no I/O, never
// reads the clock and never uses a global random source, so a seed and a sequence of
// commands replay exactly. It must not import ssh, terminal or storage packages.
package world

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// Tuning constants and their effect at the default 25 ms tick:
//
//	constant                 value   effect
//	DefaultCheckpointTurns   80      changed adventurers are saved every 2 s; a crash loses at most that
//	maxQueued                2       keys typed faster than the knight can walk are dropped beyond two
//	maxMessages              200     lines of message log (game, fights, chat, announcements) kept per player
const (
	DefaultCheckpointTurns = 80
	maxQueued              = 2
	maxMessages            = 200
)

// ErrStopped is returned when the engine is no longer running.
var ErrStopped = errors.New("world engine stopped")

// Saver receives adventurer records and level states to persist. Both are called from the
// engine goroutine and must not block on disk.
type Saver interface {
	// Put files records to be written. They are the engine's copies, made for it (their
	// seen squares shared, which the engine never changes in place): the Saver keeps them
	// as they are, and nothing changes them after.
	Put(recs ...Adventurer)
	PutLevels(states ...LevelState)
}

// Subscriber receives the views of one session. Deliver is called from the engine
// goroutine and must not block (keep only the newest view).
type Subscriber interface {
	Deliver(View)
}

// Config says how to build an Engine.
type Config struct {
	Seed            uint64 // seed of the original dungeon
	Depth           int    // number of levels; DefaultDepth when zero
	CheckpointTurns int    // turns between checkpoints; DefaultCheckpointTurns when zero
	// GraceTurns is how long a hero who holds up other heroes of its battle has to choose
	// (a knight alone is never hurried); DefaultGraceTurns when zero.
	GraceTurns int
	// WanderChance is the chance per turn that a wanderer appears on a level with knights
	// on it; zero means the default, a negative value never (for tests that place monsters).
	WanderChance float64
	// ChatWindowTurns is the window of chat flood control (ChatLines lines at most);
	// DefaultChatWindowTurns when zero.
	ChatWindowTurns int
	Saver           Saver // where records go; may be nil in tests
	// Levels are saved level states to restore over the freshly generated dungeon.
	Levels []LevelState
	// SurfaceSize is the side of the square surface grid; DefaultSurfaceSize when zero.
	SurfaceSize int
	// IdleTurns is how long a player may send nothing before it counts as idle, and
	// IdleRefreshTurns and ActiveRefreshTurns how often an idle and an active player's
	// screen shows what others do (crowd.go); the Default values when zero.
	IdleTurns          int
	IdleRefreshTurns   int
	ActiveRefreshTurns int
	// CrowdRefresh is how many active players see what others do every
	// ActiveRefreshTurns; with more, the period is longer in proportion, up to a round
	// (activeEvery). Zero: never longer.
	CrowdRefresh int
	// SafeTurns is how long a knight's safe arrival lasts at most (arrival.go);
	// DefaultSafeTurns when zero.
	SafeTurns int
	// Tick is the wall time of one turn, for the rules given in seconds (a screen-reader
	// player's grace, graceOf); DefaultTick when zero.
	Tick time.Duration
	// Community configures channels, letters, history and silences (community.go).
	Community CommunityConfig
	// Herald takes the tidings told beyond the world (tiding.go); nil: none.
	Herald Herald
	// Week is the week it is when the engine starts, as WeekOf names it from the
	// server's clock; SetWeek tells it the next. Knights' week tallies count in it.
	Week string
}

// Engine is the game world. Its state is owned by the goroutine running Run (or, in
// tests, by the goroutine calling Step and the unexported handlers directly).
type Engine struct {
	cfg    Config
	rng    *rand.Rand
	turn   uint64
	levels []*Level
	snaps  []*Level // read-only copies handed out in views; nil when stale
	state  []liveLevel
	fights []*encounter

	nextMonster int

	players map[string]*player // by knight id (Adventurer.ID)
	order   []*player          // join order, so every turn runs in the same order

	turnOrder       []*player // scratch: the order a turn walks, copied so players may leave mid-turn
	nextSession     uint64
	nextWatch       uint64
	talk            map[string]*talker // recent chat by knight id, for flood control
	outside         surfaceState       // the surface and its markets (outside.go, market.go)
	occ             occupancy          // who stands on each square (crowd.go)
	standing        standing           // where each knight in the dungeon stands, kept as they move (standing.go)
	seenFrom        []int32            // watchersOf's list of the squares that may see a square
	levelOrder      [][]*player        // the knights of each level (0 is the surface), in join order
	levelOrderStale bool
	crowdSquares    []int32  // scratch for crowd: the squares knights stand on
	sights          []sights // what is seen from the squares of each level, shared (look)
	nextSeq         uint64
	parties         partyState  // the parties of heroes (party.go)
	soc             socialState // channels, letters, history, silences (community.go)
	// renamed are the names admins gave knights offline, by id, taken at the knight's next
	// join: its session may have read its record before (admin.go).
	renamed map[string]string
	inbox   chan request
	done    chan struct{}
}

// New builds an engine with every level of the dungeon generated from cfg.Seed.
func New(cfg Config) *Engine {
	if cfg.Depth <= 0 {
		cfg.Depth = DefaultDepth
	}
	return newWithLevels(cfg, GenerateDungeon(cfg.Seed, cfg.Depth))
}

// newWithLevels builds an engine on given levels (tests use hand-drawn ones).
func newWithLevels(cfg Config, levels []*Level) *Engine {
	cfg.Depth = len(levels)
	orDefault(&cfg.CheckpointTurns, DefaultCheckpointTurns)
	orDefault(&cfg.GraceTurns, DefaultGraceTurns)
	orDefault(&cfg.IdleTurns, DefaultIdleTurns)
	orDefault(&cfg.ActiveRefreshTurns, DefaultActiveRefreshTurns)
	orDefault(&cfg.IdleRefreshTurns, DefaultIdleRefreshTurns)
	orDefault(&cfg.SafeTurns, DefaultSafeTurns)
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.WanderChance == 0 {
		cfg.WanderChance = wanderChance
	}
	e := &Engine{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(cfg.Seed, 0x6f7274)),
		levels:  levels,
		players: map[string]*player{},
		inbox:   make(chan request, 256),
		done:    make(chan struct{}),
	}
	e.snaps = make([]*Level, len(e.levels))
	e.sights = make([]sights, len(e.levels))
	e.standing.on = make([][][]*player, len(e.levels))
	e.state = make([]liveLevel, len(e.levels))
	for i, l := range e.levels {
		// Each level's guards come from the level's own seed, so the original dungeon is
		// stocked the same way on every server.
		e.stock(i+1, rand.New(rand.NewPCG(l.Seed, 0x6d6f6e)))
		e.state[i].changed = false
	}
	for _, ls := range cfg.Levels {
		e.restore(ls)
	}
	e.initSurface()
	e.initSocial()
	for _, ls := range cfg.Levels {
		e.restoreSurface(ls) // the markets' stock, saved as the surface's state
	}
	return e
}

// orDefault sets a setting of Config left at zero (or below) to its default.
func orDefault(setting *int, def int) {
	if *setting <= 0 {
		*setting = def
	}
}

// Levels is the number of dungeon levels.
func (e *Engine) Levels() int { return len(e.levels) }

// Level returns a read-only copy of the level at depth (1-based), for tools and tests;
// call it only before Run starts or from the goroutine stepping the engine.
func (e *Engine) Level(depth int) *Level { return e.snapshot(depth) }

// Monsters lists the live monsters of a level. Like Level, it reads engine state directly,
// so call it only before Run starts or from the goroutine stepping the engine.
func (e *Engine) Monsters(depth int) []SeenMonster {
	if depth < 1 || depth > len(e.levels) {
		return nil
	}
	var out []SeenMonster
	for _, m := range e.state[depth-1].monsters {
		k := m.Kind()
		out = append(out, SeenMonster{Name: k.Name, Glyph: k.Glyph, Pos: m.pos})
	}
	return out
}

// Run owns the engine until ctx ends: it handles session messages and steps one turn on
// every tick. On the way out it hands every live adventurer to the Saver.
func (e *Engine) Run(ctx context.Context, tick <-chan time.Time) {
	defer close(e.done)
	for {
		select {
		case <-ctx.Done():
			e.saveAll()
			return
		case r := <-e.inbox:
			r.handle(e)
		case <-tick:
			e.Step()
		}
	}
}

// Tick steps the world one turn on the engine goroutine, for a server that runs its own
// tick loop (Run with a nil tick channel) in order to time each step. wrap, when not nil,
// is called on the engine goroutine with the step to run and must run it exactly once;
// the caller reads the clock around it, so the engine itself never does.
func (e *Engine) Tick(ctx context.Context, wrap func(step func())) error {
	if wrap == nil {
		return e.query(ctx, e.Step)
	}
	return e.query(ctx, func() { wrap(e.Step) })
}

// Step advances the world one turn: every actor whose energy allows acts, changed
// adventurers are checkpointed on schedule, and changed views are delivered.
func (e *Engine) Step() {
	e.turn++
	// A knight may leave the world during the turn (a trap kills it), so the turn walks a
	// copy of the join order and skips whoever is gone.
	e.turnOrder = append(e.turnOrder[:0], e.order...)
	for _, p := range e.turnOrder {
		if e.players[p.rec.ID] != p {
			continue
		}
		if p.fight != nil {
			continue // its fight keeps its time
		}
		ready := p.energy.Ready()
		if p.safeUntil != 0 && (!e.safe(p) || ready && len(p.queue) > 0) && e.arrived(p) {
			continue // its safe arrival is over and the guard of its room attacks
		}
		acted := false
		if ready && len(p.queue) > 0 {
			cmd := p.queue[0]
			p.queue = p.queue[:copy(p.queue, p.queue[1:])]
			cost := e.act(p, cmd)
			if p.fight != nil {
				// The step started a fight, which has set who strikes first (seed 000);
				// charging the step now would hand the monster the first blow.
				continue
			}
			p.energy.Spend(cost)
			// A command that did nothing (a bump into a wall) is not an action: the knight
			// stays ready without banking time.
			acted = cost > 0
			e.droppedNote(p)
		}
		p.energy.EndTurn(ready && !acted)
	}
	if e.turn%TurnsPerRound == 0 {
		e.turnOrder = append(e.turnOrder[:0], e.order...)
		for _, p := range e.turnOrder {
			if e.players[p.rec.ID] == p {
				e.tickStatus(p)
			}
		}
	}
	for _, enc := range append([]*encounter(nil), e.fights...) {
		if !enc.over {
			e.fightTurn(enc)
		}
	}
	e.wander()
	if e.turn%uint64(e.cfg.CheckpointTurns) == 0 {
		e.checkpoint()
	}
	e.publish()
}

// --- messages from sessions -------------------------------------------------------------

// request is a message from a session to the engine. Each carries itself out on the
// engine goroutine, so a player's new action is a Player method, a request type and its
// handle method, side by side in the file of what it does; Run only calls handle.
type request interface {
	handle(e *Engine)
}

// from is who sent a request: the knight, by its id (Adventurer.ID), and the session
// playing it. A request from a session that no longer plays the knight (it left, or
// another connection took the knight over) is ignored.
type from struct {
	id      string
	session uint64
}

// player is the knight the request came from, or nil when its session no longer plays it.
func (f from) player(e *Engine) *player {
	if p, ok := e.players[f.id]; ok && p.session == f.session {
		return p
	}
	return nil
}

// carryOut is the frame of a knight's action: do runs for the knight the request came
// from, if its session still plays it, after stirring it (an action is not idling), and
// the views it changed are published after.
func (f from) carryOut(e *Engine, do func(p *player)) {
	p := f.player(e)
	if p == nil {
		return
	}
	e.stir(p)
	do(p)
	e.publish()
}

type queryReq struct {
	fn   func()
	done chan struct{}
	// state is queryPending until the engine takes the query (queryRun) or its caller
	// gives up waiting (queryAbandoned), whichever comes first: an abandoned query never
	// runs, so it never writes what its caller has gone on to read.
	state *atomic.Int32
}

// The states of a query.
const (
	queryPending int32 = iota
	queryRun
	queryAbandoned
)

func (m queryReq) handle(*Engine) {
	if !m.state.CompareAndSwap(queryPending, queryRun) {
		return
	}
	m.fn()
	close(m.done)
}

// send delivers r to the engine goroutine, giving up when ctx ends or the engine stops.
func (e *Engine) send(ctx context.Context, r request) error {
	select {
	case e.inbox <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.done:
		return ErrStopped
	}
}

// query runs fn on the engine goroutine and waits for it.
func (e *Engine) query(ctx context.Context, fn func()) error {
	q := queryReq{fn: fn, done: make(chan struct{}), state: new(atomic.Int32)}
	if err := e.send(ctx, q); err != nil {
		return err
	}
	var err error
	select {
	case <-q.done:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-e.done:
		err = ErrStopped
	}
	if q.state.CompareAndSwap(queryPending, queryAbandoned) {
		return err
	}
	select { // the engine is running it: done in a moment, and its results whole
	case <-q.done:
		return nil
	case <-e.done: // it stopped in it (a panic): fn writes nothing more
		return ErrStopped
	}
}

// --- state changes, on the engine goroutine ---------------------------------------------

// record is the player's adventurer as it should be saved now.
func (e *Engine) record(p *player) Adventurer {
	r := p.rec.clone(false) // a record shares the seen squares, as views do (look)
	r.Turn = e.turn
	if p.fainted {
		// A fainted hero is saved as it would leave the battle: come to, with 1 hit, so a
		// crash or a shutdown mid-battle never brings back a living knight with 0 hits.
		r.Hits = max(1, r.Hits)
	}
	return r
}

// put hands records to the Saver, but a guest's, which is never saved (the server keeps
// a guest's last record for its claim code, from Leave).
func (e *Engine) put(recs ...Adventurer) {
	recs = slices.DeleteFunc(recs, func(a Adventurer) bool { return a.Guest })
	if len(recs) > 0 {
		e.cfg.Saver.Put(recs...)
	}
}

// saveNow hands the knight's record to the Saver at once, for the events that matter
// (DESIGN §10: joining, a level gained, treasure or an item gained or lost); a crash then
// loses none of them, only walking since the last checkpoint.
func (e *Engine) saveNow(p *player) {
	if e.cfg.Saver == nil {
		return
	}
	e.put(e.record(p))
	p.changed = false
}

func (e *Engine) checkpoint() {
	if e.cfg.Saver == nil {
		e.forgetTalk()
		return
	}
	// Counted first: a record is large, and appending a checkpoint's thousand of them
	// one by one made the array again at each doubling.
	n := 0
	for _, p := range e.order {
		if p.changed {
			n++
		}
	}
	if n > 0 {
		recs := make([]Adventurer, 0, n)
		for _, p := range e.order {
			if p.changed {
				recs = append(recs, e.record(p))
				p.changed = false
			}
		}
		e.put(recs...)
	}
	e.saveLevels(false)
	e.forgetTalk()
}

func (e *Engine) saveAll() int {
	if e.cfg.Saver == nil {
		return len(e.order)
	}
	recs := make([]Adventurer, 0, len(e.order))
	for _, p := range e.order {
		recs = append(recs, e.record(p))
		p.changed = false
	}
	if len(recs) > 0 {
		e.put(recs...)
	}
	e.saveLevels(true)
	return len(recs)
}

// say adds a line to the player's message log.
func (e *Engine) say(p *player, msg string) {
	e.note(p, msg)
	p.dirty = true
}

// note adds a line to the player's log without asking for a new view: it shows with the
// next one.
func (e *Engine) note(p *player, msg string) { note(p, msg) }

func note(p *player, msg string) { noteKind(p, MsgGame, msg) }

// noteKind adds a line of kind k to the player's log, without asking for a new view.
func noteKind(p *player, k MsgKind, msg string) {
	p.log.Add(msg, k) // views share the log's chunks (see view): a line written stays
	p.said++
	if k.Public() {
		p.publicSaid++
	}
	if p.fight != nil {
		p.heard += words(msg) // a screen-reader player's grace gives time to hear it
	}
}

// snapshot is the read-only copy of a level that views share.
func (e *Engine) snapshot(depth int) *Level {
	if depth < 1 || depth > len(e.levels) {
		return nil
	}
	if e.snaps[depth-1] == nil {
		e.snaps[depth-1] = e.levels[depth-1].Clone()
	}
	return e.snaps[depth-1]
}

// touchLevel marks every player on the level as needing a new view.
func (e *Engine) touchLevel(depth int) {
	if depth < 1 {
		return
	}
	for _, q := range e.onLevel(depth) {
		q.seen = true
	}
}

// publish delivers a fresh view to every player whose view changed.
func (e *Engine) publish() {
	every := e.activeEvery()
	for _, p := range e.order {
		if p.dirty || (p.seen && e.refreshDue(p, every)) || (p.news && e.newsDue(p)) {
			p.dirty, p.seen, p.news, p.shown = false, false, false, e.turn
			if p.sub == nil && len(p.watchers) == 0 {
				continue
			}
			v := e.view(p)
			if p.sub != nil {
				p.sub.Deliver(v)
			}
			if len(p.watchers) > 0 {
				pv := v.Public()
				for _, w := range p.watchers {
					w.sub.Deliver(pv) // views are immutable: every watcher shares this one
				}
			}
		}
	}
}

func (e *Engine) view(p *player) View {
	v := View{
		publicSaid: p.publicSaid,
		Turn:       e.turn,
		Log:        p.log.Log(), // shared: note only writes past the lines a view holds
		Said:       p.said,
		FightSeq:   p.fightSeq,
		Watchers:   p.watcherNames(),
		Self: Self{
			Name: p.rec.Name, ID: p.rec.ID, Born: p.rec.Created, Level: p.rec.Level,
			Experience: p.rec.Experience, Hits: p.rec.Hits, MaxHits: p.rec.MaxHits,
			SpellUnits: p.rec.SpellUnits, Str: e.str(p), Int: p.rec.Int, Con: p.rec.Con,
			Dex: p.rec.Dex, Depth: p.rec.Depth, Pos: p.rec.Pos(),
			Gold: p.rec.Gold, TreasureExperience: p.rec.TreasureExperience,
			Items: p.given.itemsOf(p.rec.Items), Light: e.lit(p),
			Options: p.rec.Options.Clone(),
			Deeds:   p.rec.Deeds[:len(p.rec.Deeds):len(p.rec.Deeds)], // earn only appends: a view's deeds stay as they were
			Effects: p.given.effectsOf(p.rec.Effects),
			Status:  p.given.statusOf(p.rec.Status),
		},
	}
	e.fillParty(p, &v)
	e.fillSocial(p, &v)
	if p.rec.Depth == 0 {
		e.fillSurface(p, &v)
		if enc := p.fight; enc != nil {
			v.Fight = e.fightView(p, enc)
		} else if len(p.lastFight) > 0 {
			v.LastFight = p.lastFight
		}
		return v
	}
	v.Level = e.snapshot(p.rec.Depth)
	v.Self.Feature = v.Level.Feature(p.rec.Pos())
	// Shared, not copied: look replaces these sets rather than changing them, and found
	// doors are only ever appended (the cap keeps a reader's append off them).
	v.Visible = p.visible
	if p.mapIdx >= 0 {
		m := p.rec.Maps[p.mapIdx]
		v.Known = m.Seen
		v.FoundDoors = m.Doors[:len(m.Doors):len(m.Doors)]
		if len(m.Traps) > 0 {
			v.Traps = make([]Pos, 0, len(m.Traps))
			for _, sq := range m.Traps {
				v.Traps = append(v.Traps, Pos{sq % v.Level.W, sq / v.Level.W})
			}
		}
	}
	// The level's crowd, which the view reads the knights in sight from (crowd.go); the
	// who-list names everyone.
	v.crowd, v.viewer = e.crowd(p.rec.Depth), p.seq
	for _, m := range e.state[p.rec.Depth-1].monsters {
		if Bit(p.visible, v.Level.idx(m.pos)) {
			k := m.Kind()
			v.Monsters = append(v.Monsters, SeenMonster{ID: m.id, Name: k.Name, Glyph: k.Glyph, Pos: m.pos})
		}
	}
	v.Shadows = e.shadows(p)
	if enc := p.fight; enc != nil {
		v.Fight = e.fightView(p, enc)
	} else if len(p.lastFight) > 0 {
		v.LastFight = p.lastFight
	}
	return v
}

// arrive sets up a player on the square it now stands on (after joining, moving or taking
// stairs): its map of the level, what it sees, and the views of those who see it.
func (e *Engine) arrive(p *player) {
	l := e.levels[p.rec.Depth-1]
	p.mapIdx = -1
	for i, m := range p.rec.Maps {
		if m.Depth == p.rec.Depth {
			if m.Seed != l.Seed || m.W != l.W || m.H != l.H || len(m.Seen) != bitsetLen(l.W*l.H) {
				p.rec.Maps[i] = LevelMap{Depth: l.Depth, Seed: l.Seed, W: l.W, H: l.H, Seen: make([]byte, bitsetLen(l.W*l.H))}
			}
			p.mapIdx = i
		}
	}
	if p.mapIdx < 0 {
		p.rec.Maps = append(p.rec.Maps, LevelMap{Depth: l.Depth, Seed: l.Seed, W: l.W, H: l.H, Seen: make([]byte, bitsetLen(l.W*l.H))})
		p.mapIdx = len(p.rec.Maps) - 1
	}
	e.look(p)
}

// sights are what is seen from the squares of one level (Level.visible), each set made
// the first time a knight looks from its square and shared from then on by every knight
// who stands there and by their views: what a knight sees depends on its square alone, a
// crowd walks the same squares, and every square of a room sees the room. They belong to
// the level's snapshot, which is made again whenever the level changes (snapshot), and
// are never changed in place.
type sights struct {
	snap   *Level
	square [][]byte // by square index; nil: no knight has looked from it yet
	room   [][]byte // by room index
	dark   []byte   // what a blind knight sees: nothing
}

// sight is the set of squares seen from pos on level depth, nothing when blind.
func (e *Engine) sight(depth int, pos Pos, blind bool) []byte {
	l, snap, s := e.levels[depth-1], e.snapshot(depth), &e.sights[depth-1]
	if s.snap != snap || len(s.square) != l.W*l.H || len(s.room) != len(l.Rooms) {
		*s = sights{snap: snap, square: make([][]byte, l.W*l.H), room: make([][]byte, len(l.Rooms)),
			dark: make([]byte, bitsetLen(l.W*l.H))}
	}
	if blind || !l.In(pos) {
		return s.dark
	}
	i, r := l.idx(pos), l.RoomAt(pos)
	if s.square[i] == nil {
		if r >= 0 && r < len(s.room) && s.room[r] != nil {
			s.square[i] = s.room[r]
		} else {
			s.square[i] = make([]byte, bitsetLen(l.W*l.H))
			l.visible(pos, s.square[i])
			if r >= 0 && r < len(s.room) {
				s.room[r] = s.square[i]
			}
		}
	}
	return s.square[i]
}

// look recomputes what the player sees, adds it to its map and refreshes the views of
// players who can see it.
func (e *Engine) look(p *player) {
	// Views share the visible and seen sets (view does not copy them), and saved records
	// the seen ones (record), so both are new arrays whenever they change, never changed
	// in place; what is visible is the square's, shared (sight).
	vis := e.sight(p.rec.Depth, p.rec.Pos(), p.status(StatusBlind) != nil) // seed 001, blind: "You can't see anything!"
	p.visible = vis
	m := &p.rec.Maps[p.mapIdx]
	for i := range m.Seen {
		if vis[i]&^m.Seen[i] != 0 {
			seen := slices.Clone(m.Seen)
			for j := range seen {
				seen[j] |= vis[j]
			}
			m.Seen = seen
			break
		}
	}
	e.lightTraps(p)
	p.dirty, p.changed = true, true
}
