// Package app is one player's terminal: a Bubble Tea model per connection with the
// screens of the game (title, character roll, the dungeon, the map, help). It turns keys
// into world commands and world views into text. It must not change world state except by
// sending commands, and it knows nothing of SSH or storage: the server translates a
// session into Params at the edge.
package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// MinWidth and MinHeight are the smallest terminal the game draws in; MaxWidth and
// MaxHeight the largest frame it draws (a bigger terminal shows it in its top-left corner).
const (
	MinWidth  = 80
	MinHeight = 24
	MaxWidth  = 400
	MaxHeight = 200
)

// Params is everything a session knows about its player, in plain values.
type Params struct {
	Fingerprint string
	// Saved is the player's stored knight, or nil for a new key.
	Saved  *world.Adventurer
	Engine *world.Engine
	Width  int
	Height int
	// Rand rolls a new knight's characteristics; each session has its own.
	Rand *rand.Rand
	// Fame reads the hall of fame for the scores screen; nil shows none.
	Fame FameFunc
	// Admin runs a line of the in-game admin console (':'); nil for a player who is not
	// an admin, who is told the console is for admins.
	Admin AdminFunc
}

// FameFunc returns the hall of fame as lines to show (the server reads the store).
type FameFunc func() []string

type screen int

const (
	screenTitle screen = iota
	screenRoll
	screenName
	screenJoining
	screenPlay
	screenMap
	screenHelp
	screenInventory
	screenFame
	screenSpells
	screenESP
	screenRetire
	screenQuit
	screenDead
	screenEnded
)

// Model is one connection's game screen. It is owned by its Bubble Tea program.
type Model struct {
	ctx    context.Context
	p      Params
	theme  theme
	screen screen
	width  int
	height int

	// character roll
	stats     world.Stats
	hits      int
	suggested string
	name      textinput.Model
	nameErr   string

	player   atomic.Pointer[world.Player]
	mailbox  *Mailbox
	view     world.View
	haveView bool
	tomb     *world.Death      // the knight's death, on the death screen
	retired  *world.Retirement // the knight's retirement, on the retirement screen
	fame     FameFunc
	doorMode bool
	spellLvl int // the spell level whose menu is open
	helpTop  int // first line of the help shown
	ended    string
	console  console // the admin console over the dungeon screen
}

