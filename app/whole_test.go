package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 14: at 80×24, the smallest terminal the game draws in, texts were cut off
// mid-word: the spells working under the view ("…Protection (20 moves), Find T"), every
// spell's help in the 1-4 menus ("modified by your intelli"), help lines, the inventory's
// and the message log's keys. Every screen now wraps its texts at word boundaries and
// scrolls a list longer than the screen. These tests open every screen at 80×24 and at
// 160×50 with more on it than fits in a line, and check that each text the game means to
// show is there whole, taking the texts from the game's own tables.

// sizes are the terminal sizes the screens are checked at.
var sizes = [][2]int{{80, 24}, {160, 50}}

// words is text with its whitespace made single spaces.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// area is the text of columns [x0, x1) of every line of a screen, the lines joined with
// spaces: a text wrapped within those columns reads whole in it.
func area(screen string, x0, x1 int) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		r := []rune(l)
		b.WriteString(string(r[min(x0, len(r)):min(x1, len(r))]))
		b.WriteByte(' ')
	}
	return words(b.String())
}

// wholeIn reports whether text is whole in columns [x0, x1) of screen: its words in order,
// joined across the line breaks of that area.
func wholeIn(screen string, x0, x1 int, text string) bool {
	return strings.Contains(area(screen, x0, x1), words(text))
}

// checkWhole fails for every text that is not whole on screen in columns [x0, x1).
func checkWhole(t *testing.T, what, screen string, x0, x1 int, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if !wholeIn(screen, x0, x1, text) {
			t.Errorf("%s: %q is not whole on the screen:\n%s", what, text, screen)
		}
	}
}

// wholeSomewhere fails for every text that is not whole on any of the screens (the
// positions of a scrolled list).
func wholeSomewhere(t *testing.T, what string, screens []string, w int, texts ...string) {
	t.Helper()
	wholeInSome(t, what, screens, 0, w, texts...)
}

// wholeInSome fails for every text that is not whole in columns [x0, x1) of any of the
// screens.
func wholeInSome(t *testing.T, what string, screens []string, x0, x1 int, texts ...string) {
	t.Helper()
	for _, text := range texts {
		found := false
		for _, s := range screens {
			found = found || wholeIn(s, x0, x1, text)
		}
		if !found {
			t.Errorf("%s: %q is whole on none of the %d screens; the last:\n%s", what, text, len(screens), screens[len(screens)-1])
		}
	}
}

// scrolled is the screen after each press of key, until it stops changing (or the key
// leaves the screen: a list that fits takes no scrolling keys).
func scrolled(m *Model, key string) []string {
	screens := []string{m.Text()}
	on := m.screen
	for range 500 {
		keys(m, key)
		s := m.Text()
		if s == screens[len(screens)-1] || m.screen != on {
			break
		}
		screens = append(screens, s)
	}
	return screens
}

// longName is a knight's name as long as names go.
const longName = "Palamedes the Swift"

// allEffects are a spell working of every lasting kind.
func allEffects() []world.Effect {
	return []world.Effect{{Spell: world.SpellLight, Moves: 24}, {Spell: world.SpellSpeed, Moves: 18},
		{Spell: world.SpellProtection, Moves: 20}, {Spell: world.SpellFindTraps, Moves: 6},
		{Spell: world.SpellContinuousLight, Moves: world.DurationTrip}, {Spell: world.SpellLevitation, Moves: 12},
		{Spell: world.SpellInvisibility, Moves: 36}, {Spell: world.SpellPray, Moves: world.DurationFight}}
}

// allItems is one of every item, and then gems: more than a screen's lines.
func allItems() []world.Item {
	var items []world.Item
	for k := range world.NumItemKinds {
		it := world.Item{Kind: k}
		switch k {
		case world.ItemQuiver:
			it.Count = 12
		case world.ItemShield, world.ItemArmour:
			it.Plus = 2
		case world.ItemGem, world.ItemJewelry:
			it.Value = 1200
		case world.ItemBootsOfSpeed:
			it.Worn = true
		}
		items = append(items, it)
	}
	for i := range 8 {
		items = append(items, world.Item{Kind: world.ItemGem, Value: 50 + i})
	}
	return items
}

// longLine is a chat line as long as the world lets one be.
var longLine = "Shouts from " + longName + ": " + strings.Repeat("the dragon sleeps below the stairs ", 6)

// crowdedView is the knight in the dungeon with everything that can be under the view at
// once: watchers, every spell working, knights with it and in sight, conditions, and a
// chat line as long as they go.
func crowdedView(t *testing.T) world.View {
	v := twoOnTwo(t)
	v.Fight = nil
	v.Self.Name = longName
	v.Self.Experience, v.Self.MaxHits, v.Self.Hits = 123456, 145, 123
	v.Self.Feature = world.FeatStairsDown
	v.Self.Status = []string{"weakened", "slowed"}
	for _, ef := range allEffects() {
		v.Self.Effects = append(v.Self.Effects, ef.String())
	}
	v.Watchers = []string{"Bedivere the Stout", "Gareth"}
	v.Others = []world.Other{{Name: "Gawain the Bold", Pos: v.Self.Pos}, {Name: "Lionel", Pos: world.Pos{X: 9, Y: 1}}}
	v.Log = withLines(v.Log, "You see a stair down.", longLine)
	return v
}

// The dungeon screen: every spell working, every field of the status line, the knights,
// the watchers and the newest messages are whole, the long chat line too.
func TestDungeonScreenTextsAreWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := crowdedView(t)
		m, _ := viewModel(t, v, w, h)
		s := m.Text()
		checkFrame(t, s, w, h)
		what := fmt.Sprintf("%d×%d", w, h)
		checkWhole(t, what, s, 0, w, v.Self.Effects...)
		checkWhole(t, what, s, 0, w, statusFields(v.Self)...)
		checkWhole(t, what, s, 0, w, "Watched by Bedivere the Stout, Gareth.", "With you: Gawain the Bold.", "In sight: Lionel.",
			longLine, keyHelp)
		// The questions the screen asks are messages too.
		keys(m, "q")
		checkWhole(t, what, m.Text(), 0, w, "Leave the dungeon for now? Your knight is saved where it stands. (y/n)")
		keys(m, "n")
	}
}

// The four spell menus: every spell's name and help, whole.
func TestSpellMenusAreWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, crowdedView(t), w, h)
		for lvl := 1; lvl <= world.MaxSpellLevel; lvl++ {
			keys(m, fmt.Sprint(lvl))
			s := m.Text()
			checkFrame(t, s, w, h)
			for _, sp := range world.SpellsOfLevel(lvl) {
				checkWhole(t, fmt.Sprintf("%d×%d, level %d", w, h, lvl), s, 0, w, sp.Info().Name+" "+whenCast(sp)+" "+sp.Info().Help)
			}
			keys(m, "esc")
		}
	}
}

