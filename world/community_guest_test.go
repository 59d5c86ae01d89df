package world

import (
	"fmt"
	"strings"
	"testing"
)

// The community meets issue 18's knights: a knight is known by its id, whichever of its
// keys plays it, and a guest (no key, never saved, its name let go when it leaves) talks
// on the channels and may report and be reported, but neither writes nor receives letters.

// guest is a guest's knight, as the server makes it: an id of its own session, a name
// that says so, the Guest mark.
func guest(id, name string) Adventurer {
	g := knight(id, 10)
	g.Guest, g.Name = true, "Guest "+name
	return g
}

// A guest cannot write a letter, nor be written to, and is told why and what to do; it
// never enters the book of knights letters reach, so once it has left its name takes no
// letters either, and a guest who takes the name later finds none.
func TestGuestsNeitherSendNorReceiveLetters(t *testing.T) {
	e, a := mailEngine(t, nil, nil)
	e.join(knight("k", 10), &recorder{})
	e.join(guest("guest-1", "Tom"), &recorder{})
	mailAs(e, "guest-1", "Kay k", "hello")
	if got := lastSaid(e, "guest-1"); got != GuestLettersNote {
		t.Fatalf("a guest writing: %q", got)
	}
	mailAs(e, "k", "", "guest tom welcome aboard")
	if got := lastSaid(e, "k"); got != "Guest Tom is a guest: letters do not reach guests, who are not saved. (/w Guest Tom TEXT whispers to it now.)" {
		t.Fatalf("a letter to a guest: %q", got)
	}
	if len(a.mail) != 0 {
		t.Fatalf("letters kept: %+v", a.mail)
	}
	if _, ok := e.soc.known[NameKey("Guest Tom")]; ok {
		t.Fatal("a guest is in the book of knights")
	}
	e.leave("guest-1", e.players["guest-1"].session)
	mailAs(e, "k", "Guest Tom", "are you there?")
	if got := lastSaid(e, "k"); got != "No knight named Guest Tom has been here." {
		t.Fatalf("a letter to a guest who left: %q", got)
	}
	e.join(guest("guest-2", "Tom"), &recorder{})
	if n := e.unread(e.players["guest-2"]); n != 0 || len(e.letters(e.players["guest-2"], true)) != 0 {
		t.Fatalf("a guest has %d letters", n)
	}
}

// A letter waits for the knight by its id: two sessions of one knight (by two keys, the
// server gives both the knight's id) read one mailbox; and when the knight is no longer
// stored (its last key went to another knight), its letters go and its name takes no
// more, so a new knight that takes the name reads none of them.
func TestLettersFollowTheKnightsID(t *testing.T) {
	e, a := mailEngine(t, []KnownKnight{{ID: "K-BORS", Name: "Bors"}}, nil)
	e.join(knight("k", 10), &recorder{})
	mailAs(e, "k", "Bors", "first")
	if _, ok := a.mail["K-BORS"]; !ok {
		t.Fatalf("the letter is not kept by the knight's id: %+v", a.mail)
	}
	bors := NewAdventurer("K-BORS", "Bors", Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10)
	e.join(bors, &recorder{})
	e.join(bors, &recorder{}) // its other key takes it over
	if n := e.unread(e.players["K-BORS"]); n != 1 {
		t.Fatalf("after a takeover, %d unread", n)
	}
	e.leave("K-BORS", e.players["K-BORS"].session)

	forgetReq{"K-BORS"}.handle(e)
	if _, ok := a.mail["K-BORS"]; ok {
		t.Fatal("a knight no longer stored kept its letters")
	}
	mailAs(e, "k", "Bors", "second")
	if got := lastSaid(e, "k"); got != "No knight named Bors has been here." {
		t.Fatalf("a letter to a forgotten knight: %q", got)
	}
	e.join(NewAdventurer("K-NEW", "Bors", Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10), &recorder{})
	if n := e.unread(e.players["K-NEW"]); n != 0 {
		t.Fatalf("a new knight of the name reads %d letters", n)
	}
}

