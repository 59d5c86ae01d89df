package world

import (
	"iter"
	"slices"
	"time"
)

// View is what one player's screen is drawn from: an immutable snapshot the engine hands
// to a session. Nothing in a View is written after it is delivered, so a session may read
// it from any goroutine.
type View struct {
	Turn uint64
	Self Self
	// Level is a read-only snapshot of the level the player is on (nil outside). It is shared
	// by every view of that level until the level changes; never modify it.
	Level *Level
	// Visible marks the squares the player sees now, Known the squares it has ever seen
	// on this level (bitsets over Level.W*Level.H squares, see Bit).
	Visible []byte
	Known   []byte
	// FoundDoors are secret doors this player has found on this level (EdgeIndex values).
	FoundDoors []int
	// Traps are the traps this player knows on this level.
	Traps []Pos
	// Others are the other knights this player sees, when the view names them itself:
	// outside (everyone there is in sight) and in views made by hand. A dungeon view names
	// them through its level's crowd instead; InSight reads either.
	Others []Other
	// crowd is where the knights of the level stand, shared by the level's views of one
	// turn; viewer is the player's own place in it (its join order).
	crowd  *Crowd
	viewer uint64
	// publicSaid counts the public lines ever put in the log (Public's Said).
	publicSaid uint64
	// Log is the player's recent message log (game messages, chat and announcements),
	// oldest first, each line with its kind: who beyond the knight may read it (a public
	// replay shows only the public ones). Said counts every message ever put in it, so a
	// session that skipped views can tell how many of the last ones are new.
	Log  Log
	Said uint64
	// FightSeq counts the fight log lines written while the player was in a fight, in
	// the same way: the newest of them end Fight.Log (or LastFight once the fight is over).
	FightSeq uint64
	// Watchers are the names of those watching this player's screen (a count, "2
	// spectators", in a Public view).
	Watchers []string
	// Monsters are the monsters the player sees now.
	Monsters []SeenMonster
	// Shadows are what the knight's light shows beyond its sight: the monsters and the
	// hoards within LightRange squares, through walls (seed 000, Light: "detect monsters
	// and treasures (which appear as shadows)"). Empty without light.
	Shadows []Shadow
	// Fight is the fight the player is in, if any; LastFight is the log of the fight it
	// was last in, until it walks on.
	Fight     *FightView
	LastFight []string
	// Dead is set on the last view of a knight that died: its tombstone.
	Dead *Death
	// Retired is set on the last view of a knight that retired.
	Retired *Retirement
	// Party lists the knight's party, the leader first, when it is in a party of two or
	// more (a knight alone is a party of one and has no list).
	Party []PartyMember
	// Invites are the knights whose invitations to their party wait for this knight's
	// answer; Asks are the knights asking to join this knight's party.
	Invites []string
	Asks    []string
	// Surface is set while the knight is outside the dungeon (Self.Depth 0, Self.Pos a
	// square of the surface).
	Surface *SurfaceView
	// Ended is set when the session must close, saying why (for example, the same key
	// connected again from somewhere else).
	Ended string
}

// Self is the player's own status, as the status line shows it.
type Self struct {
	Name string
	ID   string
	// Born is when the knight was named (Adventurer.Created): with ID, which a key's
	// later knights share, it tells one life from the next (a replay is one life's).
	Born       time.Time
	Level      int
	Experience int
	Hits       int
	MaxHits    int
	SpellUnits int
	Str        int // less what poison has taken for now (seed 001): the Strength every rule reads
	Int        int
	Con        int
	Dex        int
	Depth      int // 0 means outside the dungeon
	Pos        Pos
	Feature    Feature // what the player stands on

	Gold               int
	TreasureExperience int
	Items              []Item
	// Light is set while secret doors show to this knight (a ring of light, a spell).
	Light bool
	// Effects are the spells working on the knight, as text ("Light (24 moves)").
	Effects []string
	// Status are the conditions traps left on the knight, as text ("stuck (5 tries)").
	Status []string
	// Options are the player's settings as the world keeps them.
	Options Options
	// Unread is how many letters wait unread for the knight (mail.go); Away says it is
	// away (away.go): the session sends Back with the next key.
	Unread int
	Away   bool
	// Deeds are the knight's deeds in the order earned (deed.go); shared by its views,
	// never modify.
	Deeds []Deed
}

