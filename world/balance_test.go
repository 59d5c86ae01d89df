package world

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The balance run (docs/MONSTERS.md, "Balance run"): a scripted bot plays whole games of
// Orthanc against a real Engine, headless, by sending the Commands a player would send and
// stepping the engine on its own goroutine. Two bots play the same seeded games with the
// same knight: a careful one, which fights when healthy, heals, runs, goes home to level up
// and goes deeper only when its level allows, and a reckless one, which fights everything,
// never runs or heals, and takes the stairs down as soon as it has found them. The full run
// is
//
//	ORTHANC_BALANCE=1000 go test ./world -run Balance -v
//
// (ORTHANC_BALANCE_TURNS overrides the turn limit). Without the variable, TestBalance plays
// the reduced run, the first ciGames games of the full run, and checks the same balance
// goals, so every test run (CI's included) does; with -short it plays a small smoke sample
// and checks only that the bots make progress.

// botStrategy is how a balance bot plays.
type botStrategy int

const (
	strategyCareful botStrategy = iota
	strategyReckless
	numStrategies
)

func (s botStrategy) String() string {
	if s == strategyCareful {
		return "careful"
	}
	return "reckless"
}

// Tuning of the balance run and of the careful bot. Fractions are of the knight's
// maximum hits.
const (
	balanceTurnLimit = 300_000 // turns per game in the full run: 30,000 rounds, about two hours of play at 25 ms a turn
	smokeTurnLimit   = 20_000  // turns per game in the smoke sample (-short)
	smokeGames       = 20      // games per strategy in the smoke sample (-short)
	// ciGames is how many of the full run's games the reduced run plays per strategy: enough
	// that the careful bot's share reaching both goals (62.9% in the full run) is eight
	// standard errors (sqrt(0.63 × 0.37 / 100) = 4.8 points) above its 25% goal and the
	// reckless bot's early deaths (66.5%) three and a half above a half, so a rule that
	// breaks the balance fails it. It takes about 5 s of CPU, 40 s with -race: 20 s on two
	// cores.
	ciGames         = 100
	balanceSeedBase = 1977   // game i plays dungeon and knight seed splitmix64(balanceSeedBase+i)
	retireLevel     = 10     // a knight who reaches this level retires: the game is won
	stallTurns      = 50_000 // a game with no experience gained and no stairs taken for this long has stalled

	carefulRoomMin     = 0.6 // enters a room that may be guarded only with this much
	carefulDescendMin  = 0.8 // takes the stairs down only with this much
	carefulCureBelow   = 0.7 // casts Cure out of a fight below this
	carefulReturnBelow = 0.5 // below this, with fewer than 2 spell units, heads for the exit
	carefulRunBelow    = 0.5 // runs from a dangerous corridor fight below this
	carefulDanger      = 0.5 // a fight is dangerous when it is expected to cost this share of the hits left
)

// gameResult is how one game ended.
type gameResult struct {
	died, retired bool
	stalled       bool   // the knight could make no more progress (see stallTurns)
	killer        string // "a Giant Rat"
	deathDepth    int
	deepest       int // deepest dungeon level reached
	level         int // experience level at the end (it rises only on a successful exit)
	exp           int
	exits         int // successful exits
	turns         uint64
	// freeRounds are the rounds of a fight that ended with every standing monster charmed,
	// held or asleep, and freeHits and freeUnits what the knight recovered in them: the
	// farming issue 31 measured (a sleeping monster's rounds are no risk).
	freeRounds, freeHits, freeUnits int
}

// balanceSeed is the seed of game i: both the dungeon's and the knight's.
func balanceSeed(i int) uint64 { return splitmix64(balanceSeedBase + uint64(i)) }

