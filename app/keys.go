package app

import (
	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The game's keys: what each key does on the dungeon (or surface) screen, and the keys of
// the questions asked over it.

// keyHelp is the short key help line of the dungeon screen (the options turn it off).
const keyHelp = "? help  Enter chat  o options  q quit"

// moveKeys maps keys to directions; the shifted forms (and d, then a direction) open doors.
var moveKeys = map[string]struct {
	dir  world.Dir
	door bool
}{
	"up": {world.North, false}, "down": {world.South, false}, "left": {world.West, false}, "right": {world.East, false},
	"k": {world.North, false}, "j": {world.South, false}, "h": {world.West, false}, "l": {world.East, false},
	"shift+up": {world.North, true}, "shift+down": {world.South, true}, "shift+left": {world.West, true}, "shift+right": {world.East, true},
	"K": {world.North, true}, "J": {world.South, true}, "H": {world.West, true}, "L": {world.East, true},
}

// fightKeys are seed 000's keys of a fight: f fight, r run, s shoot.
var fightKeys = map[string]world.Command{"f": world.Fight{}, "r": world.Run{}, "s": world.Shoot{}}

func (m *Model) playKey(s string) tea.Cmd {
	if m.surfaceKey(s) { // walking and trading outside (surface.go)
		return nil
	}
	if mv, ok := moveKeys[s]; ok && m.view.Self.Depth > 0 {
		m.do(world.Move{Dir: mv.dir, Door: mv.door || m.doorMode})
		m.keep = !m.doorMode && m.screen == screenPlay // the door hint, if shown, goes
		m.doorMode = false
		return nil
	}
	m.doorMode = false
	switch s {
	case "d":
		m.doorMode = m.view.Self.Depth > 0
	case "1", "2", "3", "4":
		m.spellLvl = int(s[0] - '0')
		m.screen = screenSpells
	case "f", "r", "s":
		m.do(fightKeys[s])
	case ">":
		if m.view.Outside() {
			m.do(world.Enter{}) // outside, > goes back down into the dungeon
		} else {
			m.do(world.Climb{Down: true})
		}
	case "<":
		m.do(world.Climb{})
	case "M", "ctrl+p":
		m.screen, m.logTop = screenLog, -1
	case "w":
		m.screen, m.who, m.whoNote = screenWho, nil, ""
		return m.askWho()
	case "o":
		m.openOptions()
	case "e":
		return m.openMail()
	case "m":
		m.screen = screenMap
	case "i":
		m.screen, m.invTop = screenInventory, 0
	case "F":
		m.screen = screenFame
	case "R":
		if m.view.Outside() {
			m.screen = screenRetire
		}
	case "?", "f1":
		m.screen, m.helpTop = screenHelp, 0
	case "q":
		m.screen = screenQuit
	}
	return nil
}

// dungeonKey is a key on the dungeon (or surface) screen: the admin console and the chat
// line take it when they are open (or when it opens them), then the keys of battles and
// parties, then the game's own.
func (m *Model) dungeonKey(k tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.consoleKey(k); ok {
		return cmd
	}
	if cmd, ok := m.chatKey(k); ok {
		return cmd
	}
	if cmd, ok := m.groupKey(k); ok {
		return cmd
	}
	return m.playKey(k.String())
}

// quitKey answers "Leave the dungeon for now?": y, q or Enter leaves.
func (m *Model) quitKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "y", "q", "enter":
		return tea.Quit
	}
	m.screen = screenPlay
	return nil
}

// retireKey answers "Retire this knight?": y retires.
func (m *Model) retireKey(k tea.KeyPressMsg) tea.Cmd {
	m.screen = screenPlay
	if k.String() == "y" {
		m.do(world.Retire{})
	}
	return nil
}

// returnKey is any key on a screen that only shows (the map, the hall of fame): it
// returns to the game.
func (m *Model) returnKey(tea.KeyPressMsg) tea.Cmd {
	m.screen = screenPlay
	return nil
}
