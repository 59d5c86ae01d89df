package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Spectating: the who-list (w) and the read-only screen of another player. The world
// delivers the watched player's views to this session's own ViewSlot as well as to the
// player's; this session draws them at its own terminal's size. A spectator's session
// (ssh -t host watch NAME) is the same screen with no knight behind it.

// whoList is the who-list screen's list: who is in the game, as the world last said, and
// a note of why the last pick could not be watched.
type whoList struct {
	entries []world.WhoEntry
	// far are the knights of the other realms (none for a server alone), listed after
	// this realm's without letters: they cannot be watched from here.
	far   []world.FarKnight
	note  string
	pager // the list, when it is longer than the screen
}

// watching is the player this session watches, if any. It is part of the Model.
type watching struct {
	w      *world.Watch
	box    *ViewSlot
	ctx    context.Context // ends when the watch does, so its waiting command returns
	cancel context.CancelFunc
	// seen is the watched player's newest view, nil until the first comes: made once a
	// watch, so that a session that watches no one keeps no second view (0.8 KB).
	seen *world.View
	only bool // a spectator's session: no knight of its own
	// replay is set for a replay's session (replay.go): its views come from it.
	replay ReplayControl
	// cast is a replay drawn into a file (Headless): no one presses its keys, so the
	// bar names none.
	cast bool
	// endTold is set once screen-reader mode has said the replay has come to its end.
	endTold bool
	// from is the screen the watch goes back to when it stops: the death screen its
	// replay was asked from, or else (zero: the title, which starts no watch) the game.
	from screen
	// sub and cells are the canvas a low screen draws the watched knight's on (drawUnder).
	sub   canvas
	cells []cell
}

// watchViewMsg is a view of the watched player, from the view slot it came through.
type watchViewMsg struct {
	box *ViewSlot
	v   world.View
}

// watchStartMsg is the world's answer to a request to watch someone.
type watchStartMsg struct {
	name string
	w    *world.Watch
	box  *ViewSlot
	err  error
}

// whoMsg is the who-list, or a note saying why there is none.
type whoMsg struct {
	who  []world.WhoEntry
	far  []world.FarKnight
	note string
}

// WatchError says in words why watching name failed, for the player (and for the server
// when `watch NAME` fails before the game starts).
func WatchError(err error, name string) string {
	name = world.CleanText(name, world.MaxNameLen+10)
	if re := (*world.RefusedError)(nil); errors.As(err, &re) {
		name = re.Name
	}
	switch {
	case errors.Is(err, world.ErrNotOnline):
		return fmt.Sprintf("No knight named %s is in the game now.", name)
	case errors.Is(err, world.ErrNoSpectators):
		return fmt.Sprintf("%s does not allow spectators.", name)
	case errors.Is(err, world.ErrAmbiguousName):
		return fmt.Sprintf("Several knights in the game are named %s.", name)
	}
	return "The world is not answering; please try again later."
}

// askWho asks the world who is in the game.
func (m *Model) askWho() tea.Cmd {
	return func() tea.Msg {
		who, err := m.p.Engine.Who(m.ctx)
		if err != nil {
			return whoMsg{note: "The world is not answering; please try again later."}
		}
		far, _ := m.p.Engine.FarWho(m.ctx) // none when the world is one server alone
		return whoMsg{who: who, far: far}
	}
}

// watchName asks the world to let this session watch the knight named name.
func (m *Model) watchName(name string) tea.Cmd {
	me := m.view.Self.Name
	if me == "" {
		me = "a visitor"
	}
	box := NewViewSlot()
	return func() tea.Msg {
		w, err := m.p.Engine.Watch(m.ctx, name, me, box)
		return watchStartMsg{name, w, box, err}
	}
}