// A guest's lines are limited as its chat is (GuestChatLines in the window), whatever it
// sends: an emote, a channel line, a reply, a report, an away reason, each counted in the
// one allowance; a knight with a key sends more.
func TestAGuestsLimitHoldsForEveryKindOfTalk(t *testing.T) {
	if GuestChatLines != 2 {
		t.Fatalf("the test is written for GuestChatLines 2, not %d", GuestChatLines)
	}
	type send func(e *Engine, fp string)
	kinds := map[string]send{
		"emote":   func(e *Engine, fp string) { sayAs(e, fp, Chat{Kind: ChatEmote, Text: "waves"}) },
		"channel": func(e *Engine, fp string) { sayAs(e, fp, Chat{Kind: ChatChannel, To: "newbie", Text: "how?"}) },
		"reply":   func(e *Engine, fp string) { sayAs(e, fp, Chat{Kind: ChatReply, Text: "thanks"}) },
		"report": func(e *Engine, fp string) {
			reportReq{from{fp, e.players[fp].session}, "Kay k", "for the test"}.handle(e)
		},
		"away": func(e *Engine, fp string) { awayReq{from{fp, e.players[fp].session}, true, "brb"}.handle(e) },
	}
	for name, last := range kinds {
		t.Run(name, func(t *testing.T) {
			e, a := mailEngine(t, nil, nil)
			e.cfg.ChatWindowTurns = 1000
			e.join(knight("k", 10), &recorder{})
			e.join(guest("guest-1", "Tom"), &recorder{})
			sayAs(e, "k", Chat{Kind: ChatWhisper, To: "Guest Tom", Text: "hi"})
			sayAs(e, "guest-1", Chat{Kind: ChatEmote, Text: "bows"})
			sayAs(e, "guest-1", Chat{Kind: ChatChannel, To: "newbie", Text: "where is the exit?"})
			last(e, "guest-1")
			refused := uint64(0)
			for _, n := range e.soc.counts.refused {
				refused += n
			}
			if refused != 1 || !strings.Contains(said(e, "guest-1"), GuestFloodNote) {
				t.Fatalf("the guest's third line (%s): %d refused\n%s", name, refused, said(e, "guest-1"))
			}
			if name == "report" && len(a.reports) != 0 {
				t.Fatal("a report past the guest's limit was filed")
			}
			if name == "away" && e.players["guest-1"].soc.awayReason != "" {
				t.Fatal("an away reason past the guest's limit was kept")
			}
			// The knight with a key may send its second to fifth.
			for i := range ChatLines - 1 {
				sayAs(e, "k", Chat{Kind: ChatEmote, Text: fmt.Sprint("nods ", i)})
			}
			if strings.Contains(said(e, "k"), FloodNote) {
				t.Fatalf("the knight with a key was slowed:\n%s", said(e, "k"))
			}
		})
	}
}