// playBalanceGame plays one game: a fresh dungeon from seed, one knight rolled from seed,
// and the bot playing it until the knight dies, retires or the turn limit comes.
func playBalanceGame(seed uint64, strat botStrategy, turnLimit uint64) gameResult {
	e := New(Config{Seed: seed})
	r := rand.New(rand.NewPCG(seed, 0x6b6e69676874))
	s := RollStats(r)
	const fp = "bot"
	e.join(NewAdventurer(fp, "Bot", s, StartHits(r, s.Con)), nil)
	b := newBalanceBot(e, e.players[fp], strat)
	p := b.p
	for e.turn < turnLimit && p.rec.Death == nil && p.rec.Retirement == nil && !b.stalled() {
		if len(p.queue) == 0 && p.energy.Ready() {
			if cmd := b.decide(); cmd != nil {
				e.enqueue(fp, p.session, cmd)
			}
		}
		e.Step()
		b.observe()
	}
	res := gameResult{deepest: b.deepest, level: p.rec.Level, exp: p.rec.Experience, exits: b.exits, turns: e.turn,
		retired: p.rec.Retirement != nil, stalled: b.stalled(),
		freeRounds: b.freeRounds, freeHits: b.freeHits, freeUnits: b.freeUnits}
	if d := p.rec.Death; d != nil {
		res.died, res.killer, res.deathDepth = true, d.Killer, d.Depth
	}
	return res
}

// balanceBot plays one knight. It reads the engine's state to plan (the level's geometry,
// its own knight, the fight it is in and the monsters on squares it sees) but changes
// nothing: everything it does goes through enqueue as a Command.
type balanceBot struct {
	e     *Engine
	p     *player
	strat botStrategy

	deepest   int
	exits     int
	returning bool     // heading for the exit to level up or heal
	cleared   [][]bool // per depth, per room: known to hold no guard since the last restock
	lastExp   int
	lastDepth int
	progress  uint64 // the turn experience or depth last changed

	// What a round with no monster able to fight gave the knight (gameResult.freeRounds).
	enc                             *encounter
	encRounds, lastHits, lastUnits  int
	freeRounds, freeHits, freeUnits int

	// Dijkstra scratch, reused between plans.
	dist  []int
	prev  []int
	heap  []int64
	marks []uint8 // markMonster, markTrap by square
}

func newBalanceBot(e *Engine, p *player, strat botStrategy) *balanceBot {
	b := &balanceBot{e: e, p: p, strat: strat, cleared: make([][]bool, len(e.levels)), lastDepth: p.rec.Depth}
	for i, l := range e.levels {
		b.cleared[i] = make([]bool, len(l.Rooms))
	}
	b.observe()
	return b
}

// observe updates what the bot knows after a turn: the deepest level, exits, rooms seen
// empty, and restocks (which the knight learns from its messages).
func (b *balanceBot) observe() {
	r := &b.p.rec
	b.countFreeRounds()
	b.deepest = max(b.deepest, r.Depth)
	if r.Depth == 0 && b.lastDepth > 0 {
		b.exits++
		b.returning = false
	}
	if r.Depth != b.lastDepth {
		b.lastDepth, b.progress = r.Depth, b.e.turn
	}
	if r.Experience != b.lastExp {
		b.lastExp, b.progress = r.Experience, b.e.turn
		if r.Depth > 0 && b.restocked() {
			clear(b.cleared[r.Depth-1])
		}
	}
	if r.Depth == 0 || b.p.fight != nil || r.Death != nil {
		return
	}
	l := b.e.levels[r.Depth-1]
	room := l.RoomAt(r.Pos())
	if room < 0 || !Bit(b.p.visible, l.idx(r.Pos())) {
		return // not in a room, or blind
	}
	// Inside a room the knight sees all of it: no monster there, no guard.
	for _, m := range b.e.Monsters(r.Depth) {
		if l.RoomAt(m.Pos) == room && Bit(b.p.visible, l.idx(m.Pos)) {
			return
		}
	}
	b.cleared[r.Depth-1][room] = true
}

// countFreeRounds counts the rounds of the knight's fight that ended while every standing
// monster was charmed, held or asleep, and what the knight recovered in them.
func (b *balanceBot) countFreeRounds() {
	r, enc := &b.p.rec, b.p.fight
	if enc != nil && enc == b.enc && enc.rounds > b.encRounds {
		free := true
		for _, m := range enc.standing() {
			free = free && m.held
		}
		if free {
			b.freeRounds += enc.rounds - b.encRounds
			b.freeHits += max(0, r.Hits-b.lastHits)
			b.freeUnits += max(0, r.SpellUnits-b.lastUnits)
		}
	}
	b.enc, b.lastHits, b.lastUnits = enc, r.Hits, r.SpellUnits
	if enc != nil {
		b.encRounds = enc.rounds
	}
}

