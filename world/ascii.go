package world

import (
	"fmt"
	"strings"
)

// Characters of the ASCII picture. Squares sit at odd rows and columns, edges between
// them, and '+' at every corner.
const (
	asciiCorner   = '+'
	asciiCorridor = ' '
	asciiRoom     = '.'
	asciiRock     = '#'
	asciiVWall    = '|'
	asciiHWall    = '-'
	asciiOpen     = ' '
)

// featureChar maps features to the character that replaces the square's terrain.
var featureChar = [...]byte{FeatNone: 0, FeatExit: 'E', FeatStairsUp: '<', FeatStairsDown: '>', FeatChute: 'C', FeatPit: 'P'}

// doorChar maps door kinds to their characters; walls and openings depend on orientation.
var doorChar = [...]byte{EdgeDoor: 'D', EdgeLocked: 'L', EdgeSecret: 'S', EdgeSecretMarked: '$'}

// ASCII draws the level as text: 2*H+1 lines of 2*W+1 characters, each line ending in a
// newline. Square (x, y) is at row 2y+1, column 2x+1: ' ' corridor, '.' room, '#' rock, or
// a feature ('E' exit, '<' up, '>' down, 'C' chute, 'P' pit). Edges lie between squares:
// '|' or '-' wall, ' ' open, 'D' door, 'L' locked, 'S' secret, '$' marked secret door.
func (l *Level) ASCII() string {
	var b strings.Builder
	b.Grow((2*l.W + 2) * (2*l.H + 1))
	for row := 0; row <= 2*l.H; row++ {
		for col := 0; col <= 2*l.W; col++ {
			b.WriteByte(l.asciiAt(row, col))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// asciiAt is the character at one row and column of the picture.
func (l *Level) asciiAt(row, col int) byte {
	x, y := col/2, row/2
	switch {
	case row%2 == 0 && col%2 == 0:
		return asciiCorner
	case row%2 == 1 && col%2 == 1:
		p := Pos{x, y}
		if f := l.Feature(p); int(f) < len(featureChar) && featureChar[f] != 0 {
			return featureChar[f]
		}
		switch l.Terrain(p) {
		case Corridor:
			return asciiCorridor
		case Room:
			return asciiRoom
		default:
			return asciiRock
		}
	case row%2 == 1: // vertical edge west of square (x, y)
		return edgeChar(l.Edge(Pos{x, y}, West), asciiVWall)
	default: // horizontal edge north of square (x, y)
		return edgeChar(l.Edge(Pos{x, y}, North), asciiHWall)
	}
}

func edgeChar(e Edge, wall byte) byte {
	switch {
	case e == EdgeOpen:
		return asciiOpen
	case e.IsDoor():
		return doorChar[e]
	default:
		return wall
	}
}

// ParseASCII reads a level drawn as ASCII draws it. Leading and trailing blank lines and an
// indentation common to all lines are ignored, so fixtures can be Go raw strings.
//
// Room squares get room indexes by flood fill over open edges, rooms numbered in row-major
// order of discovery, and Rooms gets their bounding rectangles. A feature square is a room
// square if an open edge joins it to one (rooms sit behind doors, so a corridor never has an
// open edge into a room), otherwise a corridor. Up is the 'E' or '<' square and Down the '>'
// square (setting HasDown); without them Up or Down stays at (0, 0). Seed is 0.
func ParseASCII(depth int, s string) (*Level, error) {
	lines := trimPicture(s)
	if err := checkPictureShape(lines); err != nil {
		return nil, err
	}
	width := len(lines[0])
	rd := asciiReader{l: NewLevel(depth, 0, width/2, len(lines)/2), rows: len(lines), cols: width}
	for row, ln := range lines {
		for col := 0; col < width; col++ {
			if err := rd.read(ln[col], row, col); err != nil {
				return nil, err
			}
		}
	}
	return rd.finish()
}

// checkPictureShape checks a picture's size: an odd number of lines, at least 3, all as
// long as the first, an odd number of characters, at least 3.
func checkPictureShape(lines []string) error {
	if len(lines) < 3 || len(lines)%2 == 0 {
		return fmt.Errorf("ascii level: %d lines, want an odd number of at least 3", len(lines))
	}
	width := len(lines[0])
	if width < 3 || width%2 == 0 {
		return fmt.Errorf("ascii level: line 1 is %d characters, want an odd number of at least 3", width)
	}
	for i, ln := range lines {
		if len(ln) != width {
			return fmt.Errorf("ascii level: line %d is %d characters, line 1 is %d", i+1, len(ln), width)
		}
	}
	return nil
}

// asciiReader is ParseASCII at work: the level it fills, the picture's size, and the up
// and down squares found so far.
type asciiReader struct {
	l          *Level
	rows, cols int
	ups, downs []Pos
}

// read takes the picture's character at row, col: a corner, a square or an edge.
func (rd *asciiReader) read(c byte, row, col int) error {
	switch {
	case row%2 == 0 && col%2 == 0:
		if c != asciiCorner {
			return unexpected(c, row, col)
		}
		return nil
	case row%2 == 1 && col%2 == 1:
		return rd.square(c, row, col)
	}
	return rd.edge(c, row, col)
}

// square takes the character of a square: its terrain, or a feature on a corridor (which
// finish may make a room's).
func (rd *asciiReader) square(c byte, row, col int) error {
	p := Pos{col / 2, row / 2}
	switch c {
	case asciiCorridor:
		rd.l.SetTerrain(p, Corridor)
		return nil
	case asciiRoom:
		rd.l.SetTerrain(p, Room)
		return nil
	case asciiRock:
		return nil
	}
	f := charFeature(c)
	if f == FeatNone {
		return unexpected(c, row, col)
	}
	rd.l.SetTerrain(p, Corridor) // may become Room in finish
	rd.l.SetFeature(p, f)
	switch f {
	case FeatExit, FeatStairsUp:
		rd.ups = append(rd.ups, p)
	case FeatStairsDown:
		rd.downs = append(rd.downs, p)
	}
	return nil
}

// edge takes the character of an edge: a square's west edge on a square's line, its
// north edge on a line of corners.
func (rd *asciiReader) edge(c byte, row, col int) error {
	wall, d := byte(asciiHWall), North
	if row%2 == 1 {
		wall, d = asciiVWall, West
	}
	e, ok := charEdge(c, wall)
	if !ok {
		return unexpected(c, row, col)
	}
	// The level boundary is always wall; anything else there would not round-trip.
	if (d == West && (col == 0 || col == rd.cols-1)) || (d == North && (row == 0 || row == rd.rows-1)) {
		if e != EdgeWall {
			return fmt.Errorf("ascii level: boundary at line %d column %d is %q, want wall", row+1, col+1, c)
		}
		return nil
	}
	rd.l.SetEdge(Pos{col / 2, row / 2}, d, e)
	return nil
}

// finish sets the level's stairs from the squares read and numbers its rooms.
func (rd *asciiReader) finish() (*Level, error) {
	if len(rd.ups) > 1 {
		return nil, fmt.Errorf("ascii level: %d up squares ('E' or '<'), want at most 1", len(rd.ups))
	}
	if len(rd.downs) > 1 {
		return nil, fmt.Errorf("ascii level: %d down squares ('>'), want at most 1", len(rd.downs))
	}
	l := rd.l
	if len(rd.ups) == 1 {
		l.Up = rd.ups[0]
	}
	if len(rd.downs) == 1 {
		l.Down, l.HasDown = rd.downs[0], true
	}
	l.inferFeatureRooms()
	l.numberRooms()
	return l, nil
}

// unexpected reports a character that does not belong where it stands.
func unexpected(c byte, row, col int) error {
	return fmt.Errorf("ascii level: unexpected %q at line %d column %d", c, row+1, col+1)
}

// trimPicture splits s into lines, dropping blank lines at both ends, trailing carriage
// returns and the longest whitespace prefix all remaining lines share.
func trimPicture(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	prefix := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], " \t"))]
	for _, ln := range lines[1:] {
		n := 0
		for n < len(prefix) && n < len(ln) && ln[n] == prefix[n] {
			n++
		}
		prefix = prefix[:n]
	}
	out := make([]string, len(lines))
	for i, ln := range lines {
		out[i] = ln[len(prefix):]
	}
	return out
}

