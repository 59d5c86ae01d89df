// Package app is one player's terminal: a Bubble Tea model per connection with the
// screens of the game (title, character roll, the dungeon, the map, help, chat, the
// who-list, options), a read-only spectator's screen, and the screen-reader mode, which
// speaks the same game as an append-only transcript of sentences. It turns keys and typed
// commands into world commands and world views into text. It must not change world state
// except by sending commands, and it knows nothing of SSH or storage: the server
// translates a session into Params at the edge.
package app

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// MinWidth and MinHeight are the smallest terminal the game draws in (a phone's, in
// portrait or landscape); MaxWidth and MaxHeight the largest frame it draws (a bigger
// terminal shows it in its top-left corner). From MinFullWidth×MinFullHeight the
// screens have the PLATO layout; below it, a compact one (DESIGN §12).
const (
	MinWidth      = 40
	MinHeight     = 18
	MinFullWidth  = 80
	MinFullHeight = 24
	MaxWidth      = 400
	MaxHeight     = 200
)

// Params is everything a session knows about its player, in plain values.
type Params struct {
	// Fingerprint is the id of the knight the session plays (the same from each of its
	// keys; a guest's is its own, for the session only).
	Fingerprint string
	// Guest is set for a client with no key: its knight is not saved, its name starts
	// with GuestPrefix, and the title says how to keep a knight.
	Guest bool
	// Browser is set for a game on the web page's play page: its player has no SSH
	// client at hand, so the words it reads name what the page offers, not ssh commands.
	Browser bool
	// MOTD is the server's message of the day, shown on the title; empty for none.
	MOTD string
	// Saved is the player's stored knight, or nil for a new key.
	Saved  *world.Adventurer
	Engine *world.Engine
	Width  int
	Height int
	// Rand rolls a new knight's characteristics; each session has its own.
	Rand *rand.Rand
	// Fame reads the hall of fame for the scores screen; nil shows none.
	Fame FameFunc
	// Board reads a board of the living for the scores screen's pages (boards.go); nil
	// shows none.
	Board BoardFunc
	// Admin runs a line of the in-game admin console (':'); nil for a player who is not
	// an admin, who is told the console is for admins.
	Admin AdminFunc
	// Plain starts the session in screen-reader mode (play --plain), for this connection
	// only: the knight keeps it for the key's next ones only when the player asks (set
	// plain on, the options' a, the title's question), so an ordinary ssh after one
	// play --plain draws the screen.
	Plain bool
	// Names keeps knights' names unique; nil accepts any name CleanName accepts.
	Names Names
	// Watch makes a spectator's session (ssh host watch NAME): it shows the views Views
	// receives, read-only, and has no knight of its own.
	Watch *world.Watch
	Views *ViewSlot
	// Fell plays the last minute of the session's knight, which has just died, for the
	// death screen's r (its views to the slot it returns, until ctx ends); nil offers
	// none. A guest's is nil: a guest is not recorded.
	Fell func(ctx context.Context) (ReplayControl, *ViewSlot, error)
	// Replay makes a replay's session (ssh host replay NAME --death): it shows the views
	// Views receives from the replay, read-only, and its keys change the replay's pace.
	Replay ReplayControl
	// Options are the spectator's own settings (a watching key's saved options), for a
	// Watch session; a playing session reads them from Saved.
	Options world.Options
	// Out is the session's terminal: the model draws its screen there itself (View), as
	// changes to what it last drew. Nil draws nowhere; Text still tells the screen.
	Out io.Writer
	// Term is the terminal's type (TERM), which says how it can be drawn on.
	Term string
	// Tick is the wall time of one game turn (the server's -tick), so that a battle's
	// countdown, kept in turns, is shown in seconds; zero is DefaultTick.
	Tick time.Duration
	// Now is the wall clock, for the date a letter is sent; nil is time.Now.
	Now func() time.Time
	// Record also gets every view of the session's knight, for its replays;
	// nil records nothing.
	Record world.Subscriber
	// FindKnight finds a knight by the first of names in the records every realm
	// shares, for a letter to a knight the world does not know (one imported, or made on
	// another realm, since this realm started); nil on a server alone, whose world knows
	// every knight it keeps. It is called off the world, from a command of the session.
	FindKnight func(ctx context.Context, names []string) (world.KnownKnight, bool)
	// PlainCommand is the command that plays this game in screen-reader mode from
	// anywhere (the web page's, "ssh -t -p 2222 host play --plain"): a terminal too small
	// for the game is told it. Empty tells no command.
	PlainCommand string
	// KeyFrameGap is the least time between two frames drawn for keys that come faster
	// than anyone types (pace.go; the server's sessions use KeyFrameGap); zero draws a
	// frame for every key.
	KeyFrameGap time.Duration
	// PlainUnbroken leaves screen-reader mode's lines whole, not broken at the width:
	// the play page shows them in a log that wraps them itself, where a sentence broken
	// in two would be read as two.
	PlainUnbroken bool
	// PlainChanged, if set, is told each time screen-reader mode turns on or off for the
	// connection (the title's y, the options, plain off): the play page shows its log or
	// its grid to match, so a player who answers the title's question in the page is
	// read the game's lines. It is called on the program's goroutine.
	PlainChanged func(on bool)
	// ViewsWaited says the session's input pump waits for the knight's views (ViewWait)
	// beside its keys, in place of a command of the program's, which waited on a goroutine
	// of its own for the whole session.
	ViewsWaited bool
}

