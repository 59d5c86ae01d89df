package world

import (
	"slices"
	"strings"
	"testing"
)

func TestPartyInviteAndAccept(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	act(e, "arthur", PartyInvite, "BORS") // names without regard to case
	hasSaid(t, e, "arthur", "You invite Bors to join the party.")
	hasSaid(t, e, "bors", "Arthur invites you to join the party. (/accept Arthur or /decline Arthur)")
	if v := subs["bors"].last(); !slices.Equal(v.Invites, []string{"Arthur"}) || len(v.Party) != 0 {
		t.Fatalf("the invitee's view: invites %q, party %v", v.Invites, v.Party)
	}
	if v := subs["arthur"].last(); len(v.Party) != 0 || len(v.Invites) != 0 {
		t.Fatalf("an inviter alone shows a party: %v", v.Party)
	}
	act(e, "arthur", PartyInvite, "bors")
	if got := lastSaid(e, "arthur"); got != "You have already invited Bors; the invitation waits for an answer." {
		t.Fatalf("inviting twice: %q", got)
	}
	act(e, "bors", PartyAccept, "") // the only one waiting
	hasSaid(t, e, "arthur", "Bors joins the party.")
	hasSaid(t, e, "bors", "You join Arthur's party. (/p talks to the party.)")
	for _, fp := range []string{"arthur", "bors"} {
		if got := members(subs, fp); !slices.Equal(got, []string{"Arthur", "Bors"}) {
			t.Fatalf("%s's party list: %q", fp, got)
		}
		if v := subs[fp].last(); !v.Party[0].Leader || v.Party[1].Leader || len(v.Invites) != 0 {
			t.Fatalf("%s's view: %+v, invites %q", fp, v.Party, v.Invites)
		}
	}
	// A name in another case, and a look-alike spelling (NameKey), find the knight.
	act(e, "arthur", PartyInvite, "C A I")
	act(e, "cai", PartyAccept, "aRTHUR")
	hasSaid(t, e, "arthur", "Cai joins the party.")
	hasSaid(t, e, "bors", "Cai joins the party.")
	if got := members(subs, "cai"); !slices.Equal(got, []string{"Arthur", "Bors", "Cai"}) {
		t.Fatalf("the party list: %q", got)
	}
}

func TestPartyRefusals(t *testing.T) {
	e, _ := heroes(t, "arthur", "bors", "cai", "dag", "ector")
	for _, c := range []struct {
		fp   string
		kind PartyActionKind
		name string
		want string
	}{
		{"arthur", PartyInvite, "arthur", "You cannot invite yourself."},
		{"arthur", PartyInvite, "Nobody\x1b[2J", "No knight named Nobody is in the game."},
		{"arthur", PartyInvite, " ", "Invite whom? (/invite NAME)"},
		{"arthur", PartyAsk, "", "Ask whom? (/ask NAME)"},
		{"arthur", PartyAsk, "Arthur", "You cannot ask yourself."},
		{"arthur", PartyAccept, "", "Nothing waits for your answer."},
		{"arthur", PartyAccept, "Bors", "No invitation or request from Bors waits for your answer."},
		{"arthur", PartyDecline, "Bors", "No invitation or request from Bors waits for your answer."},
		{"arthur", PartyLeave, "", NoPartyNote},
		{"arthur", PartyDisband, "", NoPartyNote},
	} {
		act(e, c.fp, c.kind, c.name)
		if got := lastSaid(e, c.fp); got != c.want {
			t.Errorf("%v %q: %q, want %q", c.kind, c.name, got, c.want)
		}
	}
	form(t, e, "arthur", "bors")
	act(e, "bors", PartyInvite, "cai")
	if got := lastSaid(e, "bors"); got != "Only the leader of the party, Arthur, may invite." {
		t.Fatalf("a member invites: %q", got)
	}
	act(e, "arthur", PartyInvite, "bors")
	if got := lastSaid(e, "arthur"); got != "Bors is already in your party." {
		t.Fatalf("inviting a member: %q", got)
	}
	act(e, "bors", PartyAsk, "arthur")
	if got := lastSaid(e, "bors"); got != "Arthur is already in your party." {
		t.Fatalf("asking one's own party: %q", got)
	}
	act(e, "bors", PartyDisband, "")
	if got := lastSaid(e, "bors"); got != "Only the leader of the party, Arthur, may disband it. (/leave leaves it.)" {
		t.Fatalf("a member disbands: %q", got)
	}
	// Several waiting: the answer must name one.
	act(e, "cai", PartyInvite, "dag")
	act(e, "arthur", PartyInvite, "dag")
	act(e, "dag", PartyAccept, "")
	if got := lastSaid(e, "dag"); got != "Several wait for your answer: Cai, Arthur. (/accept NAME)" {
		t.Fatalf("accepting one of several: %q", got)
	}
	act(e, "dag", PartyDecline, "")
	if got := lastSaid(e, "dag"); got != "Several wait for your answer: Cai, Arthur. (/decline NAME)" {
		t.Fatalf("declining one of several: %q", got)
	}
	// A knight who mutes the inviter is not bothered; the inviter is told as usual.
	x := e.players["ector"]
	optionsReq{from{"ector", x.session}, Options{Muted: []string{"cai"}}}.handle(e)
	act(e, "cai", PartyInvite, "ector")
	hasSaid(t, e, "cai", "You invite Ector to join the party.")
	if strings.Contains(said(e, "ector"), "Cai invites") || e.request(e.players["cai"], x, false) >= 0 {
		t.Fatalf("a muted knight's invitation reached the knight:\n%s", said(e, "ector"))
	}
}

