package app

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The title asks "Do you use a screen reader? y/N": y turns the mode on there and then;
// the start is spoken, the knight enters, and the game answers typed words in sentences,
// with no drawing at all. The choice is kept with the knight.
func TestTitleYesTurnsOnScreenReaderMode(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:reader", Params{})
	d := newDriver(t, m)
	if s := m.Text(); !strings.Contains(s, "Do you use a screen reader? y/N") || !strings.Contains(s, "Press Enter to begin") {
		t.Fatalf("title:\n%s", s)
	}
	d.key("y")
	if !m.pl.active || m.term.mode != termPlain {
		t.Fatal("y did not turn screen-reader mode on")
	}
	d.waitOut("Screen-reader mode is on", "Press Enter to begin.")
	d.line("")
	d.waitOut("The dice have spoken: Strength")
	d.line("r")
	if strings.Count(d.out(), "The dice have spoken") != 2 {
		t.Fatalf("r did not roll again:\n%s", d.out())
	}
	d.line("")
	d.waitOut("Name your knight")
	d.line("Percival")
	d.waitOut("Welcome, Percival.", "You are on level 1,")
	d.line("look")
	d.line("status")
	d.line("map")
	d.line("map grid")
	d.line("help")
	d.line("messages")
	s := d.waitOut("> look", "Percival, a level 1 knight", "Your map of level 1", "Type help and a topic", "The last ")
	if strings.Count(s, "You are on level 1,") < 2 {
		t.Fatalf("look did not answer with a sentence:\n%s", s)
	}
	if r, ok := boxDrawing(d.term.String()); ok {
		t.Fatalf("screen-reader mode drew %q:\n%s", r, s)
	}
	// Issue 14: each key typed rewrote the whole line ("\r ESC[2K > Pe", then "> Per"),
	// which a screen reader may read out again every time. Typed characters are echoed as
	// they come, a backspace as backspace-space-backspace, and Enter leaves the typed line
	// as it is and starts the next.
	before := len(d.term.String())
	d.key("hel")
	if got := d.term.String()[before:]; got != "hel" {
		t.Fatalf("typing h, e, l wrote %q, want just the characters", got)
	}
	before = len(d.term.String())
	d.key("backspace")
	if got := d.term.String()[before:]; got != "\b \b" {
		t.Fatalf("a backspace wrote %q", got)
	}
	d.key("lp")
	before = len(d.term.String())
	d.key("enter")
	if got := d.term.String()[before:]; !strings.HasPrefix(got, "\r\n") || strings.Contains(got, plainPrompt+"help") {
		t.Fatalf("Enter wrote the typed line again: %q", got)
	}
	d.waitOut("Type help and a topic")
	rec, _, err := m.Leave(context.Background())
	if err != nil || !rec.Options.Plain {
		t.Fatalf("the choice was not kept with the knight: %+v, %v", rec.Options, err)
	}
}

// Typed words do everything keys do: walking (and arrows), doors, stairs, fights and
// spells, inventory, chat, options; an unknown word is answered, not ignored.
func TestPlainCommandsReachTheWorld(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:reader", Params{Plain: true})
	d := newDriver(t, m)
	d.waitOut("Screen-reader mode is on")
	d.line("")
	d.line("")
	d.line("Lamorak")
	d.waitOut("Welcome, Lamorak.")
	start := m.view.Self.Pos
	for _, w := range []string{"n", "s", "e", "w"} {
		d.line(w)
	}
	d.key("up", "down", "left", "right")
	d.waitOut("> n", "> w")
	d.line("cast 1 e")
	d.waitOut("you are on level 1 of the dungeon")
	d.line("fight")
	d.waitOut("There is nothing here to fight.")
	d.line("inventory")
	d.waitOut("You carry")
	d.line("frobnicate")
	d.waitOut(`I do not know "frobnicate"`)
	d.line("retire")
	d.waitOut("You can retire only outside the dungeon")
	d.line("say hello")
	d.waitOut("You say: hello")
	d.line("/w Nobody hi")
	d.waitOut("No knight named Nobody is in the game.")
	d.line("options")
	d.waitOut("Options: Screen-reader mode: on")
	if m.view.Self.Pos == start && !strings.Contains(d.out(), "blocks the way") {
		t.Fatalf("no step was taken or refused:\n%s", d.out())
	}
	d.line("set plain off")
	d.waitOut("Turn screen-reader mode off?", "To come back, press o for the options and then a")
	if !m.pl.active {
		t.Fatal("set plain off turned the mode off without asking")
	}
	d.line("no")
	d.line("set plain off")
	d.line("yes")
	d.settle()
	if m.pl.active || m.term.mode != termFull {
		t.Fatal("set plain off did not go back to the full screen")
	}
	if s := m.Text(); !strings.Contains(s, "Lamorak │ Level 1") {
		t.Fatalf("the full screen after screen-reader mode:\n%s", s)
	}
}

