package app

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The test harness: the one way the tests make a Model and run it.
//
//	a world    runWorld steps when the test sends a tick; ticker steps it on its own
//	a Model    playModel is a session on a world; viewModel is a playing session showing
//	           a view the test made, its commands kept by a recorder (no world at all)
//	keys       keys presses keys on a Model, its commands left aside (a viewModel's);
//	           enterLine types a line and presses Enter the same way
//	running    a driver runs a Model in a world the way the Bubble Tea runtime does: its
//	           commands on their own goroutines, their messages back through Update;
//	           waitText and waitOut wait for the screen or the transcript
//	loops      joinNow carries out the join at once, for the fuzz tests and the
//	           benchmark, which press keys by the thousand and cannot settle after each
//	frames     checkFrame checks a frame's size; boxDrawing finds box drawing in a text
//	views      the views the tests show: twoOnTwo, a battle in a room of the dungeon;
//	           surfaceView, a knight on the surface (on a market at 2, 0)

// runWorld starts an engine that steps only when the test says so.
func runWorld(t *testing.T) (*world.Engine, chan time.Time) {
	t.Helper()
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	go e.Run(ctx, tick)
	t.Cleanup(cancel)
	return e, tick
}

// ticker steps the world in the background until the test ends.
func ticker(t *testing.T, tick chan time.Time) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case tick <- time.Time{}:
				time.Sleep(time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

// playModel is the session of the key fp on the world e (nil: no world), 80×24 unless p
// says otherwise, its rolls from a fixed seed unless p brings its own. Its context ends
// with the test.
func playModel(tb testing.TB, e *world.Engine, fp string, p Params) *Model {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	p.Fingerprint, p.Engine = fp, e
	if p.Width == 0 && p.Height == 0 {
		p.Width, p.Height = 80, 24
	}
	if p.Rand == nil {
		p.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return New(ctx, p)
}

// viewModel is Sir Kay's session playing, w×h, showing v, with no world: its commands go
// to the recorder.
func viewModel(t *testing.T, v world.View, w, h int) (*Model, *recorder) {
	t.Helper()
	m := playModel(t, nil, "SHA256:kay", Params{Width: w, Height: h})
	rec := &recorder{}
	m.bt.to = rec
	m.screen, m.view, m.haveView, m.synced = screenPlay, v, true, true
	return m, rec
}

// recorder stands in for the world: it keeps every command and party action a session
// sends.
type recorder struct {
	mu    sync.Mutex
	cmds  []world.Command
	party []world.PartyAction
}

func (r *recorder) Do(_ context.Context, c world.Command) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = append(r.cmds, c)
	return nil
}

func (r *recorder) Party(_ context.Context, a world.PartyAction) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.party = append(r.party, a)
	return nil
}

func (r *recorder) sent() ([]world.Command, []world.PartyAction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]world.Command(nil), r.cmds...), append([]world.PartyAction(nil), r.party...)
}

// take returns the commands sent since the last take.
func (r *recorder) take() []world.Command {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cmds
	r.cmds = nil
	return c
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds, r.party = nil, nil
}

// namedKeys are the keys a test names, as a terminal sends them.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter":       {Code: tea.KeyEnter},
	"esc":         {Code: tea.KeyEscape},
	"backspace":   {Code: tea.KeyBackspace},
	"tab":         {Code: tea.KeyTab},
	"shift+tab":   {Code: tea.KeyTab, Mod: tea.ModShift},
	"up":          {Code: tea.KeyUp},
	"down":        {Code: tea.KeyDown},
	"left":        {Code: tea.KeyLeft},
	"right":       {Code: tea.KeyRight},
	"shift+right": {Code: tea.KeyRight, Mod: tea.ModShift},
	"home":        {Code: tea.KeyHome},
	"end":         {Code: tea.KeyEnd},
	"pgup":        {Code: tea.KeyPgUp},
	"pgdown":      {Code: tea.KeyPgDown},
	"space":       {Code: tea.KeySpace, Text: " "},
}

// keyMsgs are the key presses of k: a named key ("enter", "shift+tab", "pgdown"), or
// else text, typed a character at a time.
func keyMsgs(k string) []tea.KeyPressMsg {
	if msg, ok := namedKeys[k]; ok {
		return []tea.KeyPressMsg{msg}
	}
	return textMsgs(k)
}

