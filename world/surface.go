package world

import (
	"fmt"
	"math/rand/v2"
)

// The surface (seed 002, DESIGN §4): a square grid of spaces around the dungeon entrance.

// SurfaceKind is the kind of one space of the surface.
type SurfaceKind uint8

// Seed 002's three kinds of space, and the dungeon entrance (a common space without
// battles, where > goes down).
const (
	SurfaceInaccessible SurfaceKind = iota // the heroes cannot enter it
	SurfaceMarket                          // items can be bought and sold
	SurfaceCommon                          // battles can occur
	SurfaceEntrance                        // the way down into the dungeon
)

// DefaultSurfaceSize is seed 002's example world: "An example world size is 8 spaces by
// 8 spaces."
const DefaultSurfaceSize = 8

// MinSurfaceSize and MaxSurfaceSize bound the side of the grid: below 3 there is no room
// for the three kinds of space, and above 24 the market names would run out.
const (
	MinSurfaceSize = 3
	MaxSurfaceSize = 24
)

// Seed 002: "In this size our suggestion is to have 20% inaccessible spaces, 30% market
// spaces, and 50% common spaces." The counts are these shares of the grid, rounded; the
// entrance is one of the common spaces (8×8: 13 inaccessible, 19 markets, 31 common and
// the entrance).
const (
	surfaceInaccessibleShare = 0.20
	surfaceMarketShare       = 0.30
)

// surfaceStream and marketStream pick the random streams the surface and its markets are
// drawn from, apart from the engine's own and the dungeon's, so adding the surface left
// the dungeon exactly as it was.
const (
	surfaceStream = 0x737572666163 // "surfac"
	marketStream  = 0x6d61726b6574 // "market"
)

// Surface is the grid. It is built once and never changed, so views share it.
type Surface struct {
	W, H     int
	Cells    []SurfaceKind // row by row
	Entrance Pos
	// Markets names each market space, by its index in Cells ("the Market of the Golden
	// Lamb": lower-case "the", to sit inside a sentence).
	Markets map[int]string
}

// In reports whether p is on the grid.
func (s *Surface) In(p Pos) bool { return p.X >= 0 && p.Y >= 0 && p.X < s.W && p.Y < s.H }

// At is the kind of the space at p; off the grid is inaccessible.
func (s *Surface) At(p Pos) SurfaceKind {
	if !s.In(p) {
		return SurfaceInaccessible
	}
	return s.Cells[p.Y*s.W+p.X]
}

// Accessible reports whether the heroes may stand on p.
func (s *Surface) Accessible(p Pos) bool { return s.At(p) != SurfaceInaccessible }

// Market is the name of the market at p, or "" when p is not a market space.
func (s *Surface) Market(p Pos) string {
	if s.At(p) != SurfaceMarket {
		return ""
	}
	return s.Markets[p.Y*s.W+p.X]
}

func (s *Surface) idx(p Pos) int { return p.Y*s.W + p.X }

// marketAdjectives and marketNouns make the markets' names: "the Market of the Golden
// Lamb". Every pair is a distinct name; 16×16 is more than the 173 markets of the
// largest grid.
var (
	marketAdjectives = [...]string{"Golden", "Silver", "Red", "White", "Black", "Green", "Blue", "Laughing",
		"Sleeping", "Crowned", "Wandering", "Iron", "Copper", "Painted", "Hungry", "Dancing"}
	marketNouns = [...]string{"Lamb", "Stag", "Lion", "Boar", "Swan", "Dragon", "Griffin", "Unicorn",
		"Fox", "Owl", "Raven", "Bear", "Hart", "Falcon", "Kettle", "Lantern"}
)

