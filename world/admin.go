package world

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// This file is the engine's side of the admin console: regenerating and
// reverting levels while the server runs, removing a knight, broadcasting a line, and the
// census the server's stats read. Every method here runs its work on the engine goroutine
// through query, like every other engine API; the world still never touches the clock, a
// socket or the disk.

// Errors of the admin API.
var (
	// ErrNoSuchLevel is returned for a depth the dungeon does not have.
	ErrNoSuchLevel = errors.New("no such level")
	// ErrAmbiguousName is returned by Kick when several knights online share the name
	// (names from before they were unique): the admin must name the knight by its id (or
	// one of its keys, which the server turns into the knight's id) instead.
	ErrAmbiguousName = errors.New("several knights online have that name")
	// ErrEmptyText is returned by Broadcast when nothing printable is left of the text.
	ErrEmptyText = errors.New("nothing printable to send")
)

// Messages the admin actions leave in players' logs and views.
const (
	// KickedMessage is the last thing a knight removed by an admin sees.
	KickedMessage = "An admin has removed you from the dungeon."
	// broadcastPrefix marks a broadcast line in the message log.
	broadcastPrefix = "[admin] "
)

// LevelInfo describes one level of the running dungeon for the admin console.
type LevelInfo struct {
	Depth int    `json:"depth"`
	Seed  uint64 `json:"seed"`
	// Original is true while the level is the one the configured dungeon seed builds.
	Original bool `json:"original"`
	Monsters int  `json:"monsters"`
	Players  int  `json:"players"`
}

// Census is a count of what is alive in the world, for the admin's stats and metrics.
type Census struct {
	Turn    uint64      `json:"turn"`
	Players int         `json:"players"`
	Fights  int         `json:"fights"`
	Levels  []LevelInfo `json:"levels"`
}

// Monsters is the number of live monsters on every level together.
func (c Census) Monsters() int {
	n := 0
	for _, l := range c.Levels {
		n += l.Monsters
	}
	return n
}

// Regenerate rebuilds one level (depth ≥ 1) or, with depth 0, every level of the dungeon
// while it runs: level d becomes Generate(d, LevelSeed(dungeonSeed, d), d is the bottom).
// Knights on a rebuilt level are moved to its up stairs and told; fights there end with
// the old monsters vanishing (no knight dies or loses an item); the level is stocked from
// its new seed and its state handed to the Saver at once. It returns the rebuilt levels.
func (e *Engine) Regenerate(ctx context.Context, depth int, dungeonSeed uint64) ([]LevelInfo, error) {
	return e.rebuild(ctx, depth, dungeonSeed)
}

// Revert rebuilds one level, or every level with depth 0, from the configured dungeon
// seed: the original dungeon, byte for byte, freshly stocked (broken doors are whole
// again and the original guards are back). Knights on a reverted level are moved as by
// Regenerate.
func (e *Engine) Revert(ctx context.Context, depth int) ([]LevelInfo, error) {
	return e.rebuild(ctx, depth, e.cfg.Seed)
}

func (e *Engine) rebuild(ctx context.Context, depth int, dungeonSeed uint64) ([]LevelInfo, error) {
	var out []LevelInfo
	var err error
	qerr := e.query(ctx, func() {
		if depth < 0 || depth > len(e.levels) {
			err = fmt.Errorf("level %d of %d: %w", depth, len(e.levels), ErrNoSuchLevel)
			return
		}
		first, last := depth, depth
		if depth == 0 {
			first, last = 1, len(e.levels)
		}
		var states []LevelState
		var moved []Adventurer
		for d := first; d <= last; d++ {
			moved = append(moved, e.regenerate(d, LevelSeed(dungeonSeed, d))...)
			states = append(states, e.levelSnapshot(d))
			e.state[d-1].changed = false
			out = append(out, e.levelInfo(d))
		}
		if e.cfg.Saver != nil {
			// Levels first: a knight saved on a new level's square should never be read
			// back against the old level.
			e.cfg.Saver.PutLevels(states...)
			if len(moved) > 0 {
				e.put(moved...)
			}
		}
		e.publish()
	})
	if qerr != nil {
		return nil, qerr
	}
	return out, err
}

