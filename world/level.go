package world

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Dir is one of the four directions an adventurer can move (seed 000: "up, down, left, or right").
type Dir uint8

// The four directions, clockwise from north.
const (
	North Dir = iota
	East
	South
	West
)

// Dirs lists the directions in a fixed order so loops over them are deterministic.
var Dirs = [4]Dir{North, East, South, West}

var dirNames = [4]string{"north", "east", "south", "west"}

func (d Dir) String() string { return dirNames[d&3] }

// Delta is the step in squares that moving in d makes; y grows southwards.
func (d Dir) Delta() (dx, dy int) {
	switch d {
	case North:
		return 0, -1
	case East:
		return 1, 0
	case South:
		return 0, 1
	default:
		return -1, 0
	}
}

// Opposite is the direction facing back.
func (d Dir) Opposite() Dir { return (d + 2) & 3 }

// Pos is a square on one level.
type Pos struct{ X, Y int }

// Step is the square next to p in direction d.
func (p Pos) Step(d Dir) Pos {
	dx, dy := d.Delta()
	return Pos{p.X + dx, p.Y + dy}
}

// absInt is |x|, for the distance between squares.
func absInt(x int) int { return max(x, -x) }

// Edge is what lies on the boundary between two squares (seed 000: walls and doors
// block your way, locked doors are broken down, secret doors look like walls).
type Edge uint8

// Edge kinds. EdgeSecretMarked is a secret door that shows as a wall with a box in it
// ("about one sixth of the time"); it behaves exactly like EdgeSecret.
const (
	EdgeOpen Edge = iota
	EdgeWall
	EdgeDoor
	EdgeLocked
	EdgeSecret
	EdgeSecretMarked
)

var edgeNames = [...]string{"open", "wall", "door", "locked door", "secret door", "marked secret door"}

func (e Edge) String() string {
	if int(e) < len(edgeNames) {
		return edgeNames[e]
	}
	return "edge?"
}

// IsDoor reports whether the edge is a door of any kind, secret ones included.
func (e Edge) IsDoor() bool { return e >= EdgeDoor && e <= EdgeSecretMarked }

// IsSecret reports whether the edge is a secret door.
func (e Edge) IsSecret() bool { return e == EdgeSecret || e == EdgeSecretMarked }

// Feature is what stands on a square.
type Feature uint8

// Square features. The exit is on level 1 only; chutes and pits are hazards (seed 000, 001).
const (
	FeatNone Feature = iota
	FeatExit
	FeatStairsUp
	FeatStairsDown
	FeatChute
	FeatPit
)

var featureNames = [...]string{"", "exit", "stairs up", "stairs down", "chute", "pit"}

func (f Feature) String() string {
	if int(f) < len(featureNames) {
		return featureNames[f]
	}
	return "feature?"
}

// Terrain says what a square is part of.
type Terrain uint8

// Terrain kinds. Rock squares are outside the dungeon: every edge around them is wall.
const (
	Rock Terrain = iota
	Corridor
	Room
)

// Level is one dungeon level: a grid of squares whose edges are open, wall or doors.
// Levels are owned by the engine goroutine; views copy what they need out of them.
type Level struct {
	Depth int    // 1 is the top level, the one with the exit
	Seed  uint64 // the seed this level was generated from
	W, H  int

	terrain []Terrain  // W*H
	room    []int16    // W*H, room index or -1
	feature []Feature  // W*H
	trap    []TrapKind // W*H, the hidden MAG trap on each square (TrapNone for none)
	east    []Edge     // W*H, edge on the east side of each square
	south   []Edge     // W*H, edge on the south side of each square

	// Rooms lists the rooms; a room's squares carry its index in room.
	Rooms []RoomRect
	// Up and Down are the stairs (Up is the exit on level 1); HasDown is false on the bottom level.
	Up, Down Pos
	HasDown  bool
}

// RoomRect is a rectangular room in squares.
type RoomRect struct{ X, Y, W, H int }

// Contains reports whether p lies inside the room.
func (r RoomRect) Contains(p Pos) bool {
	return p.X >= r.X && p.X < r.X+r.W && p.Y >= r.Y && p.Y < r.Y+r.H
}

// NewLevel makes a level of solid rock: every square Rock, every edge a wall.
func NewLevel(depth int, seed uint64, w, h int) *Level {
	n := w * h
	l := &Level{Depth: depth, Seed: seed, W: w, H: h,
		terrain: make([]Terrain, n), room: make([]int16, n), feature: make([]Feature, n), trap: make([]TrapKind, n),
		east: make([]Edge, n), south: make([]Edge, n)}
	for i := range n {
		l.room[i] = -1
		l.east[i] = EdgeWall
		l.south[i] = EdgeWall
	}
	return l
}

// In reports whether p is on the level.
func (l *Level) In(p Pos) bool { return p.X >= 0 && p.Y >= 0 && p.X < l.W && p.Y < l.H }

func (l *Level) idx(p Pos) int { return p.Y*l.W + p.X }

// Terrain is what p is part of; off the level it is Rock.
func (l *Level) Terrain(p Pos) Terrain {
	if !l.In(p) {
		return Rock
	}
	return l.terrain[l.idx(p)]
}

// SetTerrain marks p as rock, corridor or room (room squares also get a room index via SetRoom).
func (l *Level) SetTerrain(p Pos, t Terrain) { l.terrain[l.idx(p)] = t }

