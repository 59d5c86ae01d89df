package app

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// withParty is the two-on-two battle's view with Sir Kay leading a party of three, and an
// invitation and an asking waiting.
func withParty(t *testing.T) world.View {
	t.Helper()
	v := twoOnTwo(t)
	v.Party = []world.PartyMember{
		{Name: "Sir Kay", Leader: true, Level: 3, Hits: 12, MaxHits: 15, Depth: 2, Pos: v.Self.Pos, Fighting: true},
		{Name: "Gawain", Level: 2, Hits: 0, MaxHits: 11, Depth: 2, Pos: v.Self.Pos, Fighting: true},
		{Name: "Gareth the Young", Level: 1, Hits: 9, MaxHits: 10, Depth: 0},
	}
	return v
}

// The party list is drawn over the view: in the right column when no battle panel is
// there, under the view beside the panel in a battle; it names each member with its hits
// and where it is, marks the leader, shows what waits for an answer, and never covers the
// knight.
func TestPartyListIsDrawn(t *testing.T) {
	v := withParty(t)
	v.Invites = []string{"Sir Lionel"}
	v.Fight = nil
	m, _ := viewModel(t, v, 80, 24)
	s := m.Text()
	t.Logf("no battle:\n%s", s)
	checkFrame(t, s, 80, 24)
	for _, want := range []string{"PARTY  P", "* Sir Kay", "12/15 fighting", "Gawain", "0/11", "Gareth the Young", "9/10 surface",
		"Sir Lionel invites you: /accept or", "/decline", "()"} {
		if !strings.Contains(s, want) {
			t.Errorf("the party list lacks %q", want)
		}
	}
	if x := strings.Index(lineWith(s, "* Sir Kay"), "* Sir Kay"); x < 40 {
		t.Errorf("without a battle the list is not in the right column (column %d)", x)
	}
	// In a battle it goes under the view, left of the panel; a second waiting answer names
	// each knight.
	v = withParty(t)
	v.Asks = []string{"Bors"}
	v.Invites = []string{"Sir Lionel"}
	m.view = v
	s = m.Text()
	t.Logf("in a battle:\n%s", s)
	checkFrame(t, s, 80, 24)
	for _, want := range []string{"* Sir Kay", "FIGHT, ROUND 3", "> b Goblin", "Bors asks to join: /accept Bors or", "()"} {
		if !strings.Contains(s, want) {
			t.Errorf("the party list in a battle lacks %q", want)
		}
	}
	if l := lineWith(s, "* Sir Kay"); !strings.Contains(l, "│") || strings.Index(l, "* Sir Kay") > 40 {
		t.Errorf("in a battle the list is not beside the panel: %q", l)
	}
	// When the whole party is in the battle and nothing waits, the panel lists them all
	// with their hits, so the list keeps out of the view's way.
	v.Party, v.Asks, v.Invites = v.Party[:2], nil, nil
	m.view = v
	if s := m.Text(); strings.Contains(s, "PARTY") || !strings.Contains(s, "Gawain") {
		t.Errorf("the party list is drawn beside a panel that lists the whole party:\n%s", s)
	}
	// Alone and with nothing waiting, there is no list.
	v.Party, v.Asks, v.Invites = nil, nil, nil
	m.view = v
	if s := m.Text(); strings.Contains(s, "PARTY") {
		t.Errorf("a knight alone has a party list:\n%s", s)
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// Each party command of the chat line sends its action; a name is everything after the
// command; /party alone opens the party screen and /p TEXT still talks.
func TestPartySlashCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		want world.PartyAction
	}{
		{"/invite Gawain", world.PartyAction{Kind: world.PartyInvite, Name: "Gawain"}},
		{"/invite   Gareth the Young  ", world.PartyAction{Kind: world.PartyInvite, Name: "Gareth the Young"}},
		{`/INVITE "Gareth the Young"`, world.PartyAction{Kind: world.PartyInvite, Name: "Gareth the Young"}},
		{"/ask Sir Kay", world.PartyAction{Kind: world.PartyAsk, Name: "Sir Kay"}},
		{"/accept", world.PartyAction{Kind: world.PartyAccept}},
		{"/accept Sir Lionel", world.PartyAction{Kind: world.PartyAccept, Name: "Sir Lionel"}},
		{"/decline", world.PartyAction{Kind: world.PartyDecline}},
		{"/decline Bors", world.PartyAction{Kind: world.PartyDecline, Name: "Bors"}},
		{"/leave", world.PartyAction{Kind: world.PartyLeave}},
		{"/disband", world.PartyAction{Kind: world.PartyDisband}},
	} {
		m, rec := viewModel(t, withParty(t), 80, 24)
		if note, _ := m.sendChat(tc.line); note != "" {
			t.Errorf("%q: note %q", tc.line, note)
		}
		if _, party := rec.sent(); len(party) != 1 || party[0] != tc.want {
			t.Errorf("%q sent %+v, want %+v", tc.line, party, tc.want)
		}
	}
	m, rec := viewModel(t, withParty(t), 80, 24)
	if note, _ := m.sendChat("/invite"); !strings.Contains(note, "Invite whom?") {
		t.Errorf("/invite alone: %q", note)
	}
	if note, _ := m.sendChat("/party"); note != "" || m.screen != screenParty {
		t.Errorf("/party: note %q, screen %v", note, m.screen)
	}
	if a := parseChat("/party onward"); a != (chatSay{Kind: world.ChatParty, Text: "onward"}) {
		t.Errorf("/party TEXT: %+v", a)
	}
	if a := parseChat("/p onward"); a != (chatSay{Kind: world.ChatParty, Text: "onward"}) {
		t.Errorf("/p TEXT: %+v", a)
	}
	if _, party := rec.sent(); len(party) != 0 {
		t.Errorf("sent %+v", party)
	}
	if !strings.Contains(chatHelp, "/invite NAME") || !strings.Contains(chatHelp, "/disband") {
		t.Errorf("chatHelp: %s", chatHelp)
	}
}