// whenCast is the menu's word for when a spell may be cast.
func whenCast(sp world.SpellID) string {
	switch info := sp.Info(); {
	case info.Anytime:
		return "any"
	case info.Combat:
		return "fight"
	}
	return "walk"
}

// The help wrapped for a width is made once and shared by every session showing it at
// that width; a client going through every width makes the kept ones start afresh, and
// they stay within their bound.
func TestTheHelpIsWrappedOnceForEveryone(t *testing.T) {
	a, _ := viewModel(t, crowdedView(t), 93, 30)
	b, _ := viewModel(t, crowdedView(t), 93, 40)
	la, _ := a.helpPage()
	lb, _ := b.helpPage()
	if &la[0] != &lb[0] {
		t.Fatal("two sessions at one width wrapped the help each")
	}
	if want := wrapHang(helpLines[0], 93-4, hangOf(helpLines[0])); !slices.Equal(la[:len(want)], want) {
		t.Fatalf("the shared help starts %q, want %q", la[:len(want)], want)
	}
	for w := 20; w < 20+2*helpWidthsKept; w++ {
		if got := helpWrapped.at(w); len(got) == 0 || !strings.HasPrefix(helpLines[0], strings.TrimSpace(got[0])) {
			t.Fatalf("width %d: the help starts %q", w, got[0])
		}
	}
	helpWrapped.mu.Lock()
	kept := len(helpWrapped.byWidth)
	helpWrapped.mu.Unlock()
	if kept > helpWidthsKept {
		t.Fatalf("the help is kept at %d widths, at most %d", kept, helpWidthsKept)
	}
}

// The help: every line of it, the lesson and the monster tables, is whole at some point
// of its scrolling, and the line saying where it is too.
func TestHelpIsWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, crowdedView(t), w, h)
		keys(m, "?")
		screens := scrolled(m, "down")
		for _, s := range screens {
			checkFrame(t, s, w, h)
		}
		wholeSomewhere(t, fmt.Sprintf("%d×%d help", w, h), screens, w, helpLines...)
		checkWhole(t, "help", screens[0], 0, w, fmt.Sprintf("lines 1-%d of", h-3), pageKeysHint+" pages, arrows scroll; any other key returns")
	}
}

// The inventory: every thing's name, however many, at some point of its scrolling; the
// keys; the newest message.
func TestInventoryIsWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := crowdedView(t)
		v.Self.Items = allItems()
		m, _ := viewModel(t, v, w, h)
		keys(m, "i")
		screens := scrolled(m, "down")
		var names []string
		for _, it := range v.Self.Items {
			names = append(names, it.Name())
		}
		wholeSomewhere(t, fmt.Sprintf("%d×%d inventory", w, h), screens, w, names...)
		for _, s := range screens {
			checkFrame(t, s, w, h)
			checkWhole(t, "inventory", s, 0, w, invFoot, longLine)
		}
		if w == 80 && len(screens) < 2 {
			t.Errorf("%d things fit at 80×24: the test has too few", len(names))
		}
		// A list that fits takes no scrolling, and its keys say so.
		m.view.Self.Items, m.screen = v.Self.Items[:3], screenInventory
		s := m.Text()
		checkWhole(t, "short inventory", s, 0, w, invFoot, v.Self.Items[2].Name())
		if strings.Contains(s, "scroll") {
			t.Errorf("%d×%d: a short list says it scrolls:\n%s", w, h, s)
		}
	}
}

// The message log: every message, the long chat lines among them, at some point of its
// scrolling, and its keys.
func TestMessageLogIsWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := crowdedView(t)
		for i := range 40 {
			v.Log = withLines(v.Log, fmt.Sprintf("%d: %s", i, longLine))
		}
		m, _ := viewModel(t, v, w, h)
		keys(m, "M")
		screens := scrolled(m, "up")
		wholeSomewhere(t, fmt.Sprintf("%d×%d log", w, h), screens, w, v.Log.Lines()...)
		for _, s := range screens {
			checkFrame(t, s, w, h)
			checkWhole(t, "log", s, 0, w, logFoot)
		}
	}
}

// The options: every row and help line, a long list of muted players and of spectators
// included, and a note as long as they go.
func TestOptionsAreWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := crowdedView(t)
		m, _ := viewModel(t, v, w, h)
		m.opts.Muted = []string{"Bedivere the Stout", "Agravain the Young", "Lamorak the Grey", "Percival the Wise", "Sir Dagonet"}
		keys(m, "o")
		m.chat.note = "You will not see what " + longName + " says. (/unmute " + longName + " undoes it.)"
		s := m.Text()
		checkFrame(t, s, w, h)
		what := fmt.Sprintf("%d×%d options", w, h)
		for _, r := range m.optionRows() {
			checkWhole(t, what, s, 0, w, r[0]+" "+r[1])
		}
		checkWhole(t, what, s, 0, w, optionHelp...)
		checkWhole(t, what, s, 0, w, m.chat.note)
	}
}

// sixKnights is a party of six, this knight among them, with two knights asking to join.
func sixKnights(v world.View) world.View {
	names := []string{v.Self.Name, "Gawain the Bold", "Bedivere the Stout", "Lionel", "Agravain the Young", "Tor"}
	v.Party = nil
	for i, n := range names {
		v.Party = append(v.Party, world.PartyMember{Name: n, Leader: i == 0, Level: 3 + i, Hits: 100 + i, MaxHits: 145, Depth: i % 3, Fighting: i == 4})
	}
	v.Asks = []string{"Percival the Wise", "Sir Dagonet"}
	return v
}

