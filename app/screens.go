package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// centred writes lines centred on the screen from row y, each wrapped to the width, and
// returns the row after them.
func centred(c *canvas, y int, lines []string, cls class) int {
	for _, s := range lines {
		for _, l := range wrap(s, c.w-4) {
			c.text((c.w-textWidth(l))/2, y, l, cls)
			y++
		}
	}
	return y
}

// shown is the view the dungeon screen draws: the watched player's while watching.
func (m *Model) shown() world.View {
	if m.screen == screenWatch {
		return m.watch.view
	}
	return m.view
}

// keyHelp is the short key help line of the dungeon screen (the options turn it off).
const keyHelp = "? help  Enter chat  o options  q quit"

// playLayout is how the dungeon (or surface) screen shares out its rows at one size: the
// header, the view, the lines under the view, the newest messages and the status line.
// Every text is wrapped to the width, never cut, so the view takes what the words leave.
// In a fight the battle panel takes the right of the screen from the header down to the
// messages, and the lines under the view are wrapped beside it. drawPlay works it out and
// the parts drawn over the screen after it (the party list, the chat line, the console)
// read it.
type playLayout struct {
	mapTop, mapH int
	panelH       int         // the battle panel's rows from mapTop, 0 without one
	under        []string    // who watches, the spells working, who is with the knight and in sight
	msgTop       int         // the first row of the messages
	msgs         []panelLine // the newest messages, wrapped, oldest first, msgLines at least
	status       []string    // the status line, wrapped at its separators
}

// msgRow is the last message row: the chat line and the console type there.
func (l playLayout) msgRow() int { return l.msgTop + len(l.msgs) - 1 }

// underMax is how many rows the lines under the view take at most on a screen h rows high
// before the knights in sight are counted instead of named. They take one always: the
// view does not jump when a spell starts.
func underMax(h int) int { return max(4, h/6) }

// layoutPlay shares out a w×h screen showing v, with extra as the newest message (a
// question the screen asks), if any. sight is v.InSight().
func layoutPlay(v world.View, sight []world.Other, w, h int, extra string, memo *underMemo) playLayout {
	panel := v.Fight != nil || len(v.LastFight) > 0
	underW := w
	if panel {
		underW -= fightPanelWidth(w)
	}
	l := playLayout{mapTop: 1, under: underLinesOf(v, sight, underW, underMax(h), memo), status: memo.statusLines(v.Self, w)}
	msgs := v.Messages
	if v.Fight != nil {
		msgs = withoutLines(msgs, v.Fight.Log, msgLines) // the panel shows the fight's own
	} else if len(v.LastFight) > 0 {
		msgs = withoutLines(msgs, v.LastFight, msgLines)
	}
	if extra != "" {
		msgs = append(append([]string(nil), msgs...), extra)
	}
	l.msgs = memo.messageLines(msgs, w, msgLines)
	l.msgTop = h - len(l.status) - len(l.msgs)
	l.mapH = max(1, l.msgTop-len(l.under)-l.mapTop)
	if panel {
		l.panelH = l.msgTop - l.mapTop
	}
	return l
}

// underMemo is the last lines under the view a session drew, its status line and its
// newest messages, wrapped, with what they were made from. What they say changes far less
// often than frames are drawn (others' steps), and wrapping them again on every frame
// was a fifth of the server's work at a thousand players. The lines are shared: callers
// only read them, and only until the next call with the memo (which may make new ones
// over them). A nil memo wraps afresh.
type underMemo struct {
	w, most                         int
	here, others, watchers, effects []string // what the lines under the view were made from
	lines                           []string
	shown                           int      // how many of others the lines name
	hereNow, othersNow              []string // the names of this frame, kept for the next one's
	text                            []byte   // the buffer the texts tried are built in
	lineBuf                         []string // the slice lines are kept in

	statsOf [4]int // the strength, intelligence, constitution and dexterity stats says
	stats   string

	status     statusKey
	statusOf   []string // Self.Status the status line was made with
	statusText []string

	msgW, msgRows int
	msgs          []string // the newest messages the lines were made from
	msgLines      []panelLine
}

// statusKey is what the status line is made from, but Self.Status.
type statusKey struct {
	w                                                int
	name                                             string
	level, hits, maxHits, spells, exp, depth, unread int
	feature                                          world.Feature
	away                                             bool
}

// statsLine is the header's "Str 12  Int 9  Con 14  Dex 11", made again only when one
// of them changes.
func (mm *underMemo) statsLine(s world.Self) string {
	if k := [4]int{s.Str, s.Int, s.Con, s.Dex}; mm.stats == "" || k != mm.statsOf {
		mm.statsOf, mm.stats = k, fmt.Sprintf("Str %d  Int %d  Con %d  Dex %d", s.Str, s.Int, s.Con, s.Dex)
	}
	return mm.stats
}

