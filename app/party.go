package app

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Parties (seed 002's party of heroes, DESIGN §9): a knight invites another (or asks to
// join one), the other accepts or declines; the party meets its battles together. The
// party list is drawn over the dungeon or surface view, P opens the party screen, and
// the chat line's slash commands and screen-reader mode's words do the rest.

// partyWhere says where a member of the party is: "level 3", "surface", "fighting".
func partyWhere(pm world.PartyMember) string {
	if pm.Fighting {
		return "fighting"
	}
	if pm.Depth == 0 {
		return "surface"
	}
	return fmt.Sprintf("level %d", pm.Depth)
}

// partyWhereLong says it in full: "fighting on level 3", "on the surface".
func partyWhereLong(pm world.PartyMember) string {
	at := "on the surface"
	if pm.Depth > 0 {
		at = fmt.Sprintf("on level %d", pm.Depth)
	}
	if pm.Fighting {
		return "fighting " + at
	}
	return at
}

// pendingLines are the invitations and askings waiting for this knight's answer, as the
// screen shows them: "Sir Kay invites you: /accept or /decline". With more than one
// waiting, each names its knight.
func pendingLines(v world.View) []string {
	several := len(v.Invites)+len(v.Asks) > 1
	answer := func(name string) string {
		if several {
			return fmt.Sprintf("/accept %s or /decline %s", name, name)
		}
		return "/accept or /decline"
	}
	var out []string
	for _, n := range v.Invites {
		out = append(out, fmt.Sprintf("%s invites you: %s", n, answer(n)))
	}
	for _, n := range v.Asks {
		out = append(out, fmt.Sprintf("%s asks to join: %s", n, answer(n)))
	}
	return out
}

// partyRow is one member in the compact list, w columns wide: "* Sir Kay   12/15 level 3",
// on two lines when the name leaves no room on one.
func partyRow(pm world.PartyMember, w int) []string {
	mark := "  "
	if pm.Leader {
		mark = "* "
	}
	return rightAlign(mark+pm.Name, partyRight(pm), w)
}

// partyRight is the end of a member's row: its hits and where it is, in columns.
func partyRight(pm world.PartyMember) string {
	return fmt.Sprintf("%7s %-8s", hitsText(pm.Hits, pm.MaxHits), partyWhere(pm))
}

// wholePartyInBattle reports whether every member of the party is in the knight's battle.
func wholePartyInBattle(v world.View) bool {
	if v.Fight == nil {
		return false
	}
	for _, pm := range v.Party {
		if !slices.ContainsFunc(v.Fight.Knights, func(k world.FightKnight) bool { return k.Name == pm.Name }) {
			return false
		}
	}
	return true
}

// partyBoxRows is about how many rows the party list takes (its box included), so a
// screen with a column of its own to fill can leave that much free at the bottom.
func partyBoxRows(v world.View) int {
	if len(v.Party) == 0 && len(v.Invites) == 0 && len(v.Asks) == 0 {
		return 0
	}
	return len(v.Party) + 2*len(pendingLines(v)) + 2
}

// drawPartyList draws the compact party list over the dungeon or surface view when the
// knight is in a party or has invitations to answer: against an edge of the part of the
// view the battle panel leaves free, where it hides the least of what is drawn there
// (the right column when there is no panel, under the view beside one, when those are
// as good), and never over the knight.
func (m *Model) drawPartyList(c *canvas) {
	v := m.shown()
	if !m.haveView || (len(v.Party) == 0 && len(v.Invites) == 0 && len(v.Asks) == 0) {
		return
	}
	if len(v.Invites) == 0 && len(v.Asks) == 0 && wholePartyInBattle(v) {
		return // the battle panel lists them all, with their hits
	}
	mapTop, mapH := m.dun.lay.mapTop, m.dun.lay.mapH // as drawPlay laid out the screen
	panel := v.Fight != nil || len(v.LastFight) > 0
	freeW := c.w
	if panel {
		freeW -= fightPanelWidth(c.w)
	}
	// The members' rows take the width they need when the view leaves it; the requests
	// wrap within the panel's width.
	inner := 0
	for _, pm := range v.Party {
		inner = max(inner, textWidth(pm.Name)+2+1+textWidth(partyRight(pm)))
	}
	pending := pendingLines(v)
	for _, p := range pending {
		inner = max(inner, min(textWidth(p), fightPanelWidth(c.w)-4))
	}
	inner = max(1, min(inner, freeW-4))
	var lines []panelLine
	for _, pm := range v.Party {
		cls := clsText
		switch {
		case pm.Name == v.Self.Name:
			cls = clsSelf
		case pm.Hits <= 0:
			cls = clsDim
		}
		for _, l := range partyRow(pm, inner) {
			lines = append(lines, panelLine{l, cls})
		}
	}
	for _, p := range pending {
		for _, l := range wrap(p, inner) {
			lines = append(lines, panelLine{l, clsTitle})
		}
	}
	if len(lines) > mapH-2 {
		// A view too short for the list: what fits, and where the rest is.
		more := wrap("more: P shows the party", inner)
		lines = lines[:max(0, mapH-2-len(more))]
		for _, l := range more {
			lines = append(lines, panelLine{l, clsDim})
		}
	}
	w, h := inner+4, min(len(lines)+2, mapH)
	prefer := [2]int{freeW - w, mapTop + mapH - h} // under the view, in the right column
	if panel {
		prefer = [2]int{0, mapTop + mapH - h} // under the view, beside the panel
	}
	x, y := placeBox(c, 0, mapTop, freeW, mapH, w, h, prefer)
	title := " PARTY  P "
	if len(v.Party) == 0 {
		title = " PARTY "
	}
	box(c, x, y, w, h, title)
	for i, l := range lines {
		if i >= h-2 {
			break
		}
		c.text(x+2, y+1+i, l.text, l.cls)
	}
}

// placeBox finds where a w×h box goes in the region of c at (rx, ry), rw×rh: the spot
// against one of the region's edges nearest prefer where it hides nothing drawn; else
// prefer itself; else where it hides least. Never over the knight (clsSelf). It
// allocates nothing: a frame is drawn often.
func placeBox(c *canvas, rx, ry, rw, rh, w, h int, prefer [2]int) (int, int) {
	bestX, bestY, best := prefer[0], prefer[1], -1
	try := func(x, y int) {
		if x < rx || y < ry || x+w > rx+rw || y+h > ry+rh || x+w > c.w || y+h > c.h {
			return
		}
		cost := max(x-prefer[0], prefer[0]-x) + max(y-prefer[1], prefer[1]-y)
		for yy := y; yy < y+h; yy++ {
			for _, cl := range c.cells[yy*c.w+x : yy*c.w+x+w] {
				if cl.cls() == clsSelf {
					return
				}
				if cl.r() != ' ' {
					cost += 10000
				}
			}
			if best >= 0 && cost >= best {
				return
			}
		}
		bestX, bestY, best = x, y, cost
	}
	try(prefer[0], prefer[1])
	if best >= 10000 {
		return bestX, bestY // nowhere is free: the preferred spot, where the player expects it
	}
	for x := rx; x+w <= rx+rw; x++ {
		try(x, ry)
		try(x, ry+rh-h)
	}
	for y := ry; y+h <= ry+rh; y++ {
		try(rx, y)
		try(rx+rw-w, y)
	}
	return bestX, bestY
}

// box clears a w×h rectangle of c at (x, y) and frames it, with a title in the top edge.
func box(c *canvas, x, y, w, h int, title string) {
	for yy := y; yy < y+h; yy++ {
		for xx := x; xx < x+w; xx++ {
			c.set(xx, yy, ' ', clsText)
		}
	}
	for xx := x + 1; xx < x+w-1; xx++ {
		c.set(xx, y, '─', clsWall)
		c.set(xx, y+h-1, '─', clsWall)
	}
	for yy := y + 1; yy < y+h-1; yy++ {
		c.set(x, yy, '│', clsWall)
		c.set(x+w-1, yy, '│', clsWall)
	}
	c.set(x, y, '┌', clsWall)
	c.set(x+w-1, y, '┐', clsWall)
	c.set(x, y+h-1, '└', clsWall)
	c.set(x+w-1, y+h-1, '┘', clsWall)
	if textWidth(title) <= w-4 {
		c.text(x+2, y, title, clsTitle)
	}
}

// partyCommands are the party's chat-line commands, as the party screen and the help
// list them.
var partyCommands = [][2]string{
	{"/invite NAME", "invite a knight into your party; you lead a new one"},
	{"/ask NAME", "ask to join a knight's party"},
	{"/accept [NAME]", "accept an invitation, or let in a knight who asked"},
	{"/decline [NAME]", "decline an invitation, or turn away a knight who asked"},
	{"/leave", "leave your party"},
	{"/disband", "end the party (its leader only)"},
	{"/p TEXT", "talk to your party"},
}

// drawPartyScreen draws the party screen (P): the members, what waits for an answer, the
// commands and the keys.
func (m *Model) drawPartyScreen(c *canvas) {
	v := m.view
	c.text(2, 0, "YOUR PARTY", clsTitle)
	body := partyBody(v, c.w-4)
	keys := []string{"i invite", "a ask", "p talk"}
	if len(v.Invites)+len(v.Asks) > 0 {
		keys = append(keys, "y accept", "n decline")
	}
	if len(v.Party) > 0 {
		keys = append(keys, "l leave", "D disband")
	}
	keys = append(keys, "Esc returns")
	keyLines := pack(keys, c.w-4)
	msgs := messageLines(v.Log, c.w-4, 2)
	msgTop := c.h - len(keyLines) - len(msgs)
	top := 2
	if page := c.h - len(keyLines) - top; len(body) > page {
		// Too long for the screen (a phone's): the list scrolls over the messages, and
		// the keys say so.
		keyLines = pack(append(keys, pageKeysHint+", up/down: more"), c.w-4)
		page = c.h - len(keyLines) - top
		m.bt.party.drawLines(c, 2, top, body, page)
		for i, l := range keyLines {
			c.text(2, c.h-len(keyLines)+i, l, clsTitle)
		}
		return
	}
	for i, l := range body {
		c.text(2, top+i, l.text, l.cls)
	}
	y := top + len(body)
	// The commands when they all fit above the messages, with a blank row between.
	var cmds []string
	for _, pc := range partyCommands {
		cmds = append(cmds, wrapHang(fmt.Sprintf("%-16s %s", pc[0], pc[1]), c.w-6, 17)...)
	}
	if y+1+len(cmds) < msgTop {
		c.text(2, y, "On the chat line (Enter):", clsText)
		y++
		for _, l := range cmds {
			c.text(4, y, l, clsText)
			y++
		}
	}
	if y <= msgTop { // the messages where the list leaves room for them
		for i, l := range msgs {
			c.text(2, msgTop+i, l.text, clsDim)
		}
	}
	for i, l := range keyLines {
		c.text(2, c.h-len(keyLines)+i, l, clsTitle)
	}
}

// partyBody is the party screen's list, w columns wide: the members in a table, or a
// word on parties, and what waits for an answer.
func partyBody(v world.View, w int) []panelLine {
	var body []panelLine
	if len(v.Party) == 0 {
		for _, l := range wrap("You are not in a party. Invite a knight, or ask to join one: a party meets its battles together.", w) {
			body = append(body, panelLine{l, clsText})
		}
		body = append(body, panelLine{})
	} else {
		cols := []column{{short: "", long: "", left: true}, {short: "Knight", long: "Knight", left: true, wraps: true},
			{short: "Level", long: "Level"}, {short: "Hits", long: "Hits"}, {short: "Where", long: "Where", left: true, wraps: true}}
		for _, pm := range v.Party {
			mark, name := "", pm.Name
			if pm.Leader {
				mark = "*"
			}
			if pm.Name == v.Self.Name {
				name += " (you)"
			}
			for i, s := range []string{mark, name, fmt.Sprint(pm.Level), hitsText(pm.Hits, pm.MaxHits), partyWhereLong(pm)} {
				cols[i].cells = append(cols[i].cells, s)
			}
		}
		for _, l := range table(cols, w) {
			cls := clsText
			switch {
			case l.row < 0:
				cls = clsTitle
			case v.Party[l.row].Name == v.Self.Name:
				cls = clsSelf
			}
			body = append(body, panelLine{l.text, cls})
		}
		body = append(body, panelLine{"* leads the party.", clsDim}, panelLine{})
	}
	for _, p := range pendingLines(v) {
		for _, l := range wrap(p, w) {
			body = append(body, panelLine{l, clsTitle})
		}
	}
	if len(v.Invites)+len(v.Asks) > 0 {
		body = append(body, panelLine{})
	}
	return body
}

// firstPending is the knight whose invitation or asking waits longest, or "".
func firstPending(v world.View) string {
	if len(v.Invites) > 0 {
		return v.Invites[0]
	}
	if len(v.Asks) > 0 {
		return v.Asks[0]
	}
	return ""
}

// partyKey is a key on the party screen.
func (m *Model) partyKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	v := m.view
	switch s {
	case "i":
		return m.openChatWith("/invite ")
	case "a":
		return m.openChatWith("/ask ")
	case "p":
		return m.openChatWith("/p ")
	case "enter", "'":
		return m.openChatWith("")
	case "y":
		if n := firstPending(v); n != "" {
			m.partyAction(world.PartyAction{Kind: world.PartyAccept, Name: n})
		}
		return nil
	case "n":
		if n := firstPending(v); n != "" {
			m.partyAction(world.PartyAction{Kind: world.PartyDecline, Name: n})
		}
		return nil
	case "l":
		if len(v.Party) > 0 {
			m.partyAction(world.PartyAction{Kind: world.PartyLeave})
		}
		return nil
	case "D":
		if len(v.Party) > 0 {
			m.partyAction(world.PartyAction{Kind: world.PartyDisband})
		}
		return nil
	}
	if m.bt.party.scrollBy(s, unmeasured, m.bt.party.shown) { // drawPartyScreen stops it at the end
		return nil
	}
	m.screen = screenPlay
	return nil
}