// The party list over the view and the party screen: six knights with their hits and
// where they are, and what waits for an answer.
func TestPartyTextsAreWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := sixKnights(crowdedView(t))
		m, _ := viewModel(t, v, w, h)
		s := m.Text()
		checkFrame(t, s, w, h)
		what := fmt.Sprintf("%d×%d party list", w, h)
		x0, x1 := boxArea(t, s, "┌─ PARTY")
		for _, pm := range v.Party {
			checkWhole(t, what, s, x0, x1, pm.Name)
		}
		checkWhole(t, what, s, x0, x1, pendingLines(v)...)
		// Beside a battle that not all of the party is in, the list is narrower: a long
		// name puts its hits on the next line.
		fv := sixOnSix(t, false)
		fv.Fight.Knights = fv.Fight.Knights[:2]
		fv.Party, fv.Asks, fv.Self.Effects, fv.Watchers = v.Party, nil, nil, nil
		m.Update(viewMsg(fv))
		s = m.Text()
		x0, x1 = boxArea(t, s, "┌─ PARTY")
		for _, pm := range v.Party {
			checkWhole(t, what+" beside a battle", s, x0, x1, pm.Name, hitsText(pm.Hits, pm.MaxHits))
		}
		// In a view too short for the list, what does not fit is not cut: the list says
		// where the rest is.
		fv.Self.Effects, fv.Log = crowdedView(t).Self.Effects, world.LogOf([]string{longLine}, nil)
		m.Update(viewMsg(fv))
		s = m.Text()
		x0, x1 = boxArea(t, s, "┌─ PARTY")
		for _, pm := range v.Party {
			if !wholeIn(s, x0, x1, pm.Name) {
				checkWhole(t, what+" in a short view", s, x0, x1, "more: P shows the party")
			}
		}
		m.Update(viewMsg(v))
		keys(m, "P")
		s = m.Text()
		checkFrame(t, s, w, h)
		what = fmt.Sprintf("%d×%d party screen", w, h)
		for _, pm := range v.Party {
			checkWhole(t, what, s, 0, w, pm.Name, partyWhereLong(pm))
		}
		checkWhole(t, what, s, 0, w, pendingLines(v)...)
		// With nothing waiting for an answer and a short message, the chat line's
		// commands fit under the party.
		v.Asks, v.Log = nil, world.LogOf([]string{"Tor joins the party."}, nil)
		m.Update(viewMsg(v))
		s = m.Text()
		for _, pc := range partyCommands {
			checkWhole(t, what, s, 0, w, pc[0]+" "+pc[1])
		}
	}
}

// boxArea is the inside of the box whose top-left corner starts with corner, in columns.
func boxArea(t *testing.T, screen, corner string) (x0, x1 int) {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, corner); i >= 0 {
			r := []rune(l)
			x := len([]rune(l[:i]))
			end := x + 1
			for end < len(r) && r[end] != '┐' {
				end++
			}
			return x + 2, end - 1
		}
	}
	t.Fatalf("no box %q on the screen:\n%s", corner, screen)
	return 0, 0
}

// The market: every ware and every one of the knight's things (some names long, more of
// them than fit) at some point of the lists' scrolling, with the keys.
func TestMarketIsWhole(t *testing.T) {
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		v := surfaceView(world.Pos{X: 2, Y: 0})
		v.Self.Name = longName
		v.Self.Items = allItems()
		m, _ := viewModel(t, v, w, h)
		keys(m, "b")
		colW := min(56, (w-3)/2)
		x0 := (w - (2*colW + 3)) / 2
		buying := scrolled(m, "down")
		keys(m, "tab")
		selling := scrolled(m, "down")
		for _, wr := range v.Surface.Market.Wares {
			checkWhole(t, "market", buying[0], x0, x0+colW, wr.Item.Name())
		}
		var names []string
		for _, it := range v.Self.Items {
			name := it.Name()
			if it.Worn {
				name += " (worn)"
			}
			names = append(names, name)
		}
		found := map[string]bool{}
		for _, s := range selling {
			checkFrame(t, s, w, h)
			for _, n := range names {
				found[n] = found[n] || wholeIn(s, x0+colW+3, x0+2*colW+3, n)
			}
			checkWhole(t, "market", s, 0, w, "a letter sells that thing", "Tab or 1: buy instead", "Esc or q: back")
		}
		for _, n := range names {
			if !found[n] {
				t.Errorf("%d×%d market: %q is whole in the things' column on none of the %d screens; the last:\n%s", w, h, n, len(selling), selling[len(selling)-1])
			}
		}
	}
}

// sixOnSix is a battle of six heroes against six monsters, this knight's move.
func sixOnSix(t *testing.T, surface bool) world.View {
	v := crowdedView(t)
	v.Self.Items = allItems()
	kinds := []string{"Sabre-tooth Tiger", "Evil High Priest", "Carrion Crawler", "Giant Crocodile", "Animated Armour", "Illusionist"}
	f := &world.FightView{Round: 12, YourMove: true, GraceLeft: 100, GraceTurns: 200, Surface: surface, InRoom: !surface, Target: 2}
	for i, k := range kinds {
		f.Monsters = append(f.Monsters, world.FightMonster{Name: k, Class: "Magic User", Level: 7, Hits: 40 + i, MaxHits: 145,
			Dex: 10, Attack: world.D(10, 10), AttacksPerRound: 2, Speed: -10, Experience: 12345, Dodge: 15, Held: i == 3})
	}
	for i, pm := range sixKnights(v).Party {
		f.Knights = append(f.Knights, world.FightKnight{Name: pm.Name, Level: pm.Level, Hits: pm.Hits, MaxHits: pm.MaxHits,
			SpellUnits: 22, Str: 18, Int: 17, Con: 16, Dex: 18, Sword: 3, Shield: 2, Armour: 2, Blows: 3, Dodge: 21, Fainted: i == 5})
	}
	for i := range 20 {
		f.Log = append(f.Log, fmt.Sprintf("%s strikes at %s, who dodges (%d).", english.Capital(english.The(kinds[i%6])), f.Knights[i%6].Name, i))
	}
	v.Fight = f
	v.Party = sixKnights(v).Party
	v.Log = world.LogOf([]string{"You force the door open.", "Six monsters guard this room!"}, nil)
	if surface {
		sv := surfaceView(world.Pos{X: 3, Y: 2})
		v.Surface, v.Self.Depth, v.Self.Pos, v.Level = sv.Surface, 0, sv.Self.Pos, nil
	}
	return v
}

// A battle of six heroes against six monsters, in a room and on the surface: every
// combatant's name and hits, whose move it is, the keys and the newest log entry are whole
// in the panel; so are they on the statistics screen (x), at some point of its scrolling.
func TestBattleOfSixIsWhole(t *testing.T) {
	for _, sz := range sizes {
		for _, surface := range []bool{false, true} {
			w, h := sz[0], sz[1]
			v := sixOnSix(t, surface)
			f := v.Fight
			m, _ := viewModel(t, v, w, h)
			s := m.Text()
			checkFrame(t, s, w, h)
			what := fmt.Sprintf("%d×%d battle (surface %v)", w, h, surface)
			x0, x1 := w-fightPanelWidth(w)+2, w-2
			for i, mo := range f.Monsters {
				checkWhole(t, what, s, x0, x1, monsterLetter(i)+" "+english.Capital(mo.Name))
			}
			for _, k := range f.Knights {
				checkWhole(t, what, s, x0, x1, k.Name)
			}
			ks := battleKeys(v)
			if ks[len(ks)-1] == noRunNote {
				ks = ks[:len(ks)-1] // shown when there is room for it
			}
			checkWhole(t, what, s, x0, x1, ks...)
			checkWhole(t, what, s, x0, x1, moveLine(f, DefaultTick))
			if strings.Contains(area(s, x0, x1), "more") {
				t.Errorf("%s: six on six does not fit the panel:\n%s", what, s)
			}
			// Beside the panel, the spells working.
			checkWhole(t, what, s, 0, w-fightPanelWidth(w), v.Self.Effects...)

			keys(m, "x")
			screens := scrolled(m, "down")
			for _, s := range screens {
				checkFrame(t, s, w, h)
				checkWhole(t, what+" stats", s, 0, w, "f fight", "Esc returns", moveLine(f, DefaultTick))
			}
			// The names wrap within their columns.
			// The heroes' names are their table's first column; the monsters' the second,
			// after the marks' column and the gap.
			ws, _, _ := tableWidths(heroColumns(v), w-4)
			for _, k := range f.Knights {
				name := k.Name
				if name == v.Self.Name {
					name += " (you)"
				}
				wholeInSome(t, what+" stats", screens, 2, 2+ws[0], name)
			}
			mws, gap, _ := tableWidths(monsterColumns(f), w-4)
			for _, mo := range f.Monsters {
				x := 2 + mws[0] + gap
				wholeInSome(t, what+" stats", screens, x, x+mws[1], english.Capital(mo.Name))
			}
			keys(m, "esc")
		}
	}
}

