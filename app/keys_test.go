package app

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The game's keys are one table: every row has its keys, its line of the help and what it
// does; a key two rows share goes to the first only where it applies (the second has
// it elsewhere); and the help shows every row.
func TestGameKeysTable(t *testing.T) {
	owner := map[string]int{}
	for i, r := range gameKeys {
		if len(r.keys) == 0 || r.label == "" || r.help == "" || (r.act == nil) == (r.cmd == nil) {
			t.Errorf("row %q: a field is empty, or it has both an act and a command", r.label)
		}
		if line := fmt.Sprintf("  %-12s  %s", r.label, r.help); !slices.Contains(helpLines, line) {
			t.Errorf("row %q: the help has no line %q", r.label, line)
		}
		for _, k := range r.keys {
			if j, ok := owner[k]; ok && gameKeys[j].when == nil {
				t.Errorf("key %q: row %q never has it, row %q always takes it first", k, r.label, gameKeys[j].label)
			}
			if _, ok := owner[k]; !ok {
				owner[k] = i
			}
		}
		for _, w := range r.words {
			if w.run == nil || w.when == 0 {
				t.Errorf("row %q: a word lacks its function or its prompts: %q", r.label, w.words)
			}
		}
	}
	for _, k := range append(stepKeys(false), stepKeys(true)...) {
		if _, door, ok := keyDir(k); !ok || door != (strings.HasPrefix(k, "shift+") || strings.ToUpper(k) == k) {
			t.Errorf("key %q: no direction, or the wrong door", k)
		}
	}
}

// Issue 28: a phone's keyboard is enough. Every key of the game has a letter, digit or
// sign too (no Esc, Tab, shift+arrow or function key needed), the help lists them in one
// line, and the chat line, the console and a market take Backspace and digits where
// they took Esc and Tab.
func TestAPhoneKeyboardIsEnough(t *testing.T) {
	for _, r := range gameKeys {
		if !slices.ContainsFunc(r.keys, phoneKey) {
			t.Errorf("%s (%v) has no key a phone types", r.label, r.keys)
		}
	}
	line := phoneKeysLine()
	for _, want := range []string{"k j h l walk", "K J H L d open a door", "t T target", "? help", "' chat", "Backspace or q closes a screen", "space and - page a list"} {
		if !strings.Contains(line, want) {
			t.Errorf("the phone's keys line does not say %q: %s", want, line)
		}
	}
	if !slices.Contains(helpLines, line) {
		t.Error("the help does not list the phone's keys")
	}

	m, _ := viewModel(t, crowdedView(t), 40, 20)
	keys(m, "enter", "ab", "backspace", "backspace")
	if !m.chat.open {
		t.Fatal("Backspace on a line with text closed the chat line")
	}
	keys(m, "backspace")
	if m.chat.open {
		t.Error("Backspace on an empty chat line does not close it")
	}
	m.p.Admin = func(string) (string, bool) { return "", true }
	keys(m, ":", "backspace")
	if m.consoleOpen() {
		t.Error("Backspace on an empty console line does not close it")
	}
	// Backspace and q close every screen: TestQAndBackspaceCloseEveryScreen.

	m, _ = viewModel(t, surfaceView(world.Pos{X: 2, Y: 0}), 40, 20)
	keys(m, "b", "2")
	if !m.mk.selling {
		t.Error("2 on a market does not turn to selling")
	}
	keys(m, "1")
	if m.mk.selling {
		t.Error("1 on a market does not turn to buying")
	}
}

// longScreens put a model on each screen of the screens table, at w×h, its list (where
// it has one) longer than the screen and longer than 17 entries, so that q would be a
// letter of it if its letters did not skip q. A screen with no keys (key nil) needs
// none; any other screen of the table without one fails the tests that walk it.
func longScreens(t *testing.T, w, h int) map[screen]func() *Model {
	model := func(v world.View) *Model {
		m, _ := viewModel(t, v, w, h)
		return m
	}
	over := func(v world.View, open func(m *Model)) func() *Model {
		return func() *Model { m := model(v); open(m); return m }
	}
	crowded := crowdedView(t)
	carrying := crowdedView(t)
	for len(carrying.Self.Items) < 30 {
		carrying.Self.Items = append(carrying.Self.Items, allItems()...)
	}
	chatty := crowdedView(t)
	for i := range 80 {
		chatty.Log = withLines(chatty.Log, fmt.Sprintf("Message %d of the long day.", i))
	}
	market := surfaceView(world.Pos{X: 2, Y: 0})
	market.Self.Items = carrying.Self.Items
	var letters []world.Letter
	var who []world.WhoEntry
	var fame []string
	for i := range 30 {
		letters = append(letters, world.Letter{ID: uint64(i + 1), From: fmt.Sprintf("Knight %d", i), Text: "Well met."})
		who = append(who, world.WhoEntry{ID: fmt.Sprintf("SHA256:%d", i), Name: fmt.Sprintf("Knight %d", i), Level: 2, Depth: 1, Watchable: true})
	}
	for i := range 60 {
		fame = append(fame, fmt.Sprintf("%2d  Knight %d  10  900000", i+1, i))
	}
	return map[screen]func() *Model{
		screenTitle:     over(crowded, func(m *Model) { m.screen = screenTitle }),
		screenRoll:      over(crowded, func(m *Model) { m.screen = screenTitle; keys(m, "enter") }),
		screenName:      over(crowded, func(m *Model) { m.screen = screenTitle; keys(m, "enter", "enter") }),
		screenPlay:      over(crowded, func(*Model) {}),
		screenMap:       over(crowded, func(m *Model) { keys(m, "m") }),
		screenHelp:      over(crowded, func(m *Model) { keys(m, "?") }),
		screenInventory: over(carrying, func(m *Model) { keys(m, "i") }),
		screenFame: over(crowded, func(m *Model) {
			m.p.Fame = func() []string { return fame }
			keys(m, "F")
		}),
		screenSpells: over(crowded, func(m *Model) { keys(m, "1") }),
		screenESP:    over(crowded, func(m *Model) { m.screen = screenESP }),
		screenRetire: over(surfaceView(world.Pos{X: 3, Y: 2}), func(m *Model) { keys(m, "R") }),
		screenQuit:   over(crowded, func(m *Model) { keys(m, "q") }),
		screenDead: over(crowded, func(m *Model) {
			m.screen, m.tomb = screenDead, &world.Death{Killer: "a Sabre-tooth Tiger", Depth: 10, Level: 9, Experience: 123456}
		}),
		screenLog:     over(chatty, func(m *Model) { keys(m, "M") }),
		screenWho:     over(crowded, func(m *Model) { m.screen, m.who = screenWho, whoList{entries: who} }),
		screenOptions: over(crowded, func(m *Model) { keys(m, "o") }),
		screenWatch: over(crowded, func(m *Model) {
			m.screen, m.watch = screenWatch, watching{seen: new(crowdedView(t))}
		}),
		screenStats:  over(sixOnSix(t, false), func(m *Model) { keys(m, "x") }),
		screenParty:  over(sixKnights(crowded), func(m *Model) { keys(m, "P") }),
		screenMarket: over(market, func(m *Model) { keys(m, "b", "2") }),
		screenMail:   over(crowded, func(m *Model) { m.screen, m.mail = screenMail, mailState{have: true, letters: letters} }),
		screenSheet:  over(deedful(t), func(m *Model) { keys(m, "C") }),
	}
}