// statusLines is statusLines(s, w), wrapped once for the same status.
func (mm *underMemo) statusLines(s world.Self, w int) []string {
	if mm == nil {
		return statusLines(s, w)
	}
	k := statusKey{w, s.Name, s.Level, s.Hits, s.MaxHits, s.SpellUnits, s.Experience, s.Depth, s.Unread, s.Feature, s.Away}
	if mm.statusText == nil || k != mm.status || !slices.Equal(mm.statusOf, s.Status) {
		mm.status, mm.statusOf, mm.statusText = k, slices.Clone(s.Status), statusLines(s, w)
	}
	return mm.statusText
}

// messageLines is messageLines(msgs, w, rows), wrapped once for the same newest messages:
// a message takes a line at least, so only the newest rows of them can show.
func (mm *underMemo) messageLines(msgs []string, w, rows int) []panelLine {
	if mm == nil {
		return messageLines(msgs, w, rows)
	}
	newest := msgs[max(0, len(msgs)-rows):]
	if mm.msgLines == nil || mm.msgW != w || mm.msgRows != rows || !slices.Equal(mm.msgs, newest) {
		mm.msgW, mm.msgRows = w, rows
		mm.msgs = append(mm.msgs[:0], newest...)
		mm.msgLines = appendMessageLines(mm.msgLines[:0], newest, w, rows) // read only until the next change
	}
	return mm.msgLines
}

// underLines are the lines under the view: who is watching, the spells working, the
// knights on the knight's own square and the others in sight (the who-list has the rest),
// wrapped to w. When the names would take more than most lines, the last knights in
// sight are counted instead. With a memo, the same text at the same size is wrapped once
// (the lines are shared, as underMemo says).
func underLines(v world.View, w, most int, memo *underMemo) []string {
	return underLinesOf(v, v.InSight(), w, most, memo)
}

// underLinesOf is underLines with the knights in sight, v.InSight(), given.
func underLinesOf(v world.View, sight []world.Other, w, most int, memo *underMemo) []string {
	var here, others []string
	if memo != nil { // the names go into slices kept from frame to frame
		here, others = memo.hereNow[:0], memo.othersNow[:0]
		defer func() { memo.hereNow, memo.othersNow = here[:0], others[:0] }()
	}
	for _, o := range sight {
		if o.Pos == v.Self.Pos {
			here = append(here, o.Name)
		} else {
			others = append(others, o.Name)
		}
	}
	// The text naming the first shown of others, built in one buffer: the search below
	// tries several counts a frame.
	var buf []byte
	if memo != nil {
		buf = memo.text[:0]
		defer func() { memo.text = buf[:0] }()
	}
	prefix := -1 // the length of what comes before the knights in sight, once built
	text := func(shown int) []byte {
		if prefix < 0 {
			buf = appendNamed(buf, "Watched by ", v.Watchers)
			buf = appendNamed(buf, "Spells: ", v.Self.Effects)
			buf = appendNamed(buf, "With you: ", here)
			prefix = len(buf)
		}
		b := buf[:prefix]
		switch {
		case shown > 0:
			b = appendList(append(b, "In sight: "...), others[:shown])
			if shown < len(others) {
				b = append(b, " and "...)
				b = strconv.AppendInt(b, int64(len(others)-shown), 10)
				b = append(b, " more (w lists everyone)"...)
			}
			b = append(b, ". "...)
		case len(others) > 0:
			b = append(b, "In sight: "...)
			b = append(b, english.Count(len(others), "knight", "knights")...)
			b = append(b, " (w lists everyone). "...)
		}
		for len(b) > 0 && b[len(b)-1] == ' ' {
			b = b[:len(b)-1]
		}
		buf = b
		return b
	}
	if memo != nil && memo.w == w && memo.most == most && slices.Equal(memo.here, here) && slices.Equal(memo.others, others) &&
		slices.Equal(memo.watchers, v.Watchers) && slices.Equal(memo.effects, v.Self.Effects) {
		return memo.lines
	}
	if memo == nil {
		shown := underWrap(text, others, w, most, 0)
		return wrap(string(text(shown)), w)
	}
	shown := underWrap(text, others, w, most, memo.shown)
	// The lines go in the memo's own slice: a crowd walking by changes them on most
	// frames, and they are read only until the next.
	lines := wrapInto(memo.lineBuf[:0], string(text(shown)), w)
	memo.lineBuf = lines
	memo.w, memo.most, memo.lines, memo.shown = w, most, lines, shown
	memo.here, memo.others = append(memo.here[:0], here...), append(memo.others[:0], others...)
	memo.watchers, memo.effects = append(memo.watchers[:0], v.Watchers...), append(memo.effects[:0], v.Self.Effects...)
	return lines
}

// appendNamed appends "label a, b. " for names, and nothing for none.
func appendNamed(b []byte, label string, names []string) []byte {
	if len(names) == 0 {
		return b
	}
	return append(appendList(append(b, label...), names), ". "...)
}

// appendList appends names joined by ", ".
func appendList(b []byte, names []string) []byte {
	for i, name := range names {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, name...)
	}
	return b
}

