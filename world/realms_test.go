package world

import (
	"slices"
	"strings"
	"testing"
)

// abroadLog is an Abroad that keeps what the world sent away.
type abroadLog struct{ sent []FarLine }

func (a *abroadLog) Send(l FarLine) { a.sent = append(a.sent, l) }

// realmChatters is chatters with a bus: the engine's lines abroad go to the log.
func realmChatters(t *testing.T, at map[string]where) (*Engine, *abroadLog) {
	t.Helper()
	e, _ := chatters(t, at)
	bus := &abroadLog{}
	e.cfg.Community.Abroad = bus
	return e, bus
}

// hearFarAs hands e a line from afar, as the bus does, and returns its answer.
func hearFarAs(e *Engine, l FarLine) FarAnswer {
	m := farReq{cleanFar(l), make(chan FarAnswer, 1)}
	m.handle(e)
	return <-m.reply
}

func TestAWhisperGoesToTheRealmWhereItsKnightPlays(t *testing.T) {
	camelot, bus := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	presenceReq{"Avalon", []FarKnight{{Realm: "Avalon", Name: "Gawain the Green", ID: "gawain"}}}.handle(camelot)

	sayAs(camelot, "arthur", Chat{Kind: ChatWhisper, Text: "gawain the green meet me at the gate"})
	hasSaid(t, camelot, "arthur", "You whisper to Gawain the Green (in Avalon): meet me at the gate")
	want := FarLine{Kind: ChatWhisper, ToRealm: "Avalon", From: "Arthur", FromID: "arthur", To: "Gawain the Green", ToID: "gawain", Text: "meet me at the gate"}
	if len(bus.sent) != 1 || bus.sent[0] != want {
		t.Fatalf("sent abroad %+v, want %+v", bus.sent, want)
	}

	// In Avalon the whisper is told as a local one, marked with its realm, and /r answers it.
	avalon, avalonBus := realmChatters(t, map[string]where{"gawain": {0, Pos{}}})
	avalon.players["gawain"].rec.Name = "Gawain the Green"
	presenceReq{"Camelot", []FarKnight{{Realm: "Camelot", Name: "Arthur", ID: "arthur"}}}.handle(avalon)
	l := want
	l.Realm = "Camelot"
	if a := hearFarAs(avalon, l); a != (FarAnswer{Status: FarDelivered}) {
		t.Fatalf("answer %+v", a)
	}
	hasSaid(t, avalon, "gawain", "Arthur (in Camelot) whispers: meet me at the gate")
	sayAs(avalon, "gawain", Chat{Kind: ChatReply, Text: "on my way"})
	hasSaid(t, avalon, "gawain", "You whisper to Arthur (in Camelot): on my way")
	if got := avalonBus.sent; len(got) != 1 || got[0].ToRealm != "Camelot" || got[0].ToID != "arthur" {
		t.Fatalf("the reply went %+v", got)
	}

	// A whisper for a knight no longer there, or to one away, is answered so.
	l.ToID, l.To = "nobody", "Nobody"
	if a := hearFarAs(avalon, l); a.Status != FarNotThere {
		t.Fatalf("answer to a knight not there: %+v", a)
	}
}

func TestWhisperersAreToldWhatBecameOfTheirWhisper(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	l := FarLine{Kind: ChatWhisper, ToRealm: "Avalon", From: "Arthur", FromID: "arthur", To: "Gawain", ToID: "gawain", Text: "hi"}
	for _, c := range []struct {
		a    FarAnswer
		want string
	}{
		{FarAnswer{Status: FarNotThere}, "Gawain is no longer in Avalon: your whisper was not delivered."},
		{FarAnswer{Status: FarUnreachable}, "Avalon, where Gawain plays, does not answer: your whisper was not delivered."},
		{FarAnswer{Status: FarDropped}, "Too much talk between the realms just now: your whisper to Gawain was not delivered."},
		{FarAnswer{Away: true, AwayReason: "lunch"}, "Gawain is away: lunch."},
		{FarAnswer{Away: true}, "Gawain is away."},
	} {
		answeredReq{l, c.a}.handle(e)
		if got := lastSaid(e, "arthur"); got != c.want {
			t.Errorf("%+v: told %q, want %q", c.a, got, c.want)
		}
	}
	before := len(e.players["arthur"].msgs())
	answeredReq{l, FarAnswer{}}.handle(e)
	if len(e.players["arthur"].msgs()) != before {
		t.Fatalf("a whisper delivered to a knight not away was told: %q", lastSaid(e, "arthur"))
	}
}