func TestPartyDeclineAndWithdraw(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	act(e, "arthur", PartyInvite, "bors")
	act(e, "bors", PartyDecline, "arthur")
	hasSaid(t, e, "bors", "You decline Arthur's invitation.")
	hasSaid(t, e, "arthur", "Bors declines your invitation.")
	if v := subs["bors"].last(); len(v.Invites) != 0 {
		t.Fatalf("a declined invitation still shows: %q", v.Invites)
	}
	act(e, "cai", PartyAsk, "arthur")
	hasSaid(t, e, "cai", "You ask Arthur to let you join the party.")
	hasSaid(t, e, "arthur", "Cai asks to join your party. (/accept Cai or /decline Cai)")
	if v := subs["arthur"].last(); !slices.Equal(v.Asks, []string{"Cai"}) {
		t.Fatalf("asks: %q", v.Asks)
	}
	act(e, "arthur", PartyDecline, "")
	hasSaid(t, e, "arthur", "You turn down Cai's request to join the party.")
	hasSaid(t, e, "cai", "Arthur turns down your request to join the party.")
	if v := subs["arthur"].last(); len(v.Asks) != 0 {
		t.Fatalf("a refused asking still shows: %q", v.Asks)
	}
	// Declining a name with nothing from it withdraws one's own request to it.
	act(e, "arthur", PartyInvite, "cai")
	act(e, "arthur", PartyDecline, "cai")
	hasSaid(t, e, "arthur", "You withdraw your invitation to Cai.")
	hasSaid(t, e, "cai", "Arthur withdraws the invitation.")
	act(e, "cai", PartyAsk, "bors")
	act(e, "cai", PartyDecline, "Bors")
	hasSaid(t, e, "cai", "You withdraw your request to join Bors's party.")
	hasSaid(t, e, "bors", "Cai withdraws the request to join your party.")
	if len(e.parties.pending) != 0 || len(e.parties.of) != 0 {
		t.Fatalf("left over: %d requests, %d in parties", len(e.parties.pending), len(e.parties.of))
	}
}