// restocked reports whether the kill just made restocked the level: the engine says so
// after the kill's own messages.
func (b *balanceBot) restocked() bool {
	msgs := b.p.msgs()
	for i := len(msgs) - 1; i >= 0; i-- {
		if strings.Contains(msgs[i], "the dungeon stirs") {
			return true
		}
		if strings.HasPrefix(msgs[i], "You killed") {
			return false
		}
	}
	return false
}

// stalled reports whether the game has stopped going anywhere: typically a knight whose
// load has shrunk its to-hit die to six sides or fewer, in a room with a monster it put to
// sleep, so that neither can ever hit the other.
func (b *balanceBot) stalled() bool { return b.e.turn-b.progress > stallTurns }

func (b *balanceBot) frac() float64 {
	return float64(b.p.rec.Hits) / float64(max(1, b.p.rec.MaxHits))
}

// decide picks the next command, or nil to let a turn pass.
func (b *balanceBot) decide() Command {
	r := &b.p.rec
	if r.Depth == 0 {
		if b.strat == strategyCareful && r.Level >= retireLevel {
			return Retire{}
		}
		return Enter{}
	}
	if b.p.fight != nil {
		return b.fight()
	}
	if b.strat == strategyReckless {
		return b.reckless()
	}
	return b.careful()
}

// reckless explores (every room it comes to, every corridor) only until it has seen the
// stairs down, and takes them at once; on the bottom level it keeps exploring.
func (b *balanceBot) reckless() Command {
	r := &b.p.rec
	l := b.e.levels[r.Depth-1]
	if b.stairsDownSeen() {
		if r.Pos() == l.Down {
			return Climb{Down: true}
		}
		return b.route(func(i int) bool { return i == l.idx(l.Down) }, 0, 0)
	}
	return b.explore(true, 0, 0)
}

// stairsDownSeen reports whether the level has stairs down and the knight has seen them.
func (b *balanceBot) stairsDownSeen() bool {
	r := &b.p.rec
	l := b.e.levels[r.Depth-1]
	return l.HasDown && Bit(r.Maps[b.p.mapIdx].Seen, l.idx(l.Down))
}

// careful plays as seed 000 advises: heal, level up on the way out, and only go deeper
// when strong enough.
func (b *balanceBot) careful() Command {
	r := &b.p.rec
	l := b.e.levels[r.Depth-1]
	frac := b.frac()
	if cmd := b.equip(); cmd != nil {
		return cmd
	}
	if frac < carefulCureBelow && r.SpellUnits >= 1 && (r.SpellUnits >= 2 || frac < 0.4) {
		return Cast{Spell: SpellCure}
	}
	if LevelForExperience(r.Experience) > r.Level || (frac < carefulReturnBelow && r.SpellUnits < 2) {
		b.returning = true
	}
	const avoid = 500 // as good as a wall, unless there is no other way
	if b.returning {
		if r.Pos() == l.Up {
			return Climb{}
		}
		return b.route(func(i int) bool { return i == l.idx(l.Up) }, avoid, avoid)
	}
	if r.Level > r.Depth && frac >= carefulDescendMin && b.stairsDownSeen() {
		if r.Pos() == l.Down {
			return Climb{Down: true}
		}
		return b.route(func(i int) bool { return i == l.idx(l.Down) }, 10, 0)
	}
	// A room may hold a guard: go in only with the hits to take its first blows, and with
	// a sword arm that can hit at all (or the units for Pray).
	healthy := frac >= carefulRoomMin && (HitChance(b.e.dieSides(b.p), false, Man) > 0 || r.SpellUnits >= 2)
	roomCost, monsterCost := 0, 0
	if !healthy {
		roomCost, monsterCost = avoid, avoid
	}
	if cmd := b.explore(healthy, roomCost, monsterCost); cmd != nil {
		return cmd
	}
	// Nothing left to do here that is safe: go out, heal, and come back.
	b.returning = true
	return nil
}

// explore heads for the nearest square not yet seen or, with rooms set, the nearest room
// that may hold a guard (and its treasure).
func (b *balanceBot) explore(rooms bool, roomCost, monsterCost int) Command {
	r := &b.p.rec
	l := b.e.levels[r.Depth-1]
	seen := r.Maps[b.p.mapIdx].Seen
	cleared := b.cleared[r.Depth-1]
	return b.route(func(i int) bool {
		if room := int(l.room[i]); room >= 0 {
			return rooms && !cleared[room]
		}
		return !Bit(seen, i) && l.terrain[i] != Rock
	}, roomCost, monsterCost)
}