// The hall of fame, the who-list, the title and the tombstone: their lines whole.
func TestOtherScreensAreWhole(t *testing.T) {
	fame := []string{"RANK  NAME                 LEVEL  EXPERIENCE  KILLS  RETIRED     ",
		"1     " + longName + "  10     900000      55%    2026-12-01  (yours)"}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, crowdedView(t), w, h)
		m.p.Fame = func() []string { return fame }
		keys(m, "F")
		s := m.Text()
		checkFrame(t, s, w, h)
		checkWhole(t, "fame", s, 0, w, fame...)
		keys(m, "esc")

		away := strings.Repeat("gone to slay the dragon of the north ", 3)[:world.MaxAwayRunes]
		m.screen, m.who.entries = screenWho, []world.WhoEntry{{Name: longName, Level: 10, Depth: 3, Watchable: true},
			{Name: "Bedivere the Stout", Level: 2, Depth: 0, IdleTurns: 4000, Away: true, AwayReason: away}}
		m.who.note = WatchError(world.ErrNoSpectators, "Bedivere the Stout") + " " + WatchError(world.ErrAmbiguousName, "Bedivere the Stout")
		checkWhole(t, "who", m.Text(), 0, w, longName, m.who.note, "idle 1m", "(away: "+away+")")
		checkFrame(t, m.Text(), w, h)

		// The letters, as long as letters go, each whole somewhere as the list scrolls.
		m.screen, m.mail = screenMail, mailState{have: true}
		var texts []string
		for i := range 6 {
			l := world.Letter{ID: uint64(i), From: longName, Text: strings.Repeat(fmt.Sprintf("line %d of a long letter ", i), 30)[:world.MaxLetterRunes],
				Read: i > 2}
			m.mail.letters = append(m.mail.letters, l)
			texts = append(texts, l.Text, letterHead(l))
		}
		screens := scrolled(m, "down")
		wholeSomewhere(t, fmt.Sprintf("%d×%d letters", w, h), screens, w, texts...)
		for _, s := range screens {
			checkFrame(t, s, w, h)
			checkWhole(t, "letters", s, 0, w, mailFoot)
		}
		m.screen = screenWho

		m.screen, m.tomb = screenDead, &world.Death{Killer: "a Sabre-tooth Tiger", Depth: 10, Level: 9, Experience: 123456}
		checkWhole(t, "tombstone", m.Text(), 0, w, "slain by a Sabre-tooth Tiger", "Death is permanent. Press Enter to roll a new knight, q to leave.")

		m.screen, m.rolled.nameErr, m.rolled.suggested = screenName, TakenNameNote, longName
		checkWhole(t, "name", m.Text(), 0, w, TakenNameNote, "Name your knight, or press Enter to be "+longName+".")

		m.p.Saved = &world.Adventurer{Name: longName, Death: &world.Death{Killer: "a Sabre-tooth Tiger", Depth: 10}}
		m.screen = screenTitle
		checkWhole(t, "title", m.Text(), 0, w, "Your last knight, "+longName+", was slain by a Sabre-tooth Tiger on level 10.")
	}
}

// tigersDeath is a death with all a tombstone shows: the last blows and hints.
func tigersDeath() *world.Death {
	return &world.Death{Killer: "a Sabre-tooth Tiger", Depth: 10, Level: 9, Experience: 123456,
		LastBlows: []world.Blow{{By: "a Sabre-tooth Tiger", Damage: 12, HitsLeft: 20}, {By: "a Sabre-tooth Tiger", Damage: 11, HitsLeft: 9},
			{By: "a Sabre-tooth Tiger", Damage: 14, HitsLeft: 0}},
		Hints: []string{"Sleep might have held the tiger for the fight: it sleeps.", "You had 6 spell units left: Magic Missile strikes from afar."}}
}

// phoneSizes are the terminal sizes players play at: phones in portrait (40×20, 46×19,
// 50×25, 60×30) and landscape (100×18), the PLATO layout's 80×24, and a large terminal.
var phoneSizes = [][2]int{{40, 20}, {46, 19}, {50, 25}, {60, 30}, {80, 24}, {100, 18}, {160, 50}}

// frameOf draws m's screen and fails when a text ran off its canvas (a word cut at the
// right edge, a line drawn below the last row).
func frameOf(t *testing.T, what string, m *Model) string {
	t.Helper()
	c := newCanvas(m.frameSize())
	m.draw(c)
	s := c.render(m.theme, true)
	checkFrame(t, s, m.width, m.height)
	if c.cut > 0 {
		t.Errorf("%s at %d×%d: %d characters drawn off the screen:\n%s", what, m.width, m.height, c.cut, s)
	}
	return s
}