// underWrap is how many of the knights in sight but those on the knight's own square
// (others) the lines under the view name: all when text(len(others)), the text naming
// them, wraps to w in most lines; otherwise the most k for which text(k) does, and 0
// when none does (text(0) counts them). A crowd in sight changes with every step
// through it, so this runs on many frames: no text is wrapped past most+1 lines, only as
// many names are tried as could fit in most lines at all, the number named last time
// (hint) is tried first, and a text tried is only measured (fitsIn), in text's own
// buffer. Each call of text may write over the bytes the last one returned.
func underWrap(text func(shown int) []byte, others []string, w, most, hint int) int {
	n := len(others)
	if n == 0 {
		return 0
	}
	// Every line break saves at most the one space it replaces, so names wider together
	// than most×(w+1) never fit: hi is the most that might.
	hi, width := 0, 0
	for ; hi < n; hi++ {
		if width += textWidth(others[hi]) + 2; width > most*(w+1) {
			break
		}
	}
	try := func(k int) bool { return fitsIn(bytesView(text(k)), w, most) }
	if hi == n {
		if try(n) {
			return n
		}
		hi = n - 1
	}
	// The most knights in sight that can be named within most lines, found by halving
	// (from last time's number, which a crowd walking by mostly keeps); none when even
	// the counting line is too long.
	lo := 0
	if 0 < hint && hint <= hi {
		if try(hint) {
			lo = hint
			if hint == hi || !try(hint+1) {
				hi = hint
			} else {
				lo = hint + 1
			}
		} else {
			hi = hint - 1
		}
	}
	for lo < hi {
		if k := (lo + hi + 1) / 2; try(k) {
			lo = k
		} else {
			hi = k - 1
		}
	}
	return lo
}

// bytesView is b read as a string without a copy, for a measurement that keeps nothing
// of it: it is only good until b is written again.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// drawPlay lays out the dungeon screen: a header, the view around the knight, who else is
// on the level (and who is watching), the last messages and the status line.
func (m *Model) drawPlay(c *canvas) {
	v := m.shown()
	s := v.Self
	c.text(0, 0, "ORTHANC", clsTitle)
	stats := m.under.statsLine(s)
	c.text(10, 0, stats, clsText)
	if !m.opts.HideKeys && c.w-textWidth(keyHelp) > 10+textWidth(stats) {
		c.text(c.w-textWidth(keyHelp), 0, keyHelp, clsDim)
	}

	extra := screens[m.screen].ask // the question of a screen over the dungeon
	if m.screen == screenQuit && m.p.Guest {
		extra = guestQuitQuestion
	}
	if extra == "" && m.doorMode {
		extra = "Open a door: which direction?"
	}
	// Once a frame, into a slice kept from frame to frame: the painter and the lines under
	// the view both need it, and a crowd is dozens of knights.
	m.sight = v.AppendInSight(m.sight[:0])
	sight := m.sight
	l := layoutPlay(v, sight, c.w, c.h, extra, &m.under)
	m.lay = l
	mapTop, mapH := l.mapTop, l.mapH
	fightPanel := l.panelH > 0 // drawn beside the dungeon and the surface, not on the way in
	if have := m.haveView || m.screen == screenWatch; !have {
		c.text(2, 2, "Entering the dungeon...", clsText)
		fightPanel = false
	} else if v.Outside() && v.Surface != nil && v.Surface.Map != nil {
		m.drawSurface(c, v, mapTop, mapH) // the grid outside the dungeon (surface.go)
	} else if v.Outside() {
		fightPanel = false
		drawOutside(c, mapTop, mapH)
	} else {
		mapW := c.w
		if l.panelH > 0 {
			mapW -= fightPanelWidth(c.w) // keep the knight in view beside the panel
		}
		sub := m.mapCanvas.sized(mapW, mapH) // paint draws every cell
		// What the knight sees now is bright; what it remembers of the level is faint.
		lp := m.painter(v.Known, true, sight)
		lp.bright, lp.dim, lp.memo = v.Visible, true, &m.mapMemo
		lp.paint(sub, s.Pos)
		c.blit(sub, 0, mapTop)
	}
	if fightPanel {
		m.drawFight(c, mapTop, l.panelH)
	}

	cls := clsDim
	if len(v.Watchers) > 0 {
		cls = clsText
	}
	for i, line := range l.under {
		c.text(0, mapTop+mapH+i, line, cls)
	}
	for i, ml := range l.msgs {
		c.text(0, l.msgTop+i, ml.text, ml.cls)
	}
	for i, line := range l.status {
		c.text(0, c.h-len(l.status)+i, line, clsTitle)
	}
}

// withoutLines is the newest n messages that are not lines of a fight's log: the world
// writes a battle's lines to the message log too, and beside the battle panel that shows
// them they would only push out the rest.
func withoutLines(msgs, log []string, n int) []string {
	shown := make(map[string]bool, len(log))
	for _, l := range log {
		shown[l] = true
	}
	var out []string
	for i := len(msgs) - 1; i >= 0 && len(out) < n; i-- {
		if !shown[msgs[i]] {
			out = append(out, msgs[i])
		}
	}
	slices.Reverse(out)
	return out
}

