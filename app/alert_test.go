package app

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A line of the message log is a call to the knight by its kind and its words, never by
// words alone: a whisper to it, its name as a word in what another knight says, an
// invitation or a request; its own lines and the world's are none.
func TestCallIn(t *testing.T) {
	for _, c := range []struct {
		line, self string
		kind       world.MsgKind
		want       callKind
		from       string
		ok         bool
	}{
		{"Lis whispers: are you there?", "Kay", world.MsgWhisper, callWhisper, "Lis", true},
		{"Gawain (in Avalon) whispers: hi", "Kay", world.MsgWhisper, callWhisper, "Gawain (in Avalon)", true},
		{"You whisper to Lis: hello", "Kay", world.MsgWhisper, 0, "", false},
		{"Lis says: Kay, over here", "Kay", world.MsgGame, callMention, "Lis", true},
		{"Lis says: where is kay's sword?", "Kay", world.MsgGame, callMention, "Lis", true},
		{"Lis says: okay then", "Kay", world.MsgGame, callTalk, "Lis", true},
		{"Kaye says: hello", "Kay", world.MsgGame, callTalk, "Kaye", true},
		{"Lis shouts: help, Sir Kay!", "Sir Kay", world.MsgGame, callMention, "Lis", true},
		{"Lis shouts: help, Kay!", "Sir Kay", world.MsgGame, callTalk, "Lis", true},
		{"Gawain (in Avalon) shouts: KAY", "Kay", world.MsgGame, callMention, "Gawain (in Avalon)", true},
		{"You say: Kay here", "Kay", world.MsgGame, 0, "", false},
		{"Lis says: Kay", "Kay", world.MsgOwn, 0, "", false}, // not a line said
		{"The troll hits Kay for 3.", "Kay", world.MsgGame, 0, "", false},
		{"Kay joins the game.", "Kay", world.MsgComing, 0, "", false},
		{"[newbie] Lis: kay, the exit is east", "Kay", world.MsgChannel, callMention, "Lis", true},
		{"[newbie] Kay: where is the exit? Kay", "Kay", world.MsgChannel, 0, "", false}, // its own line
		{"The last 2 lines said on newbie:", "Kay", world.MsgChannel, 0, "", false},
		{"Lis (party): Kay, fight!", "Kay", world.MsgParty, callMention, "Lis", true},
		{"Lis (party): fight!", "Kay", world.MsgParty, callTalk, "Lis", true},
		{"Lis invites you to join the party. (/accept Lis or /decline Lis)", "Kay", world.MsgParty, callInvite, "Lis", true},
		{"Lis asks to join your party. (/accept Lis or /decline Lis)", "Kay", world.MsgParty, callAsk, "Lis", true},
		{"You invite Lis to join the party.", "Kay", world.MsgParty, 0, "", false},
		{"Lis says: Lis invites you to join the party. (", "Kay", world.MsgParty, 0, "", false},
	} {
		k, from, ok := callIn(c.line, c.kind, c.self)
		if ok != c.ok || (ok && (k != c.want || from != c.from)) {
			t.Errorf("callIn(%q, %d, %q) = %d, %q, %v; want %d, %q, %v", c.line, c.kind, c.self, k, from, ok, c.want, c.from, c.ok)
		}
	}
}

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"Kay", "Kay", true},
		{"hi kay!", "Kay", true},
		{"KAY's turn", "Kay", true},
		{"okay", "Kay", false},
		{"Kaye", "Kay", false},
		{"kay2", "Kay", false},
		{"okay, Kay", "Kay", true}, // the second is a word
		{"gawain the bold, come", "Gawain the Bold", true},
		{"gawain, come", "Gawain the Bold", false},
		{"éKay", "Kay", false},
		{"", "Kay", false},
		// Names and words beyond ASCII: a letter of any script joins a word; lowering is
		// rune for rune, as strings.ToLower's.
		{"ÉLISE, à toi", "Élise", true},
		{"élise's shield", "Élise", true},
		{"Élisette", "Élise", false},
		{"merci Élise", "élise", true},
		{"ΣΟΦΊΑ!", "Σοφία", true},
		{"σοφίαα", "Σοφία", false},
		{"ask ÆRWYN", "Ærwyn", true},
		{"Kayé", "Kay", false},
		{"Kay·s", "Kay", true},    // a middle dot is no letter
		{"\u212aay", "Kay", true}, // the Kelvin sign lowers to k
		{"İlhan geldi", "ilhan", true},
		{"\xffKay\xfe", "Kay", true}, // bytes that are no UTF-8 are no letters
		{"Kay\u0301", "Kay", true},   // a combining mark after is no letter either
		{"竜Kay", "Kay", false},
		{"竜 Kay", "Kay", true},
		{"Kay2", "Kay", false},
		{"Dragonslayer", "竜", false},
		{"the 竜 sleeps", "竜", true},
	} {
		if got := mentions(c.text, c.name); got != c.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
		if got, want := mentions(c.text, c.name), mentionsLowered(c.text, c.name); got != want {
			t.Errorf("mentions(%q, %q) = %v, lowered copies say %v", c.text, c.name, got, want)
		}
	}
}