// Lines are printed in the order they were said, each once, above the input line, which
// is written again under them; the full screen is left first.
func TestPlainPrintsLinesInOrderAboveThePrompt(t *testing.T) {
	var out bytes.Buffer
	m := playModel(t, nil, "", Params{Out: &out})
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	m.View()
	if m.term.mode != termFull {
		t.Fatal("the title was not drawn on the full screen")
	}
	m.setOptions(world.Options{Plain: true})
	m.say("first")
	m.View()
	m.say("second", "third")
	m.View()
	got := out.String()
	i := strings.Index(got, leaveFull)
	if i < 0 {
		t.Fatalf("the full screen was not left: %q", got)
	}
	left := leaveFull + ansi.ResetModeBracketedPaste
	if !strings.Contains(got[i:], left+"ORTHANC") || !strings.Contains(got[i:], "your question.\r\nfirst\r\n") {
		t.Fatalf("first not printed: %q", got[i:])
	}
	if !strings.HasSuffix(got, "\rsecond\r\nthird\r\n"+plainPrompt) {
		t.Fatalf("second and third not printed in order above the prompt: %q", got[i:])
	}
	if esc := strings.IndexByte(got[i+len(left):], 0x1b); esc >= 0 {
		t.Fatalf("screen-reader mode wrote an escape sequence: %q", got[i+len(left):])
	}
	n := out.Len()
	m.View()
	if out.Len() != n {
		t.Fatalf("nothing new to say, and the terminal was written to: %q", out.String()[n:])
	}
}

func TestParseChat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind world.ChatKind
		to   string
		text string
		note string
		mute string
	}{
		{in: "hello there", kind: world.ChatSay, text: "hello there"},
		{in: "/shout to arms", kind: world.ChatShout, text: "to arms"},
		{in: "/SH to arms", kind: world.ChatShout, text: "to arms"},
		{in: "/w Bors meet me", kind: world.ChatWhisper, text: "Bors meet me"},
		{in: `/tell "Gawain the Bold" meet me`, kind: world.ChatWhisper, to: "Gawain the Bold", text: "meet me"},
		{in: "/p onward", kind: world.ChatParty, text: "onward"},
		{in: "/mute Bors", mute: "Bors"},
		{in: "/frob x", note: "/frob is not a chat command"},
		{in: "/help", note: "/shout TEXT reaches everyone"},
	} {
		a := parseChat(tc.in)
		switch n, isNote := a.(chatNote); {
		case tc.note != "":
			if !isNote || !strings.Contains(string(n), tc.note) {
				t.Errorf("%q: %#v, want a note with %q", tc.in, a, tc.note)
			}
		case tc.mute != "":
			if a != (chatMute{tc.mute, true}) {
				t.Errorf("%q: %#v, want to mute %q", tc.in, a, tc.mute)
			}
		case a != chatSay{Kind: tc.kind, To: tc.to, Text: tc.text}:
			t.Errorf("%q: %#v", tc.in, a)
		}
	}
}

// The chat line's table: no word is two rows', each a lower-case word with the slash,
// and the help names every row in its clause.
func TestChatCommandsTable(t *testing.T) {
	seen := map[string]string{}
	for _, c := range chatCommands {
		if len(c.words) == 0 || c.usage == "" || c.help == "" || c.parse == nil {
			t.Errorf("row %q: a field is empty", c.words)
			continue
		}
		if !strings.Contains(chatHelp, c.usage+" "+c.help) || !strings.Contains(c.usage, c.words[0]) {
			t.Errorf("row %q: the help does not name it as %q", c.words[0], c.usage)
		}
		for _, w := range c.words {
			if prev, ok := seen[w]; ok {
				t.Errorf("%s is a word of %s and of %s", w, prev, c.words[0])
			}
			seen[w] = c.words[0]
			if w != strings.ToLower(w) || !strings.HasPrefix(w, "/") || strings.Contains(w, " ") {
				t.Errorf("%q: not a lower-case word with a slash", w)
			}
		}
	}
}