func TestShoutsAndChannelLinesCrossRealmsCleaned(t *testing.T) {
	e, bus := realmChatters(t, map[string]where{"arthur": {0, Pos{}}, "bors": {1, Pos{0, 0}}})
	sayAs(e, "arthur", Chat{Kind: ChatShout, Text: "to arms"})
	sayAs(e, "arthur", Chat{Kind: ChatChannel, To: "newbie", Text: "where is the exit?"})
	if len(bus.sent) != 2 || bus.sent[0].Kind != ChatShout || bus.sent[1].Kind != ChatChannel || bus.sent[1].To != "newbie" {
		t.Fatalf("sent abroad %+v", bus.sent)
	}

	hearFarAs(e, FarLine{Kind: ChatShout, Realm: "Avalon\x1b[31m", From: "Ga\x1b]0;x\x07wain", FromID: "gawain", Text: "hello \x1b[2Jall\u202e"})
	hearFarAs(e, FarLine{Kind: ChatChannel, Realm: "Avalon", From: "Gawain", FromID: "gawain", To: "newbie", Text: "by the stairs"})
	hearFarAs(e, FarLine{Kind: ChatChannel, Realm: "Avalon", From: "Gawain", FromID: "gawain", To: "nowhere", Text: "lost"})
	for _, fp := range []string{"arthur", "bors"} {
		hasSaid(t, e, fp, "Gawain (in Avalon) shouts: hello all", "[newbie] Gawain (in Avalon): by the stairs")
		if got := said(e, fp); strings.ContainsAny(got, "\x1b\x07\u202e") || strings.Contains(got, "lost") {
			t.Fatalf("%s read:\n%q", fp, got)
		}
	}
	// A channel's history keeps the line for a knight who joins it later.
	if h := e.soc.channels[0].lines; len(h) == 0 || h[len(h)-1].line != "[newbie] Gawain (in Avalon): by the stairs" {
		t.Fatalf("the channel's history: %+v", h)
	}
}

func TestAFarKnightSilencedHereIsNotHeard(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	e.soc.silenced["gawain"] = silence{until: e.turn + 100}
	hearFarAs(e, FarLine{Kind: ChatShout, Realm: "Avalon", From: "Gawain", FromID: "gawain", Text: "spam"})
	if strings.Contains(said(e, "arthur"), "spam") {
		t.Fatalf("a silenced knight was heard:\n%s", said(e, "arthur"))
	}
}

// Without a bus the world is a server alone: presence is ignored, and a whisper to a
// knight not here is answered as it always was.
func TestWithoutABusTalkStaysHome(t *testing.T) {
	e, _ := chatters(t, map[string]where{"arthur": {0, Pos{}}})
	presenceReq{"Avalon", []FarKnight{{Realm: "Avalon", Name: "Gawain", ID: "gawain"}}}.handle(e)
	sayAs(e, "arthur", Chat{Kind: ChatWhisper, To: "Gawain", Text: "hi"})
	if got := lastSaid(e, "arthur"); got != "No knight named Gawain is in the game." {
		t.Fatalf("told %q", got)
	}
	sayAs(e, "arthur", Chat{Kind: ChatShout, Text: "hello"}) // no bus to send to: no panic
}

