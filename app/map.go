package app

import (
	"fmt"
	"sync"
)

// The map screen: the level as far as the knight has seen it.

func (m *Model) drawMap(c *canvas) {
	v := m.view
	if !m.haveView || v.Outside() {
		c.text(2, 2, "You are outside the dungeon; there is no map to show. Any key returns.", clsText)
		return
	}
	c.text(0, 0, fit(c.w, fmt.Sprintf("Map of level %d: where you have been. You are the circle. Any key returns.", v.Self.Depth),
		fmt.Sprintf("Map of level %d. You are (). Any key returns.", v.Self.Depth), fmt.Sprintf("Level %d; any key returns", v.Self.Depth)), clsTitle)
	if m.mapScr == nil {
		m.mapScr = mapScreens.Get().(*mapScreen)
	}
	sub := m.mapScr.page.blank(c.w, c.h-1)
	lp := m.painter(v.Known, false, nil)
	lp.memo = &m.mapScr.memo // the map shows no one else: others' steps change nothing on it
	lp.paint(sub, v.Self.Pos)
	c.blit(sub, 0, 1)
}

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
