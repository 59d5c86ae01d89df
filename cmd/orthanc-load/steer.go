package main

import (
	"math/rand/v2"
	"strings"
)

// Steering towards doors (-scenario rooms). The knight finds itself on its screen, as a
// player does: the game draws it as "()" in the middle of the view, each square two
// columns wide and one row high, with the edges between squares in the column and row
// between them: walls │ and ─, doors ╎ and ╌, locked doors ║ and ═, and a secret door
// marked with a box □. A door beside the knight it goes through (a shifted direction key,
// K J H L, which opens, forces or finds it); a door further off it walks towards, the
// longer way first, where the screen shows the way open. Rooms are behind doors, and a
// room's guard attacks whoever comes in: the session's fight then goes as every fight
// does (f on its move). Once through a door the knight walks on away from it for a few
// moves (into the room, or away from the room it left), and for a while longer it makes
// for no door on the side it came from; now and then it wanders at random. So it does
// not go back and forth through one door (the screen does not say where on the level
// the knight is, so it cannot remember which doors it has been through), and a room
// with one door is left by it after a while.

// Tuning of the door seeker:
//
//	constant      value  effect
//	leaveMoves    4      moves after a door during which the knight walks away from it
//	forgetMoves   12     moves after a door during which it makes for no door behind it
//	pWander       20 %   share of its moves that are the random walker's instead
const (
	leaveMoves  = 4
	forgetMoves = 12
	pWander     = 0.20
)

// doorKeys open a door in each of arrows' directions (north, east, south, west).
var doorKeys = [4]string{"K", "L", "J", "H"}

// Directions in arrows' order.
const (
	dirNorth = iota
	dirEast
	dirSouth
	dirWest
)

func opposite(d int) int { return (d + 2) % 4 }

// The glyphs the game draws edges with (app/render.go).
const (
	doorGlyphs = "╌╎═║□"
	wallGlyphs = "─│"
)

// Kinds of edge as the screen shows them.
const (
	edgeUnknown = iota // off the screen
	edgeOpen
	edgeWall
	edgeDoor
)

// doorSeeker is one knight's way to the next door.
type doorSeeker struct {
	key     string // the key next chose
	crossed int    // the direction of the last door key; -1 for none yet
	since   int    // moves since that key
	away    int    // the direction it walks away from the door in
}

// mapView is the part of a session's screen the dungeon is drawn in, and where the knight
// stands in it.
type mapView struct {
	cells  [][]string // [row][column] of the screen's rows 1 to msgFirst-1
	top    int        // the screen row of cells[0]
	sx, sy int        // the screen column and row of the knight's "("
}

// readMap finds the knight on the screen. The battle panel, when one shows, covers the
// right half (app's fightPanelWidth): only the map beside it is read.
func readMap(w *walker, scr string) (mapView, bool) {
	width := termWidth
	if strings.Contains(scr, "FIGHT") {
		width = termWidth - min(46, termWidth/2)
	}
	mv := mapView{top: 1, sx: -1}
	for y := mv.top; y < msgFirst; y++ {
		row := make([]string, width)
		for x := range width {
			row[x] = w.text.cell(x, y)
		}
		mv.cells = append(mv.cells, row)
		for x := 0; mv.sx < 0 && x+1 < width; x++ {
			if row[x] == "(" && row[x+1] == ")" {
				mv.sx, mv.sy = x, y
			}
		}
	}
	return mv, mv.sx >= 0
}

// at is the glyph at screen column x, row y ("" off the map).
func (mv *mapView) at(x, y int) string {
	y -= mv.top
	if y < 0 || y >= len(mv.cells) || x < 0 || x >= len(mv.cells[y]) {
		return ""
	}
	return mv.cells[y][x]
}

// edge is what the screen shows on the knight's side d.
func (mv *mapView) edge(d int) int {
	var cells []string
	switch d {
	case dirNorth:
		cells = []string{mv.at(mv.sx, mv.sy-1), mv.at(mv.sx+1, mv.sy-1)}
	case dirSouth:
		cells = []string{mv.at(mv.sx, mv.sy+1), mv.at(mv.sx+1, mv.sy+1)}
	case dirWest:
		cells = []string{mv.at(mv.sx-1, mv.sy)}
	case dirEast:
		cells = []string{mv.at(mv.sx+2, mv.sy)}
	}
	kind := edgeOpen
	for _, c := range cells {
		switch {
		case c == "":
			return edgeUnknown
		case strings.Contains(doorGlyphs, c):
			return edgeDoor
		case strings.Contains(wallGlyphs, c):
			kind = edgeWall
		}
	}
	return kind
}