// Issue 28: every screen of the screens table opens at every size from 40×20 up, drawn
// whole (nothing cut at an edge), the knight in view where the screen shows the level,
// and a key on it does what it says.
func TestEveryScreenIsWholeAtEverySize(t *testing.T) {
	cases := []struct {
		name   string
		view   func(t *testing.T) world.View
		open   func(m *Model)
		knight bool // the screen shows the knight's square: "()" is on it
		key    string
		after  func(m *Model) bool // what the key did
		// needs are the texts the screen must show whole at every size: its title, its
		// way on, what a player needs to know there.
		needs func(m *Model) []string
		// check checks what else the screen must be at every size; open makes the
		// screen afresh, for a check that scrolls it.
		check func(t *testing.T, what string, open func() *Model)
	}{
		{name: "title", open: func(m *Model) { m.screen = screenTitle }, key: "enter", after: func(m *Model) bool { return m.screen == screenRoll }},
		{name: "roll", open: func(m *Model) { m.screen = screenRoll }, key: "enter", after: func(m *Model) bool { return m.screen == screenName }},
		{name: "name", open: func(m *Model) {
			m.screen = screenRoll
			keys(m, "enter")
			m.rolled.nameErr, m.rolled.suggested = TakenNameNote, longName
		}, key: "K", after: func(m *Model) bool { return m.rolled.name.value() == "K" }},
		{name: "dungeon", open: func(*Model) {}, knight: true, key: "m", after: func(m *Model) bool { return m.screen == screenMap }},
		{name: "dungeon, a level narrower than the screen", view: farEast, open: func(*Model) {}, knight: true, key: "m",
			after: func(m *Model) bool { return m.screen == screenMap }, check: checkCentred},
		{name: "fight", view: roundTwelve, open: func(*Model) {}, knight: true, key: "t", after: func(m *Model) bool { return m.screen == screenPlay },
			needs: func(m *Model) []string { return newestLine(m) }, check: checkTitle("FIGHT", 12)},
		{name: "fight begins", view: guardedRoom, open: func(*Model) {}, knight: true, key: "f",
			after: func(m *Model) bool { return m.screen == screenPlay }, needs: func(m *Model) []string { return m.view.Fight.Log },
			check: checkTitle("FIGHT", 1)},
		{name: "last fight", view: func(t *testing.T) world.View {
			v := twoOnTwo(t)
			v.LastFight, v.Fight = v.Fight.Log, nil
			return v
		}, open: func(*Model) {}, knight: true, key: "m", after: func(m *Model) bool { return m.screen == screenMap }},
		{name: "party battle", view: func(t *testing.T) world.View { return sixOnSix(t, false) }, open: func(*Model) {}, knight: true,
			key: "x", after: func(m *Model) bool { return m.screen == screenStats }},
		{name: "surface battle", view: func(t *testing.T) world.View {
			v := sixOnSix(t, true)
			v.Log = withLines(v.Log, v.Fight.Log...) // as the world writes them
			return v
		}, open: func(*Model) {}, knight: true,
			key: "x", after: func(m *Model) bool { return m.screen == screenStats }, needs: func(m *Model) []string { return newestLine(m) },
			check: checkTitle("BATTLE", 12)},
		{name: "surface", view: func(*testing.T) world.View { return surfaceView(world.Pos{X: 2, Y: 0}) }, open: func(*Model) {}, knight: true,
			key: "b", after: func(m *Model) bool { return m.screen == screenMarket }},
		{name: "market", view: func(*testing.T) world.View { return surfaceView(world.Pos{X: 2, Y: 0}) }, open: func(m *Model) { keys(m, "b") },
			key: "q", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "map", open: func(m *Model) { keys(m, "m") }, knight: true, key: "q", after: func(m *Model) bool { return m.screen == screenPlay },
			needs: func(*Model) []string { return []string{"c centres"} }},
		{name: "inventory", view: func(t *testing.T) world.View { v := crowdedView(t); v.Self.Items = allItems(); return v },
			open: func(m *Model) { keys(m, "i") }, key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "spells", open: func(m *Model) { keys(m, "1") }, key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "help", open: func(m *Model) { keys(m, "?") }, key: "down", after: func(m *Model) bool { return m.help.pager.top > 0 },
			needs: func(*Model) []string { return []string{"HELP: the knight's lesson"} }, check: checkHelpLines},
		{name: "log", view: longLog, open: func(m *Model) { keys(m, "M") }, key: "x", after: func(m *Model) bool { return m.screen == screenPlay },
			needs: func(*Model) []string { return []string{"MESSAGES AND CHAT"} }},
		{name: "letters", open: func(m *Model) {
			m.screen, m.mail = screenMail, mailState{have: true, letters: []world.Letter{{ID: 1, From: longName, Text: strings.Repeat("a long letter ", 40)}}}
		}, key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "who", open: func(m *Model) {
			m.screen, m.who.entries = screenWho, []world.WhoEntry{{Name: longName, Level: 10, Depth: 3, Watchable: true}}
		}, key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "options", open: func(m *Model) { keys(m, "o") }, key: "d", after: func(m *Model) bool { return m.opts.HideKeys }},
		{name: "fame", open: func(m *Model) { keys(m, "F") }, key: "x", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "sheet", view: deedful, open: func(m *Model) { keys(m, "C") }, key: "x", after: func(m *Model) bool { return m.screen == screenPlay },
			needs: func(m *Model) []string {
				return []string{"YOUR KNIGHT", deedLine(world.DeedTable[len(world.DeedTable)-1]), sheetHead(m.view.Self, m.width-4)[3]}
			}},
		{name: "party", view: func(t *testing.T) world.View { return sixKnights(crowdedView(t)) }, open: func(m *Model) { keys(m, "P") },
			key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "statistics", view: func(t *testing.T) world.View { return sixOnSix(t, false) }, open: func(m *Model) { keys(m, "x") },
			key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }, check: checkStats},
		{name: "statistics, one monster", view: guardedRoom, open: func(m *Model) { keys(m, "x") },
			key: "esc", after: func(m *Model) bool { return m.screen == screenPlay }, check: checkStats},
		{name: "chat line", open: func(m *Model) { keys(m, "enter", "hello there") }, knight: true, key: "esc",
			after: func(m *Model) bool { return !m.chat.open }},
		{name: "console", open: func(m *Model) { m.p.Admin = func(string) (string, bool) { return "", true }; keys(m, ":") }, knight: true, key: "esc",
			after: func(m *Model) bool { return !m.consoleOpen() }},
		{name: "ESP", open: func(m *Model) { m.screen = screenESP }, knight: true, key: "up", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "quit", open: func(m *Model) { keys(m, "q") }, knight: true, key: "n", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "retire", view: func(*testing.T) world.View { return surfaceView(world.Pos{X: 3, Y: 2}) }, open: func(m *Model) { keys(m, "R") },
			knight: true, key: "n", after: func(m *Model) bool { return m.screen == screenPlay }},
		{name: "death", open: func(m *Model) {
			m.p.Fell = func(context.Context) (ReplayControl, *ViewSlot, error) { return nil, nil, nil }
			m.screen, m.tomb = screenDead, tigersDeath()
		}, key: "enter", after: func(m *Model) bool { return m.screen == screenRoll },
			needs: func(*Model) []string {
				return []string{"R. I. P.", "r: see how you fell (the last minute).", "Death is permanent. Press Enter to roll a new knight, q to leave."}
			}},
		{name: "retirement", open: func(m *Model) {
			m.screen, m.retired = screenDead, &world.Retirement{Level: 9, Experience: 123456}
		}, key: "enter", after: func(m *Model) bool { return m.screen == screenRoll },
			needs: func(*Model) []string { return []string{"Press Enter to roll a new knight, q to leave."} }},
		{name: "joining", open: func(m *Model) { m.screen = screenJoining }, key: "x",
			after: func(m *Model) bool { return m.screen == screenJoining }},
		{name: "ended", open: func(m *Model) {
			m.screen, m.ended = screenEnded, strings.Repeat("An admin has removed you from the dungeon. ", 4)
		}, key: "x", after: func(m *Model) bool { return m.screen == screenEnded }},
		{name: "watch", open: func(m *Model) {
			m.screen, m.watch = screenWatch, watching{seen: new(crowdedView(t))}
		}, key: "q", after: func(m *Model) bool { return m.screen != screenWatch }},
	}
	seen := map[screen]bool{}
	defer func() {
		for sc := range screen(numScreens) {
			if !seen[sc] {
				t.Errorf("screen %d of the screens table has no case in TestEveryScreenIsWholeAtEverySize: add one, so that it is checked at every size", sc)
			}
		}
	}()
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		for _, tc := range cases {
			view := crowdedView
			if tc.view != nil {
				view = tc.view
			}
			m, _ := viewModel(t, view(t), w, h)
			m.p.Fame = func() []string { return []string{"1  " + longName + "  10  900000"} }
			tc.open(m)
			seen[m.screen] = true
			what := fmt.Sprintf("%s at %d×%d", tc.name, w, h)
			s := frameOf(t, tc.name, m)
			if tc.knight && !strings.Contains(s, "()") {
				t.Errorf("%s: the knight is not in view:\n%s", what, s)
			}
			if tc.needs != nil {
				checkNeeds(t, what, s, m, tc.needs(m))
			}
			checkPanel(t, what, s, m)
			if tc.check != nil {
				tc.check(t, what, func() *Model {
					m, _ := viewModel(t, view(t), w, h)
					tc.open(m)
					return m
				})
			}
			keys(m, tc.key)
			if !tc.after(m) {
				t.Errorf("%s: %s did not do what it does; the screen:\n%s", what, tc.key, m.Text())
			}
			frameOf(t, tc.name+", after "+tc.key, m)
		}
	}
}

