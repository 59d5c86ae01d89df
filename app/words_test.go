package app

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// prompts are every prompt a line may be typed at.
var prompts = []plainWhen{atPlay, atBattle, atWatch, atStart}

// callAt is line typed at the prompt at, read as the prompt reads it.
func callAt(line string, at plainWhen) plainCall {
	return (&Model{}).plainCall(line, at)
}

// takers are the rows that would take line at the prompt at, by their help.
func takers(line string, at plainWhen) []string {
	var out []string
	for _, r := range plainWords {
		if _, ok := r.takes(callAt(line, at)); ok {
			out = append(out, r.helpSentence())
		}
	}
	return out
}

// No two rows of the words take the same line at the same prompt, so the table's order
// never decides what a word does; and every word of every row is taken where its row
// says, alone or with more after it.
func TestNoTwoWordsTakeTheSameLine(t *testing.T) {
	for _, r := range plainWords {
		if r.help == "" || r.run == nil || r.when == 0 || len(r.words)+len(r.prefixes) == 0 {
			t.Errorf("a row lacks its help, its function, its prompts or its words: %+v", r)
		}
		for _, at := range prompts {
			var lines []string
			for _, w := range r.words {
				lines = append(lines, w, w+" east", w+" party")
			}
			for _, p := range r.prefixes {
				lines = append(lines, p+"hello")
			}
			taken := false
			for _, l := range lines {
				got := takers(l, at)
				if len(got) > 1 {
					t.Errorf("%q at prompt %d is taken by %d rows: %q", l, at, len(got), got)
				}
				taken = taken || slices.Contains(got, r.helpSentence())
			}
			if r.when&at != 0 && !taken {
				t.Errorf("no line of %q is taken by it at prompt %d", r.helpSentence(), at)
			}
		}
	}
}

// Every word screen-reader mode took before its words were one table is taken still,
// where it was: the game's prompt, a battle's, and the watching prompt, which now takes
// the reading words' every form (describe, stats and hp were missing).
func TestEveryWordIsStillTaken(t *testing.T) {
	for _, tc := range []struct {
		at    plainWhen
		words string
	}{
		{atPlay, "n s e w north south east west go walk open door d force search unlock down > descend enter " +
			"up u < climb ascend exit l look where describe st status score stats hp messages msgs msg log map " +
			"f fight attack kill k hit r run flee shoot fire cast c 1 2 3 4 spells spell market wares shop trade buy sell " +
			"i inv inventory items use wear remove read takeoff wield drop retire yes y say shout yell whisper tell " +
			"party p mute unmute who watch options set option settings fame scores hall q quit exit! logout bye " +
			"target aim invite ask accept decline refuse leave disband members group help ? 'hello \"hello /w /invite :stats"},
		{atBattle, "s x stats statistics look target"},
		{atWatch, "stop q quit leave exit unwatch l look where describe st status score stats hp map messages msgs msg log help ?"},
		{atStart, "help ?"},
	} {
		for _, w := range strings.Fields(tc.words) {
			if got := takers(w, tc.at); len(got) != 1 {
				t.Errorf("%q at prompt %d is taken by %q", w, tc.at, got)
			}
		}
	}
	// A battle's stats are its statistics; outside a battle, the knight's status. s is a
	// step south everywhere (issue 29), and s 2 two of them.
	for _, tc := range []struct {
		line string
		at   plainWhen
		want string
	}{
		{"stats", atBattle, "gives every combatant's statistics"}, {"stats", atPlay, "reads your knight"},
		{"s", atBattle, "walk a square"}, {"s", atPlay, "walk a square"}, {"s 2", atPlay, "walk a square"},
		{"shoot", atBattle, "looses an arrow"}, {"west 7", atPlay, "walk a square"},
		{"party", atPlay, "lists the members"}, {"party onward", atPlay, "says it to your party"},
		{"q", atPlay, "leaves the game"}, {"q", atWatch, "stops watching"}, {"exit", atPlay, "takes the stairs up"},
	} {
		if got := takers(tc.line, tc.at); len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%q at prompt %d is taken by %q, want the row that %s", tc.line, tc.at, got, tc.want)
		}
	}
}

// help is made from the words: each prompt's help has every word taken there, with what
// it does, and no word that is not.
func TestHelpIsMadeFromTheWords(t *testing.T) {
	for _, at := range []plainWhen{playing, atWatch} {
		help := strings.Join(plainHelp(at), "\n")
		for _, r := range plainWords {
			if in := strings.Contains(help, r.helpSentence()); in != (r.when&at != 0) {
				t.Errorf("prompt %d: the help has %q: %v", at, r.helpSentence(), in)
			}
		}
	}
	if !slices.Equal(plainHelp(atStart), plainHelp(playing)) {
		t.Error("the way in does not say the game's help")
	}
}

// Watching someone, the reading words work, describe, stats and hp among them, help says
// the watching words only, and another word says which work; stop stops.
func TestWatchingTakesTheReadingWords(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight = nil
	m, rec := viewModel(t, v, 80, 24)
	m.pl.active = true
	watched := v
	watched.Self.Name, watched.Self.Depth = "Gawain", 3
	m.screen, m.watch = screenWatch, watching{seen: new(watched)}
	said := func(line string) string {
		before := len(m.pl.transcript)
		m.plainLine(line)
		return strings.Join(m.pl.transcript[before:], "\n")
	}
	for _, w := range []string{"describe", "look", "l", "where"} {
		if s := said(w); !strings.Contains(s, "You are on level 3") {
			t.Errorf("%s while watching: %q", w, s)
		}
	}
	for _, w := range []string{"stats", "hp", "status", "st"} {
		if s := said(w); !strings.Contains(s, "Gawain") || !strings.Contains(s, "on level 3 of the dungeon") {
			t.Errorf("%s while watching: %q", w, s)
		}
	}
	if s := said("map grid"); !strings.Contains(s, "level 3") {
		t.Errorf("map grid while watching: %q", s)
	}
	if s := said("help"); !strings.Contains(s, "stop (or q, quit, leave, exit, unwatch) stops watching.") || strings.Contains(s, "fight") {
		t.Errorf("help while watching: %q", s)
	}
	if s := said("fight"); s != "You are watching: look, status, map, where, way and messages work, and stop stops watching." {
		t.Errorf("fight while watching: %q", s)
	}
	if cmds, party := rec.sent(); len(cmds)+len(party) != 0 {
		t.Errorf("watching sent %v %v", cmds, party)
	}
	if s := said("stop"); !strings.Contains(s, "You stop watching.") || m.screen != screenPlay {
		t.Errorf("stop: screen %v, %q", m.screen, s)
	}
	m.screen, m.watch = screenWatch, watching{seen: new(watched), only: true}
	if cmd := m.plainLine("quit"); cmd == nil || cmd() != tea.Quit() {
		t.Error("quit does not end a spectator's session")
	}
}