// route plans the cheapest way to the nearest square for which goal is true and returns
// the first step of it (or, for a careful knight about to cross a pit or chute, Levitation),
// or nil when no goal can be reached. It plans on the level's true geometry, as a knight who
// has mapped it would. Each step costs 1; a locked door costs the tries the knight's
// Strength needs on average, a secret door it has not found a few searches. roomCost is
// added for stepping into a room that may be guarded and monsterCost for stepping onto a
// monster the knight sees; a careful knight also keeps off the pits and chutes it has seen
// and the traps it knows, unless there is no other way.
func (b *balanceBot) route(goal func(int) bool, roomCost, monsterCost int) Command {
	p := b.p
	r := &p.rec
	l := b.e.levels[r.Depth-1]
	costs := b.routeCosts(l, roomCost, monsterCost)
	start := l.idx(r.Pos())
	found := b.search(l, start, goal, costs)
	if found < 0 {
		return nil
	}
	for b.prev[found] != start {
		found = b.prev[found]
	}
	return b.firstStep(l, Pos{found % l.W, found / l.W})
}

// routeCosts are what a step costs route beyond 1, on the level the knight is on.
type routeCosts struct {
	l                         *Level
	lock, room, monster, trap int
	lit                       bool  // the knight is lit: secret doors show
	doors                     []int // the secret doors it has found
	cleared                   []bool
	seen                      []byte // the squares it has seen
	marks                     []uint8
}

// routeCosts readies route's plan on level l: its scratch, the monsters the knight sees
// and (for a careful knight) the traps it knows marked, and what each step costs.
func (b *balanceBot) routeCosts(l *Level, roomCost, monsterCost int) routeCosts {
	p := b.p
	r := &p.rec
	n := l.W * l.H
	if len(b.dist) != n {
		b.dist, b.prev, b.marks = make([]int, n), make([]int, n), make([]uint8, n)
	}
	clear(b.marks)
	for _, m := range b.e.Monsters(r.Depth) {
		if i := l.idx(m.Pos); Bit(p.visible, i) {
			b.marks[i] |= markMonster
		}
	}
	known := &r.Maps[p.mapIdx]
	c := routeCosts{l: l, lock: 20 / max(1, r.Str), room: roomCost, monster: monsterCost, lit: b.e.lit(p),
		doors: known.Doors, cleared: b.cleared[r.Depth-1], seen: known.Seen, marks: b.marks}
	// A careful knight steps round the pits and chutes it has seen and the traps it knows.
	if b.strat == strategyCareful {
		c.trap = 500
		for _, sq := range known.Traps {
			b.marks[sq] |= markTrap
		}
	}
	for i := range b.dist {
		b.dist[i], b.prev[i] = math.MaxInt, -1
	}
	return c
}

// step is the square j a step from pos in dir comes to, and what it costs; ok is false
// for a wall.
func (c *routeCosts) step(pos Pos, dir Dir) (j, cost int, ok bool) {
	l := c.l
	edge := l.Edge(pos, dir)
	if edge == EdgeWall {
		return 0, 0, false
	}
	j = l.idx(pos.Step(dir))
	cost = 1
	switch {
	case edge == EdgeLocked:
		cost += c.lock
	case edge.IsSecret() && !c.lit && !slices.Contains(c.doors, l.EdgeIndex(pos, dir)):
		cost += 8
	}
	if room := int(l.room[j]); room >= 0 && !c.cleared[room] {
		cost += c.room
	}
	if c.marks[j]&markMonster != 0 {
		cost += c.monster
	}
	if f := l.feature[j]; c.marks[j]&markTrap != 0 || ((f == FeatPit || f == FeatChute) && Bit(c.seen, j)) {
		cost += c.trap
	}
	return j, cost, true
}

// search is Dijkstra's from start to the nearest square for which goal is true, leaving
// the way in b.prev; it returns the square, or -1 when none can be reached.
func (b *balanceBot) search(l *Level, start int, goal func(int) bool, costs routeCosts) int {
	b.dist[start] = 0
	b.heap = append(b.heap[:0], int64(start))
	for len(b.heap) > 0 {
		top := heapPop(&b.heap)
		d, i := int(top>>16), int(top&0xffff)
		if d > b.dist[i] {
			continue
		}
		if i != start && goal(i) {
			return i
		}
		pos := Pos{i % l.W, i / l.W}
		for _, dir := range Dirs {
			j, c, ok := costs.step(pos, dir)
			if !ok {
				continue
			}
			if nd := d + c; nd < b.dist[j] {
				b.dist[j], b.prev[j] = nd, i
				heapPush(&b.heap, int64(nd)<<16|int64(j))
			}
		}
	}
	return -1
}