// DefaultTick is the server's default wall time of one game turn.
const DefaultTick = world.DefaultTick

// tick is the wall time of one game turn.
func (m *Model) tick() time.Duration {
	if m.p.Tick > 0 {
		return m.p.Tick
	}
	return DefaultTick
}

// Names checks and reserves knights' names for one key (the server's, backed by the
// store). Names that NameKey folds together are the same name.
type Names interface {
	// Taken reports whether another key's knight has the name.
	Taken(name string) bool
	// Claim reserves the name for this key; it is false when the name is taken.
	Claim(name string) bool
}

// FameFunc returns the hall of fame as lines to show (the server reads the store).
type FameFunc func() []string

// BoardFunc returns a board of the living, for the week it is now or for all time (the
// server reads the knights' records, and logs an error it returns).
type BoardFunc func(b world.BoardID, week bool) (world.BoardPage, error)

// screen is which of the game's screens a session shows; screens says what each does.
type screen int

const (
	screenTitle     screen = iota // the title, with the screen-reader question
	screenRoll                    // a new knight's characteristics
	screenName                    // the knight's name
	screenJoining                 // on the way into the world
	screenPlay                    // the dungeon, or the surface outside it
	screenMap                     // the map of where the knight has been
	screenHelp                    // the help
	screenInventory               // what the knight carries
	screenFame                    // the hall of fame and the boards of the living, a page each
	screenSpells                  // a spell menu over the dungeon
	screenESP                     // ESP's question: which way to look
	screenRetire                  // the question whether to retire
	screenQuit                    // the question whether to leave
	screenDead                    // the tombstone, or a retired knight's honours
	screenEnded                   // why the session ended
	screenLog                     // the message and chat log
	screenWho                     // who is in the game, to pick someone to watch
	screenOptions                 // the options
	screenWatch                   // another player's screen, read-only
	screenStats                   // every combatant's statistics in a battle
	screenParty                   // the party
	screenMarket                  // a market's wares and the knight's things
	screenMail                    // the knight's letters
	screenSheet                   // the knight's characteristics and deeds
	numScreens
)