// Every spelling of every row, typed in any case, alone or with text, does what its row
// reads, and what the row's first spelling does (but a channel's name talks on its own
// channel, #name too).
func TestChatSpellingsDoTheirRows(t *testing.T) {
	for _, c := range chatCommands {
		for _, w := range c.words {
			for _, rest := range []string{"", "Bors hi"} {
				want := c.parse(w, rest)
				got := parseChat(strings.ToUpper(w) + " " + rest)
				if n, _ := got.(chatNote); !reflect.DeepEqual(got, want) || strings.Contains(string(n), "not a chat command") {
					t.Errorf("%s %q: %+v, want %+v", strings.ToUpper(w), rest, got, want)
				}
				if first := c.parse(c.words[0], rest); rest != "" && world.ChannelNamed(w[1:]) == nil && !reflect.DeepEqual(want, first) {
					t.Errorf("%s %q: %+v, but %s does %+v", w, rest, want, c.words[0], first)
				}
			}
		}
	}
	for _, ch := range world.Channels {
		for _, in := range []string{"/" + ch.Name + " hi", "/#" + strings.ToUpper(ch.Name) + " hi"} {
			if a := parseChat(in); a != (chatSay{Kind: world.ChatChannel, To: ch.Name, Text: "hi"}) {
				t.Errorf("%s: %+v", in, a)
			}
		}
	}
}

// Screen-reader mode's talking words are chat commands without the slash, and the open
// chat line's reminder names commands.
func TestChatWordsElsewhereAreCommands(t *testing.T) {
	wordChat := reflect.ValueOf((*Model).wordChat).Pointer()
	for _, r := range plainWords {
		if r.run == nil || reflect.ValueOf(r.run).Pointer() != wordChat {
			continue
		}
		for _, w := range r.words {
			if chatByWord["/"+w] == nil {
				t.Errorf("screen-reader word %q: /%s is not a chat command", w, w)
			}
		}
	}
	for _, f := range strings.FieldsFunc(chatLineHelp, func(r rune) bool { return r == ' ' || r == ',' }) {
		if strings.HasPrefix(f, "/") && chatByWord[f] == nil {
			t.Errorf("the chat line's reminder names %s, not a command", f)
		}
	}
}

// fakeNames is a name book: the names other keys own.
type fakeNames map[string]bool

func (f fakeNames) Taken(name string) bool { return f[world.NameKey(name)] }
func (f fakeNames) Claim(name string) bool {
	if f[world.NameKey(name)] {
		return false
	}
	f[world.NameKey(name)] = true
	return true
}

// A name another knight has (or one that looks like it) is refused at the prompt with a
// reason, and the suggestion is always a free name.
func TestTakenNameIsRefused(t *testing.T) {
	e, _ := runWorld(t)
	names := fakeNames{world.NameKey("Percival"): true}
	for _, n := range []string{"Gawain", "Lancelot", "Bors", "Tristan", "Galahad", "Bedivere", "Gareth", "Lamorak", "Kay",
		"Ywain", "Dagonet", "Pelleas", "Lucan", "Gaheris", "Agravain", "Safir", "Palamedes", "Ector", "Lionel", "Tor",
		"Caradoc", "Erec", "Geraint"} {
		for _, ep := range []string{"Bold", "Brave", "Just", "Red", "Grey", "Young", "Tall", "Wise", "Swift", "Stout"} {
			names[world.NameKey(n+" the "+ep)] = true
		}
	}
	m := playModel(t, e, "SHA256:test", Params{Names: names})
	d := newDriver(t, m)
	d.key("enter", "enter")
	if names.Taken(m.rolled.suggested) {
		t.Fatalf("suggested a taken name: %q", m.rolled.suggested)
	}
	d.key("PERC1VAL", "enter")
	if s := m.Text(); m.screen != screenName || !strings.Contains(s, "That name is taken") {
		t.Fatalf("a look-alike of a taken name was not refused:\n%s", s)
	}
}

// The options screen changes the theme, the colours, the key line, spectators and mutes;
// the world keeps them with the knight.
func TestOptionsScreen(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:opts", Params{})
	d := newDriver(t, m)
	d.key("enter", "enter", "enter")
	if !strings.Contains(m.Text(), keyHelp) {
		t.Fatalf("no key line:\n%s", m.Text())
	}
	d.key("o")
	if s := m.Text(); !strings.Contains(s, "OPTIONS") || !strings.Contains(s, "Screen-reader mode   off") {
		t.Fatalf("options screen:\n%s", s)
	}
	d.key("b", "d", "e", "f", "Bors", "enter")
	d.send(tea.KeyPressMsg{Code: 'c', Text: "c"})
	d.settle()
	o := m.opts
	if o.Theme != themeContrast || !o.HideKeys || !o.NoSpectators || o.Colour != "truecolor" || !o.Mutes("bors") {
		t.Fatalf("options now %+v", o)
	}
	// The terminal reports its own profile: the forced one stays.
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
	if p, _ := m.profile(); p != colorprofile.TrueColor || !strings.Contains(m.theme.open[clsText], "38;2;") {
		t.Fatalf("a forced colour profile was not kept: %v, %q", p, m.theme.open[clsText])
	}
	d.key("x")
	if s := m.Text(); strings.Contains(s, keyHelp) {
		t.Fatalf("the key line is still shown:\n%s", s)
	}
	who, err := e.Who(context.Background())
	if err != nil || len(who) != 1 || who[0].Watchable {
		t.Fatalf("the world does not know spectators are off: %+v %v", who, err)
	}
	rec, _, _ := m.Leave(context.Background())
	if !rec.Options.NoSpectators || rec.Options.Theme != themeContrast {
		t.Fatalf("saved options %+v", rec.Options)
	}
}