// textMsgs are the key presses that type s, even where it spells a key's name ("down").
func textMsgs(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		if r == ' ' {
			out = append(out, namedKeys["space"])
		} else {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	return out
}

// keys presses keys (named keys or text) on a model, leaving aside the commands it
// returns (the name field's cursor blinking; a viewModel has no world to run them on).
func keys(m *Model, ks ...string) {
	for _, k := range ks {
		for _, msg := range keyMsgs(k) {
			m.Update(msg)
		}
	}
}

// enterLine types s and presses Enter, as a player does at a command line.
func enterLine(m *Model, s string) {
	for _, msg := range textMsgs(s) {
		m.Update(msg)
	}
	m.Update(namedKeys["enter"])
}

// checkFrame fails unless the frame is h lines of w columns.
func checkFrame(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("frame has %d lines, want %d:\n%s", len(lines), h, s)
	}
	for i, l := range lines {
		if n := textWidth(l); n != w { // a wide character is two columns
			t.Fatalf("line %d is %d columns, want %d:\n%s", i, n, w, s)
		}
	}
}

// boxDrawing reports the first box-drawing character (U+2500–U+257F) in s, if any.
func boxDrawing(s string) (rune, bool) {
	for _, r := range s {
		if r >= 0x2500 && r <= 0x257f {
			return r, true
		}
	}
	return 0, false
}

// driver runs a Model the way the Bubble Tea runtime does, closely enough for tests:
// commands run on their own goroutines, their messages come back through Update (each
// followed by View, which draws), batches fan out, sequences run in order, and what the
// model writes to its terminal is recorded. A command that ends after the test has is
// let go.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	done chan struct{} // closed when the test ends
	term bytes.Buffer  // everything the model wrote to its terminal
	quit bool
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

func newDriver(t *testing.T, m *Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() { close(d.done) })
	m.term.out = &d.term
	d.run(m.Init())
	d.send(tea.ColorProfileMsg{Profile: colorprofile.TrueColor}) // as Bubble Tea sends first
	d.settle()
	return d
}

// run carries out commands on a goroutine of their own, one after the other.
func (d *driver) run(cmds ...tea.Cmd) {
	go func() {
		for _, cmd := range cmds {
			if cmd == nil {
				continue
			}
			select {
			case d.msgs <- cmd():
			case <-d.done:
				return
			}
		}
	}()
}

// send gives the model a message and carries out what it returns.
func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.m.View()
	if cmd != nil {
		d.run(cmd)
	}
}

// handle takes one message a command returned.
func (d *driver) handle(msg tea.Msg) {
	if msg == nil {
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			if c != nil {
				d.run(c)
			}
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	rv := reflect.ValueOf(msg)
	switch {
	case rv.Kind() == reflect.Slice && rv.Type().Elem() == cmdType: // tea.Sequence
		cmds := make([]tea.Cmd, rv.Len())
		for i := range cmds {
			cmds[i] = rv.Index(i).Interface().(tea.Cmd)
		}
		d.run(cmds...)
	default:
		d.send(msg)
	}
}

// settle handles messages until none has come for a moment.
func (d *driver) settle() {
	d.t.Helper()
	for {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
		case <-time.After(40 * time.Millisecond):
			return
		}
	}
}

// key presses keys: names like "enter", "up", "shift+right", or text typed a character
// at a time; the model settles after each.
func (d *driver) key(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		for _, msg := range keyMsgs(k) {
			d.send(msg)
		}
		d.settle()
	}
}

// line types a line and presses Enter.
func (d *driver) line(s string) {
	d.t.Helper()
	for _, msg := range textMsgs(s) {
		d.send(msg)
	}
	d.settle()
	d.key("enter")
}

// out is the transcript screen-reader mode has printed so far: every line the terminal
// was given whole, as the terminal shows it (a carriage return starts the line again).
func (d *driver) out() string {
	text := ansi.Strip(d.term.String())
	lines := strings.Split(text, "\r\n")
	lines = lines[:len(lines)-1] // the prompt, still being typed on
	for i, l := range lines {
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	return strings.Join(lines, "\n")
}

// waitFor handles messages until read, given what the model shows, holds every want,
// and returns what it read; the test fails after 5 s.
func (d *driver) waitFor(what string, read func() string, want ...string) string {
	d.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.settle()
		s := read()
		ok := true
		for _, w := range want {
			// Screen-reader mode breaks its lines at the terminal's width: a text may
			// run on across a line break.
			ok = ok && (strings.Contains(s, w) || strings.Contains(words(s), words(w)))
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("never %s %q:\n%s", what, want, s)
		}
	}
}