// Other is another player that this one sees (a view lists only those in sight).
type Other struct {
	Name string
	Pos  Pos
}

// SeenMonster is a monster on a square the player sees.
type SeenMonster struct {
	// ID is the monster's own, the same in every view while it lives, so a session can
	// tell one monster walking from another coming (screen-reader mode says each once).
	// Engine.Monsters leaves it 0: ids are given anew at each start, and a level's
	// monsters compare across a restart.
	ID    int
	Name  string
	Glyph string
	Pos   Pos
}

// Shadow is a monster or a hoard that the knight's light shows on a square it does not
// see: a monster has its Glyph, a hoard (a room's guarded treasure) has Treasure set.
type Shadow struct {
	Pos      Pos
	Glyph    string
	Treasure bool
}

// FightView is the battle panel (seeds 000 and 002): the monsters, the heroes and the log.
type FightView struct {
	// Monsters are every monster of the battle in the order they joined it, the fallen
	// ones too (Dead), so an index names the same monster for the whole battle.
	Monsters []FightMonster
	// Target is the index in Monsters of the monster this knight's blows, spells and
	// arrows go at (Target changes it); always a standing monster while one stands.
	Target  int
	Knights []FightKnight
	Log     []string
	InRoom  bool // running is not allowed
	Surface bool // a battle on the surface (seed 002)
	// Round counts the battle's rounds; the standing heroes recover a little at the end
	// of each (see RoundHits).
	Round int
	// YourMove is true when the fight waits for this knight. GraceLeft is how many turns
	// it still waits before the knight loses its chance, of GraceTurns in all, while the
	// knight holds up other heroes; it is 0 when the battle waits for the knight without
	// a limit (a knight alone is never hurried).
	YourMove   bool
	GraceLeft  int
	GraceTurns int
}

// FightMonster is one monster in a battle, with the statistics seed 002 lets a hero look
// at without spending the turn.
type FightMonster struct {
	// ID is the monster's own, as SeenMonster's: a session that saw it wander knows it
	// died, and says nothing of it going out of sight.
	ID              int `json:",omitempty"`
	Name            string
	Class           string
	Glyph           string
	Level           int
	Hits            int
	MaxHits         int
	Dex             int  // the sides of its to-hit die
	Attack          Dice // damage of one attack that hits
	AttacksPerRound int
	Speed           int
	Experience      int
	Dodge           int  // percent chance to avoid a blow or a spell (DodgePercent)
	Held            bool // charmed, held or asleep: it does not fight back
	Dead            bool
}

// FightKnight is one hero in a battle, with its statistics.
type FightKnight struct {
	Name       string
	Level      int
	Hits       int
	MaxHits    int
	SpellUnits int
	Str        int // as Self.Str: less what poison has taken for now
	Int        int
	Con        int
	Dex        int
	Sword      int // the best plus of each, as it counts in the fight
	Shield     int
	Armour     int
	Blows      int // blows a round
	Dodge      int // percent chance to avoid a monster's attack (DodgePercent)
	Fainted    bool
	Choosing   bool // the battle waits for this hero to choose
	// GraceLeft is the turns this hero has left to choose before it hesitates, while it
	// holds up the others (every hero sees the countdown); 0 when it holds up no one.
	GraceLeft int
}

// PartyMember is one knight of the player's party, as the party list shows it.
type PartyMember struct {
	Name     string
	Leader   bool
	Level    int
	Hits     int
	MaxHits  int
	Depth    int // 0 is the surface
	Pos      Pos
	Fighting bool
}