// A player picks another from the who-list and watches their screen, read-only, at its own
// size; the watched player's screen says who watches; Esc goes back.
func TestWatchFromTheWhoList(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	a := playModel(t, e, "SHA256:a", Params{})
	da := newDriver(t, a)
	da.key("enter", "enter", "Gawain", "enter")
	b := playModel(t, e, "SHA256:b", Params{})
	b.width, b.height = 120, 40
	db := newDriver(t, b)
	db.key("enter", "enter", "Bors", "enter")
	db.key("w")
	if s := b.Text(); !strings.Contains(s, "WHO IS IN THE GAME") || !strings.Contains(s, "Gawain") {
		t.Fatalf("who-list:\n%s", s)
	}
	db.key("a")
	if s := b.Text(); b.screen != screenWatch || !strings.Contains(s, "WATCHING Gawain") || strings.Count(s, "\n") != 39 {
		t.Fatalf("watch screen:\n%s", s)
	}
	da.settle()
	if s := a.Text(); !strings.Contains(s, "Watched by Bors") {
		t.Fatalf("the watched player does not see the watcher:\n%s", s)
	}
	db.key("x") // read-only: nothing happens
	if b.screen != screenWatch {
		t.Fatal("a key left the watch screen")
	}
	db.key("esc")
	if b.screen != screenPlay {
		t.Fatal("Esc did not stop watching")
	}
	da.settle()
	if s := a.Text(); strings.Contains(s, "Watched by") {
		t.Fatalf("still watched after Esc:\n%s", s)
	}
}

// A line entered is left as typed, and the prompt comes back only with its answer (issue
// 29: a prompt written and erased 18 ms later was heard 456 times in 17 minutes): at
// once for an answer the session knows, with the world's view for a step, and after
// plainPromptWait when the world says nothing.
func TestThePromptComesAfterTheAnswer(t *testing.T) {
	var out bytes.Buffer
	v := twoOnTwo(t)
	v.Fight = nil
	m, rec := viewModel(t, v, 80, 24)
	m.term.out = &out
	m.pl.active = true
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	m.View()
	written := func() string {
		s := out.String()
		out.Reset()
		return s
	}
	written()
	if !m.term.promptOK {
		t.Fatal("no prompt at the start")
	}
	for _, r := range "status" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		m.View()
	}
	m.Update(namedKeys["enter"])
	m.View()
	if got := written(); !strings.HasPrefix(got, "status\r\n") || !strings.HasSuffix(got, "\r\n"+plainPrompt) || !strings.Contains(got, "Sir Kay, a level 3 knight") {
		t.Fatalf("status answered with %q, want the answer and then the prompt", got)
	}

	for _, r := range "west" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		m.View()
	}
	written()
	_, cmd := m.Update(namedKeys["enter"])
	m.View()
	if got := written(); got != "\r\n" {
		t.Fatalf("west, sent to the world, wrote %q before its answer, want the line left as typed", got)
	}
	if len(rec.take()) != 1 || cmd == nil {
		t.Fatal("west sent no command, or no wait for its answer")
	}
	step := v
	step.Self.Pos.X--
	step.Turn++
	m.ownView(step)
	m.View()
	if got := written(); !strings.HasPrefix(got, "West. ") || !strings.HasSuffix(got, "\r\n"+plainPrompt) {
		t.Fatalf("the step was told as %q, want its lines and then the prompt", got)
	}

	// An answer that never comes: the prompt after plainPromptWait, once.
	for _, r := range "fight" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		m.View()
	}
	written()
	m.Update(namedKeys["enter"])
	m.View()
	written()
	m.Update(plainPromptMsg(m.pl.awaited - 1)) // an older line's: not this one's
	m.View()
	if got := written(); got != "" {
		t.Fatalf("an older line's wait wrote %q", got)
	}
	m.Update(plainPromptMsg(m.pl.awaited))
	m.View()
	if got := written(); got != plainPrompt {
		t.Fatalf("the wait ended with %q, want the prompt", got)
	}
	// News while the player types comes over the typed line, which follows it again.
	m.Update(tea.KeyPressMsg{Code: 'l', Text: "l"})
	m.View()
	written()
	m.say("A Wolf howls.")
	m.View()
	if got := written(); got != "\rA Wolf howls.\r\n"+plainPrompt+"l" {
		t.Fatalf("news while typing wrote %q", got)
	}
}