// GenerateSurface builds the surface grid of side size (DefaultSurfaceSize when size is 0
// or less, else clamped to MinSurfaceSize..MaxSurfaceSize) from seed. The same seed and
// size always give the same grid. Seed 002's shares are kept exactly (rounded): 20%
// inaccessible, 30% markets, the rest common with the entrance among them. The entrance
// is on a middle square, and every accessible space can be reached from it by steps up,
// down, left and right.
func GenerateSurface(seed uint64, size int) *Surface {
	if size <= 0 {
		size = DefaultSurfaceSize
	}
	size = min(max(size, MinSurfaceSize), MaxSurfaceSize)
	r := rand.New(rand.NewPCG(seed, surfaceStream))
	n := size * size
	s := &Surface{W: size, H: size, Cells: make([]SurfaceKind, n), Markets: map[int]string{}}
	for i := range s.Cells {
		s.Cells[i] = SurfaceCommon
	}
	// The entrance: the middle square of an odd grid, one of the middle four of an even one.
	mid := (size - 1) / 2
	s.Entrance = Pos{mid, mid}
	if size%2 == 0 {
		s.Entrance = Pos{mid + r.IntN(2), mid + r.IntN(2)}
	}
	s.Cells[s.idx(s.Entrance)] = SurfaceEntrance

	// Inaccessible spaces: walk the other squares in a random order and close each one
	// whose closing leaves the open squares connected, until there are enough. A square
	// passed over (it would have cut the land in two) is tried again on the next pass,
	// since closing others may have freed it; some open square that is not the entrance
	// can always be closed (a spanning tree has two leaves), so the count is always met,
	// and a pass that closes nothing (which cannot happen) ends the loop rather than
	// looping for ever.
	want := int(float64(n)*surfaceInaccessibleShare + 0.5)
	order := r.Perm(n)
	// Pass after pass while a pass closes something; a pass stops once enough are closed.
	for closed, progress := 0, true; progress; {
		progress = false
		for _, i := range order {
			if closed == want {
				break
			}
			if s.Cells[i] != SurfaceCommon {
				continue
			}
			s.Cells[i] = SurfaceInaccessible
			if s.connected() {
				closed++
				progress = true
			} else {
				s.Cells[i] = SurfaceCommon
			}
		}
	}

	// Markets: among the open squares other than the entrance, in a random order.
	markets := int(float64(n)*surfaceMarketShare + 0.5)
	var open []int
	for _, i := range r.Perm(n) {
		if s.Cells[i] == SurfaceCommon {
			open = append(open, i)
		}
	}
	names := marketNames(r)
	for k, i := range open[:min(markets, len(open))] {
		s.Cells[i] = SurfaceMarket
		s.Markets[i] = names[k%len(names)]
	}
	return s
}

// marketNames orders every market name at random, those whose initials ("GL" for the
// Golden Lamb, as the map marks a market) no earlier name has first, so the markets of
// a grid up to 11×11 names' worth have marks of their own.
func marketNames(r *rand.Rand) []string {
	var first, rest []string
	taken := map[[2]byte]bool{}
	for _, nm := range r.Perm(len(marketAdjectives) * len(marketNouns)) {
		adj, noun := marketAdjectives[nm/len(marketNouns)], marketNouns[nm%len(marketNouns)]
		name := fmt.Sprintf("the Market of the %s %s", adj, noun)
		if in := [2]byte{adj[0], noun[0]}; !taken[in] {
			taken[in] = true
			first = append(first, name)
		} else {
			rest = append(rest, name)
		}
	}
	return append(first, rest...)
}

// connected reports whether every accessible space can be reached from the entrance.
func (s *Surface) connected() bool {
	seen := make([]bool, len(s.Cells))
	stack := []Pos{s.Entrance}
	seen[s.idx(s.Entrance)] = true
	reached := 1
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range Dirs {
			q := p.Step(d)
			if s.Accessible(q) && !seen[s.idx(q)] {
				seen[s.idx(q)] = true
				reached++
				stack = append(stack, q)
			}
		}
	}
	for _, k := range s.Cells {
		if k != SurfaceInaccessible {
			reached--
		}
	}
	return reached == 0
}

// marketIndices lists the market spaces' indices in Cells, in order.
func (s *Surface) marketIndices() []int {
	var out []int
	for i, k := range s.Cells {
		if k == SurfaceMarket {
			out = append(out, i)
		}
	}
	return out
}

// SurfaceFoes chooses the monsters of a surface battle for heroes of the given levels
// (seed 002: "Their levels should be scaled to the levels of the heroes. There will be as
// many monsters as there are heroes."). Each monster's level is the heroes' average level,
// rounded, then one lower, the same or one higher with equal chance, within
// 1..MaxMonsterLevel; the monster is any of that level in Monsters, with equal chance.
// The result depends only on r.
func SurfaceFoes(r *rand.Rand, heroLevels []int) []MonsterID {
	if len(heroLevels) == 0 {
		return nil
	}
	sum := 0
	for _, l := range heroLevels {
		sum += max(1, l)
	}
	n := len(heroLevels)
	avg := (2*sum + n) / (2 * n) // rounded half up
	out := make([]MonsterID, n)
	for i := range out {
		level := min(max(avg+r.IntN(3)-1, 1), MaxMonsterLevel)
		for level > 1 && len(monstersOfLevel[level-1]) == 0 {
			level-- // only an edited table has an empty level (see PickMonster)
		}
		ids := monstersOfLevel[level-1]
		out[i] = ids[r.IntN(len(ids))]
	}
	return out
}