// screenRow is one screen: everything the Model does differently on it. Adding a screen
// is a constant above, a row in screens, a row of gameKeys whose act opens it (open,
// keys.go) and its functions; the help and screen-reader mode's words come from the
// rows.
type screenRow struct {
	// draw draws the screen on a canvas the size of the frame.
	draw func(*Model, *canvas)
	// key takes a key pressed on it; nil: keys do nothing there.
	key func(*Model, tea.KeyPressMsg) tea.Cmd
	// typed takes a line typed on it in screen-reader mode. It is nil for the screens
	// of the game itself, which the mode has no page for: a line typed there goes to the
	// game's prompt (its words are in words.go), and the mode tells what they show in
	// sentences instead.
	typed func(*Model, string) tea.Cmd
	// speak says the screen when screen-reader mode is turned on there; nil says only
	// that the mode is on (and, on a screen of the game, where the knight stands).
	speak func(*Model)
	// ask is the question a screen over the dungeon asks in its message line.
	ask string
	// list is the list the screen scrolls, if it has one: opening the screen shows it
	// from its start (open), and space and - page it (TestEveryListPagesBothWays).
	list func(*Model) *pager
}

// screens are the game's screens, by screen. They are filled in by init: their functions
// read the table themselves (a key that opens another screen, the question drawn under
// the view), which a variable's initializer may not.
var screens [numScreens]screenRow

// init fills in the tables whose rows read tables (a screen's functions read screens, the
// chat's /help its help, a word's help plainWords), in the order they read one another:
// the screens, the game's keys and the chat line's commands, then screen-reader mode's
// words, some of which are the keys' and the commands' rows, then the help, whose keys
// are gameKeys'.
func init() {
	screens = screenTable()
	gameKeys = gameKeyTable()
	chatCommands = chatCommandTable()
	chatByWord, chatHelp = chatIndex(chatCommands), makeChatHelp()
	plainWords = plainWordTable()
	helpLines = makeHelp()
}

// screenTable is the screens' table (screens).
func screenTable() [numScreens]screenRow {
	return [numScreens]screenRow{
		screenTitle:     {draw: (*Model).drawTitle, key: (*Model).titleKey, typed: (*Model).titleLine, speak: (*Model).plainIntro},
		screenRoll:      {draw: (*Model).drawRoll, key: (*Model).rollKey, typed: (*Model).rollLine, speak: (*Model).sayRoll},
		screenName:      {draw: (*Model).drawName, key: (*Model).nameKey, typed: (*Model).nameLine, speak: (*Model).sayNamePrompt},
		screenJoining:   {draw: (*Model).drawJoining, typed: (*Model).joiningLine},
		screenPlay:      {draw: (*Model).drawDungeon, key: (*Model).dungeonKey},
		screenMap:       {draw: (*Model).drawMap, key: (*Model).mapKey},
		screenHelp:      {draw: (*Model).drawHelp, key: (*Model).helpKey, list: func(m *Model) *pager { return &m.help.pager }},
		screenInventory: {draw: (*Model).drawInventory, key: (*Model).inventoryKey, list: func(m *Model) *pager { return &m.inv }},
		screenFame:      {draw: (*Model).drawFame, key: (*Model).fameKey, list: func(m *Model) *pager { return &m.fame.pager }},
		screenSpells:    {draw: (*Model).drawSpells, key: (*Model).spellsKey},
		screenESP:       {draw: (*Model).drawDungeon, key: (*Model).espKey, ask: "ESP: which direction do you look? (an arrow)"},
		screenRetire:    {draw: (*Model).drawDungeon, key: (*Model).retireKey, ask: "Retire this knight into the hall of fame? Its adventures end. (y/n)"},
		screenQuit:      {draw: (*Model).drawDungeon, key: (*Model).quitKey, ask: "Leave the dungeon for now? Your knight is saved where it stands. (y/n)"},
		screenDead:      {draw: (*Model).drawDead, key: (*Model).deadKey, typed: (*Model).deadLine, speak: (*Model).sayEnd},
		screenEnded:     {draw: (*Model).drawEnded, typed: (*Model).endedLine},
		screenLog:       {draw: (*Model).drawLog, key: (*Model).logKey, list: func(m *Model) *pager { return &m.log }},
		screenWho:       {draw: (*Model).drawWho, key: (*Model).whoKey, list: func(m *Model) *pager { return &m.who.pager }},
		screenOptions:   {draw: (*Model).drawOptions, key: (*Model).optionsKey},
		screenWatch:     {draw: (*Model).drawWatch, key: (*Model).watchKey, typed: (*Model).watchLine},
		screenStats:     {draw: (*Model).drawStats, key: (*Model).statsKey, list: func(m *Model) *pager { return &m.bt.stats }},
		screenParty:     {draw: (*Model).drawPartyScreen, key: (*Model).partyKey, list: func(m *Model) *pager { return &m.bt.party }},
		screenMarket:    {draw: (*Model).drawMarket, key: (*Model).marketKey, list: (*Model).marketList},
		screenMail:      {draw: (*Model).drawMail, key: (*Model).mailKey, list: func(m *Model) *pager { return &m.mail.pager }},
		screenSheet:     {draw: (*Model).drawSheet, key: (*Model).sheetKey, list: func(m *Model) *pager { return &m.sheet }},
	}
}