// firstStep is the command that takes the knight to the square next to it, to: a move,
// or, for a careful knight about to cross a pit or chute, Levitation.
func (b *balanceBot) firstStep(l *Level, to Pos) Command {
	p := b.p
	r := &p.rec
	if f := l.Feature(to); b.strat == strategyCareful && (f == FeatPit || f == FeatChute) &&
		!wearing(r.Items, ItemBootsOfLevitation) && !p.has(SpellLevitation) && r.SpellUnits >= 1 {
		// The only way on is over a pit or a chute: float over it.
		return Cast{Spell: SpellLevitation}
	}
	for _, dir := range Dirs {
		if r.Pos().Step(dir) == to {
			return Move{Dir: dir, Door: l.Edge(r.Pos(), dir) != EdgeOpen}
		}
	}
	return nil
}

// Marks on squares for route.
const (
	markMonster uint8 = 1 << iota // a monster the knight sees
	markTrap                      // a trap the knight knows
)

// heapPush and heapPop keep a binary min-heap of distance<<16|square.
func heapPush(h *[]int64, v int64) {
	*h = append(*h, v)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func heapPop(h *[]int64) int64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s[c+1] < s[c] {
			c++
		}
		if s[i] <= s[c] {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// ringRank is the careful bot's liking for a ring it wears all the time; 0 for rings it
// does not (invisibility is worn only on the way home, when it may not want to fight).
func ringRank(k ItemKind) int {
	switch k {
	case ItemRingOfProtection:
		return 3
	case ItemRingOfRegeneration:
		return 2
	case ItemRingOfLight:
		return 1
	}
	return 0
}

// equip reads manuals (but not vile darkness), wears the best boots and the best ring, and
// wears a ring of invisibility only while heading home.
func (b *balanceBot) equip() Command {
	items := b.p.rec.Items
	if i := slices.IndexFunc(items, func(it Item) bool {
		return it.Info().Readable && it.Kind != ItemManualOfVileDarkness
	}); i >= 0 {
		return UseItem{Index: i}
	}
	bestRing, bootsWorn, rings := wornRings(items)
	for i := range items {
		if b.shouldChange(items, i, bestRing, bootsWorn) {
			return UseItem{Index: i}
		}
	}
	if bestRing >= 0 && !items[bestRing].Worn && rings < maxRings {
		return UseItem{Index: bestRing}
	}
	if b.returning && rings < maxRings {
		if i := slices.IndexFunc(items, func(it Item) bool { return it.Kind == ItemRingOfInvisibility }); i >= 0 && !items[i].Worn {
			return UseItem{Index: i}
		}
	}
	return nil
}

// wornRings looks over the knight's items for equip: the best ring to wear all the time
// (-1 for none), whether it wears boots, and how many rings it wears.
func wornRings(items []Item) (bestRing int, bootsWorn bool, rings int) {
	bestRing = -1
	for i, it := range items {
		if isBoots(it.Kind) && it.Worn {
			bootsWorn = true
		}
		if isRing(it.Kind) && it.Worn {
			rings++
		}
		if ringRank(it.Kind) > 0 && (bestRing < 0 || ringRank(it.Kind) > ringRank(items[bestRing].Kind)) {
			bestRing = i
		}
	}
	return bestRing, bootsWorn, rings
}

// shouldChange reports whether the knight should put on or take off item i: boots to put
// on, a ring worn that is not the best, a ring of invisibility not wanted now.
func (b *balanceBot) shouldChange(items []Item, i, bestRing int, bootsWorn bool) bool {
	it := items[i]
	switch {
	case it.Kind == ItemBootsOfSpeed && !it.Worn && !wearing(items, ItemBootsOfSpeed):
		return true
	case it.Kind == ItemBootsOfLevitation && !it.Worn && !bootsWorn:
		return true
	case isRing(it.Kind) && it.Worn && it.Kind != ItemRingOfInvisibility && i != bestRing:
		return true
	case it.Kind == ItemRingOfInvisibility && it.Worn && !b.returning:
		return true // take it off to meet the guards again
	}
	return false
}

// fight chooses what to do on the knight's turn in a fight.
func (b *balanceBot) fight() Command {
	p := b.p
	r := &p.rec
	m := b.e.targetOf(p, p.fight)
	k := m.Kind()
	if b.strat == strategyReckless {
		return Fight{}
	}
	if cmd := b.hopeless(k); cmd != nil {
		return cmd
	}
	if m.held {
		return Fight{}
	}
	if k.Class == Mythical && arrowsOf(r.Items) > 0 {
		return Shoot{}
	}
	frac := b.frac()
	danger := b.danger(k, m.hits)
	inRoom := b.e.levels[r.Depth-1].RoomAt(r.Pos()) >= 0
	if danger < carefulDanger && (inRoom || frac >= carefulRunBelow/2) {
		return Fight{}
	}
	units := r.SpellUnits
	switch {
	case units >= 1 && Affects(SpellSleep, k):
		return Cast{Spell: SpellSleep}
	case units >= 1 && Affects(SpellCharm, k):
		return Cast{Spell: SpellCharm}
	case !inRoom && (frac < carefulRunBelow || danger > 1):
		return Run{}
	case units >= 1 && Affects(SpellMagicMissile, k):
		return Cast{Spell: SpellMagicMissile}
	}
	if danger > 1 {
		return b.vanish()
	}
	return Fight{}
}

// hopeless is what the knight does when its sword cannot hit a monster of kind k: a die
// of six sides or fewer (a clumsy knight, or one weighed down by its finds) never beats
// 6, so only Pray (hits on more than 3) or a missile can win the fight, or else running
// from a corridor. It is nil when the sword can hit, or nothing else helps.
func (b *balanceBot) hopeless(k *MonsterKind) Command {
	p := b.p
	r := &p.rec
	if HitChance(b.e.dieSides(p), p.has(SpellPray), k.Class) != 0 {
		return nil
	}
	switch {
	case r.SpellUnits >= 2 && !p.has(SpellPray):
		return Cast{Spell: SpellPray}
	case r.SpellUnits >= 1 && Affects(SpellMagicMissile, k):
		return Cast{Spell: SpellMagicMissile}
	case b.e.levels[r.Depth-1].RoomAt(r.Pos()) < 0:
		return Run{}
	}
	return nil
}

// arrowsOf is how many arrows of slaying the items hold.
func arrowsOf(items []Item) int {
	arrows := 0
	for _, it := range items {
		if it.Kind == ItemQuiver {
			arrows += it.Count
		}
	}
	return arrows
}

// vanish is what a knight about to die in a room does: a ring of invisibility, if a hand
// is free, saves it; otherwise it fights on.
func (b *balanceBot) vanish() Command {
	items := b.p.rec.Items
	rings := 0
	for _, it := range items {
		if isRing(it.Kind) && it.Worn {
			rings++
		}
	}
	if i := slices.IndexFunc(items, func(it Item) bool { return it.Kind == ItemRingOfInvisibility && !it.Worn }); i >= 0 && rings < maxRings {
		return UseItem{Index: i}
	}
	return Fight{}
}

// danger is the share of the knight's hits it expects to lose before it kills a monster
// of kind k with mhits hits left, from seed 000's odds and average damage.
func (b *balanceBot) danger(k *MonsterKind, mhits int) float64 {
	p := b.p
	r := &p.rec
	if b.e.invisible(p) {
		return 0 // seed 000: "You are safe from attack"
	}
	hit := HitChance(b.e.dieSides(p), p.has(SpellPray), k.Class)
	dmg := max(1, 4.5+ExperienceLevelPower(r.Level)+float64(best(r.Items, ItemSword)+StrengthAdjust(r.Str)))
	perRound := hit * dmg * float64(Blows(r.Dex, r.Level))
	if perRound <= 0 {
		return math.Inf(1)
	}
	rounds := float64(mhits) / perRound
	blow := max(0, float64(k.AttackDice.N)*float64(k.AttackDice.Sides+1)/2-float64(best(r.Items, ItemShield)+best(r.Items, ItemArmour)))
	taken := rounds * MonsterHitChance(k.Dex, b.e.protected(p), k.Class) * blow * float64(max(1, k.AttacksPerRound))
	return taken / float64(max(1, r.Hits))
}

// --- running many games and reporting --------------------------------------------------

// playBalance plays games 0..n-1 with each strategy, on all cores, one Engine per game.
func playBalance(n int, turnLimit uint64) [numStrategies][]gameResult {
	var out [numStrategies][]gameResult
	type job struct {
		strat botStrategy
		i     int
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for s := range numStrategies {
		out[s] = make([]gameResult, n)
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				out[j.strat][j.i] = playBalanceGame(balanceSeed(j.i), j.strat, turnLimit)
			}
		})
	}
	for i := range n {
		for s := range numStrategies {
			jobs <- job{s, i}
		}
	}
	close(jobs)
	wg.Wait()
	return out
}