// SurfaceView is what a knight outside the dungeon sees: the whole surface in daylight.
type SurfaceView struct {
	// Map is the surface grid, shared by every view; never modify it.
	Map *Surface
	// Others are the other knights on the surface (all of them are seen).
	Others []Other
	// Market is the market the knight stands on, if any.
	Market *MarketView
}

// MarketView is a market space's stock and prices.
type MarketView struct {
	Name  string
	Wares []Ware
}

// Ware is one line of a market's stock: an item, its price in gold and how many are left.
type Ware struct {
	Item  Item
	Price int
	Count int
}

// Outside reports whether the player has left the dungeon.
func (v View) Outside() bool { return v.Self.Depth == 0 }

// InSight is the other knights the player sees: on each square it sees, at most
// ShownPerSquare, the first to have joined (DESIGN §12, "Crowds"), in the order of the
// squares. A new slice each call.
func (v View) InSight() []Other {
	if v.crowd == nil {
		return v.Others
	}
	var buf [32]Other
	if out := v.AppendInSight(buf[:0]); len(out) > 0 {
		return slices.Clone(out)
	}
	return nil
}

// AppendInSight appends InSight to dst and returns it: a session drawing a frame for
// every step of a crowd reuses one slice.
func (v View) AppendInSight(dst []Other) []Other {
	if v.crowd == nil {
		return append(dst, v.Others...)
	}
	c := v.crowd
	for i, sq := range c.squares {
		if !Bit(v.Visible, int(sq)) {
			continue
		}
		n, pos := 0, Pos{int(sq) % c.w, int(sq) / c.w}
		for _, k := range c.knights[c.starts[i]:c.starts[i+1]] {
			if k.seq != v.viewer && n < ShownPerSquare {
				dst = append(dst, Other{k.name, pos})
				n++
			}
		}
	}
	return dst
}

// Bit reports whether bit i of a bitset is set.
func Bit(set []byte, i int) bool {
	return i >= 0 && i/8 < len(set) && set[i/8]&(1<<(i%8)) != 0
}

func setBit(set []byte, i int) { set[i/8] |= 1 << (i % 8) }

func bitsetLen(n int) int { return (n + 7) / 8 }

// EdgeIndex numbers the east (0) and south (1) edges of each square so a found secret door
// can be remembered as one int: the edge on side d of p.
func (l *Level) EdgeIndex(p Pos, d Dir) int {
	switch d {
	case North:
		p, d = p.Step(North), South
	case West:
		p, d = p.Step(West), East
	}
	i := (p.Y*l.W + p.X) * 2
	if d == South {
		i++
	}
	return i
}

// roomSquares are the squares of room r: those of its rectangle that are the room's.
func (l *Level) roomSquares(r int) iter.Seq[Pos] {
	return func(yield func(Pos) bool) {
		rr := l.Rooms[r]
		for y := rr.Y; y < rr.Y+rr.H; y++ {
			for x := rr.X; x < rr.X+rr.W; x++ {
				if q := (Pos{x, y}); l.RoomAt(q) == r && !yield(q) {
					return
				}
			}
		}
	}
}

// visible fills set with the squares seen from p: the whole room when p is in a room,
// otherwise straight along the corridor in each direction up to the next door, wall or
// room (DESIGN §11).
func (l *Level) visible(p Pos, set []byte) {
	clear(set)
	if !l.In(p) {
		return
	}
	setBit(set, l.idx(p))
	if r := l.RoomAt(p); r >= 0 {
		for q := range l.roomSquares(r) {
			setBit(set, l.idx(q))
		}
		return
	}
	for _, d := range Dirs {
		for q := p; l.Edge(q, d) == EdgeOpen; {
			q = q.Step(d)
			setBit(set, l.idx(q))
			if l.Terrain(q) == Room {
				break
			}
		}
	}
}

// Foe is the monster this knight's blows go at: Monsters[Target], or nil when none stands.
func (f *FightView) Foe() *FightMonster {
	if f == nil || f.Target < 0 || f.Target >= len(f.Monsters) || f.Monsters[f.Target].Dead {
		return nil
	}
	return &f.Monsters[f.Target]
}