// startWatching takes the world's answer to watchName.
func (m *Model) startWatching(msg watchStartMsg) tea.Cmd {
	if msg.err != nil {
		note := WatchError(msg.err, msg.name)
		m.chat.note, m.who.note = note, note
		m.say(note)
		return nil
	}
	if m.watch.w != nil {
		m.stopWatching("")
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.watch = watching{w: msg.w, box: msg.box, ctx: ctx, cancel: cancel}
	m.pl.watched = told{}
	m.screen = screenWatch
	m.say(fmt.Sprintf("You watch %s. What happens to them is told to you; type stop to stop watching.", msg.w.Name()))
	return m.waitWatch()
}

// waitWatch waits for the next view of the watched player.
func (m *Model) waitWatch() tea.Cmd {
	box, ctx := m.watch.box, m.watch.ctx
	if ctx == nil {
		ctx = m.ctx
	}
	return func() tea.Msg {
		v, ok := box.Next(ctx)
		if !ok {
			return nil
		}
		return watchViewMsg{box, v}
	}
}

// watchedView takes a view of the watched player.
func (m *Model) watchedView(msg watchViewMsg) tea.Cmd {
	if msg.box != m.watch.box || m.watch.box == nil {
		return nil // from a watch that has ended
	}
	v := msg.v
	if v.Ended != "" {
		if m.watch.only {
			return m.end(v.Ended)
		}
		m.watch.w = nil // the world has already let go of this watch
		m.stopWatching(v.Ended)
		return nil
	}
	var prev world.View
	had := m.watch.seen != nil
	if had {
		prev = *m.watch.seen
	} else {
		m.watch.seen = new(world.View)
	}
	*m.watch.seen = v
	if m.pl.active {
		m.narrate(prev, v, !had)
		m.tellReplayEnd()
	}
	return m.waitWatch()
}

// stopWatching ends this session's watch and goes back to its own game, with a note.
func (m *Model) stopWatching(note string) {
	if m.watch.w != nil {
		_ = m.watch.w.Stop(m.ctx) // fails only when the world is ending
	}
	if m.watch.cancel != nil {
		m.watch.cancel()
	}
	from := m.watch.from
	m.watch = watching{}
	if m.screen == screenWatch {
		m.screen = screenPlay
		if from != 0 {
			m.screen = from
		}
	}
	m.chat.note = note
	if note != "" {
		m.say(note)
	}
	if m.screen == screenDead {
		m.sayWayOn()
		return
	}
	if m.pl.active && m.haveView {
		// What was said to the player's own knight meanwhile, then where it stands.
		m.narrate(m.view, m.view, false)
		m.say(m.lookText(m.view, false)...)
	}
}

// drawUnder draws the watched knight's screen under the bar. A screen of MinFullHeight or
// more gives the bar the game's header row; a lower one has no header (its map or its
// fight panel begins on the top row), so it is drawn a row lower, one row shorter.
func (m *Model) drawUnder(c *canvas) {
	if c.h >= MinFullHeight {
		m.drawPlay(c)
		return
	}
	n := c.w * (c.h - 1)
	if cap(m.watch.cells) < n {
		m.watch.cells = make([]cell, n)
	}
	m.watch.sub.blankOn(c.w, c.h-1, m.watch.cells[:n])
	m.drawPlay(&m.watch.sub)
	c.blit(&m.watch.sub, 0, 1)
}

// watchKey handles a key while watching: the screen is read-only, so Esc, q, Backspace
// or w stop (and end a spectator's session); other keys do nothing.
func (m *Model) watchKey(k tea.KeyPressMsg) tea.Cmd {
	if m.watch.replay != nil {
		return m.replayKeyPress(k)
	}
	s := k.String()
	switch s {
	case "esc", "q", "backspace", "w":
		if m.watch.only {
			return tea.Quit
		}
		m.stopWatching("")
	}
	return nil
}

// whoKey handles a key on the who-list: the arrows, space and - scroll a long list, a
// letter watches that knight; any other key returns to the game.
func (m *Model) whoKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if lines, page := m.whoPage(); len(lines) > page && m.who.scrollBy(s, len(lines), page) {
		return nil
	}
	if i, capital := listIndex(s); i >= 0 && !capital && i < len(m.who.entries) {
		return m.pickWatch(m.who.entries[i])
	}
	m.screen = screenPlay
	return nil
}

// pickWatch starts watching a knight from the who-list, or says why not.
func (m *Model) pickWatch(e world.WhoEntry) tea.Cmd {
	switch {
	case e.ID == m.p.Fingerprint:
		m.who.note = "That is you."
	case !e.Watchable:
		m.who.note = fmt.Sprintf("%s does not allow spectators.", e.Name)
	default:
		return m.watchName(e.Name)
	}
	m.say(m.who.note)
	return nil
}