// mentionsLowered is mentions as it was first written, on lowered copies of the text and
// the name: what mentions must answer without making them.
func mentionsLowered(text, name string) bool {
	if name == "" {
		return false
	}
	t, n := strings.ToLower(text), strings.ToLower(name)
	letter := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for from := 0; from < len(t); {
		i := strings.Index(t[from:], n)
		if i < 0 {
			return false
		}
		at, end := from+i, from+i+len(n)
		before, nb := utf8.DecodeLastRuneInString(t[:at])
		after, na := utf8.DecodeRuneInString(t[end:])
		if !(nb > 0 && letter(before)) && !(na > 0 && letter(after)) {
			return true
		}
		from = at + 1
	}
	return false
}

// FuzzMentions holds mentions to the lowered copies' answer for any text and name.
func FuzzMentions(f *testing.F) {
	for _, c := range [][2]string{{"hi kay!", "Kay"}, {"okay, Kay", "Kay"}, {"ΣΟΦΊΑ!", "Σοφία"},
		{"\u212aay", "Kay"}, {"İlhan", "ilhan"}, {"\xffKay", "Kay"}, {"gawain the bold", "Gawain the Bold"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		if got, want := mentions(text, name), mentionsLowered(text, name); got != want {
			t.Errorf("mentions(%q, %q) = %v, lowered copies say %v", text, name, got, want)
		}
	})
}

// Reading a view's new lines for calls makes nothing: a crowd's talk is a view a line on
// every session near it, and each line was lowered whole, the calls gathered in a slice.
func TestCallsMakeNothing(t *testing.T) {
	e := world.New(world.Config{Seed: 1977, Depth: 3})
	views := crowdViews(t, e, "Bedivere", 16)
	m := playModel(t, nil, "SHA256:bedivere", Params{Width: 80, Height: 24})
	m.alert.lastKey = m.now().Add(-time.Hour) // away from the keys: every call marks
	m.opts.Bell = bellAll
	i, seen := 0, 0
	next := func() { // eight new lines a view: one of each the crowd says (crowdLog)
		v := &views[i%len(views)]
		v.Said = uint64(1000 + 8*i)
		m.calls(v, func(call) { seen++ })
		i++
	}
	next()
	if allocs := testing.AllocsPerRun(200, next); allocs != 0 {
		t.Errorf("reading a view's eight new lines for calls makes %.1f allocations, want none", allocs)
	}
	if seen == 0 {
		t.Fatal("the crowd's lines made no calls")
	}
}

// alertSession is Sir Kay's session on an 80×24 terminal whose bytes the test reads,
// with a clock the test moves, and a first view with no message.
type alertSession struct {
	t   *testing.T
	m   *Model
	out *bytes.Buffer
	now time.Time
	v   world.View
}