// msgLines is how many rows the newest messages have above a screen's status line: more
// when the newest alone needs more.
const msgLines = 3

// messageLines are the newest messages wrapped to w, the newest bright, in rows lines:
// as many whole messages as fit, and all of the newest however long it is. Blank lines
// fill the rows above when the messages are fewer.
func messageLines(msgs []string, w, rows int) []panelLine {
	return appendMessageLines(nil, msgs, w, rows)
}

// appendMessageLines is messageLines appended to out.
func appendMessageLines(out []panelLine, msgs []string, w, rows int) []panelLine {
	start := len(out)
	// Newest first, each message's lines backwards, and the whole turned round at the end.
	n := 0 // lines so far
	for i := len(msgs) - 1; i >= 0; i-- {
		cls := clsDim
		if i == len(msgs)-1 {
			cls = clsText
		}
		at := len(out)
		wrapEach(msgs[i], w, 0, -1, func(_, text string) { out = append(out, panelLine{text, cls}) })
		if n > 0 && n+len(out)-at > rows {
			out = out[:at]
			break
		}
		n += len(out) - at
		slices.Reverse(out[at:])
	}
	for ; n < rows; n++ {
		out = append(out, panelLine{})
	}
	slices.Reverse(out[start:])
	return out
}

// statusFields are the parts of the status line, in order.
func statusFields(s world.Self) []string {
	where := fmt.Sprintf("Depth %d", s.Depth)
	if s.Depth == 0 {
		where = "Outside"
	}
	fields := []string{s.Name, fmt.Sprintf("Level %d", s.Level), fmt.Sprintf("Hits %d/%d", s.Hits, s.MaxHits),
		fmt.Sprintf("Spells %d", s.SpellUnits), fmt.Sprintf("Exp %d", s.Experience), where}
	if f := s.Feature.String(); f != "" {
		fields = append(fields, "On the "+f)
	}
	if len(s.Status) > 0 {
		fields = append(fields, english.Capital(strings.Join(s.Status, ", ")))
	}
	if s.Unread > 0 {
		fields = append(fields, fmt.Sprintf("%s (e)", english.Count(s.Unread, "letter", "letters")))
	}
	if s.Away {
		fields = append(fields, "Away")
	}
	return fields
}

// statusSep is what stands between the fields of the status line.
const statusSep = " │ "

// statusLines is the status line wrapped to w columns between its fields.
func statusLines(s world.Self, w int) []string { return packSep(statusFields(s), w, statusSep) }

func drawOutside(c *canvas, top, h int) {
	lines := []string{
		"You stand in the daylight outside the dungeon of Orthanc.",
		"",
		"Press > to climb back down, R to retire into the hall of fame,",
		"Enter to talk, or q to rest here until you return.",
	}
	centred(c, top+h/2-1, lines, clsText)
}

// painter draws the level of the current view showing the squares in set; with others
// set it also draws the knights in sight (sight, v.InSight()), the monsters in sight and
// the shadows the knight's light shows.
func (m *Model) painter(set []byte, others bool, sight []world.Other) *levelPainter {
	v := m.shown()
	// The painter and its slices are the model's, made again each frame in place.
	lp := &m.lp
	*lp = levelPainter{l: v.Level, shown: set, found: v.FoundDoors, light: v.Self.Light, shadows: lp.shadows[:0]}
	marks := m.marks[:0]
	if others {
		for _, o := range sight {
			marks = append(marks, squareMark{o.Pos, mark{initials(o.Name), clsOther}})
		}
	}
	for _, t := range v.Traps {
		marks = append(marks, squareMark{t, mark{"··", clsFeature}}) // seed 000: traps "show on the map as dots"
	}
	if others {
		for _, mo := range v.Monsters {
			marks = append(marks, squareMark{mo.Pos, mark{mo.Glyph, clsMonster}})
		}
	}
	marks = append(marks, squareMark{v.Self.Pos, mark{"()", clsSelf}}) // seed 000: "You appear as a circle."
	lp.marks = marks
	if others {
		// Seed 000: with light, monsters and treasures "appear as shadows".
		for _, sh := range v.Shadows {
			g := sh.Glyph
			if sh.Treasure {
				g = "$$"
			}
			lp.shadows = append(lp.shadows, squareMark{sh.Pos, mark{g, clsDim}})
		}
	}
	m.marks = marks[:0] // the next frame's marks reuse the array
	return lp
}