// Model is one connection's game screen. It is owned by its Bubble Tea program. Its
// fields are what the whole session shares: the player and the world's views, the
// settings, the terminal; each screen's own state is one field, a small type of the
// screen's file.
//
// Unlike a usual Bubble Tea model, its View is not a pure rendering: it writes the screen
// to Params.Out itself and returns an empty tea.View, for the server runs the program
// without Bubble Tea's renderer. Each call writes only what changed since the call before
// and marks it written, so a second call writes nothing. Call View once after each
// Update, as Bubble Tea (or Headless) does; read the screen with Text.
type Model struct {
	ctx    context.Context
	p      Params
	theme  *theme
	screen screen
	width  int
	height int

	player   atomic.Pointer[world.Player]
	views    *ViewSlot
	view     world.View
	haveView bool
	waitCmd  tea.Cmd           // waitView's command
	arm      chan struct{}     // a token asks for the next view (Params.ViewsWaited)
	tomb     *world.Death      // the knight's death, on the death screen
	retired  *world.Retirement // the knight's retirement, on the retirement screen
	ended    string
	// backSent says the knight, away, has been sent back with a key (chat.go); it is
	// cleared when a view says it is no longer away.
	backSent bool

	opts   world.Options // the player's settings: from the saved knight, then the options screen
	synced bool          // the options were sent to the world after joining
	colour colourState
	// term is the player's terminal as last drawn. frameOK says it shows the screen now:
	// it is drawn again only after a message that may change it (keep says the last one
	// did not: a step only asks the world, and the screen changes when the world
	// answers). Bubble Tea asks for the screen after every message, and a walking player
	// sends a key for nearly every view it gets.
	term    terminal
	frameOK bool
	keep    bool
	pacing  framePace // when keys' frames are drawn (pace.go)

	// The screens' and panels' own state.
	rolled    rollState     // a new knight's characteristics and name (start.go)
	dun       dungeonScreen // the dungeon screen, kept from frame to frame (dungeon.go)
	mapScr    *mapScreen    // what the map screen keeps while it shows (map.go)
	mapPan    mapPan        // where the map screen looks (map.go)
	help      helpScreen    // the help (help.go)
	inv       pager         // the inventory (inventory.go)
	fame      fameScreen    // the hall of fame and the boards (boards.go)
	sheet     pager         // the character sheet's deeds (sheet.go)
	log       pager         // the message log, which follows the newest lines (chat.go)
	console   *console      // the admin console over the dungeon screen, made when first opened (console.go)
	chat      chatLine      // the chat line over the dungeon screen
	who       whoList       // the who-list (watch.go)
	watch     watching      // the player this session watches, if any
	optScreen optionsScreen // the options screen (options.go)
	pl        plainState    // screen-reader mode
	bt        battle        // group battles and parties (battle.go, party.go)
	mk        marketState   // the market screen (market.go)
	mail      mailState     // the letters screen (mail.go)
	alert     alertState    // the bell and the status line's mark (alert.go)
}

