package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The dungeon (or surface) screen: how it shares out its rows, the lines under the view,
// the messages and the status line, and the level painted around the knight.

// dungeonScreen is what the dungeon screen keeps: how the frame drawn last shared out its
// rows and what it drew (kept from frame to frame, so that a frame allocates nothing
// new), and its one-key questions: d, then a direction, and the spell menu open.
type dungeonScreen struct {
	doorMode bool       // d was the last key: the next direction opens a door
	spellLvl int        // the spell level whose menu is open
	lay      playLayout // how the dungeon screen last drawn shared out its rows
	under    underMemo  // the lines under the view last drawn, wrapped once for the same text
	// mapMemo is the level picture last drawn under the marks, and marks the dungeon
	// screen's marks, kept from frame to frame (render.go); mapCanvas the map's canvas,
	// whose cells are kept only while a frame is drawn.
	mapMemo   mapMemo
	mapCanvas canvas
	marks     []squareMark
	shadows   []squareMark  // the painter's shadows, kept from frame to frame (painter)
	sight     []world.Other // the knights in sight of the frame drawn last
	// panel is the battle panel as the frame being drawn laid it out last: the layout
	// asks for it, then the drawing, at the same size (fightPanelOnce); panels counts
	// the panels laid out (tests count them).
	panel  panelMemo
	panels int
}

// panelMemo is a battle panel laid out, at a size, for one frame.
type panelMemo struct {
	ok    bool
	w, h  int
	title string
	lines []panelLine
	shown []string
}