// Issue 28: a resize at any moment redraws the whole screen at the new size and keeps
// every state: mid-fight, with a target chosen and a half-typed chat line, through
// 80×24, a phone in portrait and in landscape, and back.
func TestResizeKeepsEveryState(t *testing.T) {
	m, rec := viewModel(t, twoOnTwo(t), 80, 24)
	keys(m, "t") // the troll, the goblin's neighbour, is asked for
	target := rec.take()
	keys(m, "enter", "the troll is mi")
	first := m.Text()
	for _, sz := range [][2]int{{40, 20}, {100, 18}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s := frameOf(t, "a fight with the chat line open", m)
		for _, want := range []string{"()", "Tr", "Say: the troll is mi_", "FIGHT, ROUND 3"} {
			if !strings.Contains(s, want) {
				t.Errorf("%d×%d: %q is not on the screen:\n%s", sz[0], sz[1], want, s)
			}
		}
	}
	if m.Text() != first || !m.chat.open || m.screen != screenPlay || len(target) != 1 {
		t.Errorf("back at 80×24 the screen is not as it was:\n%s\nwant:\n%s", m.Text(), first)
	}
	keys(m, "ssing")
	if v := m.chat.input.value(); v != "the troll is missing" {
		t.Errorf("the chat line typed across the resizes is %q", v)
	}
}

// Issue 28: at 80×24 the map was cut around the knight and could not be scrolled. At
// every size it opens centred on the knight, the direction keys move it, c centres it
// again, ? shows the legend, and any other key returns; opening it again centres it.
func TestTheMapPansAtEverySize(t *testing.T) {
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		v := crowdedView(t)
		v.Level = world.Generate(1, 1, false) // a whole level, wider than a phone
		v.Known = allSquares(v.Level)
		v.Self.Pos = world.Pos{X: v.Level.W / 2, Y: v.Level.H / 2}
		m, _ := viewModel(t, v, w, h)
		keys(m, "m")
		first := frameOf(t, "the map", m)
		if !strings.Contains(first, "()") {
			t.Errorf("%d×%d: the map does not show the knight:\n%s", w, h, first)
		}
		moved := false
		for _, k := range []string{"l", "right", "h", "left", "k", "up", "j", "down"} {
			keys(m, "c", k, k)
			moved = moved || frameOf(t, "the map moved", m) != first
		}
		if fits := v.Level.W*colsPerSquare+1 <= w && v.Level.H*rowsPerSquare+1 <= h-1; !moved && !fits {
			t.Errorf("%d×%d: no direction key moves the map", w, h)
		}
		keys(m, "c")
		if s := frameOf(t, "the map centred", m); s != first {
			t.Errorf("%d×%d: c does not centre the map on the knight:\n%s", w, h, s)
		}
		keys(m, "?")
		checkWhole(t, "the map's legend", frameOf(t, "the legend", m), 0, w, mapLegend)
		keys(m, "l", "l", "q")
		if m.screen != screenPlay {
			t.Fatalf("%d×%d: q does not leave the map", w, h)
		}
		keys(m, "m")
		if s := frameOf(t, "the map again", m); s != first {
			t.Errorf("%d×%d: the map opened again is not centred on the knight:\n%s", w, h, s)
		}
	}
}

// Played at 40×20 through ssh, a knight's blow did not show in the battle panel: the
// move line took three of its rows and left two, too few for the blow's line whole. At
// every size the newest line of a fight one on one is in the panel.
func TestTheNewestBlowShowsInTheBattlePanel(t *testing.T) {
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		v := twoOnTwo(t)
		f := v.Fight
		f.Monsters, f.Knights, f.Target, f.GraceLeft = f.Monsters[:1], f.Knights[:1], 0, 0
		v.Self.Name, f.Knights[0].Name = "Ector the Tall", "Ector the Tall"
		f.Log = []string{"Ector the Tall is quicker and may strike first.", "Ector the Tall hits the Troll for 3."}
		v.Others, v.Monsters = nil, v.Monsters[:1]
		m, _ := viewModel(t, v, w, h)
		s := frameOf(t, "a fight one on one", m)
		x0 := w - fightPanelWidth(w) + 2
		checkWhole(t, fmt.Sprintf("the panel at %d×%d", w, h), s, x0, w-2, "Ector the Tall hits the Troll for 3.", "Your move.")
	}
}