// New makes the model for one session; ctx ends when the connection does.
func New(ctx context.Context, p Params) *Model {
	if p.Rand == nil {
		p.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	m := &Model{ctx: ctx, p: p, width: p.Width, height: p.Height,
		rolled: rollState{name: lineInput{limit: world.MaxNameLen}}, views: NewViewSlot(), arm: make(chan struct{}, 1),
		chat: newChatLine(), optScreen: optionsScreen{mute: lineInput{prompt: "Mute or unmute: ", limit: world.MaxNameLen}},
		help: helpScreen{pager: pager{keys: letterKeys}}, log: pager{keys: letterKeys, tail: true, follow: true},
		bt: battle{stats: pager{keys: lineKeys}}, pl: plainState{line: lineInput{prompt: plainPrompt, limit: plainInputLimit}},
		pacing: framePace{gap: p.KeyFrameGap}}
	switch {
	case p.Watch != nil, p.Replay != nil:
		m.opts = p.Options.Clone()
		m.watch = watching{w: p.Watch, box: p.Views, only: true, replay: p.Replay}
		m.screen = screenWatch
	case p.Saved != nil:
		m.opts = p.Saved.Options.Clone()
	}
	m.opts.PlainHere = p.Plain // this connection's own, not that of a play --plain one whose knight it takes over
	m.term.out, m.term.bce = p.Out, erasesInColour(p.Term)
	m.restyle()
	m.pl.active = m.opts.ScreenReader()
	return m
}

// Leave takes the knight out of the world if it joined, saving it. The server calls it
// when the program has ended, however it ended.
func (m *Model) Leave(ctx context.Context) (world.Adventurer, bool, error) {
	if w := m.watch.w; w != nil {
		_ = w.Stop(ctx) // fails only when the world is ending, which ends the watch too
	}
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

// Init starts the program: a spectator starts waiting for the watched player's views, and
// screen-reader mode speaks the title.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.watch.only {
		cmds = append(cmds, m.waitWatch())
	}
	if m.pl.active {
		m.plainIntro()
	}
	return tea.Batch(cmds...)
}

type joinedMsg struct {
	player *world.Player
	err    error
}

// viewMsg is a view for the session's own knight; viewReadyMsg says that one waits in
// the session's view slot (ViewSlot).
type (
	viewMsg      world.View
	viewReadyMsg struct{}
)

func (m *Model) join(rec world.Adventurer) tea.Cmd {
	m.screen = screenJoining
	return func() tea.Msg {
		var sub world.Subscriber = m.views
		if m.p.Record != nil {
			sub = teeViews{m.views, m.p.Record}
		}
		pl, err := m.p.Engine.Join(m.ctx, rec, sub)
		return joinedMsg{pl, err}
	}
}

// teeViews gives the knight's views to the session and to its record alike.
type teeViews struct{ slot, record world.Subscriber }

// Deliver hands v to both; neither blocks. The record has it first: a player who sees
// its knight's death can ask at once for the death's replay (the death screen's r), which
// cuts the record; the death must be in the record's queue before that cut.
func (t teeViews) Deliver(v world.View) {
	t.record.Deliver(v)
	t.slot.Deliver(v)
}

// waitView is the command that waits for the next view: one function made once, not a
// new closure for every frame. When the session's pump waits for the views
// (Params.ViewsWaited), it is asked to, and there is no command.
func (m *Model) waitView() tea.Cmd {
	if m.p.ViewsWaited {
		select {
		case m.arm <- struct{}{}:
		default: // asked already
		}
		return nil
	}
	if m.waitCmd == nil {
		m.waitCmd = m.viewReady
	}
	return m.waitCmd
}