// The world's lines that name a sighted player's keys (issue 29: "i to drink it", "/mail
// reads it", the newbie channel's welcome) are said in screen-reader mode as the words it
// types, and the words named are words it takes.
func TestKeyHintsAreSaidAsWords(t *testing.T) {
	for _, c := range []struct{ world, word string }{
		{"Stairs lead down from here. Press > to descend.", "down"},
		{"The exit is here. Press < to climb out of the dungeon.", "up"},
		{"You find a scroll of light. (i to read it)", "use"},
		{"You buy a potion of healing for 60 gold. (i to drink it)", "use"},
		{"A letter from Bors has come. (/mail reads it.)", "mail"},
		{"You are away. The next key you press brings you back.", ""},
		{"You are on the newbie channel, where questions are welcome: /newbie TEXT asks everyone on it. (/channels lists the channels.)", "newbie"},
		{"You are on newbie and ooc. (/channels lists the channels; /NAME TEXT talks on one.)", "channels"},
	} {
		said := plainMessage(c.world)
		for _, key := range []string{"Press", "press ", "(i ", "/mail", "/newbie", "/channels", "next key"} {
			if strings.Contains(said, key) {
				t.Errorf("%q is said %q, still naming %q", c.world, said, key)
			}
		}
		if c.word != "" && !strings.Contains(said, "ype "+c.word) {
			t.Errorf("%q is said %q, without the word %q", c.world, said, c.word)
		} else if c.word != "" && !slices.ContainsFunc(plainWords, func(w plainWord) bool { return slices.Contains(w.words, c.word) }) {
			t.Errorf("%q is said with %q, which screen-reader mode does not take", c.world, c.word)
		}
	}
}

// writeLog is a terminal that keeps each write apart.
type writeLog []string

func (w *writeLog) Write(p []byte) (int, error) {
	*w = append(*w, string(p))
	return len(p), nil
}

// A line typed in one burst in screen-reader mode (a paste, a fast typist, a screen
// reader's own echo; issue 44) is echoed once, as typed: its first key at once, the rest
// with Enter, appended to it, and not the whole line written again over the prompt
// ("\r> north 9"), which a screen reader reads a second time. Typed a key at a time, each
// key is echoed once, as it comes. Keys' frames are paced as the server's sessions pace
// them (KeyFrameGap), on the test's clock.
func TestABurstIsEchoedOnce(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight = nil
	for _, c := range []struct {
		name  string
		gap   time.Duration // between two keys
		pause bool          // the held frame is drawn before Enter
	}{
		{"in one burst", 0, false},
		{"in one burst, Enter after a pause", 0, true},
		{"a key at a time", 200 * time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := viewModel(t, v, 80, 24)
			now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
			var out writeLog
			m.term.out, m.pacing.gap = &out, KeyFrameGap
			m.p.Now = func() time.Time { return now }
			m.pl.active = true
			m.Update(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
			m.View()
			out = nil
			now = now.Add(time.Second)
			for _, msg := range keyMsgs("north 9") {
				m.Update(msg)
				m.View()
				now = now.Add(c.gap)
			}
			if c.pause {
				now = now.Add(KeyFrameGap)
				m.Update(frameDueMsg{})
				m.View()
			}
			m.Update(namedKeys["enter"])
			m.View()
			echo := strings.Join(out, "")
			if !strings.HasPrefix(echo, "north 9\r\n") || strings.Count(echo, "north 9") != 1 {
				t.Fatalf("north 9 was echoed as %q, want its keys once each and the line ended", out)
			}
			if c.gap == 0 && !c.pause && len(out) != 2 {
				t.Fatalf("in one burst, the keys and Enter took %d writes (%q), want 2: the first key's and Enter's, no frame added", len(out), out)
			}
			if c.gap > 0 && !slices.Equal(out[:7], []string{"n", "o", "r", "t", "h", " ", "9"}) {
				t.Fatalf("typed a key at a time, the keys were echoed as %q, want each as it came", out)
			}
		})
	}
}