// partyAction sends a party action to the world; it returns a note when it could not.
func (m *Model) partyAction(a world.PartyAction) string {
	to := m.sender()
	if to == nil {
		return "You are not in the game."
	}
	m.pl.asked = true
	if err := to.Party(m.ctx, a); err != nil {
		return "The world is not answering; try again."
	}
	return ""
}

// --- the party in words -------------------------------------------------------------

// partySentences say who is in the knight's party and what waits for its answer.
func partySentences(v world.View) []string {
	var out []string
	if len(v.Party) == 0 {
		out = append(out, "You are not in a party. Type invite and a name to invite a knight, or ask and a name to ask to join one.")
	} else {
		var ms []string
		for _, pm := range v.Party {
			var tags []string
			if pm.Leader {
				tags = append(tags, "leader")
			}
			if pm.Name == v.Self.Name {
				tags = append(tags, "you")
			}
			name := pm.Name
			if len(tags) > 0 {
				name += " (" + strings.Join(tags, ", ") + ")"
			}
			ms = append(ms, fmt.Sprintf("%s, level %d, %d of %d hits, %s", name, pm.Level, pm.Hits, pm.MaxHits, partyWhereLong(pm)))
		}
		out = append(out, fmt.Sprintf("Your party, %d: %s.", len(v.Party), strings.Join(ms, "; ")))
	}
	for _, n := range v.Invites {
		out = append(out, fmt.Sprintf("%s invites you into their party: type accept %s, or decline %s.", n, n, n))
	}
	for _, n := range v.Asks {
		out = append(out, fmt.Sprintf("%s asks to join your party: type accept %s, or decline %s.", n, n, n))
	}
	if len(v.Party) > 0 {
		out = append(out, "party and some text talks to your party; leave party leaves it; disband ends it, if you lead it.")
	}
	return out
}

// partyName is the knight's name after a party command: everything after the command,
// trimmed, without quotes around it.
func partyName(rest string) string {
	rest = strings.TrimSpace(rest)
	if len(rest) >= 2 && rest[0] == '"' && rest[len(rest)-1] == '"' {
		rest = strings.TrimSpace(rest[1 : len(rest)-1])
	}
	return world.CleanText(rest, 2*world.MaxNameLen)
}
