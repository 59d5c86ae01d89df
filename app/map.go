package app

import (
	"fmt"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The map screen: the level as far as the knight has seen it.

func (m *Model) drawMap(c *canvas) {
	v := m.view
	if !m.haveView || v.Outside() {
		c.paragraph(2, 2, c.w-4, "You are outside the dungeon; there is no map to show. Any key returns.", clsText)
		return
	}
	d := v.Self.Depth
	c.text(0, 0, fit(c.w, fmt.Sprintf("Map of level %d: where you have been. Arrows or h j k l move it, c centres, ? the legend.", d),
		fmt.Sprintf("Map of level %d: arrows or h j k l move it, c centres, ? the legend.", d),
		fmt.Sprintf("Map of level %d: h j k l move, c centres, ? legend", d), fmt.Sprintf("Map %d: h j k l move, c centres, ? legend", d),
		fmt.Sprintf("Map %d: hjkl move, c centres, ? legend", d), fmt.Sprintf("Level %d: hjkl, c centres, ?", d)), clsTitle)
	if m.mapScr == nil {
		m.mapScr = mapScreens.Get().(*mapScreen)
	}
	sub := m.mapScr.page.blank(c.w, c.h-1)
	var lp levelPainter
	m.painter(&lp, v.Known, false, nil)
	lp.memo = &m.mapScr.memo // the map shows no one else: others' steps change nothing on it
	lp.paint(sub, m.mapPan.centre(v))
	c.blit(sub, 0, 1)
	if m.mapPan.legend {
		drawAbove(c, c.h-1, wrap(mapLegend, c.w), clsText)
	}
}

// mapLegend says what the map's glyphs are (? on the map shows it).
const mapLegend = "() you   EX the exit   << >> stairs up, down   ·· a trap   │ ─ wall   ╎ ╌ door   ║ ═ locked door   " +
	"□ secret door   Any other key returns."

// mapPan is where the map screen looks: its centre, in squares from the knight, which
// the direction keys move, and whether the legend shows. Opening the map centres it on
// the knight.
type mapPan struct {
	dx, dy int
	legend bool
}

// centre is the square the map shows in its middle: the knight's, moved by the pan, on
// the level.
func (p mapPan) centre(v world.View) world.Pos {
	c := v.Self.Pos
	if v.Level != nil {
		c.X = max(0, min(c.X+p.dx, v.Level.W-1))
		c.Y = max(0, min(c.Y+p.dy, v.Level.H-1))
	}
	return c
}

// mapKey is a key on the map: a direction moves the view a few squares that way (a
// phone's screen shows a part of the level), c centres it on the knight again, ? shows
// or hides the legend; any other key returns to the game.
func (m *Model) mapKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	p := &m.mapPan
	if d, _, ok := keyDir(s); ok {
		switch d {
		case world.North:
			p.dy -= mapStepY
		case world.South:
			p.dy += mapStepY
		case world.West:
			p.dx -= mapStepX
		case world.East:
			p.dx += mapStepX
		}
		// The pan stops at the level's edge: a key back moves it at once.
		now, at := p.centre(m.view), m.view.Self.Pos
		p.dx, p.dy = now.X-at.X, now.Y-at.Y
		return nil
	}
	switch s {
	case "c":
		p.dx, p.dy = 0, 0
	case "?":
		p.legend = !p.legend
	default:
		*p = mapPan{}
		m.screen = screenPlay
	}
	return nil
}

// mapStepX and mapStepY are how many squares a direction key moves the map.
const (
	mapStepX = 4
	mapStepY = 3
)

// mapScreen is what the map screen keeps while it shows: its canvas, and the level
// picture under the knight's mark. Every knight opens the map now and then, and a
// session is small: a session leaving the map gives them to the next to open one
// (mapScreens), rather than keeping them or making new ones each time.
type mapScreen struct {
	page canvas
	memo mapMemo
}

var mapScreens = sync.Pool{New: func() any { return new(mapScreen) }}

// release gives ms to the next session to open its map. It keeps the memory, not the
// picture: another session's level must not match it.
func (ms *mapScreen) release() {
	ms.memo = mapMemo{level: ms.memo.level, shown: ms.memo.shown[:0], bright: ms.memo.bright[:0], found: ms.memo.found[:0]}
	mapScreens.Put(ms)
}