func TestPartyLeadershipPasses(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	form(t, e, "arthur", "bors", "cai")
	act(e, "arthur", PartyLeave, "")
	hasSaid(t, e, "arthur", "You leave the party.")
	hasSaid(t, e, "bors", "Arthur leaves the party.", "You now lead the party.")
	hasSaid(t, e, "cai", "Arthur leaves the party.", "Bors now leads the party.")
	if got := members(subs, "cai"); !slices.Equal(got, []string{"Bors", "Cai"}) || !subs["cai"].last().Party[0].Leader {
		t.Fatalf("after the leader left: %q", got)
	}
	if len(subs["arthur"].last().Party) != 0 {
		t.Fatal("the knight who left still shows the party")
	}
	// The new leader invites.
	act(e, "bors", PartyInvite, "arthur")
	act(e, "arthur", PartyAccept, "bors")
	if got := members(subs, "arthur"); !slices.Equal(got, []string{"Bors", "Cai", "Arthur"}) {
		t.Fatalf("rejoined: %q", got)
	}
	act(e, "cai", PartyLeave, "")
	act(e, "arthur", PartyLeave, "")
	hasSaid(t, e, "bors", "Arthur leaves the party.", "The party has ended: you are on your own.")
	if len(subs["bors"].last().Party) != 0 || len(e.parties.of) != 0 {
		t.Fatalf("a party of one is shown or kept: %v", subs["bors"].last().Party)
	}
}

func TestPartyDisband(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	form(t, e, "arthur", "bors", "cai")
	act(e, "arthur", PartyDisband, "")
	for _, fp := range []string{"arthur", "bors", "cai"} {
		hasSaid(t, e, fp, "The party is disbanded.")
		if len(subs[fp].last().Party) != 0 {
			t.Fatalf("%s still shows the party", fp)
		}
	}
	if len(e.parties.of) != 0 {
		t.Fatalf("%d knights still in parties", len(e.parties.of))
	}
}

// Joining another party leaves one's own first.
func TestAcceptingLeavesTheOldParty(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	form(t, e, "arthur", "bors")
	act(e, "cai", PartyInvite, "bors")
	act(e, "bors", PartyAccept, "cai")
	hasSaid(t, e, "bors", "You leave the party.", "You join Cai's party. (/p talks to the party.)")
	hasSaid(t, e, "arthur", "Bors leaves the party.", "The party has ended: you are on your own.")
	if got := members(subs, "bors"); !slices.Equal(got, []string{"Cai", "Bors"}) {
		t.Fatalf("the new party: %q", got)
	}
	// An invitation from a knight who has since joined someone else's party is void.
	act(e, "arthur", PartyInvite, "bors")
	act(e, "cai", PartyInvite, "arthur")
	act(e, "arthur", PartyAccept, "cai")
	act(e, "bors", PartyAccept, "arthur")
	hasSaid(t, e, "bors", "Arthur no longer leads a party, so Bors cannot join it.")
	hasSaid(t, e, "arthur", "Arthur no longer leads a party, so Bors cannot join it.")
}

// The consent path for joining a party (a fight under way): asking any member reaches
// the leader, who answers; inviting a knight who asked, or asking a leader who invited,
// is a yes.
func TestPartyAskReachesTheLeader(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai", "dag")
	form(t, e, "arthur", "bors")
	act(e, "cai", PartyAsk, "BORS")
	hasSaid(t, e, "cai", "You ask Arthur, who leads Bors's party, to let you join it.")
	hasSaid(t, e, "arthur", "Cai asks to join your party. (/accept Cai or /decline Cai)")
	if v := subs["arthur"].last(); !slices.Equal(v.Asks, []string{"Cai"}) {
		t.Fatalf("the leader's asks: %q", v.Asks)
	}
	if v := subs["bors"].last(); len(v.Asks) != 0 {
		t.Fatalf("a member shows asks: %q", v.Asks)
	}
	act(e, "bors", PartyAccept, "cai")
	if got := lastSaid(e, "bors"); got != "No invitation or request from cai waits for your answer." {
		t.Fatalf("a member answers an asking: %q", got)
	}
	act(e, "cai", PartyAsk, "arthur")
	if got := lastSaid(e, "cai"); got != "You have already asked Arthur; your request waits for an answer." {
		t.Fatalf("asking twice: %q", got)
	}
	act(e, "arthur", PartyAccept, "Cai")
	hasSaid(t, e, "bors", "Cai joins the party.")
	if got := members(subs, "cai"); !slices.Equal(got, []string{"Arthur", "Bors", "Cai"}) {
		t.Fatalf("after the asking: %q", got)
	}
	// Inviting a knight who asked answers yes.
	act(e, "dag", PartyAsk, "cai")
	act(e, "arthur", PartyInvite, "dag")
	if got := members(subs, "dag"); len(got) != 4 || len(e.parties.pending) != 0 {
		t.Fatalf("inviting one who asked: %q, %d waiting", got, len(e.parties.pending))
	}
	// Asking a leader who invited answers yes.
	act(e, "dag", PartyLeave, "")
	act(e, "arthur", PartyInvite, "dag")
	act(e, "dag", PartyAsk, "bors")
	if got := members(subs, "dag"); len(got) != 4 || len(e.parties.pending) != 0 {
		t.Fatalf("asking a leader who invited: %q, %d waiting", got, len(e.parties.pending))
	}
}