// regenerate replaces the level at depth with the one seed builds, on the engine
// goroutine, and returns the records of the knights it moved.
func (e *Engine) regenerate(depth int, seed uint64) []Adventurer {
	old := e.levels[depth-1].Seed
	for _, enc := range slices.Clone(e.fights) {
		if enc.depth != depth {
			continue
		}
		enc.logf("The dungeon shifts: the monsters are gone.")
		e.endFight(enc)
	}
	e.resetLevel(depth, Generate(depth, seed, depth == len(e.levels)))
	l := e.levels[depth-1]
	var moved []Adventurer
	for _, p := range e.order {
		if p.rec.Depth != depth {
			continue
		}
		p.rec.X, p.rec.Y = l.Up.X, l.Up.Y
		e.positionsChanged()
		e.stand(p)
		p.prev = l.Up
		p.queue = p.queue[:0] // keys typed for the old level mean nothing on the new one
		e.arrive(p)           // a map of another generation of the level starts afresh
		e.keepSafe(p)         // a new level, read before anything attacks
		how := "remade"
		if seed == old {
			how = "made anew" // the same level, its doors whole and its guards back
		}
		e.say(p, fmt.Sprintf("The dungeon shifts: level %d is %s. You stand on its %s.", depth, how, l.Feature(l.Up)))
		p.changed = false
		moved = append(moved, e.record(p))
	}
	e.touchLevel(depth)
	return moved
}

// resetLevel puts a freshly generated level in place at depth, with the state of a level
// nobody has played yet: its guards stocked from its own seed, as New stocks them, no
// door broken. It must stay in step with how newWithLevels sets up each level.
func (e *Engine) resetLevel(depth int, l *Level) {
	e.levels[depth-1] = l
	e.snaps[depth-1] = nil
	e.state[depth-1] = liveLevel{}
	e.stock(depth, rand.New(rand.NewPCG(l.Seed, 0x6d6f6e)))
	e.state[depth-1].changed = true
}

// levelInfo describes the level at depth; on the engine goroutine.
func (e *Engine) levelInfo(depth int) LevelInfo {
	l := e.levels[depth-1]
	players := 0
	for _, p := range e.order {
		if p.rec.Depth == depth {
			players++
		}
	}
	return LevelInfo{Depth: depth, Seed: l.Seed, Original: l.Seed == LevelSeed(e.cfg.Seed, depth),
		Monsters: len(e.state[depth-1].monsters), Players: players}
}

// LevelsInfo describes every level of the dungeon, shallowest first.
func (e *Engine) LevelsInfo(ctx context.Context) ([]LevelInfo, error) {
	var out []LevelInfo
	err := e.query(ctx, func() {
		for d := 1; d <= len(e.levels); d++ {
			out = append(out, e.levelInfo(d))
		}
	})
	return out, err
}

// Census counts the knights online, the fights under way and the monsters alive on each
// level, at the current turn.
func (e *Engine) Census(ctx context.Context) (Census, error) {
	var c Census
	err := e.query(ctx, func() {
		c = Census{Turn: e.turn, Players: len(e.order), Fights: len(e.fights)}
		for d := 1; d <= len(e.levels); d++ {
			c.Levels = append(c.Levels, e.levelInfo(d))
		}
	})
	return c, err
}

// KickedFor is what a knight removed by an admin sees last: KickedMessage, and the
// admin's reason, cleaned, when one was given.
func KickedFor(reason string) string {
	if r := CleanText(reason, MaxBroadcastRunes); r != "" {
		return KickedMessage + " Reason: " + r
	}
	return KickedMessage
}

// Kick removes a knight from the world: who is the knight's id (Adventurer.ID), or its
// name (case-insensitive). The knight leaves any fight, is handed to the Saver, and its session
// gets a last view with Ended set to KickedFor(reason). It reports whether a knight was
// online; a name that several knights online share fails with ErrAmbiguousName.
func (e *Engine) Kick(ctx context.Context, who, reason string) (bool, error) {
	var found bool
	var err error
	qerr := e.query(ctx, func() {
		var p *player
		p, err = e.find(who)
		if p == nil {
			return
		}
		found = true
		e.leaveFight(p)
		e.remove(p)
		if p.sub != nil {
			p.sub.Deliver(View{Turn: e.turn, Ended: KickedFor(reason)})
		}
		e.publish()
	})
	if qerr != nil {
		return false, qerr
	}
	return found, err
}