func charFeature(c byte) Feature {
	for f, fc := range featureChar {
		if fc != 0 && fc == c {
			return Feature(f)
		}
	}
	return FeatNone
}

// charEdge decodes an edge character; wall is the wall character for this orientation.
func charEdge(c, wall byte) (Edge, bool) {
	switch c {
	case wall:
		return EdgeWall, true
	case asciiOpen:
		return EdgeOpen, true
	}
	for e, dc := range doorChar {
		if dc != 0 && dc == c {
			return Edge(e), true
		}
	}
	return EdgeWall, false
}

// inferFeatureRooms turns feature squares that open onto room squares into room squares,
// repeating so a chain of features inside a room is found too.
func (l *Level) inferFeatureRooms() {
	for changed := true; changed; {
		changed = false
		for y := range l.H {
			for x := range l.W {
				p := Pos{x, y}
				if l.Feature(p) == FeatNone || l.Terrain(p) != Corridor {
					continue
				}
				for _, d := range Dirs {
					if l.Edge(p, d) == EdgeOpen && l.Terrain(p.Step(d)) == Room {
						l.SetTerrain(p, Room)
						changed = true
						break
					}
				}
			}
		}
	}
}

// numberRooms assigns room indexes to Room squares by flood fill over open edges, in
// row-major order of discovery, and records each room's bounding rectangle.
func (l *Level) numberRooms() {
	l.Rooms = nil
	for y := range l.H {
		for x := range l.W {
			start := Pos{x, y}
			if l.Terrain(start) != Room || l.RoomAt(start) >= 0 {
				continue
			}
			i := len(l.Rooms)
			minX, minY, maxX, maxY := x, y, x, y
			l.SetRoom(start, i)
			stack := []Pos{start}
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				minX, minY = min(minX, p.X), min(minY, p.Y)
				maxX, maxY = max(maxX, p.X), max(maxY, p.Y)
				for _, d := range Dirs {
					q := p.Step(d)
					if l.Edge(p, d) == EdgeOpen && l.Terrain(q) == Room && l.RoomAt(q) < 0 {
						l.SetRoom(q, i)
						stack = append(stack, q)
					}
				}
			}
			l.Rooms = append(l.Rooms, RoomRect{X: minX, Y: minY, W: maxX - minX + 1, H: maxY - minY + 1})
		}
	}
}