// balanceSummary is one strategy's figures.
type balanceSummary struct {
	games, survived, retired, stalled int
	deepestMedian, deepestP90         int
	levelMedian, levelP90             int
	expMedian, expP90                 int
	level5, depth5, both5             int
	deathsByDepth                     map[int]map[string]int
	deaths                            map[string]int
	freeRounds, freeHits, freeUnits   int // totals over the games (gameResult.freeRounds)
}

// nearestRank is the p-th percentile (0 < p ≤ 1) of sorted values by the nearest-rank method.
func nearestRank(sorted []int, p float64) int {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func summarize(rs []gameResult) balanceSummary {
	s := balanceSummary{games: len(rs), deathsByDepth: map[int]map[string]int{}, deaths: map[string]int{}}
	var deep, lvl, exp []int
	for _, r := range rs {
		deep, lvl, exp = append(deep, r.deepest), append(lvl, r.level), append(exp, r.exp)
		s.freeRounds, s.freeHits, s.freeUnits = s.freeRounds+r.freeRounds, s.freeHits+r.freeHits, s.freeUnits+r.freeUnits
		switch {
		case r.died:
			if s.deathsByDepth[r.deathDepth] == nil {
				s.deathsByDepth[r.deathDepth] = map[string]int{}
			}
			s.deathsByDepth[r.deathDepth][r.killer]++
			s.deaths[r.killer]++
		case r.retired:
			s.survived++
			s.retired++
		case r.stalled:
			s.survived++
			s.stalled++
		default:
			s.survived++
		}
		if r.level >= 5 {
			s.level5++
		}
		if r.deepest >= 5 {
			s.depth5++
		}
		if r.level >= 5 && r.deepest >= 5 {
			s.both5++
		}
	}
	slices.Sort(deep)
	slices.Sort(lvl)
	slices.Sort(exp)
	s.deepestMedian, s.deepestP90 = nearestRank(deep, 0.5), nearestRank(deep, 0.9)
	s.levelMedian, s.levelP90 = nearestRank(lvl, 0.5), nearestRank(lvl, 0.9)
	s.expMedian, s.expP90 = nearestRank(exp, 0.5), nearestRank(exp, 0.9)
	return s
}

func pct(n, of int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(1, of))) }