// A realm's who-list: the knights of the other realms under their heading, each whole at
// every size from a phone's up, an away reason too.
func TestOtherRealmsKnightsAreWhole(t *testing.T) {
	away := "gone to slay the dragon of the north"
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, crowdedView(t), w, h)
		m.screen, m.who.entries = screenWho, []world.WhoEntry{{Name: "Kay", Level: 2, Depth: 1}}
		m.who.far = []world.FarKnight{{Realm: "Lyonesse-Under-The-Sea", Name: longName, Level: 10, Away: true, AwayReason: away}}
		s := m.Text()
		checkFrame(t, s, w, h)
		checkWhole(t, fmt.Sprintf("%d×%d who in other realms", w, h), s, 0, w, "In other realms:", longName,
			"level 10 in Lyonesse-Under-The-Sea", "(away: "+away+")")
		// More than the screen holds: the list says so, and paging it shows every knight
		// whole.
		var names []string
		for i := range 30 {
			m.who.far = append(m.who.far, world.FarKnight{Realm: "Avalon", Name: fmt.Sprintf("Knight %d", i), Level: 1})
			names = append(names, fmt.Sprintf("Knight %-2d", i))
		}
		pages := scrolled(m, "space")
		for _, s := range pages {
			checkFrame(t, s, w, h)
		}
		if len(pages) > 1 != strings.Contains(pages[0], pageKeysHint+" pages") {
			t.Errorf("%d×%d: 31 knights in other realms page %d times, and the list says otherwise:\n%s", w, h, len(pages)-1, pages[0])
		}
		wholeSomewhere(t, fmt.Sprintf("%d×%d who in other realms, paged", w, h), pages, w, names...)
	}
}

// The watching screen's top line says how to stop whole at every width, naming the
// knight watched where it fits.
func TestTheWatchBarSaysHowToStopAtEveryWidth(t *testing.T) {
	for _, sz := range phoneSizes {
		w := sz[0]
		for _, stop := range []string{"Esc stops watching", "q or Esc leaves"} {
			bar := watchBar(w, longName, stop)
			if textWidth(bar) > w || !strings.Contains(bar, stop) {
				t.Errorf("at %d columns: %q (%d wide)", w, bar, textWidth(bar))
			}
			if w >= 80 && !strings.Contains(bar, "WATCHING "+longName+", read-only.") {
				t.Errorf("at %d columns the bar leaves out what fits: %q", w, bar)
			}
		}
	}
}

// At every size the death screen says how to go on, whole: the way on is kept at the
// bottom of a small screen, and the stone above it is cut short rather than the way on
// (at 40×20 the screen ended at "r: see how you fell (the last").
func TestTheDeathScreenSaysHowToGoOnAtEverySize(t *testing.T) {
	d := tigersDeath()
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, crowdedView(t), w, h)
		m.p.Fell = func(context.Context) (ReplayControl, *ViewSlot, error) { return nil, nil, nil }
		m.screen, m.tomb = screenDead, d
		s := frameOf(t, "the death screen", m)
		what := fmt.Sprintf("the death screen at %d×%d", w, h)
		checkWhole(t, what, s, 0, w, "R. I. P.", "r: see how you fell (the last minute).")
		if !strings.Contains(strings.Join(strings.Fields(s), " "), "Death is permanent. Press Enter to roll a new knight, q to leave.") {
			t.Errorf("%s does not say how to go on:\n%s", what, s)
		}
	}
}

// Issue 43: played on a phone (40×20, 46×19) and in landscape (100×18), screens dropped
// what a player needs: the fight box's title from round 10 and in every surface battle,
// the line saying who guards the room, the newest blow (the battle box left its row
// blank), the statistics' headings and marks (cut mid-word: "Monste / r", "> Rot / a
// Grub"), the message log's heading, the map's c; the help broke a line of its lesson
// early ("and / now / and then") and took 512 lines; the knight stood at column 70 of a
// level narrower than the screen, 60 blank columns to its left; a line under the view ran
// over the battle box's edge. The cases of TestEveryScreenIsWholeAtEverySize use what
// follows to check these at every size.

// roundTwelve is twoOnTwo in its twelfth round, its log begun as the world begins one.
func roundTwelve(t *testing.T) world.View {
	v := twoOnTwo(t)
	v.Fight.Round = 12
	v.Fight.Log = append([]string{"A Troll (Giant, level 4) guards this room!", "A Goblin (Goblin, level 1) guards this room!"}, v.Fight.Log...)
	v.Log = world.LogOf(append([]string{"You force the door open."}, v.Fight.Log...), nil) // the world writes the log to the messages too
	return v
}

// guardedRoom is a fight one on one just begun in a room, as the world begins it: the
// guard and who is quicker.
func guardedRoom(t *testing.T) world.View {
	v := twoOnTwo(t)
	f := v.Fight
	f.Monsters, f.Knights, f.Target, f.GraceLeft, f.Round = f.Monsters[:1], f.Knights[:1], 0, 0, 1
	f.Monsters[0].Name, f.Monsters[0].Class, f.Monsters[0].Level, f.Monsters[0].Hits, f.Monsters[0].MaxHits = "Rot Grub", "Insect", 1, 4, 4
	f.Log = []string{"A Rot Grub (Insect, level 1) guards this room!", "Sir Kay is quicker and may strike first."}
	v.Others, v.Monsters = nil, v.Monsters[:1]
	v.Log = world.LogOf(append(append([]string{"You break the locked door down!"}, f.Log...), "You are in a fight! f fights; there is no running from a room."), nil)
	return v
}

// newestLine is the newest line of the fight's log: it must show, in the battle box or
// under the view.
func newestLine(m *Model) []string {
	log := m.view.Fight.Log
	return log[len(log)-1:]
}

// longLog is the crowded view with more messages than a screen shows.
func longLog(t *testing.T) world.View {
	v := crowdedView(t)
	for i := range 40 {
		v.Log = withLines(v.Log, fmt.Sprintf("%d: %s", i, longLine))
	}
	return v
}

// checkNeeds fails for every text that is whole neither across the screen nor inside
// the battle box.
func checkNeeds(t *testing.T, what, s string, m *Model, texts []string) {
	t.Helper()
	x0, x1 := 0, 0
	if l := m.dun.lay; l.panelH > 0 && m.screen == screenPlay {
		x0, x1 = m.width-fightPanelWidth(m.width)+2, m.width-2
	}
	for _, text := range texts {
		if !wholeIn(s, 0, m.width, text) && (x1 == 0 || !wholeIn(s, x0, x1, text)) {
			t.Errorf("%s: %q is not whole on the screen:\n%s", what, text, s)
		}
	}
}