// P opens the party screen: the members, what waits, the commands; its keys answer,
// leave, disband or start a command on the chat line; Esc returns.
func TestPartyScreen(t *testing.T) {
	v := withParty(t)
	v.Invites = []string{"Sir Lionel"}
	v.Asks = []string{"Bors"}
	m, rec := viewModel(t, v, 80, 24)
	keys(m, "P")
	if m.screen != screenParty {
		t.Fatalf("P did not open the party screen: %v", m.screen)
	}
	s := m.Text()
	t.Logf("party screen:\n%s", s)
	checkFrame(t, s, 80, 24)
	for _, want := range []string{"YOUR PARTY", "Sir Kay (you)", "fighting on level 2", "on the surface", "Gareth the Young",
		"Sir Lionel invites you: /accept Sir Lionel or /decline Sir Lionel", "Bors asks to join",
		"/invite NAME", "/disband", "y accept", "l leave", "Esc returns"} {
		if !strings.Contains(s, want) {
			t.Errorf("the party screen lacks %q", want)
		}
	}
	keys(m, "y", "n", "l", "D")
	_, party := rec.sent()
	want := []world.PartyAction{{Kind: world.PartyAccept, Name: "Sir Lionel"}, {Kind: world.PartyDecline, Name: "Sir Lionel"},
		{Kind: world.PartyLeave}, {Kind: world.PartyDisband}}
	if len(party) != len(want) {
		t.Fatalf("keys sent %+v, want %+v", party, want)
	}
	for i := range want {
		if party[i] != want[i] {
			t.Fatalf("keys sent %+v, want %+v", party, want)
		}
	}
	keys(m, "i")
	if m.screen != screenPlay || !m.chat.open || m.chat.input.value() != "/invite " {
		t.Fatalf("i: screen %v, chat open %v with %q", m.screen, m.chat.open, m.chat.input.value())
	}
	keys(m, "Bors")
	keys(m, "enter")
	if _, party := rec.sent(); party[len(party)-1] != (world.PartyAction{Kind: world.PartyInvite, Name: "Bors"}) {
		t.Fatalf("i Bors Enter sent %+v", party)
	}
	keys(m, "P", "esc")
	if m.screen != screenPlay {
		t.Fatalf("Esc did not leave the party screen: %v", m.screen)
	}
	// Alone, the screen says how to make a party.
	m.view.Party, m.view.Invites, m.view.Asks = nil, nil, nil
	keys(m, "P")
	if s := m.Text(); !strings.Contains(s, "You are not in a party") {
		t.Fatalf("alone:\n%s", s)
	}
}