// ViewWait is the wait for the knight's next view, for a pump that waits for it
// (Params.ViewsWaited): after a token on arm, a token on ready says a view may wait in
// the view slot, and msg tells the program so.
func (m *Model) ViewWait() (arm, ready <-chan struct{}, msg tea.Msg) {
	return m.arm, m.views.ready, viewReadyMsg{}
}

// viewReady waits until a view may wait in the view slot.
func (m *Model) viewReady() tea.Msg {
	if !m.views.Wait(m.ctx) {
		return nil
	}
	return viewReadyMsg{}
}

// Update handles one message. In screen-reader mode, whatever it has to say is printed
// afterwards, in order.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.keep = false
	cmd := m.update(msg)
	m.frameOK = m.frameOK && m.keep
	return m, m.pace(msg, cmd)
}

// update handles one message by its kind: the terminal's size and colours, what the
// world and the session's own commands send back, and the player's input.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return nil
	case tea.ColorProfileMsg:
		m.colour.client = &msg.Profile
		m.restyle()
		return nil
	case joinedMsg:
		return m.joined(msg)
	case viewMsg:
		return m.ownView(world.View(msg))
	case viewReadyMsg:
		return m.takeView()
	case watchViewMsg:
		return m.watchedView(msg)
	case watchStartMsg:
		return m.startWatching(msg)
	case fellMsg:
		return m.startFell(msg)
	case lettersMsg:
		return m.gotLetters(msg)
	case chatNoteMsg:
		m.chatNote(string(msg))
		return nil
	case plainPromptMsg:
		m.promptShown(msg)
		return nil
	case PlainMsg:
		return m.plainAsked(bool(msg))
	case whoMsg:
		m.gotWho(msg)
		return nil
	case consoleResultMsg:
		m.gotConsoleResult(msg)
		return nil
	case frameDueMsg:
		m.frameIsDue()
		return nil
	case Farewell:
		return m.end(msg.Reason)
	case tea.PasteMsg:
		return m.pasted(msg)
	case tea.KeyPressMsg:
		return m.pressed(msg)
	}
	return nil
}

// end ends the session, the reason kept on the player's terminal.
func (m *Model) end(reason string) tea.Cmd {
	m.ended = reason
	m.screen = screenEnded
	m.say(reason)
	return tea.Quit
}

// joined takes the world's answer to the knight's joining: play, or the end of the
// session when the world is not running.
func (m *Model) joined(msg joinedMsg) tea.Cmd {
	if msg.err != nil {
		return m.end("The world is not running; please try again later.")
	}
	m.player.Store(msg.player)
	m.screen, m.synced = screenPlay, false
	return m.waitView()
}

// takeView takes the view waiting in the view slot, if another message has not taken it
// already.
func (m *Model) takeView() tea.Cmd {
	v, ok := m.views.Take()
	if !ok { // taken with the one before
		return m.waitView()
	}
	return m.ownView(v)
}

// promptShown notes that the screen-reader prompt the session waited for is printed.
func (m *Model) promptShown(msg plainPromptMsg) {
	if uint64(msg) == m.pl.awaited {
		m.pl.awaiting = false
	}
}

// gotWho takes the list of who is in the game; in screen-reader mode it is said.
func (m *Model) gotWho(msg whoMsg) {
	m.who.entries, m.who.far, m.who.note = msg.who, msg.far, msg.note
	if m.pl.active {
		m.sayWho()
	}
}

// gotConsoleResult shows a console command's result; in screen-reader mode it is said.
func (m *Model) gotConsoleResult(msg consoleResultMsg) {
	if m.console != nil {
		m.console.showResult(msg)
	}
	if m.pl.active {
		m.sayConsole(msg)
	}
}

// pasted takes pasted text: nothing while the screen is too small to be seen, else the
// screen-reader input line's or the line being typed.
func (m *Model) pasted(msg tea.PasteMsg) tea.Cmd {
	if m.unseen() {
		m.keep = true // nothing changed: the message stays as drawn
		return nil
	}
	m.comeBack()
	m.alertKey()
	if m.pl.active {
		m.pl.paste(msg.Content)
		return nil
	}
	return m.typed(msg)
}