// New makes the model for one session; ctx ends when the connection does.
func New(ctx context.Context, p Params) *Model {
	if p.Rand == nil {
		p.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	ti := textinput.New()
	ti.CharLimit = world.MaxNameLen
	ti.Prompt = "Name: "
	return &Model{ctx: ctx, p: p, theme: platoTheme(), width: p.Width, height: p.Height,
		name: ti, mailbox: NewMailbox(), console: newConsole()}
}

// Leave takes the knight out of the world if it joined, saving it. The server calls it
// when the program has ended, however it ended.
func (m *Model) Leave(ctx context.Context) (world.Adventurer, bool, error) {
	pl := m.player.Load()
	if pl == nil {
		return world.Adventurer{}, false, nil
	}
	return pl.Leave(ctx)
}

// Ended is why the world closed this session (an admin removed the knight, the same key
// connected again), or "" when the player left. Read it after the program has ended: the
// server prints it once the game screen is gone, so the player keeps the reason.
func (m *Model) Ended() string { return m.ended }

// Init starts the program; nothing needs doing until the first key.
func (m *Model) Init() tea.Cmd { return nil }

type joinedMsg struct {
	player *world.Player
	err    error
}

type viewMsg world.View

func (m *Model) join(rec world.Adventurer) tea.Cmd {
	m.screen = screenJoining
	return func() tea.Msg {
		pl, err := m.p.Engine.Join(m.ctx, rec, m.mailbox)
		return joinedMsg{pl, err}
	}
}

func (m *Model) waitView() tea.Cmd {
	return func() tea.Msg {
		v, ok := m.mailbox.Next(m.ctx)
		if !ok {
			return nil
		}
		return viewMsg(v)
	}
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case joinedMsg:
		if msg.err != nil {
			m.ended = "The world is not running; please try again later."
			m.screen = screenEnded
			return m, tea.Quit
		}
		m.player.Store(msg.player)
		m.screen = screenPlay
		return m, m.waitView()
	case viewMsg:
		v := world.View(msg)
		if v.Ended != "" {
			m.ended = v.Ended
			m.screen = screenEnded
			return m, tea.Quit
		}
		if v.Dead != nil || v.Retired != nil {
			// The engine has let go of this knight; the player may roll a new one.
			m.player.Store(nil)
			m.view, m.tomb, m.retired, m.screen = v, v.Dead, v.Retired, screenDead
			return m, nil
		}
		m.view, m.haveView = v, true
		return m, m.waitView()
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		if cmd, ok := m.consoleKey(msg); ok {
			return m, cmd
		}
		return m, m.key(msg)
	case consoleResultMsg:
		m.console.showResult(msg)
		return m, nil
	}
	if m.screen == screenName {
		var cmd tea.Cmd
		m.name, cmd = m.name.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m *Model) roll() {
	m.stats = world.RollStats(m.p.Rand)
	m.hits = world.StartHits(m.p.Rand, m.stats.Con)
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch m.screen {
	case screenTitle:
		if s == "enter" || s == "space" {
			if m.p.Saved != nil && !m.p.Saved.Ended() {
				return m.join(*m.p.Saved)
			}
			m.roll()
			m.screen = screenRoll
		} else if s == "q" {
			return tea.Quit
		}
	case screenRoll:
		switch s {
		case "r":
			m.roll()
		case "enter":
			m.suggested = world.RandomName(m.p.Rand)
			m.name.Placeholder = m.suggested
			m.screen = screenName
			return m.name.Focus()
		}
	case screenName:
		if s == "enter" {
			raw := m.name.Value()
			if strings.TrimSpace(raw) == "" {
				raw = m.suggested
			}
			name, err := world.CleanName(raw)
			if err != nil {
				m.nameErr = "A name is 1 to 20 letters, digits, spaces, ' or -, starting with a letter."
				return nil
			}
			rec := world.NewAdventurer(m.p.Fingerprint, name, m.stats, m.hits)
			return m.join(rec)
		}
		m.nameErr = ""
		var cmd tea.Cmd
		m.name, cmd = m.name.Update(k)
		return cmd
	case screenPlay:
		return m.playKey(s)
	case screenHelp:
		if !m.scrollHelp(s) {
			m.screen = screenPlay
		}
	case screenMap, screenFame:
		m.screen = screenPlay
	case screenRetire:
		m.screen = screenPlay
		if s == "y" {
			m.do(world.Retire{})
		}
	case screenSpells:
		m.screen = screenPlay
		spells := world.SpellsOfLevel(m.spellLvl)
		if len(s) == 1 && s[0] >= 'a' && int(s[0]-'a') < len(spells) {
			sp := spells[s[0]-'a']
			if sp == world.SpellESP {
				m.screen = screenESP // ESP needs a direction to look in
				return nil
			}
			m.do(world.Cast{Spell: sp})
		}
	case screenESP:
		m.screen = screenPlay
		if mv, ok := moveKeys[s]; ok {
			m.do(world.Cast{Spell: world.SpellESP, Dir: mv.dir})
		}
	case screenInventory:
		if len(s) == 1 && s[0] >= 'a' && s[0] <= 'z' {
			if i := int(s[0] - 'a'); i < len(m.view.Self.Items) {
				m.do(world.UseItem{Index: i})
			}
			return nil
		}
		if len(s) == 1 && s[0] >= 'A' && s[0] <= 'Z' {
			if i := int(s[0] - 'A'); i < len(m.view.Self.Items) {
				m.do(world.Drop{Index: i})
			}
			return nil
		}
		m.screen = screenPlay
	case screenDead:
		if s == "enter" {
			m.roll()
			m.screen = screenRoll
		} else if s == "q" {
			return tea.Quit
		}
	case screenQuit:
		switch s {
		case "y", "q", "enter":
			return tea.Quit
		default:
			m.screen = screenPlay
		}
	}
	return nil
}

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

func (m *Model) playKey(s string) tea.Cmd {
	if mv, ok := moveKeys[s]; ok && m.view.Self.Depth > 0 {
		m.do(world.Move{Dir: mv.dir, Door: mv.door || m.doorMode})
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
	case "f":
		m.do(world.Fight{})
	case "r":
		m.do(world.Run{})
	case "s":
		m.do(world.Shoot{})
	case ">":
		m.do(world.Climb{Down: true})
	case "<":
		m.do(world.Climb{})
	case "enter":
		if m.view.Outside() {
			m.do(world.Enter{})
		}
	case "m":
		m.screen = screenMap
	case "i":
		m.screen = screenInventory
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

func (m *Model) do(c world.Command) {
	if pl := m.player.Load(); pl != nil {
		_ = pl.Do(m.ctx, c) // fails only when the session or the world is ending
	}
}

// View draws the current screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render(false))
	v.AltScreen = true
	return v
}

// Text is the current screen without colour, as a player with NO_COLOR sees it (tests use it).
func (m *Model) Text() string { return m.render(true) }

func (m *Model) render(plain bool) string {
	w, h := m.width, m.height
	if w < MinWidth || h < MinHeight {
		return fmt.Sprintf("Please enlarge your terminal to at least %d×%d\n(it is %d×%d now).", MinWidth, MinHeight, w, h)
	}
	// A frame is never larger than MaxWidth×MaxHeight, whatever size a client claims: a
	// 10000×10000 window would otherwise cost hundreds of megabytes a frame.
	c := newCanvas(min(w, MaxWidth), min(h, MaxHeight))
	switch m.screen {
	case screenTitle:
		m.drawTitle(c)
	case screenRoll:
		m.drawRoll(c)
	case screenName:
		m.drawRoll(c)
		c.text(4, 15, "Name your knight, or press Enter to be "+m.suggested+".", clsText)
		c.text(4, 17, m.name.Value()+"_", clsSelf)
		c.text(4, 19, m.nameErr, clsTitle)
	case screenJoining:
		c.text(2, 2, "Entering the dungeon...", clsText)
	case screenPlay, screenQuit, screenRetire, screenESP:
		m.drawPlay(c)
		m.drawConsole(c)
	case screenSpells:
		m.drawPlay(c)
		m.drawSpells(c)
	case screenFame:
		m.drawFame(c)
	case screenMap:
		m.drawMap(c)
	case screenHelp:
		m.drawHelp(c)
	case screenInventory:
		m.drawInventory(c)
	case screenDead:
		m.drawDead(c)
	case screenEnded:
		c.text(2, 2, m.ended, clsTitle)
	}
	return c.render(&m.theme, plain)
}