// press presses one key and says whether the session ended with it.
func press(m *Model, k string) (quit bool) {
	for _, msg := range keyMsgs(k) {
		_, cmd := m.Update(msg)
		quit = cmd != nil && reflect.ValueOf(cmd).Pointer() == reflect.ValueOf(tea.Quit).Pointer()
	}
	return quit
}

// standOn are the screens the session stands on rather than over another: q leaves
// the game from them (the dungeon asks first), and Backspace, with nothing under them
// to go back to, does nothing, so that a stray one ends nothing. typing are the text
// fields, where q and Backspace are typed.
var (
	standOn = map[screen]bool{screenTitle: true, screenRoll: true, screenPlay: true, screenDead: true}
	typing  = map[screen]bool{screenName: true}
)

// Backspace or q closes any screen, as the README says: on every screen of the screens
// table that is no text field, q and Backspace each leave it (for the one under it, or,
// q on a screen the session stands on, out of the game), at every size, with lists of 30
// things, letters and knights, whose letters skip q.
func TestQAndBackspaceCloseEveryScreen(t *testing.T) {
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		setups := longScreens(t, w, h)
		for s := range screen(numScreens) {
			setup, ok := setups[s]
			switch {
			case screens[s].key == nil || typing[s]:
				continue
			case !ok:
				t.Fatalf("screen %d of the screens table has no case in longScreens: add one", s)
			}
			for _, k := range []string{"q", "backspace"} {
				m := setup()
				if m.screen != s {
					t.Fatalf("longScreens' case for screen %d opens screen %d", s, m.screen)
				}
				before := m.Text()
				quit := press(m, k)
				left := quit || m.screen != s
				if k == "backspace" && standOn[s] {
					if left || m.Text() != before {
						t.Errorf("%d×%d: Backspace on screen %d, which stands, did something", w, h, s)
					}
					continue
				}
				if !left {
					t.Errorf("%d×%d: %s does not close screen %d:\n%s", w, h, k, s, m.Text())
				}
				// It only closes: no letter picked with it (a reply begun, a thing used).
				if sent := m.bt.to.(*recorder).take(); len(sent) > 0 || m.chat.open {
					t.Errorf("%d×%d: %s on screen %d sent %v, or opened the chat line (%v)", w, h, k, s, sent, m.chat.open)
				}
			}
		}
	}
}

// Space pages down every long list and - pages it back up, keys a phone's keyboard has
// (it has no PgUp), and the list says so: every screen of the screens table with a list,
// at every size, the list longer than the screen.
func TestEveryListPagesBothWays(t *testing.T) {
	for _, sz := range phoneSizes {
		w, h := sz[0], sz[1]
		setups := longScreens(t, w, h)
		for s := range screen(numScreens) {
			list := screens[s].list
			if list == nil {
				continue
			}
			setup, ok := setups[s]
			if !ok {
				t.Fatalf("screen %d of the screens table has no case in longScreens: add one", s)
			}
			m := setup()
			first := m.Text()
			// A list shown from its start pages down and back; one that shows its newest
			// (the log) pages up and back down.
			there, back := "space", "-"
			if list(m).follow {
				there, back = "-", "space"
			}
			press(m, there)
			paged, says := m.screen == s && m.Text() != first, strings.Contains(first, pageKeysHint)
			switch {
			case paged && !says:
				t.Errorf("%d×%d: screen %d's list pages, and does not say %q pages it:\n%s", w, h, s, pageKeysHint, first)
			case !paged && (says || w == MinWidth):
				t.Errorf("%d×%d: %s does not page screen %d's list:\n%s", w, h, there, s, m.Text())
			}
			if !paged {
				continue
			}
			press(m, back)
			if m.screen != s || m.Text() != first {
				t.Errorf("%d×%d: %s does not page screen %d's list back:\n%s\nwant:\n%s", w, h, back, s, m.Text(), first)
			}
		}
	}
}