func TestPartyRequestsExpire(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	act(e, "arthur", PartyInvite, "bors")
	act(e, "cai", PartyAsk, "arthur")
	for range e.turns(PartyRequestWait) - 1 {
		e.Step()
	}
	if v := subs["bors"].last(); !slices.Equal(v.Invites, []string{"Arthur"}) {
		t.Fatalf("the invitation went early: %q", v.Invites)
	}
	for range DefaultCheckpointTurns {
		e.Step()
	}
	hasSaid(t, e, "arthur", "Your invitation to Bors has expired.", "Cai's request to join your party has expired.")
	hasSaid(t, e, "bors", "Arthur's invitation has expired.")
	hasSaid(t, e, "cai", "Your request to join Arthur's party has expired.")
	if v := subs["bors"].last(); len(v.Invites) != 0 {
		t.Fatalf("an expired invitation shows: %q", v.Invites)
	}
	if v := subs["arthur"].last(); len(v.Asks) != 0 {
		t.Fatalf("an expired asking shows: %q", v.Asks)
	}
	// Between checkpoints, an answer never finds an expired request.
	act(e, "arthur", PartyInvite, "bors")
	e.turn += uint64(e.turns(PartyRequestWait))
	act(e, "bors", PartyAccept, "arthur")
	hasSaid(t, e, "bors", "Arthur's invitation has expired.")
	if got := lastSaid(e, "bors"); got != "No invitation or request from arthur waits for your answer." {
		t.Fatalf("accepting an expired invitation: %q", got)
	}
	if len(e.parties.of) != 0 {
		t.Fatal("an expired invitation made a party")
	}
}

func TestPartyIsFull(t *testing.T) {
	fps := []string{"arthur", "bors", "cai", "dag", "ector", "fergus", "gawain"}
	e, _ := heroes(t, fps...)
	form(t, e, "arthur", fps[1:MaxParty-1]...)
	act(e, "arthur", PartyInvite, "gawain") // waits while the party has room
	form(t, e, "arthur", fps[MaxParty-1])
	if n := e.partySize(e.players["arthur"]); n != MaxParty {
		t.Fatalf("party of %d", n)
	}
	act(e, "arthur", PartyInvite, "gawain")
	if got := lastSaid(e, "arthur"); got != "Your party is full: 6 knights at most." {
		t.Fatalf("inviting into a full party: %q", got)
	}
	act(e, "gawain", PartyAccept, "arthur")
	hasSaid(t, e, "gawain", "Arthur's party is full: 6 knights at most.")
	act(e, "gawain", PartyAsk, "bors")
	if got := lastSaid(e, "gawain"); got != "Arthur's party is full: 6 knights at most." {
		t.Fatalf("asking a full party: %q", got)
	}
	if e.partySize(e.players["gawain"]) != 1 {
		t.Fatal("a seventh knight joined")
	}
}