// A knight made in another realm is known by its presence, so a letter reaches it; a
// mailbox another realm wrote replaces this world's, and the knight is told of the letter
// that came, once, and not of the letters it had.
func TestLettersCrossRealms(t *testing.T) {
	camelot, _ := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	presenceReq{"Avalon", []FarKnight{{Realm: "Avalon", Name: "Gawain", ID: "gawain"}, {Realm: "Avalon", Name: "Guest 7", ID: "g7", Guest: true}}}.handle(camelot)
	mailAs(camelot, "arthur", "Gawain", "meet me at the gate")
	hasSaid(t, camelot, "arthur", "Your letter to Gawain is sent: Gawain will find it on arriving.")
	if ls := camelot.soc.mail["gawain"]; len(ls) != 1 || ls[0].Text != "meet me at the gate" {
		t.Fatalf("Gawain's mailbox in Camelot: %+v", ls)
	}
	if _, ok := camelot.soc.known[NameKey("Guest 7")]; ok {
		t.Fatal("a far guest is known for letters")
	}

	avalon, _ := realmChatters(t, map[string]where{"gawain": {0, Pos{}}})
	old := Letter{From: "Kay", To: "Gawain", Text: "an old one", Read: true}
	var applied []Letter
	mailboxReq{id: "gawain", letters: []Letter{old}, applied: func(ls []Letter) { applied = slices.Clone(ls) }}.handle(avalon)
	if len(applied) != 1 || applied[0].Text != "an old one" || !slices.Equal(avalon.soc.mail["gawain"], applied) {
		t.Fatalf("applied was told %+v", applied)
	}
	mailboxReq{id: "gawain", letters: []Letter{old, {From: "Arthur", To: "Gawain", Text: "meet me at the gate"}}}.handle(avalon)
	hasSaid(t, avalon, "gawain", "A letter from Arthur has come. (/mail reads it.)")
	if got := strings.Count(said(avalon, "gawain"), "A letter from"); got != 1 {
		t.Fatalf("told of %d letters:\n%s", got, said(avalon, "gawain"))
	}
	if ls := avalon.letters(avalon.players["gawain"], false); len(ls) != 2 || ls[0].Text != "meet me at the gate" {
		t.Fatalf("Gawain's letters in Avalon: %+v", ls)
	}
}

// A rare deed is told on newbie in every realm: the world sends it abroad by its id, and
// a realm that hears one tells its knights on newbie in its own words, the earner's name
// marked with its realm, even when it silences the earner (the deed is the realm's
// announcement, not the knight's speech). A deed it does not know, one not rare, or one
// told on another channel is dropped, whatever words came with it.
func TestRareDeedsAreToldInEveryRealm(t *testing.T) {
	e, bus := realmChatters(t, map[string]where{"a": {1, Pos{0, 0}}, "b": {1, Pos{2, 0}}})
	a := e.players["a"]
	a.rec.Hits, a.rec.MaxHits, a.rec.Str, a.rec.Dex = 1<<20, 1<<20, 18, 20
	m := fightWith(t, e, a, "Dragon")
	m.hits = 1
	winDuel(t, e, a)
	mustEarn(t, a, DeedDragon)
	r, _ := DeedByID(DeedDragon)
	var deeds []FarLine
	for _, l := range bus.sent {
		if l.Deed != "" {
			deeds = append(deeds, l)
		}
	}
	want := FarLine{Kind: ChatChannel, To: "newbie", From: "A", FromID: "a", Text: r.Said("A"), Deed: DeedDragon}
	if len(deeds) != 1 || deeds[0] != want {
		t.Fatalf("deeds sent abroad %+v, want %+v", deeds, []FarLine{want})
	}

	avalon, _ := realmChatters(t, map[string]where{"gawain": {0, Pos{}}, "kay": {0, Pos{}}})
	avalon.players["kay"].rec.Channels = map[string]bool{"newbie": false}
	avalon.soc.silenced["a"] = silence{until: avalon.turn + 100}
	l := want
	l.Realm = "Camelot"
	hearFarAs(avalon, l)
	told := "[newbie] A (in Camelot) earned a rare deed, Dragonslayer — A slew the Dragon."
	hasSaid(t, avalon, "gawain", told)
	if strings.Contains(said(avalon, "kay"), "rare deed") {
		t.Fatalf("a knight off newbie was told:\n%s", said(avalon, "kay"))
	}

	forged := FarLine{Kind: ChatChannel, Realm: "Camelot", From: "B", FromID: "b", To: "newbie", Text: "B earned a rare deed, Forged — B lied.", Deed: DeedDragon}
	for name, change := range map[string]func(*FarLine){
		"a deed not known": func(l *FarLine) { l.Deed = "no-such-deed" },
		"a common deed":    func(l *FarLine) { l.Deed = DeedUnscathed },
		"on ooc":           func(l *FarLine) { l.To = "ooc" },
		"as a shout":       func(l *FarLine) { l.Kind = ChatShout },
	} {
		l := forged
		change(&l)
		before := said(avalon, "gawain")
		hearFarAs(avalon, l)
		if got := said(avalon, "gawain"); got != before {
			t.Errorf("%s was told:\n%s", name, strings.TrimPrefix(got, before))
		}
	}
	// The same line untouched is told: each case above fails by its one change alone.
	hearFarAs(avalon, forged)
	hasSaid(t, avalon, "gawain", "[newbie] B (in Camelot) earned a rare deed, Dragonslayer — B slew the Dragon.")
}