// pressed takes a key: ctrl+c always quits; nothing else acts while the screen is too
// small to be seen.
func (m *Model) pressed(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if m.unseen() {
		m.keep = true
		return nil
	}
	m.comeBack()
	m.alertKey()
	if m.pl.active {
		return m.plainKey(msg)
	}
	cmd := m.key(msg)
	m.alertLooked()
	return cmd
}

// typed gives pasted text to the line being typed, the knight's name or the chat line,
// if one is open on the full screen.
func (m *Model) typed(msg tea.PasteMsg) tea.Cmd {
	switch {
	case m.pl.active:
	case m.screen == screenName:
		m.rolled.name.insert(msg.Content)
	case m.chat.open:
		m.chat.input.insert(msg.Content)
	}
	return nil
}

// Farewell ends the session with a reason the player keeps on the terminal, on whatever
// screen it is (the title, the roll, the death screen, watching, playing): the server
// sends it to every session when it goes down. A knight in the world then leaves it and
// is saved, as on any disconnect.
type Farewell struct{ Reason string }

// ownView takes a view of the player's own knight.
func (m *Model) ownView(v world.View) tea.Cmd {
	if v.Ended != "" {
		return m.end(v.Ended)
	}
	if v.Dead != nil || v.Retired != nil {
		// The engine has let go of this knight; the player may roll a new one.
		m.player.Store(nil)
		prev := m.view
		m.view, m.tomb, m.retired = v, v.Dead, v.Retired
		if m.watch.w != nil && !m.watch.only {
			m.stopWatching("")
		}
		m.screen = screenDead
		if m.pl.active {
			m.narrate(prev, v, false)
			m.sayEnd()
		}
		return nil
	}
	prev, had := m.view, m.haveView
	m.view, m.haveView = v, true
	m.backSent = m.backSent && v.Self.Away
	m.closeMarketIfLeft()
	m.alertOn(&v)
	if !m.synced {
		// This session's options win over what the world held (a saved record, or the
		// knight's other connection): send them once the knight is in.
		m.synced = true
		m.sendOptions()
	}
	switch {
	case m.pl.active && m.screen != screenWatch:
		m.narrate(prev, v, !had)
	case m.pl.active && had:
		m.tellOwnWhileWatching(prev, v) // plain.go
	}
	m.sayBattleAlert()
	return m.waitView()
}

// key takes a key pressed on the full screen.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if key := screens[m.screen].key; key != nil {
		return key(m, k)
	}
	return nil
}

func (m *Model) do(c world.Command) {
	if c == nil {
		return
	}
	if to := m.sender(); to != nil {
		m.pl.asked = true
		_ = to.Do(m.ctx, c) // fails only when the session or the world is ending
	}
}

// View writes to the player's terminal (Params.Out) and always returns an empty
// tea.View: the server runs the program without Bubble Tea's renderer (terminal says
// why). It is a side effect, not a rendering. On the full screen it draws the frame
// again only if a message since the last call may have changed it, and writes just the
// cells that differ from what the terminal shows; in screen-reader mode it prints the
// lines waiting to be said, each once, and the input line. A second call writes nothing
// new. Bubble Tea calls it after every message, on the program's goroutine (Headless
// does the same without a program); to read the screen, call Text, which writes nothing.
// Nothing is written (and the lines keep waiting) while the terminal's colours are
// unknown (Bubble Tea sends them first thing) or Out is nil, nor while keys' frame is
// held for the gap's end (pace.go).
func (m *Model) View() tea.View {
	if _, ok := m.profile(); !ok || m.term.out == nil || m.pacing.held {
		return tea.View{}
	}
	if m.alert.ring {
		m.alert.ring = false
		if !m.pl.active { // screen-reader mode says its alerts in words (alert.go)
			m.term.bell()
		}
	}
	writes := m.term.writes
	switch {
	case m.pl.active:
		lines := m.pl.out
		m.pl.out = nil
		m.term.plain(lines, m.promptLine(), m.pl.awaiting, m.plainWidth())
	case !m.frameOK:
		m.pl.out = nil
		c := m.term.canvas(m.frameSize())
		m.draw(c)
		m.term.paint(c, m.theme)
		m.frameOK = true
	default:
		m.pl.out = nil
	}
	if m.term.writes != writes {
		m.drew() // the frames' pace counts from here (pace.go)
	}
	return tea.View{}
}