// A knight leaving the world (quitting, dying, retiring) leaves its party, and the
// requests it sent or was sent lapse. A reconnect of the same key keeps the party.
func TestLeavingTheWorldLeavesTheParty(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai", "dag", "ector")
	form(t, e, "arthur", "bors", "cai", "dag")
	e.join(e.players["bors"].rec, subs["bors"]) // the same key connects again
	if e.partySize(e.players["bors"]) != 4 {
		t.Fatal("a reconnect left the party")
	}
	act(e, "ector", PartyAsk, "arthur")
	e.leave("arthur", e.players["arthur"].session)
	hasSaid(t, e, "bors", "Arthur leaves the party.", "You now lead the party.")
	hasSaid(t, e, "ector", "Your request to join Arthur's party has lapsed: Arthur has left the game.")
	act(e, "bors", PartyInvite, "ector")
	e.die(e.players["bors"], "the Troll")
	hasSaid(t, e, "cai", "Bors leaves the party.", "You now lead the party.")
	hasSaid(t, e, "ector", "Bors's invitation has lapsed: Bors has left the game.")
	e.publish()
	if v := subs["ector"].last(); len(v.Invites) != 0 {
		t.Fatalf("a dead knight's invitation shows: %q", v.Invites)
	}
	d := e.players["dag"]
	d.rec.Depth = 0
	e.retire(d)
	hasSaid(t, e, "cai", "Dag leaves the party.", "The party has ended: you are on your own.")
	if len(e.parties.of) != 0 || len(e.parties.pending) != 0 {
		t.Fatalf("left over: %d in parties, %d requests", len(e.parties.of), len(e.parties.pending))
	}
	e.publish()
	if len(subs["cai"].last().Party) != 0 {
		t.Fatal("the last knight still shows a party")
	}
}

func TestFillPartyShowsTheMembersLive(t *testing.T) {
	e, subs := heroes(t, "arthur", "bors", "cai")
	form(t, e, "arthur", "bors", "cai")
	b, c := e.players["bors"], e.players["cai"]
	b.rec.Hits, b.rec.MaxHits, b.rec.Level = 3, 12, 4
	b.rec.Depth, b.rec.X, b.rec.Y = 2, 1, 0
	c.rec.Depth, c.rec.X, c.rec.Y = 0, 5, 6
	c.fight = &encounter{} // a stand-in: fillParty only asks whether there is one
	v := e.view(e.players["arthur"])
	c.fight = nil
	a := e.players["arthur"].rec
	want := []PartyMember{
		{Name: "Arthur", Leader: true, Level: a.Level, Hits: a.Hits, MaxHits: a.MaxHits, Depth: 1, Pos: Pos{0, 0}},
		{Name: "Bors", Level: 4, Hits: 3, MaxHits: 12, Depth: 2, Pos: Pos{1, 0}},
		{Name: "Cai", Level: c.rec.Level, Hits: c.rec.Hits, MaxHits: c.rec.MaxHits, Depth: 0, Pos: Pos{5, 6}, Fighting: true},
	}
	if !slices.Equal(v.Party, want) {
		t.Fatalf("party list\n got %+v\nwant %+v", v.Party, want)
	}
	for _, q := range []*player{b, c} {
		q.rec.Depth, q.rec.X, q.rec.Y = 1, 0, 0
	}
	// A member's change reaches the others by the next checkpoint even when nothing
	// else would send them a view.
	for range DefaultCheckpointTurns {
		e.Step()
	}
	n := len(subs["arthur"].views)
	b.rec.Hits = 1
	for range DefaultCheckpointTurns {
		e.Step()
	}
	if len(subs["arthur"].views) == n || subs["arthur"].last().Party[1].Hits != 1 {
		t.Fatalf("a member's hits did not reach the leader: %+v", subs["arthur"].last().Party)
	}
	n = len(subs["arthur"].views)
	for range DefaultCheckpointTurns {
		e.Step()
	}
	if len(subs["arthur"].views) != n {
		t.Fatal("an unchanged party is sent again")
	}
}

func TestPartyHereIsOnTheSquareAndNotFighting(t *testing.T) {
	e, _ := heroes(t, "arthur", "bors", "cai", "dag", "ector", "fergus")
	form(t, e, "arthur", "bors", "cai", "dag", "ector")
	p := func(fp string) *player { return e.players[fp] }
	p("cai").fight = &encounter{} // on the square but fighting
	p("dag").rec.X = 1            // the next square
	p("ector").rec.Depth = 2      // the same square a level down
	got := e.partyHere(p("bors")) // fergus is on the square, not in the party
	if !slices.Equal(got, []*player{p("bors"), p("arthur")}) {
		t.Fatalf("partyHere(bors) = %v", names(got))
	}
	if !e.partyTogether(p("cai"), p("ector")) || e.partyTogether(p("arthur"), p("fergus")) || !e.partyTogether(p("fergus"), p("fergus")) {
		t.Fatal("partyTogether")
	}
	if got := e.partyHere(p("fergus")); !slices.Equal(got, []*player{p("fergus")}) {
		t.Fatalf("partyHere of a knight alone = %v", names(got))
	}
	p("cai").fight = nil
	if got := e.partyHere(p("arthur")); !slices.Equal(got, []*player{p("arthur"), p("bors"), p("cai")}) {
		t.Fatalf("partyHere(arthur) = %v", names(got))
	}
	// Outside, the surface square counts the same way.
	for _, fp := range []string{"arthur", "dag"} {
		p(fp).rec.Depth, p(fp).rec.X, p(fp).rec.Y = 0, 3, 3
	}
	if got := e.partyHere(p("dag")); !slices.Equal(got, []*player{p("dag"), p("arthur")}) {
		t.Fatalf("partyHere outside = %v", names(got))
	}
}