// shown is the view the dungeon screen draws: the watched player's while watching.
func (m *Model) shown() world.View {
	if m.screen == screenWatch {
		if m.watch.seen == nil {
			return world.View{}
		}
		return *m.watch.seen
	}
	return m.view
}

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
// question the screen asks), if any, and mark first on the status line (alert.go), if any. sight is v.InSight(). panelLog, when set, is which
// entries of the fight's log the battle panel shows at a height: the messages leave out
// those, and only those, so that a line the panel has no room for (who guards the room,
// the newest blow, on a phone) is still read under the view.
func layoutPlay(v world.View, sight []world.Other, w, h int, extra, mark string, memo *underMemo, panelLog func(h int) []string) playLayout {
	var log []string
	switch {
	case v.Fight != nil:
		log = v.Fight.Log
	case len(v.LastFight) > 0:
		log = v.LastFight
	}
	panel := log != nil || v.Fight != nil
	underW := w
	if panel {
		underW -= fightPanelWidth(w)
	}
	under, status := underLinesOf(v, sight, underW, underMax(h), memo), memo.statusLines(v.Self, mark, w)
	lay := func(shown []string, most int) playLayout {
		l := playLayout{mapTop: 1, under: under, status: status}
		switch {
		case panel || extra != "":
			var msgs []string
			if panel {
				msgs = withoutLines(v.Log, shown, msgLines)
			} else {
				msgs = v.Log.AppendLast(nil, most)
			}
			if extra != "" {
				msgs = append(msgs, extra) // a slice of its own: the log's lines stay
			}
			l.msgs = memo.messageLines(msgs, w, msgLines, most)
		default:
			l.msgs = memo.logLines(v.Log, w, msgLines, most)
		}
		if h < MinFullHeight {
			l.mapTop = 0 // a low screen (a phone in landscape) drops the header first
		}
		l.keepView(h, underW)
		l.msgTop = h - len(l.status) - len(l.msgs)
		l.mapH = max(1, l.msgTop-len(l.under)-l.mapTop)
		if panel {
			l.panelH = l.msgTop - l.mapTop
		}
		return l
	}
	l := lay(log, msgLines) // the panel shows the fight's own lines, when it has the room
	// The messages take up to twice their rows for the lines the panel leaves them (who
	// guards the room and the hint on a phone), which leaves the panel lower: until the
	// panel shows no fewer, so that no line is in neither.
	for n, tries := len(log), 0; panelLog != nil && n > 0 && tries < 4; tries++ {
		shown := panelLog(l.panelH)
		if len(shown) >= n {
			break
		}
		n, l = len(shown), lay(shown, 2*msgLines)
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
	wrapped                         string    // the text lines are wrapped from: a view of texts[turn]
	texts                           [2][]byte // the buffers wrapped is kept in, in turn
	turn                            int
	shown                           int      // how many of others the lines name
	text                            []byte   // the buffer the texts tried are built in
	lineBuf                         []string // the slice lines are kept in

	statsOf [4]int // the strength, intelligence, constitution and dexterity stats says
	stats   string

	status     statusKey
	statusOf   []string // Self.Status the status line was made with
	statusText []string

	msgW, msgRows, msgMost int
	msgs                   []string // the newest messages the lines were made from
	msgLines               []panelLine
}

// statusKey is what the status line is made from, but Self.Status.
type statusKey struct {
	w                                                int
	name                                             string
	level, hits, maxHits, spells, exp, depth, unread int
	feature                                          world.Feature
	away                                             bool
	mark                                             string
}

// statsLine is the header's "Str 12  Int 9  Con 14  Dex 11", made again only when one
// of them changes.
func (mm *underMemo) statsLine(s world.Self) string {
	if k := [4]int{s.Str, s.Int, s.Con, s.Dex}; mm.stats == "" || k != mm.statsOf {
		mm.statsOf, mm.stats = k, fmt.Sprintf("Str %d  Int %d  Con %d  Dex %d", s.Str, s.Int, s.Con, s.Dex)
	}
	return mm.stats
}

// statusLines is statusLines(s, mark, w), wrapped once for the same status.
func (mm *underMemo) statusLines(s world.Self, mark string, w int) []string {
	if mm == nil {
		return statusLines(s, mark, w)
	}
	k := statusKey{w, s.Name, s.Level, s.Hits, s.MaxHits, s.SpellUnits, s.Experience, s.Depth, s.Unread, s.Feature, s.Away, mark}
	if mm.statusText == nil || k != mm.status || !slices.Equal(mm.statusOf, s.Status) {
		mm.status, mm.statusOf, mm.statusText = k, slices.Clone(s.Status), statusLines(s, mark, w)
	}
	return mm.statusText
}

// messageLines is messageLines(msgs, w, rows), taking up to most rows for whole older
// messages, wrapped once for the same newest messages: a message takes a line at least,
// so only the newest most of them can show.
func (mm *underMemo) messageLines(msgs []string, w, rows, most int) []panelLine {
	if mm == nil {
		return appendMessageLines(nil, msgs, w, rows, most)
	}
	newest := msgs[max(0, len(msgs)-most):]
	if !mm.madeFrom(w, rows, most, len(newest), func(i int) string { return newest[i] }) {
		mm.msgs = append(mm.msgs[:0], newest...)
		mm.wrapMessages(w, rows, most)
	}
	return mm.msgLines
}

// logLines is messageLines of the log's newest messages, read in place: copied out only
// when they are not the ones the lines were made from.
func (mm *underMemo) logLines(log world.Log, w, rows, most int) []panelLine {
	if mm == nil {
		return appendMessageLines(nil, log.AppendLast(nil, most), w, rows, most)
	}
	n := min(most, log.Len())
	if !mm.madeFrom(w, rows, most, n, func(i int) string { return log.Line(log.Len() - n + i) }) {
		mm.msgs = log.AppendLast(mm.msgs[:0], most)
		mm.wrapMessages(w, rows, most)
	}
	return mm.msgLines
}

// madeFrom is whether the memo's message lines were made at this size from the n
// messages line gives.
func (mm *underMemo) madeFrom(w, rows, most, n int, line func(i int) string) bool {
	if mm.msgLines == nil || mm.msgW != w || mm.msgRows != rows || mm.msgMost != most || len(mm.msgs) != n {
		return false
	}
	for i, m := range mm.msgs {
		if m != line(i) {
			return false
		}
	}
	return true
}

// wrapMessages makes the memo's message lines from its messages, at this size.
func (mm *underMemo) wrapMessages(w, rows, most int) {
	mm.msgW, mm.msgRows, mm.msgMost = w, rows, most
	mm.msgLines = appendMessageLines(mm.msgLines[:0], mm.msgs, w, rows, most) // read only until the next change
}

// minViewRows is the fewest rows the view keeps on a small screen: the knight's square
// and one each side of it.
const minViewRows = 5

// keepView gives the view minViewRows of an h-row screen: the lines under the view (underW
// columns wide), then the older messages, then the newest message's last lines give way,
// each cut at a whole line and ending in a line that says where the rest is.
func (l *playLayout) keepView(h, underW int) {
	room := h - l.mapTop - minViewRows - len(l.status)
	if len(l.under)+len(l.msgs) <= room {
		return
	}
	if keep := room - len(l.msgs); keep < len(l.under) {
		l.under = moreLines(l.under, max(0, keep), fit(underW, underMore, underMoreShort))
	}
	if over := len(l.under) + len(l.msgs) - room; over > 0 {
		msgs := l.msgs
		for over > 0 && len(msgs) > 1 && msgs[0].cls != clsText { // the older messages first
			msgs, over = msgs[1:], over-1
		}
		if over > 0 {
			rows := max(1, len(msgs)-over)
			text := moreLines(lineTexts(msgs), rows, msgMore)
			cut := make([]panelLine, len(text))
			for i, t := range text {
				cut[i] = panelLine{t, clsText}
			}
			msgs = cut
		}
		l.msgs = msgs
	}
}

// underMore and msgMore end the lines under the view and the newest message where a
// small screen cuts them.
const (
	underMore      = "(more: w lists who is here)"
	underMoreShort = "(more: w)" // beside a phone's battle box
	msgMore        = "(more: M shows it whole)"
)

// moreLines is the first n lines, the last of them more when some are left out (none for
// n of 0).
func moreLines(lines []string, n int, more string) []string {
	if n >= len(lines) {
		return lines
	}
	if n == 0 {
		return nil
	}
	return append(slices.Clone(lines[:n-1]), more)
}

// lineTexts is the text of each line.
func lineTexts(lines []panelLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
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
	if memo != nil && memo.w == w && memo.most == most && memo.sameSight(sight, v.Self.Pos) &&
		slices.Equal(memo.watchers, v.Watchers) && slices.Equal(memo.effects, v.Self.Effects) {
		return memo.lines
	}
	var here, others []string
	if memo != nil { // the names go into the memo's own slices, kept from frame to frame
		here, others = memo.here[:0], memo.others[:0]
	}
	for _, o := range sight {
		if o.Pos == v.Self.Pos {
			here = append(here, o.Name)
		} else {
			others = append(others, o.Name)
		}
	}
	if memo != nil {
		memo.here, memo.others = here, others
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
	if memo == nil {
		shown := underWrap(text, others, w, most, 0)
		return wrap(string(text(shown)), w)
	}
	shown := underWrap(text, others, w, most, memo.shown)
	// The lines go in the memo's own slice: a crowd walking by changes them on most
	// frames, and they are read only until the next. The same text (others' order
	// changed among those counted, not named) keeps the lines it was wrapped to.
	if t := text(shown); memo.lines == nil || memo.w != w || bytesView(t) != memo.wrapped {
		// The text is kept in the memo's two buffers in turn, and its lines are views
		// of it: a crowd walking through sight names others on most frames, and a
		// string made for each text was a fifth of the bytes a server of 2000 walkers
		// allocated. A buffer is written again two texts later, when the lines of the
		// first are long done with (they are read only until the next call).
		memo.turn ^= 1
		buf := append(memo.texts[memo.turn][:0], t...)
		memo.texts[memo.turn] = buf
		memo.wrapped = bytesView(buf)
		memo.lines = wrapInto(memo.lineBuf[:0], memo.wrapped, w)
		memo.lineBuf = memo.lines
	}
	lines := memo.lines
	memo.w, memo.most, memo.shown = w, most, shown
	memo.watchers, memo.effects = append(memo.watchers[:0], v.Watchers...), append(memo.effects[:0], v.Self.Effects...)
	return lines
}

// sameSight reports whether the knights of sight are those the lines were made from, in
// the same order, on the square at and off it: read in place, not gathered into lists
// of names each frame to be compared.
func (mm *underMemo) sameSight(sight []world.Other, at world.Pos) bool {
	h, o := 0, 0
	for _, k := range sight {
		if k.Pos == at {
			if h == len(mm.here) || mm.here[h] != k.Name {
				return false
			}
			h++
		} else {
			if o == len(mm.others) || mm.others[o] != k.Name {
				return false
			}
			o++
		}
	}
	return h == len(mm.here) && o == len(mm.others)
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
	if c.h >= MinFullHeight {
		c.text(0, 0, "ORTHANC", clsTitle)
		stats := m.dun.under.statsLine(s)
		c.text(10, 0, stats, clsText)
		if help := fit(c.w-11-textWidth(stats), keyHelp, keyHelpShort); !m.opts.HideKeys && c.w-textWidth(help) > 10+textWidth(stats) {
			c.text(c.w-textWidth(help), 0, help, clsDim)
		}
	}

	extra := screens[m.screen].ask // the question of a screen over the dungeon
	if m.screen == screenQuit && m.p.Guest {
		extra = guestQuitQuestion
	}
	if extra == "" && m.dun.doorMode {
		extra = "Open a door: which direction?"
	}
	m.dun.panel = panelMemo{} // the battle panel is laid out afresh each frame
	defer func() { m.dun.panel = panelMemo{} }()
	// Once a frame, into a slice kept from frame to frame: the painter and the lines under
	// the view both need it, and a crowd is dozens of knights.
	m.dun.sight = v.AppendInSight(m.dun.sight[:0])
	sight := m.dun.sight
	l := layoutPlay(v, sight, c.w, c.h, extra, m.statusMark(), &m.dun.under, func(h int) []string {
		_, _, shown := m.fightPanelOnce(v, fightPanelWidth(c.w), h)
		return shown
	})
	m.dun.lay = l
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
		// The map's canvas is a frame's cells only while it is drawn (spareCells).
		sub := &m.dun.mapCanvas
		cells := getCells(mapW * mapH)
		sub.cells = *cells
		sub.sized(mapW, mapH) // paint draws every cell
		// What the knight sees now is bright; what it remembers of the level is faint.
		var lp levelPainter
		m.painter(&lp, v.Known, true, sight)
		lp.bright, lp.dim, lp.memo, lp.follow = v.Visible, true, &m.dun.mapMemo, true
		lp.paint(sub, s.Pos)
		c.blit(sub, 0, mapTop)
		putCells(cells)
		sub.cells = nil
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
func withoutLines(msgs world.Log, log []string, n int) []string {
	out := make([]string, 0, n)
	for i := msgs.Len() - 1; i >= 0 && len(out) < n; i-- {
		// A fight's log is a few lines: looked through, not made a set each layout.
		if m := msgs.Line(i); !slices.Contains(log, m) {
			out = append(out, m)
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
func messageLines(msgs world.Log, w, rows int) []panelLine {
	// A message takes a row at least: the newest rows of them are all that can show.
	return appendMessageLines(nil, msgs.AppendLast(nil, rows), w, rows, rows)
}

// appendMessageLines is messageLines appended to out, taking up to most rows for whole
// older messages.
func appendMessageLines(out []panelLine, msgs []string, w, rows, most int) []panelLine {
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
		if n > 0 && n+len(out)-at > most {
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
	where := "Outside"
	if s.Depth != 0 {
		where = "Depth " + strconv.Itoa(s.Depth)
	}
	itoa := strconv.Itoa // the fields are made whenever one changes: no fmt
	fields := []string{s.Name, "Level " + itoa(s.Level), "Hits " + itoa(s.Hits) + "/" + itoa(s.MaxHits),
		"Spells " + itoa(s.SpellUnits), "Exp " + itoa(s.Experience), where}
	if f := s.Feature.String(); f != "" {
		fields = append(fields, "On the "+f)
	}
	if len(s.Status) > 0 {
		fields = append(fields, english.Capital(strings.Join(s.Status, ", ")))
	}
	if s.Unread > 0 {
		fields = append(fields, english.Count(s.Unread, "letter", "letters")+" (e)")
	}
	if s.Away {
		fields = append(fields, "Away")
	}
	return fields
}

// statusSep is what stands between the fields of the status line.
const statusSep = " │ "

// statusLines is the status line wrapped to w columns between its fields, mark (an
// alert's, alert.go) first when there is one: where a phone's narrow line shows it.
func statusLines(s world.Self, mark string, w int) []string {
	fields := statusFields(s)
	if mark != "" {
		fields = append([]string{mark}, fields...)
	}
	return packSep(fields, w, statusSep)
}

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
// the shadows the knight's light shows. It sets up lp, the caller's for the frame.
func (m *Model) painter(lp *levelPainter, set []byte, others bool, sight []world.Other) {
	v := m.shown()
	// The painter's slices are the model's, made again each frame in place.
	*lp = levelPainter{l: v.Level, shown: set, found: v.FoundDoors, light: v.Self.Light, shadows: m.dun.shadows[:0]}
	marks := m.dun.marks[:0]
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
	m.dun.marks, m.dun.shadows = marks[:0], lp.shadows[:0] // the next frame's reuse the arrays
}

// drawDungeon draws the dungeon (or surface) screen and what goes over it: the party
// list, the chat line and the console.
func (m *Model) drawDungeon(c *canvas) {
	m.drawPlay(c)
	m.drawPartyList(c)
	m.drawChat(c)
	m.drawConsole(c)
}
