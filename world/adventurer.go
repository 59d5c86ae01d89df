package world

import (
	"maps"
	"time"
)

// Adventurer is a knight as it is saved: the record the store keeps under the knight's id
// (ID) and the engine loads on join. It holds no pointers, so it copies by value
// (apart from the map slices, which Clone copies).
type Adventurer struct {
	// ID is the knight's id, the same whichever of its keys plays it (the server
	// finds it from the key; for a knight from before a knight had several keys it is
	// that key's fingerprint). The engine knows a knight by it: two sessions of one
	// knight, by one key or two, never drive it at once.
	ID   string `json:"fingerprint"`
	Name string `json:"name"`
	// Guest is set for a guest's knight (a client with no key): never handed to the
	// Saver, and marked as a guest wherever others see it (its name starts with
	// "Guest", WhoEntry.Guest); its chat has the stricter GuestChatLines.
	Guest bool `json:"guest,omitempty"`

	Str int `json:"str"`
	Int int `json:"int"`
	Con int `json:"con"`
	Dex int `json:"dex"`

	Experience         int `json:"experience"`
	TreasureExperience int `json:"treasure_experience"`
	// Level is the level reached at the last successful exit (seed 000: "Level only
	// increases on successful exit from the dungeon").
	Level      int `json:"level"`
	Hits       int `json:"hits"`
	MaxHits    int `json:"max_hits"`
	SpellUnits int `json:"spell_units"`

	// Gold is the purse: the worth of the treasure taken, to spend in the markets.
	Gold  int    `json:"gold"`
	Items []Item `json:"items,omitempty"`
	// Effects are the spells working on the knight.
	Effects []Effect `json:"effects,omitempty"`
	// Status are the conditions traps left on the knight (seed 001).
	Status []Status `json:"status,omitempty"`
	// Moves counts the knight's moves, for the ring of regeneration's "every 25 moves".
	Moves int `json:"moves,omitempty"`

	Depth int `json:"depth"`
	X     int `json:"x"`
	Y     int `json:"y"`

	// Maps is what the adventurer has seen, one entry per level visited.
	Maps []LevelMap `json:"maps,omitempty"`

	// Deepest is the deepest dungeon level the knight has stood on; Slain the monsters
	// it killed (its blow or spell the last); GoldWon the gold it won, the coins of
	// hoards and purses and the worth of the gems and jewelry it took, counted when
	// taken (a market's trade moves the purse, not this). Week is the same for one week.
	// The boards rank the living by them (board.go).
	Deepest int       `json:"deepest,omitempty"`
	Slain   int       `json:"slain,omitempty"`
	GoldWon int       `json:"gold_won,omitempty"`
	Week    WeekTally `json:"week,omitzero"`

	// Deeds are the deeds the knight earned (deed.go), in the order earned.
	Deeds []Deed `json:"deeds,omitempty"`

	// Death is set when the knight has died: the record is then its tombstone.
	Death *Death `json:"death,omitempty"`
	// Retirement is set when the knight has retired into the hall of fame.
	Retirement *Retirement `json:"retirement,omitempty"`

	// Turn is the engine turn this record was taken at; a newer record replaces an older one.
	Turn uint64 `json:"turn"`
	// Created is when the knight was named, by the session's wall clock; zero for a knight
	// from before it was kept. The world never reads it (it reads no clock).
	Created time.Time `json:"created,omitzero"`

	// Options are the player's settings. They belong to the key: a new knight rolled after
	// a death or a retirement takes them over.
	Options Options `json:"options,omitzero"`

	// Channels are the channels the knight chose to join (true) or to leave (false), by
	// name; on a channel it never chose, it is as the channel's table row says
	// (channel.go). They belong to the knight: a new one starts from the table.
	Channels map[string]bool `json:"channels,omitempty"`

	// Prelude is what a new knight's log begins with: the last lines of the knight its
	// player lost (Death.LastLines), handed over by the session. It is never saved.
	Prelude []string `json:"-"`
}

// LevelMap is one level's squares an adventurer has seen, as a bitset over W*H squares.
// Seed ties it to one generation of the level: a regenerated level starts a fresh map.
type LevelMap struct {
	Depth int    `json:"depth"`
	Seed  uint64 `json:"seed"`
	W     int    `json:"w"`
	H     int    `json:"h"`
	Seen  []byte `json:"seen"`
	// Doors are the secret doors found on this level, as Level.EdgeIndex values.
	Doors []int `json:"doors,omitempty"`
	// Traps are the traps known on this level, as square indices (y*W+x).
	Traps []int `json:"traps,omitempty"`
}

// Clone copies the adventurer, maps included.
func (a Adventurer) Clone() Adventurer { return a.clone(true) }

// clone copies the adventurer; its maps' seen squares too when copySeen, else they are
// shared. The engine's may be shared: it never changes a set of seen squares in place
// (look makes a new one), so a record keeps the squares it was made with.
func (a Adventurer) clone(copySeen bool) Adventurer {
	c := a
	if a.Death != nil {
		d := *a.Death
		c.Death = &d
	}
	if a.Retirement != nil {
		r := *a.Retirement
		c.Retirement = &r
	}
	c.Items = append([]Item(nil), a.Items...)
	c.Effects = append([]Effect(nil), a.Effects...)
	c.Status = append([]Status(nil), a.Status...)
	c.Deeds = append([]Deed(nil), a.Deeds...)
	c.Options = a.Options.Clone()
	c.Channels = maps.Clone(a.Channels)
	c.Maps = make([]LevelMap, len(a.Maps))
	for i, m := range a.Maps {
		if copySeen {
			m.Seen = append([]byte(nil), m.Seen...)
		}
		m.Doors = append([]int(nil), m.Doors...)
		m.Traps = append([]int(nil), m.Traps...)
		c.Maps[i] = m
	}
	return c
}

// Pos is where the adventurer stands on its level.
func (a Adventurer) Pos() Pos { return Pos{a.X, a.Y} }

// PercentKills is seed 000's "(experience minus treasure) divided by experience", as a
// whole percent (0 for a knight with no experience).
func (a Adventurer) PercentKills() int {
	if a.Experience <= 0 {
		return 0
	}
	return (a.Experience - a.TreasureExperience) * 100 / a.Experience
}

// Retirement is how a knight left the game with honour (seed 000: "You will try to get all
// the experience you can out of this dungeon so that you can retire with honor near the
// seat of the king").
type Retirement struct {
	Level        int    `json:"level"`
	Experience   int    `json:"experience"`
	PercentKills int    `json:"percent_kills"`
	Turn         uint64 `json:"turn"`
}

// Ended reports whether the knight is dead or retired: its key rolls a new one.
func (a Adventurer) Ended() bool { return a.Death != nil || a.Retirement != nil }

// regenerated reports whether the knight's map of level l belongs to another generation of
// it: the level was rebuilt since the knight was last there.
func (a Adventurer) regenerated(l *Level) bool {
	for _, m := range a.Maps {
		if m.Depth == l.Depth {
			return m.Seed != l.Seed
		}
	}
	return false
}