func newAlertSession(t *testing.T) *alertSession {
	t.Helper()
	s := &alertSession{t: t, out: &bytes.Buffer{}, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	s.m = playModel(t, nil, "SHA256:kay", Params{Out: s.out, Now: func() time.Time { return s.now }})
	s.m.bt.to = &recorder{}
	s.m.screen, s.m.synced = screenPlay, true
	s.m.Update(tea.ColorProfileMsg{Profile: colorprofile.ASCII})
	s.v = world.View{Self: world.Self{Name: "Kay", Level: 1, Hits: 9, MaxHits: 9}, Said: 3, Log: world.LogOf([]string{"a", "b", "c"}, nil)}
	s.view()
	s.key("x") // the player is at the keys
	return s
}

// view gives the session s.v and draws it.
func (s *alertSession) view() {
	s.m.Update(viewMsg(s.v))
	s.m.View()
}

// hear gives the session a view with one more message.
func (s *alertSession) hear(kind world.MsgKind, line string) {
	s.v.Log = withKind(s.v.Log, kind, line)
	s.v.Said++
	s.view()
}

// plain turns screen-reader mode on for the connection, as play --plain does.
func (s *alertSession) plain() {
	o := s.m.opts.Clone()
	o.PlainHere = true
	s.m.setOptions(o)
	s.m.View()
}

func (s *alertSession) key(k string) {
	keys(s.m, k)
	s.m.View()
}

func (s *alertSession) bells() int { return bytes.Count(s.out.Bytes(), []byte{'\a'}) }

func (s *alertSession) wantBells(what string, n int) {
	s.t.Helper()
	if got := s.bells(); got != n {
		s.t.Fatalf("%s: %d bells, want %d", what, got, n)
	}
}

func (s *alertSession) wantMark(what, mark string) {
	s.t.Helper()
	if s.m.alert.mark != mark {
		s.t.Fatalf("%s: mark %q, want %q", what, s.m.alert.mark, mark)
	}
	if mark != "" && s.m.screen == screenPlay && !strings.Contains(s.m.Text(), mark) {
		s.t.Fatalf("%s: the status line does not show %q:\n%s", what, mark, s.m.Text())
	}
}

// The bell's rules: a whisper rings when the screen does not show it (the map) and marks
// the status line; a second within BellGap rings no more, the mark naming it; after the
// gap one rings again. On the dungeon screen, where the line shows, a whisper rings only
// once the player has pressed no key for AlertIdle. A key on the dungeon screen or the
// message log clears the mark. Talk that does not name the knight rings only with the
// bell at all; the bell off rings for nothing.
func TestBellRules(t *testing.T) {
	s := newAlertSession(t)
	s.wantBells("the first view", 0)

	s.key("m")
	if s.m.screen != screenMap {
		t.Fatalf("m opened screen %d", s.m.screen)
	}
	s.hear(world.MsgWhisper, "Lis whispers: are you there?")
	s.wantBells("a whisper on the map", 1)
	s.wantMark("a whisper on the map", "(!) whisper from Lis")
	s.now = s.now.Add(time.Second)
	s.hear(world.MsgWhisper, "Bors whispers: and me")
	s.wantBells("a second whisper a second later", 1)
	s.wantMark("a second whisper", "(!) whisper from Bors")
	s.now = s.now.Add(BellGap)
	s.hear(world.MsgGame, "Lis says: kay, look")
	s.wantBells("a mention after the gap", 2)
	s.wantMark("a mention", "(!) Lis named you")

	s.key("q") // back to the dungeon: the mark shows until the next key there
	s.wantMark("back on the dungeon screen", "(!) Lis named you")
	s.key("x")
	s.wantMark("a key on the dungeon screen", "")

	s.now = s.now.Add(BellGap)
	s.hear(world.MsgWhisper, "Lis whispers: here")
	s.wantBells("a whisper on the dungeon screen with a key just pressed", 2)
	s.wantMark("a whisper seen", "")
	s.now = s.now.Add(AlertIdle)
	s.hear(world.MsgWhisper, "Lis whispers: still there?")
	s.wantBells("a whisper to an idle knight", 3)
	s.wantMark("a whisper to an idle knight", "(!) whisper from Lis")
	s.key("M")
	s.wantMark("the message log opened", "")

	s.key("q")
	s.key("m")
	s.now = s.now.Add(BellGap)
	s.hear(world.MsgGame, "Lis says: nice weather")
	s.wantBells("talk that names no one, the bell at mentions", 3)
	s.m.opts.Bell = bellAll
	s.hear(world.MsgGame, "Lis says: nice weather")
	s.wantBells("talk that names no one, the bell at all", 4)
	s.m.opts.Bell = bellOff
	s.now = s.now.Add(BellGap)
	s.hear(world.MsgWhisper, "Lis whispers: hello?")
	s.wantBells("a whisper with the bell off", 4)
	s.m.opts.Bell = bellMentions
	s.hear(world.MsgParty, "Lis invites you to join the party. (/accept Lis or /decline Lis)")
	s.wantBells("an invitation", 5)
	s.wantMark("an invitation", "(!) invitation from Lis")
}

// A battle that waits for the knight's move while it holds up another hero (GraceLeft)
// rings once a round, when the knight is not on the screen that shows it; a battle alone
// (no grace) rings for nothing.
func TestBellForABattle(t *testing.T) {
	s := newAlertSession(t)
	s.key("m")
	s.v.Fight = &world.FightView{Round: 1, YourMove: true}
	s.view()
	s.wantBells("a fight alone", 0)
	s.v.Fight = &world.FightView{Round: 1, YourMove: true, GraceLeft: 1000}
	s.view()
	s.wantBells("a battle waiting for the knight", 1)
	s.wantMark("a battle waiting", "(!) the battle waits for you")
	s.now = s.now.Add(BellGap)
	s.v.Fight = &world.FightView{Round: 1, YourMove: true, GraceLeft: 900}
	s.view()
	s.wantBells("the same round's next view", 1)
	s.v.Fight = &world.FightView{Round: 2, YourMove: true, GraceLeft: 1000}
	s.view()
	s.wantBells("the next round", 2)
	s.key("q")
	s.key("x")
	s.now = s.now.Add(BellGap)
	s.v.Fight = &world.FightView{Round: 3, YourMove: true, GraceLeft: 1000}
	s.view()
	s.wantBells("the next round on the dungeon screen, at the keys", 2)
}

// /bell sets the bell (kept in the options, which the world keeps with the knight) and
// says it; the options screen's h cycles it; screen-reader mode's set bell and bell.
func TestBellSetting(t *testing.T) {
	s := newAlertSession(t)
	if note, _ := s.m.sendChat("/bell"); !strings.Contains(note, "whispers, your name, invitations and battles") {
		t.Fatalf("/bell said %q", note)
	}
	for _, c := range []struct{ line, want string }{{"/bell off", bellOff}, {"/BELL all", bellAll}, {"/bell mentions", bellMentions}, {"/bell on", bellMentions}} {
		s.m.sendChat(c.line)
		if s.m.opts.Bell != c.want {
			t.Fatalf("%s: the bell is %q, want %q", c.line, s.m.opts.Bell, c.want)
		}
	}
	if note, _ := s.m.sendChat("/bell loud"); !strings.Contains(note, "all, mentions or off") || s.m.opts.Bell != bellMentions {
		t.Fatalf("/bell loud said %q and set %q", note, s.m.opts.Bell)
	}
	s.key("o")
	if !strings.Contains(s.m.Text(), "h  Bell                 mentions") {
		t.Fatalf("the options do not show the bell:\n%s", s.m.Text())
	}
	for _, want := range []string{bellAll, bellOff, bellMentions} {
		s.key("h")
		if s.m.opts.Bell != want {
			t.Fatalf("h set the bell to %q, want %q", s.m.opts.Bell, want)
		}
	}
	s.key("q")
	s.plain()
	enterLine(s.m, "set bell off")
	if s.m.opts.Bell != bellOff || !strings.Contains(s.m.Text(), "The bell is off") {
		t.Fatalf("set bell off: %q\n%s", s.m.opts.Bell, s.m.Text())
	}
	enterLine(s.m, "bell all")
	if s.m.opts.Bell != bellAll {
		t.Fatalf("bell all set %q", s.m.opts.Bell)
	}
}

// Screen-reader mode writes no bell: a line that calls an idle knight is said with
// "Alert: " before it, and a battle held up for it in a line of its own; a knight at the
// keys hears the line as it is.
func TestPlainAlertsInWords(t *testing.T) {
	s := newAlertSession(t)
	s.plain()
	s.key("x")
	s.hear(world.MsgWhisper, "Lis whispers: at the keys")
	s.now = s.now.Add(AlertIdle)
	s.hear(world.MsgWhisper, "Lis whispers: are you there?")
	s.v.Fight = &world.FightView{Round: 1, YourMove: true, GraceLeft: 1000}
	s.view()
	s.wantBells("screen-reader mode", 0)
	text := s.m.Text()
	for _, want := range []string{"\nLis whispers: at the keys\n", "Alert: Lis whispers: are you there?", "Alert: the battle waits for your move."} {
		if !strings.Contains(text, want) {
			t.Fatalf("screen-reader mode did not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(s.out.String(), "\a") {
		t.Fatalf("screen-reader mode wrote a bell:\n%q", s.out.String())
	}
}