// waitOut waits until the printed transcript holds every want.
func (d *driver) waitOut(want ...string) string {
	d.t.Helper()
	return d.waitFor("printed", d.out, want...)
}

// waitText waits until the screen holds every want.
func (d *driver) waitText(want ...string) string {
	d.t.Helper()
	return d.waitFor("showed", d.m.Text, want...)
}

// runNow carries out a command at once and returns its message; the test fails if it
// takes more than a few seconds.
func runNow(tb testing.TB, cmd tea.Cmd) tea.Msg {
	tb.Helper()
	if cmd == nil {
		tb.Fatal("no command to run")
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	select {
	case msg := <-out:
		return msg
	case <-time.After(5 * time.Second):
		tb.Fatal("the command did not finish")
		return nil
	}
}

// joinNow carries out the command that joins the world (a model on the screen that joins
// it returns it) and takes the first view, as the runtime would; any other command of
// the model's is left aside.
func joinNow(tb testing.TB, m *Model, cmd tea.Cmd) {
	tb.Helper()
	msg := runNow(tb, cmd)
	if _, ok := msg.(joinedMsg); !ok {
		return
	}
	if _, next := m.Update(msg); next != nil {
		if v, ok := runNow(tb, next).(viewMsg); ok {
			m.Update(v)
		}
	}
}

// --- the views the tests show ------------------------------------------------------

// battleLevel is a small level: a corridor and a room where the battle is.
func battleLevel(t *testing.T) *world.Level {
	t.Helper()
	l, err := world.ParseASCII(2, `
+-+-+-+-+-+-+-+-+-+-+-+-+
|E            L. . . . .|
+-+-+-+-+-+-+-+ + + + + +
|#|#|#|#|#|#|#|. . . . .|
+-+-+-+-+-+-+-+ + + + + +
|#|#|#|#|#|#|#|. . . . .|
+-+-+-+-+-+-+-+-+-+-+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// allSquares is a bitset with every square of l set.
func allSquares(l *world.Level) []byte {
	b := make([]byte, (l.W*l.H+7)/8)
	for i := range b {
		b[i] = 0xff
	}
	return b
}

// twoOnTwo is a view of Sir Kay in a room with Gawain (fainted) against a troll and a
// goblin, the goblin its target, its move.
func twoOnTwo(t *testing.T) world.View {
	t.Helper()
	l := battleLevel(t)
	me := world.Pos{X: 8, Y: 1}
	return world.View{
		Self: world.Self{Name: "Sir Kay", Level: 3, Hits: 12, MaxHits: 15, SpellUnits: 8,
			Str: 14, Int: 12, Con: 11, Dex: 15, Depth: 2, Pos: me},
		Level: l, Visible: allSquares(l), Known: allSquares(l),
		Others:   []world.Other{{Name: "Gawain", Pos: me}},
		Monsters: []world.SeenMonster{{Name: "Troll", Glyph: "Tr", Pos: world.Pos{X: 9, Y: 1}}, {Name: "Goblin", Glyph: "Go", Pos: world.Pos{X: 9, Y: 2}}},
		Log:      world.LogOf([]string{"You force the door open.", "A troll and a goblin guard this room!"}, nil),
		Fight: &world.FightView{
			Monsters: []world.FightMonster{
				{Name: "Troll", Class: "Giant", Glyph: "Tr", Level: 4, Hits: 17, MaxHits: 24, Dex: 10,
					Attack: world.D(2, 8), AttacksPerRound: 2, Speed: 0, Experience: 320, Dodge: 5},
				{Name: "Goblin", Class: "Goblin", Glyph: "Go", Level: 1, Hits: 3, MaxHits: 7, Dex: 8,
					Attack: world.D(1, 6), AttacksPerRound: 1, Speed: 10, Experience: 25, Dodge: 2, Held: true},
			},
			Target: 1,
			Knights: []world.FightKnight{
				{Name: "Sir Kay", Level: 3, Hits: 12, MaxHits: 15, SpellUnits: 8, Str: 14, Int: 12, Con: 11, Dex: 15,
					Sword: 1, Shield: 0, Armour: 2, Blows: 2, Dodge: 12},
				{Name: "Gawain", Level: 2, Hits: 0, MaxHits: 11, SpellUnits: 6, Str: 16, Int: 9, Con: 13, Dex: 11,
					Blows: 1, Dodge: 8, Fainted: true},
			},
			Log: []string{
				"Sir Kay hits the Goblin for 4.",
				"The Troll hits Gawain for 9. Gawain faints!",
				"Sir Kay casts Hold Monster at the Goblin. The Goblin is held.",
				"The Troll misses Sir Kay.",
			},
			InRoom: true, Round: 3, YourMove: true, GraceLeft: 120, GraceTurns: 200,
		},
	}
}

// testSurface is an 8×8 surface: # rock, . common ground, $ a market, E the entrance.
// The markets are named in reading order from marketNames.
var testSurfaceRows = []string{
	"#.$..#$.",
	"..#.....",
	"$...$.#.",
	"..E..$..",
	"#..#....",
	".$....#$",
	"...#..$.",
	"#$.....#",
}

// marketNames are as the world names markets, but one, which names itself otherwise.
var marketNames = []string{"the Market of the Golden Lamb", "the Market of the Silver Fox", "the Iron Pot", "Ye Olde Bazaar",
	"the Market of the Blue Boar", "the Market of the Red Lion", "the Market of the Green Man", "the Market of the Bell", "the Market of the Crown"}

func testSurface() *world.Surface {
	s := &world.Surface{W: 8, H: 8, Markets: map[int]string{}}
	n := 0
	for y, row := range testSurfaceRows {
		for x, ch := range row {
			k := world.SurfaceCommon
			switch ch {
			case '#':
				k = world.SurfaceInaccessible
			case '$':
				k = world.SurfaceMarket
				s.Markets[y*8+x] = marketNames[n%len(marketNames)]
				n++
			case 'E':
				k = world.SurfaceEntrance
				s.Entrance = world.Pos{X: x, Y: y}
			}
			s.Cells = append(s.Cells, k)
		}
	}
	return s
}

// goldenLamb is the market at (2, 0).
func goldenLamb() *world.MarketView {
	return &world.MarketView{Name: "the Market of the Golden Lamb", Wares: []world.Ware{
		{Item: world.Item{Kind: world.ItemSword, Plus: 1}, Price: 200, Count: 3},
		{Item: world.Item{Kind: world.ItemShield}, Price: 90, Count: 1},
		{Item: world.Item{Kind: world.ItemArmour, Plus: 2}, Price: 900, Count: 2},
		{Item: world.Item{Kind: world.ItemRingOfLight}, Price: 150, Count: 0},
	}}
}

// surfaceView is Sir Kay on the surface at p, with Gawain two spaces east of the entrance
// and the market's view when p is the Golden Lamb.
func surfaceView(p world.Pos) world.View {
	s := testSurface()
	sv := &world.SurfaceView{Map: s, Others: []world.Other{{Name: "Gawain", Pos: world.Pos{X: 4, Y: 3}}}}
	if p == (world.Pos{X: 2, Y: 0}) {
		sv.Market = goldenLamb()
	}
	return world.View{
		Self: world.Self{Name: "Sir Kay", Level: 2, Hits: 14, MaxHits: 15, SpellUnits: 6, Str: 14, Int: 12, Con: 11, Dex: 15,
			Depth: 0, Pos: p, Gold: 120, Items: []world.Item{{Kind: world.ItemSword}, {Kind: world.ItemBootsOfSpeed, Worn: true},
				{Kind: world.ItemPotionHealing}, {Kind: world.ItemGem, Value: 400}}},
		Surface: sv,
		Others:  []world.Other{{Name: "Gawain", Pos: world.Pos{X: 4, Y: 3}}},
		Log:     world.LogOf([]string{"You climb out into the daylight."}, nil),
	}
}

// withLines is log with lines of kind MsgGame added at its end.
func withLines(log world.Log, lines ...string) world.Log {
	return withKind(log, world.MsgGame, lines...)
}

// withKind is log with lines of kind k added at its end.
func withKind(log world.Log, k world.MsgKind, lines ...string) world.Log {
	kinds := log.Kinds()
	for range lines {
		kinds = append(kinds, k)
	}
	return world.LogOf(append(log.Lines(), lines...), kinds)
}