// topKillers lists the most frequent killers, most first, ties by name.
func topKillers(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	slices.SortFunc(all, func(a, b kv) int {
		if c := cmp.Compare(b.v, a.v); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	var parts []string
	for i, x := range all {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(strings.TrimPrefix(x.k, "an "), "a "), x.v))
	}
	return strings.Join(parts, ", ")
}

// balanceMarkdown renders the run as the tables docs/MONSTERS.md shows.
func balanceMarkdown(sums [numStrategies]balanceSummary, turnLimit uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d games per strategy, at most %d turns each.\n\n", sums[0].games, turnLimit)
	b.WriteString("| Strategy | Games | Survived | Retired | Stalled | Deepest DL median | p90 | Level median | p90 | Experience median | p90 | Level ≥ 5 | DL ≥ 5 | Both |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for st, s := range sums {
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n",
			botStrategy(st), s.games, pct(s.survived, s.games), s.retired, s.stalled, s.deepestMedian, s.deepestP90,
			s.levelMedian, s.levelP90, s.expMedian, s.expP90, pct(s.level5, s.games), pct(s.depth5, s.games), pct(s.both5, s.games))
	}
	b.WriteString("\n| Strategy | Rounds with every monster charmed, held or asleep | Hits recovered in them | Spell units recovered in them |\n|---|--:|--:|--:|\n")
	for st, s := range sums {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", botStrategy(st), s.freeRounds, s.freeHits, s.freeUnits)
	}
	for st, s := range sums {
		fmt.Fprintf(&b, "\nDeaths of the %s bot by dungeon level:\n\n", botStrategy(st))
		b.WriteString("| DL | Deaths | % of games | Top killers |\n|--:|--:|--:|---|\n")
		depths := make([]int, 0, len(s.deathsByDepth))
		for d := range s.deathsByDepth {
			depths = append(depths, d)
		}
		slices.Sort(depths)
		total := 0
		for _, d := range depths {
			n := 0
			for _, c := range s.deathsByDepth[d] {
				n += c
			}
			total += n
			fmt.Fprintf(&b, "| %d | %d | %s | %s |\n", d, n, pct(n, s.games), topKillers(s.deathsByDepth[d], 3))
		}
		fmt.Fprintf(&b, "| all | %d | %s | %s |\n", total, pct(total, s.games), topKillers(s.deaths, 5))
	}
	return b.String()
}