// floorDiv and floorMod divide rounding down, for cells left of or above the knight.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

// nearestDoor is the square (in squares from the knight: east and south positive) from
// which the nearest door the screen shows can be gone through, leaving out doors on the
// knight's side behind (-1: none), whatever their distance; ok is false when the screen
// shows no such door.
func (mv *mapView) nearestDoor(behind int) (dx, dy int, ok bool) {
	best := -1
	for row, cells := range mv.cells {
		for x, c := range cells {
			if c == "" || !strings.Contains(doorGlyphs, c) {
				continue
			}
			// A square takes columns 3c and 3c+1 from the knight's "(", the edge east
			// of it column 3c+2; a square takes row 2r, the edge south of it row 2r+1.
			cx, cy := x-mv.sx, row+mv.top-mv.sy
			col, colIn := floorDiv(cx, 3), floorMod(cx, 3)
			r, rowIn := floorDiv(cy, 2), floorMod(cy, 2)
			var sides [2][2]int // the two squares it can be gone through from
			switch {
			case rowIn == 0 && colIn == 2: // the edge east of square (col, r)
				sides = [2][2]int{{col, r}, {col + 1, r}}
			case rowIn == 1 && colIn != 2: // the edge south of square (col, r)
				sides = [2][2]int{{col, r}, {col, r + 1}}
			default:
				continue // a corner, or a square's own text
			}
			for _, sd := range sides {
				// A door beside the knight that next did not take is the one behind it.
				if sd == [2]int{0, 0} || behind >= 0 && onSide(sd[0], sd[1], behind) {
					continue
				}
				if d := absInt(sd[0]) + absInt(sd[1]); best < 0 || d < best {
					best, dx, dy = d, sd[0], sd[1]
				}
			}
		}
	}
	return dx, dy, best >= 0
}

// next chooses the knight's next key, in d.key, and reports whether it chose one: false
// when the screen does not show the knight, or shows no door to go to, or it wanders.
func (d *doorSeeker) next(w *walker, scr string, rng *rand.Rand) bool {
	mv, ok := readMap(w, scr)
	if !ok {
		return false
	}
	behind := -1
	if d.crossed >= 0 && d.since < forgetMoves {
		behind = opposite(d.crossed)
	}
	// A door beside the knight, but the one it has just come through: through it.
	for dir := range arrows {
		if dir != behind && mv.edge(dir) == edgeDoor {
			d.key, d.crossed, d.since, d.away = doorKeys[dir], dir, 0, dir
			return true
		}
	}
	if rng.Float64() < pWander {
		return false
	}
	d.since++
	if behind >= 0 && d.since <= leaveMoves {
		// Just through a door: on away from it, turning where the way is shut.
		if mv.edge(d.away) != edgeOpen {
			var open []int
			for dir := range arrows {
				if dir != behind && mv.edge(dir) == edgeOpen {
					open = append(open, dir)
				}
			}
			if len(open) == 0 {
				return false
			}
			d.away = open[rng.IntN(len(open))]
		}
		d.key = arrows[d.away]
		return true
	}
	dx, dy, ok := mv.nearestDoor(behind)
	if !ok {
		return false
	}
	horiz, vert := dirEast, dirSouth
	if dx < 0 {
		horiz = dirWest
	}
	if dy < 0 {
		vert = dirNorth
	}
	ways := []int{horiz, vert} // the longer way first
	if absInt(dy) > absInt(dx) {
		ways = []int{vert, horiz}
	}
	for _, dir := range ways {
		if (dir == horiz && dx == 0) || (dir == vert && dy == 0) {
			continue
		}
		if mv.edge(dir) == edgeOpen {
			d.key = arrows[dir]
			return true
		}
	}
	return false
}

func absInt(x int) int { return max(x, -x) }

// onSide reports whether the square (dx, dy) from the knight lies on its side dir: north
// of it for dirNorth, and so on (the square it stands on lies on no side).
func onSide(dx, dy, dir int) bool {
	switch dir {
	case dirNorth:
		return dy < 0
	case dirSouth:
		return dy > 0
	case dirWest:
		return dx < 0
	}
	return dx > 0
}