// whoPage lays out the who-list at the screen's size: a knight a line (an away reason
// wrapping under the name), those of the other realms under a heading, and how many
// rows show at once; a list longer than that scrolls, with a line saying which part
// shows.
func (m *Model) whoPage() (lines []panelLine, page int) {
	w, h := m.frameSize()
	for i, e := range m.who.entries {
		letter := ' ' // no letter is left for it: screen-reader mode's watch takes its name
		if i < listLetters {
			letter = listLetter(i)
		}
		where := fmt.Sprintf("depth %d", e.Depth)
		if e.Depth == 0 {
			where = "outside"
		}
		note := ""
		switch {
		case e.ID == m.p.Fingerprint:
			note = "(you)"
		case !e.Watchable:
			note = "(no spectators)"
		}
		row := fmt.Sprintf("%c  %-20s level %-3d %-9s %-8s %s", letter, e.Name, e.Level, where, m.idleFor(e), note)
		if e.Away {
			row += " " + awayWords(e)
		}
		for _, l := range wrapHang(strings.TrimRight(row, " "), w-6, 3) {
			lines = append(lines, panelLine{l, clsText})
		}
	}
	if len(m.who.far) > 0 {
		lines = append(lines, panelLine{}, panelLine{"In other realms:", clsTitle})
	}
	for _, k := range m.who.far {
		row := fmt.Sprintf("   %-20s level %-3d in %s", k.Name, k.Level, k.Realm)
		if k.Away {
			row += " " + awayWords(world.WhoEntry{AwayReason: k.AwayReason})
		}
		for _, l := range wrapHang(strings.TrimRight(row, " "), w-6, 3) {
			lines = append(lines, panelLine{l, clsText})
		}
	}
	page = h - 8 // rows 4 to 4 from the bottom, above the note
	if len(lines) > page {
		page-- // and the line saying which part shows
	}
	return lines, max(1, page)
}

// drawWho draws the who-list.
func (m *Model) drawWho(c *canvas) {
	c.text(2, 1, "WHO IS IN THE GAME", clsTitle)
	c.text(2, 2, fit(c.w-4, "A letter watches that knight's screen, read-only; any other key returns.",
		"A letter watches them; other keys return.", "a-z watch; others return"), clsText)
	if m.who.entries == nil && m.who.note == "" {
		c.text(4, 4, "Asking...", clsDim)
	}
	lines, page := m.whoPage()
	m.who.drawLines(c, 4, 4, lines, page)
	if len(lines) > page {
		from, to := m.who.span(len(lines), page)
		c.text(4, 4+page, fit(c.w-6, fmt.Sprintf("(lines %d-%d of %d; %s pages, arrows scroll)", from, to, len(lines), pageKeysHint),
			fmt.Sprintf("(%d-%d of %d; %s pages)", from, to, len(lines), pageKeysHint)), clsDim)
	}
	if m.who.note != "" {
		lines := wrap(m.who.note, c.w-6)
		for i, l := range lines {
			c.text(4, c.h-1-len(lines)+i, l, clsTitle)
		}
	}
}

// idleFor is how long a knight of the who-list has sent nothing, as the list shows it:
// nothing under a minute.
func (m *Model) idleFor(e world.WhoEntry) string {
	d := time.Duration(e.IdleTurns) * m.tick()
	switch {
	case d < time.Minute:
		return ""
	case d < time.Hour:
		return fmt.Sprintf("idle %dm", int(d.Minutes()))
	}
	return fmt.Sprintf("idle %dh", int(d.Hours()))
}

// awayWords says a knight of the who-list is away, and why.
func awayWords(e world.WhoEntry) string {
	if e.AwayReason != "" {
		return "(away: " + e.AwayReason + ")"
	}
	return "(away)"
}

// drawWatch draws the watched player's screen with a line saying whose it is.
func (m *Model) drawWatch(c *canvas) {
	name := ""
	switch {
	case m.watch.w != nil:
		name = m.watch.w.Name()
	case m.watch.replay != nil:
		name = m.watch.replay.Name()
	}
	if m.watch.seen == nil {
		c.paragraph(2, 2, c.w-4, fmt.Sprintf("Waiting for %s's screen...", name), clsText)
		return
	}
	m.drawUnder(c)
	if m.watch.replay != nil {
		bar := m.replayBar(c.w)
		c.text(0, 0, bar+fmt.Sprintf("%*s", max(0, c.w-textWidth(bar)), ""), clsOther)
		return
	}
	stop := "Esc stops watching"
	if m.watch.only {
		stop = "q or Esc leaves"
	}
	bar := watchBar(c.w, name, stop)
	c.text(0, 0, bar+fmt.Sprintf("%*s", max(0, c.w-textWidth(bar)), ""), clsOther)
}

// watchBar is the watching screen's top line at width w: the longest of its forms that
// fits, so that how to stop is always on it, whole, on a phone too.
func watchBar(w int, name, stop string) string {
	for _, form := range []string{" WATCHING %s, read-only. %s ", " WATCHING %s. %s ", " %s. %s "} {
		if bar := fmt.Sprintf(form, name, stop); textWidth(bar) <= w {
			return bar
		}
	}
	return " " + stop + " "
}