func (m *Model) drawMap(c *canvas) {
	v := m.view
	if !m.haveView || v.Outside() {
		c.text(2, 2, "You are outside the dungeon; there is no map to show. Any key returns.", clsText)
		return
	}
	c.text(0, 0, fmt.Sprintf("Map of level %d: where you have been. You are the circle. Any key returns.", v.Self.Depth), clsTitle)
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

var helpText = []string{
	"HELP: the knight's lesson",
	"",
	"You are a knight come to a dungeon full of treasure and, unfortunately,",
	"monsters too. Gather experience by fighting, by taking treasure, and now",
	"and then by finding magic.",
	"",
	"  walk          arrows, or h j k l",
	"  open a door   shift+arrow, H J K L, or d then a direction",
	"  stairs        > goes down, < goes up",
	"  leave         < on the exit (EX) of level 1",
	"  fight         f          run   r (not in rooms)   shoot   s (with arrows)",
	"  in a battle   t or Tab   the next monster to strike at   x  everyone's",
	"                statistics (looking costs no time); i drinks a potion",
	"  cast          1 2 3 4    (a spell of that level, costing that many units)",
	"  inventory     i          (wear or take off boots and rings, read manuals)",
	"  hall of fame  F          retire   R (outside; > goes back down)",
	"  outside       arrows walk the surface; on a market ($) b buys, s sells;",
	"                > goes down at the dungeon entrance (EX)",
	"  map           m          quit   q (your knight is saved where it stands)",
	"  chat          Enter or ' opens the chat line: plain text says to those",
	"                who see you, /me TEXT acts, /shout TEXT all, /w NAME TEXT",
	"                whispers, /r TEXT replies; /help lists the rest",
	"  channels      /newbie TEXT asks newcomers' questions, /ooc TEXT talks of",
	"                anything; /join NAME, /leave NAME, /channels",
	"  letters       e          your letters; /mail NAME TEXT writes to any",
	"                           knight, online or not",
	"  away          /afk [REASON] until your next key; /report NAME REASON",
	"                           tells the admins about a knight",
	"  party         P          the party; /invite NAME, /ask NAME, /accept,",
	"                /decline, /leave, /disband, /p TEXT talks to the party",
	"  messages      M          the message and chat log, to scroll back",
	"  who           w          who is in the game; a letter watches them",
	"  options       o          screen-reader mode, theme, colours, spectators,",
	"                           muted players; the title's y asks for the",
	"                           screen-reader mode (ssh -t host play --plain)",
	"",
	"Rooms hold monsters guarding treasure; stepping in starts a fight. You hit",
	"when a die of as many sides as your Dexterity rolls over 6. Death is final.",
	"Walls and doors lie between squares. Locked doors (═ ║) lead into rooms:",
	"throw yourself at one with shift+direction; Strength decides if it gives.",
	"Secret doors look like walls, but one time in six as a wall with a box (□).",
	"Hidden traps (··) show once known; \\/ is a chute and [] a pit.",
	"Other knights show as the first two letters of their names; you are ().",
	"A party fights together: members on your square share your battles, and",
	"one who falls while another stands faints, and comes to if the party wins.",
	"",
	"THE MONSTERS (seed 000: \"Eight classes of monsters reside in the dungeon\")",
	"",
}

// helpLines is the whole help: the lesson, then the monster tables.
var helpLines = append(append([]string(nil), helpText...), world.MonsterTableLines()...)

// helpPage is the help at the screen's size: its lines wrapped to the width (a line of
// the key table hangs under its description), and how many show at once.
func (m *Model) helpPage() (lines []string, page int) {
	w, h := m.frameSize()
	if m.help.lines == nil || m.help.w != w { // wrapped once for the width
		m.help.w, m.help.lines = w, helpWrapped.at(w)
	}
	return m.help.lines, max(1, h-3)
}

// helpWrapped is the help wrapped for each width some session has shown it at: the same
// for everyone, and read only, so the sessions share them. It keeps at most
// helpWidthsKept widths, and starts afresh when full (a client resizing through every
// width shuts no one else out).
var helpWrapped = wrappedHelp{byWidth: map[int][]string{}}

const helpWidthsKept = 64

type wrappedHelp struct {
	mu      sync.Mutex
	byWidth map[int][]string
}

// at is the help's lines at width w.
func (wh *wrappedHelp) at(w int) []string {
	wh.mu.Lock()
	lines, ok := wh.byWidth[w]
	wh.mu.Unlock()
	if ok {
		return lines
	}
	for _, l := range helpLines {
		lines = append(lines, wrapHang(l, w-4, hangOf(l))...)
	}
	lines = slices.Clip(lines) // an append by a reader never writes into the shared array
	wh.mu.Lock()
	if len(wh.byWidth) >= helpWidthsKept {
		wh.byWidth = map[int][]string{} // the sessions showing the old ones keep them
	}
	wh.byWidth[w] = lines
	wh.mu.Unlock()
	return lines
}

// hangOf is where the wrapped lines of a line of a table start (the help's keys, the
// console's command list): under the text after its label ("  cast          1 2 3 4  ..."
// hangs under the keys), or under its own start.
func hangOf(line string) int {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	if lead == 0 {
		return 0
	}
	if i := strings.Index(line[lead:], "  "); i >= 0 {
		rest := line[lead+i:]
		return lead + i + len(rest) - len(strings.TrimLeft(rest, " "))
	}
	return lead
}

// scrollHelp moves the help by a key and reports whether the key was a scrolling one.
func (m *Model) scrollHelp(key string) bool {
	lines, page := m.helpPage()
	if k, ok := letterScroll[key]; ok {
		key = k
	}
	return scrollKey(key, &m.helpTop, len(lines), page)
}

func (m *Model) drawHelp(c *canvas) {
	lines, page := m.helpPage()
	m.helpTop = max(0, min(m.helpTop, len(lines)-page))
	for i := 0; i < page && m.helpTop+i < len(lines); i++ {
		cls := clsText
		if m.helpTop+i == 0 {
			cls = clsTitle
		}
		c.text(2, 1+i, lines[m.helpTop+i], cls)
	}
	more := fmt.Sprintf("lines %d-%d of %d: arrows, space and b scroll; any other key returns",
		m.helpTop+1, min(m.helpTop+page, len(lines)), len(lines))
	c.text(2, c.h-1, more, clsTitle) // at most 72 columns
}

// blit copies src into c with its top-left corner at (x, y).
func (c *canvas) blit(src *canvas, x, y int) {
	if !c.wide && x >= 0 && y >= 0 && x+src.w <= c.w && y+src.h <= c.h {
		// No wide character here to split: the rows are copied as they are (src holds
		// each of its wide characters whole).
		for sy := range src.h {
			copy(c.cells[(y+sy)*c.w+x:], src.cells[sy*src.w:(sy+1)*src.w])
		}
		c.wide = src.wide
		return
	}
	for sy := range src.h {
		for sx := range src.w {
			if cl := src.cells[sy*src.w+sx]; cl.r() != wideRest { // a wide character brings its second half
				c.set(x+sx, y+sy, cl.r(), cl.cls())
			}
		}
	}
}

// fightPanelWidth is the width of the encounter panel on a screen w columns wide.
func fightPanelWidth(w int) int { return min(46, w/2) }

// drawFight draws the battle panel over the right side of the view: every monster of the
// battle by letter with its hits (> marks this knight's target), the heroes with theirs,
// the round and whose move it is, the log (newest at the bottom) and the keys. Once the
// battle is over it shows that battle's log until the knight walks on. The combatants
// come first; the log shows the newest entries that fit whole.
func (m *Model) drawFight(c *canvas, top, h int) {
	v := m.shown()
	w := fightPanelWidth(c.w)
	x := c.w - w
	inner := w - 4
	rows := h - 2
	var lines, foot []panelLine
	var log []string
	title := " FIGHT "
	if f := v.Fight; f != nil {
		title = fmt.Sprintf(" FIGHT, ROUND %d ", max(1, f.Round))
		if f.Surface {
			title = fmt.Sprintf(" BATTLE, ROUND %d ", max(1, f.Round))
		}
		cls := clsDim
		if f.YourMove {
			cls = clsTitle
		}
		for _, l := range wrap(moveLine(f, m.tick()), inner) {
			foot = append(foot, panelLine{l, cls})
		}
		// The combatants take what they need, leaving the log two lines under a rule if
		// they can (sharing lines if they must), else none. The note that there is no
		// running from a room shows only when every combatant has a line of its own with it.
		keys := battleKeys(v)
		note := keys[len(keys)-1] == noRunNote
		keyLines := func(ks []string) []panelLine {
			var out []panelLine
			for _, k := range pack(ks, inner) {
				out = append(out, panelLine{k, clsTitle})
			}
			return out
		}
		form := formCut
		if note {
			with := keyLines(keys)
			if lines, form = combatantLines(v, inner, rows-len(foot)-len(with)-3); form == formFull {
				foot = append(foot, with...)
			}
			keys = keys[:len(keys)-1]
		}
		if form != formFull {
			foot = append(foot, keyLines(keys)...)
			if lines, form = combatantLines(v, inner, rows-len(foot)-3); form == formCut {
				lines, _ = combatantLines(v, inner, rows-len(foot))
			}
		}
		if len(lines) < rows-len(foot)-1 {
			lines = append(lines, panelLine{strings.Repeat("╌", inner), clsWall})
		}
		log = f.Log
	} else {
		title = " LAST FIGHT "
		log = v.LastFight
		foot = []panelLine{{"Walk on to close this.", clsTitle}}
	}
	for _, l := range logLines(log, inner, rows-len(lines)-len(foot)) {
		lines = append(lines, panelLine{l, clsText})
	}
	for len(lines) < rows-len(foot) {
		lines = append(lines, panelLine{})
	}
	lines = append(lines, foot...)
	box(c, x, top, w, h, title)
	for i, l := range lines {
		if i >= rows {
			break
		}
		c.text(x+2, top+1+i, l.text, l.cls)
	}
}

// wrap breaks s into lines of at most w columns at spaces, so that every word stays whole
// on one line: the one helper every screen wraps its texts with. Widths are the
// terminal's (a wide character takes two columns); only a word longer than a whole line
// is broken. Spaces within a line are kept (tables line up), those at a break are
// dropped.
func wrap(s string, w int) []string { return wrapHang(s, w, 0) }

// wrapHang is wrap with every line after the first indented by hang columns, for a text
// that hangs from a label ("c  Cure   walk   Heals wounds..."). A text that is only
// spaces is one line.
func wrapHang(s string, w, hang int) []string {
	lines, _ := wrapUpTo(s, w, hang, -1)
	return lines
}

// wrapUpTo is wrapHang that stops once the text takes more than limit lines (no limit
// when it is negative), and reports whether it took at most limit.
func wrapUpTo(s string, w, hang, limit int) ([]string, bool) {
	var out []string
	ok := wrapEach(s, w, hang, limit, func(indent, text string) { out = append(out, indent+text) })
	return out, ok
}

// wrapInto is wrap(s, w) appended to lines.
func wrapInto(lines []string, s string, w int) []string {
	wrapEach(s, w, 0, -1, func(_, text string) { lines = append(lines, text) })
	return lines
}

// fitsIn reports whether s wraps to w in at most limit lines, as wrapUpTo would, without
// making the lines.
func fitsIn(s string, w, limit int) bool {
	return wrapEach(s, w, 0, limit, func(string, string) {})
}

// wrapEach wraps s as wrapUpTo does, handing each line to line as its indent and its text.
func wrapEach(s string, w, hang, limit int, line func(indent, text string)) bool {
	w = max(w, 1)
	hang = max(0, min(hang, w-1))
	lines := 0
	indent := ""
	for {
		if limit >= 0 && lines == limit {
			return false
		}
		room := w - len(indent)
		brk, width, lastSpace, word := -1, 0, -1, false
		for i, r := range s {
			cw := cellWidth(r)
			if width+cw > room {
				brk = i
				break
			}
			if r == ' ' && word {
				lastSpace = i
			}
			word = word || r != ' '
			width += cw
		}
		switch {
		case brk < 0: // the rest fits
			line(indent, s)
			return true
		case s[brk] == ' ': // the first rune that does not fit is a space: break there
		case lastSpace > 0:
			brk = lastSpace
		case brk == 0: // not even one character fits (a wide one in one column): take it
			_, n := utf8.DecodeRuneInString(s)
			brk = n
		}
		line(indent, strings.TrimRight(s[:brk], " "))
		lines++
		s = strings.TrimLeft(s[brk:], " ")
		if s == "" {
			return true
		}
		indent = strings.Repeat(" ", hang)
	}
}

// paragraph writes s wrapped to w columns from (x, y) and returns how many lines it took.
func (c *canvas) paragraph(x, y, w int, s string, cls class) int {
	lines := wrap(s, w)
	for i, l := range lines {
		c.text(x, y+i, l, cls)
	}
	return len(lines)
}

// scrollKey moves top, the first of n lines shown page at a time, by a key that scrolls
// a list (arrows, PgUp and PgDn, space, Home and End), and reports whether the key was
// one. Screens whose letters are free add their own (j, k, b, g, G).
func scrollKey(key string, top *int, n, page int) bool {
	page = max(1, page)
	switch key {
	case "up":
		*top--
	case "down":
		*top++
	case "pgup":
		*top -= page
	case "pgdown", "space", " ":
		*top += page
	case "home":
		*top = 0
	case "end":
		*top = n
	default:
		return false
	}
	*top = max(0, min(*top, n-page))
	return true
}

// letterScroll are the letters that scroll a screen with no letters of its own (the help,
// the message log), as the keys scrollKey knows.
var letterScroll = map[string]string{"k": "up", "j": "down", "b": "pgup", "g": "home", "G": "end"}

// invFoot is the inventory's keys.
const invFoot = "A letter wears, takes off, reads or drinks that item; a capital drops it; other keys return."

// invPage is the inventory laid out at the screen's size.
type invPage struct {
	lines []string // the things, a long one hanging under its start
	msg   []string // the newest message
	keys  []string
	page  int // lines of the list shown at once
}

// inventoryPage lays out the inventory at the screen's size: the list from row 5, then
// the newest message and the keys at the bottom; a list longer than the room scrolls,
// with a line under it saying which part is shown.
func (m *Model) inventoryPage() invPage {
	w, h := m.frameSize()
	var p invPage
	for i, it := range m.view.Self.Items {
		letter := "   " // no letter is left for it: screen-reader mode's use reaches it by name
		if i < 26 {
			letter = fmt.Sprintf("%c  ", 'a'+i)
		}
		line := letter + it.Name()
		switch info := it.Info(); {
		case info.Wearable && it.Worn:
			line += "  (worn; press to take off)"
		case info.Wearable:
			line += "  (press to wear)"
		case info.Readable:
			line += "  (press to read)"
		}
		p.lines = append(p.lines, wrapHang(line, w-6, 3)...)
	}
	if msgs := m.view.Messages; len(msgs) > 0 {
		p.msg = wrap(msgs[len(msgs)-1], w-4)
	}
	p.keys = wrap(invFoot, w-4)
	p.page = h - 1 - 5 - len(p.msg) - len(p.keys) // a blank row above the foot
	if len(p.lines) > p.page {
		p.keys = wrap(invFoot+" Up and down scroll the list.", w-4)
		p.page = h - 1 - 5 - len(p.msg) - len(p.keys) - 1 // and the line saying what is shown
	}
	p.page = max(1, p.page)
	return p
}

func (m *Model) drawInventory(c *canvas) {
	s := m.view.Self
	c.text(2, 1, "INVENTORY", clsTitle)
	c.text(2, 3, fmt.Sprintf("Gold %d   Treasure experience %d", s.Gold, s.TreasureExperience), clsText)
	p := m.inventoryPage()
	m.invTop = max(0, min(m.invTop, len(p.lines)-p.page))
	for i := 0; i < p.page && m.invTop+i < len(p.lines); i++ {
		c.text(4, 5+i, p.lines[m.invTop+i], clsText)
	}
	if len(p.lines) > p.page {
		c.text(4, 5+p.page, fmt.Sprintf("(lines %d-%d of %d)", m.invTop+1, m.invTop+p.page, len(p.lines)), clsDim)
	}
	y := c.h - 1 - len(p.keys) - len(p.msg)
	for _, l := range p.msg {
		c.text(2, y, l, clsDim)
		y++
	}
	for _, l := range p.keys {
		c.text(2, y, l, clsTitle)
		y++
	}
}

func (m *Model) drawFame(c *canvas) {
	c.text(2, 1, "HALL OF FAME", clsTitle)
	c.text(2, 2, "The knights who retired with honour near the seat of the king.", clsText)
	var lines []string
	if m.p.Fame != nil {
		lines = m.p.Fame()
	}
	if len(lines) == 0 {
		lines = []string{"No knight has retired yet."}
	}
	for i, l := range lines {
		if 4+i >= c.h-2 {
			break
		}
		c.text(4, 4+i, l, clsText)
	}
	c.text(2, c.h-2, "Any key returns.", clsTitle)
}

// drawSpells draws the menu of one level's spells over the dungeon view, each spell's help
// wrapped under its start.
func (m *Model) drawSpells(c *canvas) {
	m.drawPlay(c)
	v := m.view
	fighting := v.Fight != nil
	spells := world.SpellsOfLevel(m.spellLvl)
	w := min(c.w-2, 120)
	x, y := (c.w-w)/2, 2
	var lines []panelLine
	for _, l := range wrap(fmt.Sprintf("LEVEL %d SPELLS: %s each; you have %d. Cast in: fight, walk or any.", m.spellLvl, english.Count(m.spellLvl, "unit"), v.Self.SpellUnits), w-2) {
		lines = append(lines, panelLine{l, clsTitle})
	}
	lines = append(lines, panelLine{})
	for i, sp := range spells {
		info := sp.Info()
		when := "walk"
		switch {
		case info.Anytime:
			when = "any"
		case info.Combat:
			when = "fight"
		}
		cls := clsText
		if !sp.CastableIn(fighting) || v.Self.SpellUnits < m.spellLvl {
			cls = clsDim
		}
		head := fmt.Sprintf("%c  %-17s %-6s ", 'a'+i, info.Name, when)
		for _, l := range wrapHang(head+info.Help, w-2, textWidth(head)) {
			lines = append(lines, panelLine{l, cls})
		}
	}
	lines = append(lines, panelLine{})
	for _, l := range wrap("A letter casts that spell; any other key closes this.", w-2) {
		lines = append(lines, panelLine{l, clsTitle})
	}
	// The menu's rows are cleared across the screen when it is nearly as wide, so no
	// word of what is under it shows at its sides.
	x0, x1 := x, x+w
	if w >= c.w-2 {
		x0, x1 = 0, c.w
	}
	for yy := y; yy < y+len(lines)+1; yy++ {
		for xx := x0; xx < x1; xx++ {
			c.set(xx, yy, ' ', clsText)
		}
	}
	for i, l := range lines {
		c.text(x+1, y+i, l.text, l.cls)
	}
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

// drawDungeon draws the dungeon (or surface) screen and what goes over it: the party
// list, the chat line and the console.
func (m *Model) drawDungeon(c *canvas) {
	m.drawPlay(c)
	m.drawPartyList(c)
	m.drawChat(c)
	m.drawConsole(c)
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

// helpKey scrolls the help; any other key returns to the game.
func (m *Model) helpKey(k tea.KeyPressMsg) tea.Cmd {
	if !m.scrollHelp(k.String()) {
		m.screen = screenPlay
	}
	return nil
}

// spellsKey is a key on a spell menu: a spell's letter casts it (ESP asks for a direction
// first); any key returns to the game.
func (m *Model) spellsKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
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
	return nil
}

// espKey is the direction ESP looks in.
func (m *Model) espKey(k tea.KeyPressMsg) tea.Cmd {
	m.screen = screenPlay
	if mv, ok := moveKeys[k.String()]; ok {
		m.do(world.Cast{Spell: world.SpellESP, Dir: mv.dir})
	}
	return nil
}

// inventoryKey is a key on the inventory: the arrows scroll a long list, a letter uses
// that item, a capital drops it; any other key returns to the game.
func (m *Model) inventoryKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if p := m.inventoryPage(); len(p.lines) > p.page && scrollKey(s, &m.invTop, len(p.lines), p.page) {
		return nil
	}
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
	return nil
}