// checkPanel fails when the battle box beside the view is not whole: a corner or an edge
// written over, or a monster's name begun in it and not ended.
func checkPanel(t *testing.T, what, s string, m *Model) {
	t.Helper()
	l := m.dun.lay
	if !slices.Contains([]screen{screenPlay, screenESP, screenQuit, screenRetire}, m.screen) || l.panelH == 0 {
		return
	}
	rows := strings.Split(s, "\n")
	at := func(x, y int) rune {
		if r := []rune(rows[y]); x < len(r) {
			return r[x]
		}
		return ' '
	}
	pw := fightPanelWidth(m.width)
	x0, x1, y0, y1 := m.width-pw, m.width-1, l.mapTop, l.mapTop+l.panelH-1
	bad := at(x0, y0) != '┌' || at(x1, y0) != '┐' || at(x0, y1) != '└' || at(x1, y1) != '┘'
	for y := y0 + 1; y < y1; y++ {
		bad = bad || at(x0, y) != '│' || at(x1, y) != '│'
	}
	for x := x0 + 1; x < x1; x++ {
		bad = bad || at(x, y1) != '─'
	}
	if bad {
		t.Errorf("%s: the battle box is not whole (its edges are at columns %d-%d, rows %d-%d):\n%s", what, x0, x1, y0, y1, s)
	}
	if f := m.view.Fight; f != nil {
		inside := area(s, x0+2, x1-1)
		for i, mo := range f.Monsters {
			name := monsterLetter(i) + " " + english.Capital(mo.Name)
			if begun := strings.Fields(name)[:2]; strings.Contains(inside, strings.Join(begun, " ")) && !strings.Contains(inside, words(name)) {
				t.Errorf("%s: the battle box begins %q and does not end it:\n%s", what, name, s)
			}
		}
	}
}

// checkTitle checks that the battle box's title says what it is and its round.
func checkTitle(kind string, round int) func(t *testing.T, what string, open func() *Model) {
	return func(t *testing.T, what string, open func() *Model) {
		t.Helper()
		m := open()
		s := frameOf(t, what, m)
		top := strings.Split(s, "\n")[m.dun.lay.mapTop]
		top = string([]rune(top)[m.width-fightPanelWidth(m.width):])
		if !strings.Contains(top, " "+kind) || !strings.Contains(top, fmt.Sprintf(" %d ", round)) {
			t.Errorf("%s: the battle box's title does not say %s and round %d: %q\n%s", what, kind, round, top, s)
		}
	}
}

// checkCentred checks that the knight stands in the middle of the view's columns when
// the level is narrower than the screen, and of its rows when it is lower.
func checkCentred(t *testing.T, what string, open func() *Model) {
	t.Helper()
	m := open()
	s := frameOf(t, what, m)
	l, lv := m.dun.lay, m.view.Level
	for y, row := range strings.Split(s, "\n") {
		i := strings.Index(row, "()")
		if i < 0 {
			continue
		}
		x := len([]rune(row[:i]))
		if lv.W*colsPerSquare+1 <= m.width && (x+1 < m.width/2-2 || x+1 > m.width/2+2) {
			t.Errorf("%s: the knight stands at column %d of %d, a level %d columns wide:\n%s", what, x, m.width, lv.W*colsPerSquare+1, s)
		}
		if mid := l.mapTop + l.mapH/2; lv.H*rowsPerSquare+1 <= l.mapH && (y < mid-1 || y > mid+1) {
			t.Errorf("%s: the knight stands on row %d, the view's middle is %d:\n%s", what, y, mid, s)
		}
		return
	}
	t.Errorf("%s: no knight on the screen:\n%s", what, s)
}

// farEast is a knight at the far east of level 2, which it has only begun to walk: only
// the squares near it are known.
func farEast(t *testing.T) world.View {
	v := crowdedView(t)
	v.Level = world.Generate(2, world.LevelSeed(1977, 2), false)
	v.Self.Pos = world.Pos{X: v.Level.W - 1, Y: v.Level.H / 2}
	v.Known = make([]byte, (v.Level.W*v.Level.H+7)/8)
	for y := range v.Level.H {
		for x := range v.Level.W {
			if abs(x-v.Self.Pos.X) <= 3 && abs(y-v.Self.Pos.Y) <= 2 {
				v.Known[(y*v.Level.W+x)/8] |= 1 << ((y*v.Level.W + x) % 8)
			}
		}
	}
	v.Visible, v.Others, v.Monsters = v.Known, nil, nil
	return v
}

// checkHelpLines checks the help's lesson reads as paragraphs (no line of it ends where
// the next line's first word would have fitted), and that on a phone it is not much
// longer than it needs to be.
func checkHelpLines(t *testing.T, what string, open func() *Model) {
	t.Helper()
	m := open()
	lines, _ := m.helpPage()
	room := m.width - 4
	for i := 1; i < len(lines); i++ {
		prev, next := lines[i-1], lines[i]
		if prev == "" || next == "" || prev[0] == ' ' || next[0] == ' ' {
			continue // a table's lines, or a paragraph's end
		}
		if first := strings.Fields(next)[0]; textWidth(prev)+1+textWidth(first) <= room {
			t.Errorf("%s: a line of the help ends early, %q before %q", what, prev, next)
		}
	}
	if m.width <= 50 && len(lines) > helpLinesMost {
		t.Errorf("%s: the help is %d lines long, more than %d", what, len(lines), helpLinesMost)
	}
}

// helpLinesMost is how long the help may be at a phone's width: the lesson, the keys and
// the monster tables, each laid out for a narrow screen.
const helpLinesMost = 400

// checkStats checks that the statistics show every heading whole at some point of their
// scrolling (a short heading or its long form), and each monster with its mark and
// letter on the line of its name.
func checkStats(t *testing.T, what string, open func() *Model) {
	t.Helper()
	m := open()
	screens := scrolled(m, "down")
	tokens := map[string]bool{}
	for _, s := range screens {
		for _, tok := range strings.Fields(s) {
			tokens[tok] = true
		}
	}
	for _, cols := range [][]column{heroColumns(m.view), monsterColumns(m.view.Fight)} {
		for _, c := range cols {
			if c.short != "" && !tokens[c.short] && !strings.Contains(strings.Join(screens, "\n"), c.long) {
				t.Errorf("%s: the heading %q is whole on none of the %d screens; the first:\n%s", what, c.short, len(screens), screens[0])
			}
		}
	}
	f := m.view.Fight
	for i, mo := range f.Monsters {
		mark := "  " + monsterLetter(i)
		if i == f.Target {
			mark = "> " + monsterLetter(i)
		}
		first := strings.Fields(mo.Name)[0]
		found := false
		for _, s := range screens {
			for _, row := range strings.Split(s, "\n") {
				found = found || strings.Contains(row, mark+" ") && strings.Contains(row, " "+first)
			}
		}
		if !found {
			t.Errorf("%s: no line has %q and %q together:\n%s", what, mark, first, strings.Join(screens, "\n--\n"))
		}
	}
}

// deedful is the crowded view with every deed of the table earned, in the table's order:
// more than any screen shows at once.
func deedful(t *testing.T) world.View {
	v := crowdedView(t)
	for i, r := range world.DeedTable {
		v.Self.Deeds = append(v.Self.Deeds, world.Deed{ID: r.ID, Turn: uint64(i)})
	}
	return v
}
