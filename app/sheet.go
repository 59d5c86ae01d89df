package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The character sheet (C): the knight's characteristics and its deeds, the newest first,
// paged when they do not fit.

// sheetFoot is the sheet's keys when its deeds fit.
const sheetFoot = "Any key returns."

// sheetTop is the row the deeds' list starts at.
const sheetTop = 8

// deedLine is a deed as the sheet and screen-reader mode list it.
func deedLine(r world.DeedRow) string { return r.Title + ": " + r.Words + "." }

// sheetHead is the sheet's lines above its deeds, fitted to w columns.
func sheetHead(s world.Self, w int) []string {
	return []string{
		fit(w, fmt.Sprintf("%s, a knight of level %d", s.Name, s.Level), fmt.Sprintf("%s, level %d", s.Name, s.Level), s.Name),
		fit(w, fmt.Sprintf("Strength %d  Intelligence %d  Constitution %d  Dexterity %d", s.Str, s.Int, s.Con, s.Dex),
			fmt.Sprintf("Str %d  Int %d  Con %d  Dex %d", s.Str, s.Int, s.Con, s.Dex)),
		fit(w, fmt.Sprintf("Hits %d of %d  Spell units %d  Experience %d  Gold %d", s.Hits, s.MaxHits, s.SpellUnits, s.Experience, s.Gold),
			fmt.Sprintf("Hits %d/%d  Units %d  Gold %d", s.Hits, s.MaxHits, s.SpellUnits, s.Gold)),
		fit(w, fmt.Sprintf("Deeds: %d of the %d there are", len(s.Deeds), len(world.DeedTable)),
			fmt.Sprintf("Deeds: %d of %d", len(s.Deeds), len(world.DeedTable))),
	}
}

// sheetLines are the knight's deeds, newest first, each wrapped at w columns.
func sheetLines(s world.Self, w int) []string {
	rows := world.DeedRows(s.Deeds)
	if len(rows) == 0 {
		return wrap("None yet: going down into the dungeon is the first.", w)
	}
	var out []string
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, wrapHang(deedLine(rows[i]), w, 2)...)
	}
	return out
}

// sheetPage is how many lines of deeds show at once: from sheetTop to above the foot.
func (m *Model) sheetPage() int {
	_, h := m.frameSize()
	return max(1, h-sheetTop-2)
}

func (m *Model) drawSheet(c *canvas) {
	s := m.view.Self
	c.text(2, 1, "YOUR KNIGHT", clsTitle)
	for i, l := range sheetHead(s, c.w-4) {
		c.text(2, 3+i, l, clsText)
	}
	lines, page := sheetLines(s, c.w-6), m.sheetPage()
	m.sheet.draw(c, 4, sheetTop, lines, page, clsText)
	foot := sheetFoot
	if len(lines) > page {
		from, to := m.sheet.span(len(lines), page)
		foot = fit(c.w-4, fmt.Sprintf("Lines %d-%d of %d, newest first: %s pages, up and down scroll; any other key returns.", from, to, len(lines), pageKeysHint),
			fmt.Sprintf("Lines %d-%d of %d: %s pages", from, to, len(lines), pageKeysHint), fmt.Sprintf("%d-%d of %d, %s", from, to, len(lines), pageKeysHint))
	}
	c.text(2, c.h-2, foot, clsTitle)
}

// sheetKey scrolls a long list of deeds; any other key returns to the game.
func (m *Model) sheetKey(k tea.KeyPressMsg) tea.Cmd {
	w, _ := m.frameSize()
	if lines, page := sheetLines(m.view.Self, w-6), m.sheetPage(); len(lines) <= page || !m.sheet.scrollBy(k.String(), len(lines), page) {
		m.screen = screenPlay
	}
	return nil
}

// deedsText is screen-reader mode's "deeds": every deed, in the order earned.
func deedsText(v world.View) []string {
	rows := world.DeedRows(v.Self.Deeds)
	if len(rows) == 0 {
		return []string{"No deeds yet: going down into the dungeon is the first."}
	}
	out := []string{fmt.Sprintf("Your deeds, %d of the %d there are, in the order earned:", len(rows), len(world.DeedTable))}
	for _, r := range rows {
		out = append(out, deedLine(r))
	}
	return out
}

// deedsSaid is the status's line of deeds: how many, and the newest few; none for no
// deeds (a replay, which records none, says nothing of them).
func deedsSaid(s world.Self) []string {
	rows := world.DeedRows(s.Deeds)
	if len(rows) == 0 {
		return nil
	}
	var newest []string
	for i := len(rows) - 1; i >= 0 && len(newest) < 3; i-- {
		newest = append(newest, rows[i].Title)
	}
	return []string{fmt.Sprintf("Deeds: %d; the newest %s. (deeds lists them.)", len(rows), english.List(newest))}
}