// TestBalance plays the balance run and checks the balance goals (docs/MONSTERS.md): the
// reduced run of ciGames games per strategy, or with ORTHANC_BALANCE=N the full run of N
// games. With -short (and no ORTHANC_BALANCE) it plays a small, short smoke sample and
// checks only that the bots make progress.
func TestBalance(t *testing.T) {
	games, turnLimit, goals := ciGames, uint64(balanceTurnLimit), true
	if testing.Short() {
		games, turnLimit, goals = smokeGames, smokeTurnLimit, false
	}
	if v := os.Getenv("ORTHANC_BALANCE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ORTHANC_BALANCE=%q: want a number of games", v)
		}
		games, turnLimit, goals = n, balanceTurnLimit, true
	}
	if v := os.Getenv("ORTHANC_BALANCE_TURNS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n < 1 {
			t.Fatalf("ORTHANC_BALANCE_TURNS=%q: want a number of turns", v)
		}
		turnLimit = n
	}
	start := time.Now()
	res := playBalance(games, turnLimit)
	var sums [numStrategies]balanceSummary
	for s := range numStrategies {
		sums[s] = summarize(res[s])
	}
	t.Logf("balance run: %d games per strategy in %v", games, time.Since(start).Round(time.Millisecond))
	if testing.Verbose() {
		fmt.Println()
		fmt.Print(balanceMarkdown(sums, turnLimit))
		fmt.Println()
	}

	// Sanity, whatever the sample: every game ended within its limit, and both bots gained
	// experience and went down at least once.
	for s := range numStrategies {
		maxExp, maxDeep := 0, 0
		for _, r := range res[s] {
			if r.turns > turnLimit || (!r.died && !r.retired && !r.stalled && r.turns != turnLimit) {
				t.Errorf("%s game ended oddly: %+v", botStrategy(s), r)
			}
			maxExp, maxDeep = max(maxExp, r.exp), max(maxDeep, r.deepest)
		}
		if maxExp == 0 || maxDeep < 2 {
			t.Errorf("the %s bot made no progress: best experience %d, deepest level %d", botStrategy(s), maxExp, maxDeep)
		}
	}
	if !goals {
		return
	}
	c, r := sums[strategyCareful], sums[strategyReckless]
	if c.both5*4 < c.games {
		t.Errorf("careful bot: %s of games reach level 5 and dungeon level 5, want at least 25%%", pct(c.both5, c.games))
	}
	if r.survived >= c.survived {
		t.Errorf("reckless bot survives %s of games, careful %s: recklessness should cost lives", pct(r.survived, r.games), pct(c.survived, c.games))
	}
	// The reckless bot dies early: most of its games end in death by dungeon level 3.
	early := 0
	for d, killers := range r.deathsByDepth {
		if d <= 3 {
			for _, n := range killers {
				early += n
			}
		}
	}
	if early*2 <= r.games {
		t.Errorf("reckless bot: only %s of games die by dungeon level 3, want most", pct(early, r.games))
	}
	// Its deepest level, counted for the games it dies in, is clearly worse than the careful
	// bot's deepest level.
	var rdeep []int
	for _, g := range res[strategyReckless] {
		if g.died {
			rdeep = append(rdeep, g.deepest)
		}
	}
	slices.Sort(rdeep)
	if len(rdeep) > 0 && nearestRank(rdeep, 0.5) >= c.deepestMedian {
		t.Errorf("reckless bot dies at a median deepest level %d, not clearly worse than the careful bot's %d", nearestRank(rdeep, 0.5), c.deepestMedian)
	}
}