// A guest is on newbie (it is a newcomer), and a newcomer's question there reaches the
// knights on the channel; its choice of channels is never handed to the saver, as the
// guest is not saved.
func TestAGuestAsksOnNewbieAndItsChannelsAreNotSaved(t *testing.T) {
	saver := &recorder{}
	e := fixtureEngine(t, saver)
	vet := knight("vet", 10)
	vet.Level, vet.Channels = 5, map[string]bool{"newbie": true}
	e.join(vet, &recorder{})
	e.join(guest("guest-1", "Tom"), &recorder{})
	if !strings.Contains(said(e, "guest-1"), "You are on the newbie channel, where questions are welcome") {
		t.Fatalf("the guest was not told of newbie:\n%s", said(e, "guest-1"))
	}
	sayAs(e, "guest-1", Chat{Kind: ChatChannel, To: "newbie", Text: "how do I go down?"})
	if !strings.Contains(said(e, "vet"), "[newbie] Guest Tom: how do I go down?") {
		t.Fatalf("the question did not reach the channel:\n%s", said(e, "vet"))
	}
	channelAs(e, "guest-1", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	for range DefaultCheckpointTurns * 2 {
		e.Step()
	}
	e.saveAll()
	e.leave("guest-1", e.players["guest-1"].session)
	for _, r := range saver.saved {
		if r.Guest {
			t.Fatalf("a guest's record (its channels %v) was handed to the saver", r.Channels)
		}
	}
	if saver.lastSaved("vet").Channels["newbie"] != true {
		t.Fatal("the knight beside the guest was not saved with its channels")
	}
}

// A report of a guest and a report by a guest both go, with the guest marked; a guest that
// has left is still reported by the lines it said, and a guest that takes its name later
// is not blamed for them. A silence of a guest online holds while it plays.
func TestReportsAndSilencesOfGuests(t *testing.T) {
	e, a := mailEngine(t, nil, nil)
	e.cfg.ChatWindowTurns = 1
	e.join(knight("k", 10), &recorder{})
	e.join(guest("guest-1", "Tom"), &recorder{})
	sayAs(e, "guest-1", Chat{Kind: ChatShout, Text: "RUDE WORDS"})
	e.Step()
	reportReq{from{"k", e.players["k"].session}, "", "guest tom shouts rude words"}.handle(e)
	e.Step()
	reportReq{from{"guest-1", e.players["guest-1"].session}, "Kay k", "reported me"}.handle(e)
	if len(a.reports) != 2 {
		t.Fatalf("%d reports:\n%s\n%s", len(a.reports), said(e, "k"), said(e, "guest-1"))
	}
	if r := a.reports[0]; r.About != "Guest Tom" || r.AboutKnight != "guest-1" || !r.AboutGuest || len(r.Lines) != 1 {
		t.Fatalf("a report of a guest: %+v", r)
	}
	if r := a.reports[1]; r.From != "Guest Tom" || r.FromKnight != "guest-1" || !r.FromGuest || r.AboutKnight != "k" {
		t.Fatalf("a report by a guest: %+v", r)
	}
	e.leave("guest-1", e.players["guest-1"].session)
	e.join(guest("guest-2", "Tom"), &recorder{})
	e.Step()
	reportReq{from{"k", e.players["k"].session}, "Guest Tom", "again"}.handle(e)
	if r := a.reports[2]; r.AboutKnight != "guest-2" || len(r.Lines) != 0 {
		t.Fatalf("the new guest of the name was given the old one's lines: %+v", r)
	}
	e.leave("guest-2", e.players["guest-2"].session)
	e.Step()
	reportReq{from{"k", e.players["k"].session}, "Guest Tom", "the first one"}.handle(e)
	if r := a.reports[3]; r.AboutKnight != "guest-1" || !r.AboutGuest || len(r.Lines) != 1 {
		t.Fatalf("a report of a guest that left: %+v", r)
	}

	e.join(guest("guest-3", "Ann"), &recorder{})
	ctx := running(t, e)
	done, err := e.Silence(ctx, Silence{Knight: "guest-3", Turns: 1000, Until: "16:00 UTC"})
	if err != nil || !done.Online || done.Name != "Guest Ann" {
		t.Fatalf("silencing a guest: %+v %v", done, err)
	}
	_ = e.query(ctx, func() {
		sayAs(e, "guest-3", Chat{Kind: ChatChannel, To: "newbie", Text: "hello"})
		if got := lastSaid(e, "guest-3"); got != "You are silenced until 16:00 UTC: no one hears you." {
			t.Errorf("a silenced guest: %q", got)
		}
	})
}

// A reply goes to the knight that whispered, by its id: when that guest has left and
// another has taken its name, the reply reaches no one, and the replier is told so
// (without the hint of a letter, which would not reach a guest).
func TestAReplyNeverReachesAnotherWhoTookTheName(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.ChatWindowTurns = 1
	e.join(knight("k", 10), &recorder{})
	e.join(guest("guest-1", "Tom"), &recorder{})
	sayAs(e, "guest-1", Chat{Kind: ChatWhisper, To: "Kay k", Text: "psst"})
	e.leave("guest-1", e.players["guest-1"].session)
	e.join(guest("guest-2", "Tom"), &recorder{})
	e.Step()
	sayAs(e, "k", Chat{Kind: ChatReply, Text: "who is this?"})
	if got := lastSaid(e, "k"); got != "Guest Tom is not in the game now." {
		t.Fatalf("the reply: %q", got)
	}
	if strings.Contains(said(e, "guest-2"), "who is this?") {
		t.Fatal("the reply reached the new guest of the name")
	}
}

// Regression (issue 30): reports had no count; 4 keyed and 10 guest reporters filed 236
// in 72 s. A knight with a key files MaxReportsPerHour in an hour, told why past them;
// a guest files one, and all guests together MaxGuestReportsPerHour; an hour later they
// may again.
func TestReportsAreCountedPerHour(t *testing.T) {
	e, a := mailEngine(t, nil, nil)
	e.cfg.Community.HourTurns = 10000
	e.join(knight("k", 10), &recorder{})
	e.join(knight("m", 10), &recorder{})
	report := func(fp, about string) {
		e.turn += 500 // past the flood allowance's window
		reportReq{from{fp, e.players[fp].session}, about, "rude"}.handle(e)
	}
	for range MaxReportsPerHour + 1 {
		report("k", "Kay m")
	}
	if len(a.reports) != MaxReportsPerHour {
		t.Fatalf("%d reports from one knight, want %d", len(a.reports), MaxReportsPerHour)
	}
	if got, want := lastSaid(e, "k"), fmt.Sprintf(reportsPerHourNote, MaxReportsPerHour); got != want {
		t.Errorf("past its count a knight reads %q, want %q", got, want)
	}
	e.turn += 10000
	report("k", "Kay m")
	if len(a.reports) != MaxReportsPerHour+1 {
		t.Errorf("an hour later the knight's report was refused: %q", lastSaid(e, "k"))
	}

	filed := len(a.reports)
	for i := range MaxGuestReportsPerHour + 1 {
		id := fmt.Sprintf("guest-%d", i)
		e.join(guest(id, fmt.Sprintf("Tom%d", i)), &recorder{})
		report(id, "Kay m")
		report(id, "Kay k")
		if got := len(a.reports) - filed; got != min(i+1, MaxGuestReportsPerHour) {
			t.Fatalf("after %d guests %d reports from guests: %q", i+1, got, lastSaid(e, id))
		}
		if lastSaid(e, id) != guestReportNote {
			t.Errorf("a guest's second report: %q", lastSaid(e, id))
		}
	}
}
