package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// help alone is short (issue 29: 725 words, four minutes to hear): the topics and ten
// commands to start with, in at most 80 words. Each topic answers with its part of the
// lesson and its words, and no topic repeats the whole help.
func TestHelpByTopic(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight = nil
	m, _ := viewModel(t, v, 80, 24)
	m.pl.active = true
	said := func(line string) string {
		n := len(m.pl.transcript)
		enterLine(m, line)
		return strings.Join(m.pl.transcript[n+1:], "\n")
	}
	index := said("help")
	if n := len(strings.Fields(index)); n > 80 {
		t.Errorf("help alone is %d words, want at most 80:\n%s", n, index)
	}
	for _, topic := range []string{"fighting", "spells", "doors", "traps", "monsters", "party", "talking", "map"} {
		if !strings.Contains(index, topic) {
			t.Errorf("help alone does not name the topic %s:\n%s", topic, index)
		}
	}
	all := said("help all")
	for topic, want := range map[string][]string{
		"fighting":          {"rolls over 6", "fight (or f, attack, kill, k, hit) strikes at your target."},
		"spells":            {"Level 1 spells", "cast 1 e"},
		"doors":             {"Locked doors lead into rooms", "open DIRECTION"},
		"traps":             {"bear trap", "levitation"},
		"monsters":          {"Eight classes of monsters live in the dungeon: Insect", "On dungeon level 2 the monsters met are of level 1", "help monsters undead", "help monster giant ant"},
		"monsters insect":   {"Insect: Giant Ant (level 1)"},
		"monster giant ant": {"Giant Ant, Insect: level 1, hit dice 1d8, attack 1d4, Dexterity 8, 25 experience, speed +0, 1 attack a round."},
		"party":             {"A party fights together", "invite NAME invites a knight"},
		"talking":           {"say TEXT", "whisper NAME TEXT"},
		"map":               {"map grid", "where (or position) says your square", "way exit (or route)"},
	} {
		s := said("help " + topic)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("help %s lacks %q:\n%s", topic, w, s)
			}
		}
		if len(s) >= len(all) {
			t.Errorf("help %s is as long as all the help (%d characters)", topic, len(s))
		}
	}
	if s := said("help monsters"); len(strings.Fields(s)) > 80 {
		t.Errorf("help monsters is %d words, want a short list (at most 80):\n%s", len(strings.Fields(s)), s)
	}
	if s := said("help knitting"); !strings.Contains(s, `There is no help on "knitting".`) || !strings.Contains(s, "Type help and a topic") {
		t.Errorf("help of no topic said %q", s)
	}
}

// quit asks, as the full screen does, and says the knight is saved; yes (or quit again)
// leaves, anything else stays.
func TestQuitAsksAndReassures(t *testing.T) {
	m, _ := viewModel(t, twoOnTwo(t), 80, 24)
	m.pl.active = true
	if cmd := m.plainLine("quit"); cmd != nil {
		t.Fatal("quit left without asking")
	}
	if s := m.plainText(); !strings.Contains(s, "Leave the game for now? Your knight is saved where it stands. Type yes to leave") {
		t.Fatalf("quit asked %q", s)
	}
	if cmd := m.plainLine("look"); cmd != nil {
		t.Fatal("another line after quit left")
	}
	m.plainLine("quit")
	if cmd := m.plainLine("yes"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("yes did not leave")
	}
	if s := m.plainText(); !strings.Contains(s, "Your knight is saved where it stands. Farewell.") {
		t.Fatalf("leaving said %q", s)
	}
	m.plainLine("quit")
	if cmd := m.plainLine("quit"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("quit, quit did not leave")
	}
}

// The hall of fame is said as sentences, not a table read cell by cell.
func TestFameIsSaidAsSentences(t *testing.T) {
	got := fameSentences([]string{
		"RANK  NAME          LEVEL  EXPERIENCE  KILLS  RETIRED",
		"1     Kay the Bold  3      12000       80%    2026-12-01  (yours)",
		"2     Bors          2      4000        50%    2026-11-30",
	})
	want := []string{
		"1. Kay the Bold, level 3, 12000 experience, 80% of it from kills, retired 2026-12-01 (yours).",
		"2. Bors, level 2, 4000 experience, 50% of it from kills, retired 2026-11-30.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the hall of fame said as:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := fameSentences([]string{"No knight has retired yet."}); got[0] != "No knight has retired yet." {
		t.Fatalf("no fame said as %q", got)
	}
}