// Screen-reader mode's party words send the same actions; party alone lists the
// members, party TEXT still talks to them.
func TestPartyInWords(t *testing.T) {
	v := withParty(t)
	v.Invites = []string{"Sir Lionel"}
	m, rec := viewModel(t, v, 80, 24)
	m.pl.active = true
	for _, l := range []string{"invite Gareth the Young", "ask  Sir Kay ", "accept", "accept Sir Lionel", "decline Bors",
		"leave party", "leave", "disband", "invite", "party", "/invite Bors", "/party"} {
		m.plainLine(l)
	}
	_, party := rec.sent()
	want := []world.PartyAction{
		{Kind: world.PartyInvite, Name: "Gareth the Young"}, {Kind: world.PartyAsk, Name: "Sir Kay"},
		{Kind: world.PartyAccept}, {Kind: world.PartyAccept, Name: "Sir Lionel"}, {Kind: world.PartyDecline, Name: "Bors"},
		{Kind: world.PartyLeave}, {Kind: world.PartyDisband}, {Kind: world.PartyInvite, Name: "Bors"},
	}
	if len(party) != len(want) {
		t.Fatalf("typed words sent %+v, want %+v", party, want)
	}
	for i := range want {
		if party[i] != want[i] {
			t.Fatalf("typed words sent %+v, want %+v", party, want)
		}
	}
	out := strings.Join(m.pl.transcript, "\n")
	for _, w := range []string{"Type leave party to leave your party", "Invite whom?",
		"Your party, 3: Sir Kay (leader, you), level 3, 12 of 15 hits, fighting on level 2; Gawain, level 2, 0 of 11 hits, fighting on level 2; Gareth the Young, level 1, 9 of 10 hits, on the surface.",
		"Sir Lionel invites you into their party: type accept Sir Lionel, or decline Sir Lionel."} {
		if !strings.Contains(out, w) {
			t.Errorf("the transcript lacks %q:\n%s", w, out)
		}
	}
	if strings.Count(out, "Your party, 3:") != 2 || m.screen != screenPlay {
		t.Errorf("party and /party did not both list the members (screen %v):\n%s", m.screen, out)
	}
	// party TEXT talks: with no knight in the world, the chat line says so, and no party
	// action goes.
	rec.reset()
	m.plainLine("party onward!")
	if _, party := rec.sent(); len(party) != 0 || !strings.Contains(strings.Join(m.pl.transcript, "\n"), "You are not in the game.") {
		t.Errorf("party TEXT: sent %+v\n%s", party, strings.Join(m.pl.transcript, "\n"))
	}
}

// Two knights in a running world make a party with the chat line and the party screen:
// the invitation shows under the view, y on the party screen accepts it, and both see the
// party list.
func TestPartyBetweenPlayers(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	a := playModel(t, e, "SHA256:gawain", Params{})
	da := newDriver(t, a)
	da.key("enter", "enter", "Gawain", "enter")
	b := playModel(t, e, "SHA256:bors", Params{})
	db := newDriver(t, b)
	db.key("enter", "enter", "Bors", "enter")
	da.key("enter")
	da.line("/invite Bors")
	db.waitText("Gawain invites you: /accept or")
	db.key("P")
	if s := b.Text(); !strings.Contains(s, "Gawain invites you") || !strings.Contains(s, "y accept") {
		t.Fatalf("the party screen:\n%s", s)
	}
	db.key("y")
	da.waitText("PARTY")
	db.waitText("Bors (you)")
	if s := b.Text(); !strings.Contains(s, "on level 1") || !strings.Contains(s, "l leave") {
		t.Fatalf("the party screen after accepting:\n%s", s)
	}
	db.key("esc")
	if s := b.Text(); !strings.Contains(s, "* Gawain") || !strings.Contains(s, "Bors") {
		t.Fatalf("the party list under the view:\n%s", s)
	}
}

// The party screen of a knight alone explains parties in full at 80 columns.
func TestPartyScreenAloneFitsTheScreen(t *testing.T) {
	v := twoOnTwo(t)
	v.Fight, v.Party = nil, nil
	m, _ := viewModel(t, v, 80, 24)
	keys(m, "P")
	s := m.Text()
	if !strings.Contains(s, "a party meets") || !strings.Contains(s, "battles together.") {
		t.Fatalf("the party screen of a knight alone:\n%s", s)
	}
	checkFrame(t, s, 80, 24)
}