// Close gives the player's terminal back as it was before the game. The server calls it
// when the program has ended, before it prints anything more.
func (m *Model) Close() { m.term.restore() }

// Text is the current screen without colour, as a player with NO_COLOR sees it (tests use
// it); in screen-reader mode, the transcript so far and the input line.
func (m *Model) Text() string {
	if m.pl.active {
		return m.plainText()
	}
	return m.render(true)
}

func (m *Model) render(plain bool) string {
	if msg, small := m.tooSmall(); small {
		return msg
	}
	c := newCanvas(m.frameSize())
	m.draw(c)
	return c.render(m.theme, plain)
}

// frameSize is the size of the frames drawn: the terminal's, but never larger than
// MaxWidth×MaxHeight, whatever size a client claims (a 10000×10000 window would
// otherwise cost hundreds of megabytes a frame).
func (m *Model) frameSize() (w, h int) {
	return min(max(m.width, 0), MaxWidth), min(max(m.height, 0), MaxHeight)
}

// tooSmall is what a terminal smaller than MinWidth×MinHeight is told instead of the
// game: the size it needs and the command that plays in screen-reader mode, which any
// size can.
func (m *Model) tooSmall() (string, bool) {
	if !m.small() {
		return "", false
	}
	if m.p.Browser { // the page's window is the terminal; play --plain needs an ssh client
		return fmt.Sprintf("Please enlarge the window to at least %d×%d letters (it is %d×%d now).", MinWidth, MinHeight, m.width, m.height), true
	}
	msg := fmt.Sprintf("Please enlarge your terminal to at least %d×%d (it is %d×%d now).", MinWidth, MinHeight, m.width, m.height)
	if m.p.PlainCommand != "" {
		msg += " Or play in plain mode: " + m.p.PlainCommand
	}
	return msg, true
}

// small says the terminal is smaller than the game draws in. While it is, keys change
// nothing (the player cannot see what they would do) and are not kept: the screen and
// a half-typed line are as they were when the terminal grows again.
func (m *Model) small() bool { return m.width < MinWidth || m.height < MinHeight }

// unseen says the game is not on the terminal for a key to act on: it is too small, and
// not in screen-reader mode, whose lines fit any width.
func (m *Model) unseen() bool { return !m.pl.active && m.small() }

// draw draws the current screen on c.
func (m *Model) draw(c *canvas) {
	if msg, small := m.tooSmall(); small {
		for i, l := range wrap(msg, max(c.w, 1)) {
			c.text(0, i, l, clsText)
		}
		return
	}
	screens[m.screen].draw(m, c)
	// What the map and help screens keep between their frames goes once they are left:
	// every knight opens them now and then, and a session is small.
	if m.screen != screenMap && m.mapScr != nil {
		m.mapScr.release()
		m.mapScr = nil
	}
	if m.screen != screenHelp && m.help.lines != nil {
		m.help.lines = nil
	}
}

// sender is what the game's keys reach the world through: the session's *world.Player,
// or a test's recorder.
type sender interface {
	Do(ctx context.Context, c world.Command) error
	Party(ctx context.Context, a world.PartyAction) error
}

// sender is where commands go: the test's recorder, or the knight's player (nil when the
// knight is not in the world).
func (m *Model) sender() sender {
	if m.bt.to != nil {
		return m.bt.to
	}
	if pl := m.player.Load(); pl != nil {
		return pl
	}
	return nil
}