// A mailbox another realm wrote tells the knight of each unread letter that came, newest
// first, and of no letter it had: not an unread one either, nor one from a knight it
// mutes. The letters that came get ids of their own, after every id the realm gave out,
// so deleting one deletes it alone.
func TestAFarMailboxTellsOnlyTheLettersThatCame(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"gawain": {0, Pos{}}})
	g := e.players["gawain"]
	first := Letter{From: "Kay", To: "Gawain", Text: "the first, unread"}
	mailboxReq{id: "gawain", letters: []Letter{first}}.handle(e)
	hasSaid(t, e, "gawain", "A letter from Kay has come. (/mail reads it.)")
	had := e.letters(g, false)

	g.rec.Options.Muted = append(g.rec.Options.Muted, "Mordred")
	came := []Letter{had[0], {From: "Mordred", To: "Gawain", Text: "muted"}, {From: "Arthur", To: "Gawain", Text: "one"}, {From: "Bors", To: "Gawain", Text: "two"}}
	before := len(g.msgs())
	mailboxReq{id: "gawain", letters: came}.handle(e)
	told := g.msgs()[before:]
	want := []string{"A letter from Bors has come. (/mail reads it.)", "A letter from Arthur has come. (/mail reads it.)"}
	if !slices.Equal(told, want) {
		t.Fatalf("told %q, want %q", told, want)
	}
	ls := e.soc.mail["gawain"]
	ids := map[uint64]bool{}
	for _, l := range ls {
		if l.ID <= had[0].ID && l.Text != first.Text || ids[l.ID] {
			t.Fatalf("the letters' ids: %+v (the first had %d)", ls, had[0].ID)
		}
		ids[l.ID] = true
	}
	deleteLetterReq{from{"gawain", g.session}, ls[2].ID}.handle(e)
	if got := e.soc.mail["gawain"]; len(got) != 3 || slices.ContainsFunc(got, func(l Letter) bool { return l.Text == "one" }) {
		t.Fatalf("after deleting Arthur's letter: %+v", got)
	}
}

// A whisper from another realm finds its knight by id, or by name when the id is one the
// realm no longer knows (the knight joined again since its presence was told).
func TestAFarWhisperFindsItsKnightByName(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"gawain": {0, Pos{}}})
	l := FarLine{Kind: ChatWhisper, Realm: "Camelot", From: "Arthur", FromID: "arthur", To: "Gawain", ToID: "stale", Text: "hello"}
	if a := hearFarAs(e, l); a.Status != FarDelivered {
		t.Fatalf("answer %+v", a)
	}
	hasSaid(t, e, "gawain", "Arthur (in Camelot) whispers: hello")
}

// A silence from another realm's knight lasts until its turn, and no longer: a line said
// at that turn is heard.
func TestAFarSilenceEndsOnItsTurn(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	e.soc.silenced["gawain"] = silence{until: e.turn + 1}
	shout := FarLine{Kind: ChatShout, Realm: "Avalon", From: "Gawain", FromID: "gawain", Text: "still silenced"}
	hearFarAs(e, shout)
	e.turn++
	shout.Text = "free again"
	hearFarAs(e, shout)
	if got := said(e, "arthur"); strings.Contains(got, "still silenced") || !strings.Contains(got, "free again") {
		t.Fatalf("arthur read:\n%s", got)
	}
}

// A report's lines of a far knight come in the order they were said, its shouts and its
// whispers to the reporter merged.
func TestAFarKnightsLinesAreReportedInOrder(t *testing.T) {
	e, _ := realmChatters(t, map[string]where{"arthur": {0, Pos{}}})
	for _, l := range []FarLine{
		{Kind: ChatShout, Text: "one"},
		{Kind: ChatWhisper, To: "Arthur", ToID: "arthur", Text: "two"},
		{Kind: ChatShout, Text: "three"},
	} {
		l.Realm, l.From, l.FromID = "Avalon", "Gawain", "gawain"
		hearFarAs(e, l)
	}
	var got []string
	for _, r := range e.saidLately("gawain", "arthur") {
		got = append(got, r.Line)
	}
	want := []string{"Gawain (in Avalon) shouts: one", "Gawain (in Avalon) whispers: two", "Gawain (in Avalon) shouts: three"}
	if !slices.Equal(got, want) {
		t.Fatalf("reported %q, want %q", got, want)
	}
}