func names(ps []*player) []string {
	var out []string
	for _, q := range ps {
		out = append(out, q.rec.Name)
	}
	return out
}

// /p reaches the speaker's party only, cleaned, muted by those who mute the speaker, and
// counted against the same flood allowance as other chat and as invitations.
func TestPartyChat(t *testing.T) {
	e, _ := heroes(t, "arthur", "bors", "cai", "dag")
	form(t, e, "arthur", "bors", "cai")
	c := e.players["cai"]
	optionsReq{from{"cai", c.session}, Options{Muted: []string{"Arthur"}}}.handle(e)
	sayAs(e, "arthur", Chat{Kind: ChatParty, Text: "onward \x1b]52;c;cGF3bmVk\x07now"})
	hasSaid(t, e, "arthur", "You tell the party: onward now")
	hasSaid(t, e, "bors", "Arthur (party): onward now")
	if strings.Contains(said(e, "cai"), "onward") || strings.Contains(said(e, "dag"), "onward") {
		t.Fatalf("party talk reached a muting member or a stranger:\n%s\n--\n%s", said(e, "cai"), said(e, "dag"))
	}
	sayAs(e, "dag", Chat{Kind: ChatParty, Text: "hello?"})
	if got := lastSaid(e, "dag"); got != NoPartyNote {
		t.Fatalf("party talk alone: %q", got)
	}
	sayAs(e, "bors", Chat{Kind: ChatParty, Text: "\x1b[2J"})
	if got := lastSaid(e, "bors"); !strings.HasPrefix(got, "Say what?") {
		t.Fatalf("an empty line: %q", got)
	}
	// Flood: the speaker has sent one line; three more lines and an invitation use up
	// the allowance.
	for i := range ChatLines - 2 {
		sayAs(e, "arthur", Chat{Kind: ChatParty, Text: "line " + string(rune('a'+i))})
	}
	act(e, "arthur", PartyInvite, "dag")
	sayAs(e, "arthur", Chat{Kind: ChatParty, Text: "one too many"})
	if got := lastSaid(e, "arthur"); got != FloodNote || strings.Contains(said(e, "bors"), "one too many") {
		t.Fatalf("flood: %q", got)
	}
	act(e, "arthur", PartyInvite, "DAG")
	if got := lastSaid(e, "arthur"); got != "You have already invited Dag; the invitation waits for an answer." {
		t.Fatalf("re-inviting: %q", got)
	}
	act(e, "dag", PartyDecline, "")
	act(e, "arthur", PartyInvite, "dag")
	if got := lastSaid(e, "arthur"); got != PartyFloodNote {
		t.Fatalf("invitation flood: %q", got)
	}
}

// The public API: a party action sent from a session's goroutine is carried out at once.
func TestPartyThroughThePlayerHandle(t *testing.T) {
	ctx, pa, pb, mb := twoHandles(t)
	if err := pa.Party(ctx, PartyAction{Kind: PartyInvite, Name: "kay B"}); err != nil {
		t.Fatal(err)
	}
	waitView(t, mb, "the invitation", func(v View) bool { return slices.Equal(v.Invites, []string{"Kay a"}) })
	if err := pb.Party(ctx, PartyAction{Kind: PartyAccept}); err != nil {
		t.Fatal(err)
	}
	waitView(t, mb, "the party", func(v View) bool { return len(v.Party) == 2 && v.Party[0].Name == "Kay a" })
}