// find is the online knight with the id, or else the one with the name; on the engine
// goroutine.
func (e *Engine) find(who string) (*player, error) {
	if p, ok := e.players[who]; ok {
		return p, nil
	}
	var match *player
	for _, p := range e.order {
		if strings.EqualFold(p.rec.Name, strings.TrimSpace(who)) {
			if match != nil {
				return nil, fmt.Errorf("%q: %w", who, ErrAmbiguousName)
			}
			match = p
		}
	}
	return match, nil
}

// Broadcast puts one line, "[admin] " and the text cleaned by CleanText (at most
// MaxBroadcastRunes runes), in every online knight's messages, and reports how many
// knights it reached.
func (e *Engine) Broadcast(ctx context.Context, text string) (int, error) {
	line := CleanText(text, MaxBroadcastRunes)
	if line == "" {
		return 0, ErrEmptyText
	}
	n := 0
	err := e.query(ctx, func() {
		for _, p := range e.order {
			e.say(p, broadcastPrefix+line)
			n++
		}
		e.publish()
	})
	return n, err
}

// Tell puts one line, cleaned by CleanText (at most MaxBroadcastRunes runes), in the
// messages of each knight online among ids (the server's admins, told of a new report),
// and reports how many it reached.
func (e *Engine) Tell(ctx context.Context, ids []string, text string) (int, error) {
	line := CleanText(text, MaxBroadcastRunes)
	if line == "" {
		return 0, ErrEmptyText
	}
	n := 0
	err := e.query(ctx, func() {
		for _, id := range ids {
			if p, ok := e.players[id]; ok {
				e.say(p, line)
				n++
			}
		}
		e.publish()
	})
	return n, err
}

// Renamed is what Rename did: whether the knight was online (and told), and the name it
// had.
type Renamed struct {
	Online bool
	Old    string
}

// RenamedNote is what a knight online reads when an admin renames it.
func RenamedNote(old, name string) string {
	return fmt.Sprintf("An admin has renamed your knight: you are now %s (you were %s).", name, old)
}

// Rename gives the knight id the name, which the server has checked (CleanName) and made
// its own. A knight online takes it at once, is told (RenamedNote), and its record goes
// to the Saver. One offline has stored, its record as the server read it, which the
// server renames where it keeps it; it is told at its next join, which takes the name
// even from a record its session read before. A knight another realm plays (stored nil)
// is listed by its new name at once. Letters reach the knight by its new name only.
func (e *Engine) Rename(ctx context.Context, id, name string, stored *Adventurer) (Renamed, error) {
	var done Renamed
	err := e.query(ctx, func() {
		ended := false
		if p, ok := e.players[id]; ok {
			done = Renamed{Online: true, Old: p.rec.Name}
			p.rec.Name = name
			e.tell(p, MsgOwn, RenamedNote(done.Old, name))
			e.saveNow(p)
			e.publish()
		} else if stored != nil {
			done.Old, ended = stored.Name, stored.Ended()
			if e.renamed == nil {
				e.renamed = map[string]string{}
			}
			e.renamed[id] = name
		}
		for k, kk := range e.soc.known {
			if kk.ID == id {
				ended = ended || kk.Ended
				delete(e.soc.known, k)
			}
		}
		e.soc.known[NameKey(name)] = KnownKnight{ID: id, Name: name, Ended: ended}
		// Another realm's knight is named by its realm's presence, which says the new name
		// only at its next word: until then, who and the admin's commands here would
		// still find it by the old one.
		for _, ks := range e.soc.far {
			for i := range ks {
				if ks[i].ID == id {
					ks[i].Name = name
				}
			}
		}
	})
	return done, err
}

// takeRename gives a knight joining the name an admin gave it while it was offline, and
// returns what to tell it ("" for no rename); on the engine goroutine.
func (e *Engine) takeRename(p *player) string {
	name, ok := e.renamed[p.rec.ID]
	if !ok {
		return ""
	}
	delete(e.renamed, p.rec.ID)
	if old := p.rec.Name; old != name {
		p.rec.Name = name
		return RenamedNote(old, name)
	}
	return fmt.Sprintf("An admin has renamed your knight %s while you were away.", name)
}