// RoomAt is the index into Rooms of the room p lies in, or -1.
func (l *Level) RoomAt(p Pos) int {
	if !l.In(p) {
		return -1
	}
	return int(l.room[l.idx(p)])
}

// SetRoom records that p belongs to room i (and makes it Room terrain).
func (l *Level) SetRoom(p Pos, i int) {
	l.room[l.idx(p)] = int16(i)
	l.terrain[l.idx(p)] = Room
}

// Feature is what stands on p.
func (l *Level) Feature(p Pos) Feature {
	if !l.In(p) {
		return FeatNone
	}
	return l.feature[l.idx(p)]
}

// Trap is the trap hidden on p, or TrapNone.
func (l *Level) Trap(p Pos) TrapKind {
	if !l.In(p) {
		return TrapNone
	}
	return l.trap[l.idx(p)]
}

// SetTrap hides a trap on p (TrapNone removes it).
func (l *Level) SetTrap(p Pos, t TrapKind) { l.trap[l.idx(p)] = t }

// SetFeature puts f on p.
func (l *Level) SetFeature(p Pos, f Feature) { l.feature[l.idx(p)] = f }

// Edge is what lies on side d of square p. The boundary of the level is always wall.
func (l *Level) Edge(p Pos, d Dir) Edge {
	switch d {
	case East:
		if !l.In(p) || p.X == l.W-1 {
			return EdgeWall
		}
		return l.east[l.idx(p)]
	case South:
		if !l.In(p) || p.Y == l.H-1 {
			return EdgeWall
		}
		return l.south[l.idx(p)]
	default:
		q := p.Step(d)
		if !l.In(q) {
			return EdgeWall
		}
		return l.Edge(q, d.Opposite())
	}
}

// SetEdge sets side d of square p (and so the matching side of its neighbour).
// Edges on the level boundary stay walls.
func (l *Level) SetEdge(p Pos, d Dir, e Edge) {
	switch d {
	case East:
		if l.In(p) && p.X < l.W-1 {
			l.east[l.idx(p)] = e
		}
	case South:
		if l.In(p) && p.Y < l.H-1 {
			l.south[l.idx(p)] = e
		}
	default:
		q := p.Step(d)
		if l.In(q) {
			l.SetEdge(q, d.Opposite(), e)
		}
	}
}

// Clone makes a deep copy, for regeneration and tests.
func (l *Level) Clone() *Level {
	c := *l
	c.terrain = append([]Terrain(nil), l.terrain...)
	c.room = append([]int16(nil), l.room...)
	c.feature = append([]Feature(nil), l.feature...)
	c.trap = append([]TrapKind(nil), l.trap...)
	c.east = append([]Edge(nil), l.east...)
	c.south = append([]Edge(nil), l.south...)
	c.Rooms = append([]RoomRect(nil), l.Rooms...)
	return &c
}

// MarshalBinary encodes the level's geometry byte for byte; two levels generated from the
// same seed encode to identical bytes.
func (l *Level) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	hdr := []int64{int64(l.Depth), int64(l.Seed), int64(l.W), int64(l.H),
		int64(l.Up.X), int64(l.Up.Y), int64(l.Down.X), int64(l.Down.Y), int64(len(l.Rooms))}
	if l.HasDown {
		hdr = append(hdr, 1)
	} else {
		hdr = append(hdr, 0)
	}
	for _, r := range l.Rooms {
		hdr = append(hdr, int64(r.X), int64(r.Y), int64(r.W), int64(r.H))
	}
	if err := binary.Write(&b, binary.LittleEndian, hdr); err != nil {
		return nil, err
	}
	for _, s := range []any{l.terrain, l.room, l.feature, l.trap, l.east, l.south} {
		if err := binary.Write(&b, binary.LittleEndian, s); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// maxLevelSide bounds the sides of a level read back by UnmarshalBinary (a replay's
// bytes come from the store, which a damaged file could make anything).
const maxLevelSide = 1024

// UnmarshalBinary reads a level written by MarshalBinary: a replay keeps the
// levels its knight walked as these bytes.
func (l *Level) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	hdr := make([]int64, 10)
	if err := binary.Read(r, binary.LittleEndian, hdr); err != nil {
		return err
	}
	w, h, rooms := int(hdr[2]), int(hdr[3]), int(hdr[8])
	if w <= 0 || h <= 0 || w > maxLevelSide || h > maxLevelSide || rooms < 0 || rooms > w*h {
		return errBadLevel
	}
	*l = *NewLevel(int(hdr[0]), uint64(hdr[1]), w, h)
	l.Up, l.Down, l.HasDown = Pos{int(hdr[4]), int(hdr[5])}, Pos{int(hdr[6]), int(hdr[7])}, hdr[9] == 1
	rs := make([]int64, 4*rooms)
	if err := binary.Read(r, binary.LittleEndian, rs); err != nil {
		return err
	}
	for i := range rooms {
		l.Rooms = append(l.Rooms, RoomRect{int(rs[4*i]), int(rs[4*i+1]), int(rs[4*i+2]), int(rs[4*i+3])})
	}
	for _, s := range []any{l.terrain, l.room, l.feature, l.trap, l.east, l.south} {
		if err := binary.Read(r, binary.LittleEndian, s); err != nil {
			return err
		}
	}
	if r.Len() != 0 {
		return errBadLevel
	}
	return nil
}

// errBadLevel is UnmarshalBinary's answer to bytes that are no level.
var errBadLevel = errors.New("not a level's bytes")
