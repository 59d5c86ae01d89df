package world

import (
	"strings"
	"testing"
)

// A silenced knight plays on but is heard nowhere: every way of talking is refused with
// the time the silence ends and why, and nothing reaches anyone; a report and a party
// invitation still go. The silence lapses by itself after its turns, and an admin can lift
// it (issue 20).
func TestASilencedKnightIsHeardNowhere(t *testing.T) {
	e, a := mailEngine(t, []KnownKnight{{ID: "offline", Name: "Offline"}}, nil)
	ctx := running(t, e)
	e.join(knight("loud", 10), &recorder{})
	e.join(knight("ear", 10), &recorder{})
	if err := e.query(ctx, func() {}); err != nil {
		t.Fatal(err)
	}
	done, err := e.Silence(ctx, Silence{Knight: "loud", Turns: 500, Until: "2025-06-01 15:04 UTC", Reason: "spam\x1b[2J"})
	if err != nil || !done.Online || done.Name != "Kay loud" || done.Was {
		t.Fatalf("Silence: %+v %v", done, err)
	}
	_ = e.query(ctx, func() {
		if !strings.Contains(said(e, "loud"), "An admin has silenced you until 2025-06-01 15:04 UTC (spam). You can play on") {
			t.Errorf("the knight was not told:\n%s", said(e, "loud"))
		}
		sayAs(e, "ear", Chat{Kind: ChatWhisper, To: "Kay loud", Text: "hi"})
		channelAs(e, "ear", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
		channelAs(e, "loud", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
		before := said(e, "ear")
		refused := "You are silenced until 2025-06-01 15:04 UTC (spam): no one hears you."
		for _, c := range []Chat{
			{Kind: ChatSay, Text: "one"}, {Kind: ChatEmote, Text: "two"}, {Kind: ChatShout, Text: "three"},
			{Kind: ChatWhisper, To: "Kay ear", Text: "four"}, {Kind: ChatReply, Text: "five"},
			{Kind: ChatParty, Text: "six"}, {Kind: ChatChannel, To: "ooc", Text: "seven"},
		} {
			sayAs(e, "loud", c)
			if m := e.players["loud"].msgs(); m[len(m)-1] != refused {
				t.Errorf("kind %d: %q", c.Kind, m[len(m)-1])
			}
		}
		mailAs(e, "loud", "Offline", "eight")
		awayReq{from{"loud", e.players["loud"].session}, true, "nine"}.handle(e)
		if said(e, "ear") != before || len(a.mail) != 0 {
			t.Errorf("a silenced knight was heard:\n%s", said(e, "ear")[len(before):])
		}
		if p := e.players["loud"]; !p.soc.away || p.soc.awayReason != "" {
			t.Error("a silenced knight's away reason was kept")
		}
		awayReq{from{"loud", e.players["loud"].session}, false, ""}.handle(e)
		reportReq{from{"loud", e.players["loud"].session}, "Kay ear", "keeps whispering"}.handle(e)
		if len(a.reports) != 1 {
			t.Error("a silenced knight could not report")
		}
		for range 500 {
			e.Step()
		}
		sayAs(e, "loud", Chat{Kind: ChatSay, Text: "free at last"})
		if !strings.Contains(said(e, "loud"), "Your silence is over: you may talk again.") || !strings.Contains(said(e, "ear"), "Kay loud says: free at last") {
			t.Errorf("the silence did not lapse:\n%s", said(e, "loud"))
		}
	})
	if done, err := e.Silence(ctx, Silence{Knight: "loud", Turns: 100, Until: "later"}); err != nil || done.Was {
		t.Fatalf("silenced again, after the first ended: %+v %v", done, err)
	}
	if done, err := e.Silence(ctx, Silence{Knight: "loud"}); err != nil || !done.Was {
		t.Fatalf("lifted: %+v %v", done, err)
	}
	if done, err := e.Silence(ctx, Silence{Knight: "loud"}); err != nil || done.Was {
		t.Fatalf("lifted twice: %+v %v", done, err)
	}
	_ = e.query(ctx, func() {
		if !strings.Contains(said(e, "loud"), "An admin has lifted your silence: you may talk again.") || len(e.soc.silenced) != 0 {
			t.Errorf("lifting:\n%s", said(e, "loud"))
		}
	})
}

// A silence given at start (the server loads the running ones) holds for its turns.
func TestSilencesLoadedAtStart(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.Community.Silences = []Silence{{Knight: "a", Turns: 50, Until: "noon"}, {Knight: "b"}}
	e.initSocial()
	e.join(knight("a", 10), &recorder{})
	sayAs(e, "a", Chat{Text: "hello"})
	if !strings.Contains(said(e, "a"), "You are silenced until noon: no one hears you.") || len(e.soc.silenced) != 1 {
		t.Fatalf("a loaded silence:\n%s", said(e, "a"))
	}
}

// A report carries what the reported knight said aloud within the report window, and its
// whispers to the reporter only; it names a knight online or not, and is refused for no
// such knight, oneself or no reason (issue 20).
func TestAReportCarriesTheLinesSaidLately(t *testing.T) {
	e, _ := chatters(t, map[string]where{"rude": {1, Pos{0, 0}}, "hurt": {1, Pos{1, 0}}, "other": {1, Pos{2, 0}}})
	a := &archive{}
	e.cfg.ChatWindowTurns = 1
	e.cfg.Community.Archive, e.cfg.Community.ReportTurns = a, 100
	sayAs(e, "rude", Chat{Text: "long ago"})
	for range 100 {
		e.Step()
	}
	sayAs(e, "rude", Chat{Text: "you are all fools"})
	sayAs(e, "rude", Chat{Kind: ChatShout, Text: "FOOLS"})
	sayAs(e, "rude", Chat{Kind: ChatWhisper, To: "Hurt", Text: "especially you"})
	sayAs(e, "rude", Chat{Kind: ChatWhisper, To: "Other", Text: "not you"})
	e.Step() // a fresh flood allowance
	channelAs(e, "rude", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	sayAs(e, "rude", Chat{Kind: ChatChannel, To: "ooc", Text: "and on ooc"})
	sayAs(e, "rude", Chat{Kind: ChatEmote, Text: "sneers"})
	sayAs(e, "hurt", Chat{Text: "leave me be"})
	e.Step()
	reportReq{from{"hurt", e.players["hurt"].session}, "", "rude insults everyone \x1b]0;x\x07"}.handle(e)
	if len(a.reports) != 1 {
		t.Fatalf("%d reports", len(a.reports))
	}
	r := a.reports[0]
	if r.From != "Hurt" || r.FromKnight != "hurt" || r.About != "Rude" || r.AboutKnight != "rude" || r.Reason != "insults everyone" {
		t.Fatalf("the report: %+v", r)
	}
	var lines []string
	for _, l := range r.Lines {
		lines = append(lines, l.Where+": "+l.Line)
	}
	want := "say: Rude says: you are all fools|shout: Rude shouts: FOOLS|whisper: Rude whispers: especially you|ooc: [ooc] Rude: and on ooc|emote: Rude sneers."
	if got := strings.Join(lines, "|"); got != want {
		t.Fatalf("the report's lines:\n%s\nwant\n%s", got, want)
	}
	if r.Lines[0].Ago != 2 {
		t.Fatalf("the first line was said %d turns before", r.Lines[0].Ago)
	}
	if !strings.Contains(said(e, "hurt"), "Your report about Rude is with the admins, with the 5 lines Rude said lately. Thank you.") {
		t.Fatalf("the reporter:\n%s", said(e, "hurt"))
	}
	last := func(fp string) string { m := e.players[fp].msgs(); return m[len(m)-1] }
	for _, tc := range []struct{ about, text, want string }{
		{"", "Nobody for nothing", "No knight named Nobody has been here."},
		{"", "hurt myself", "You cannot report yourself."},
		{"Rude", "", "Say why, after the name: /report Rude REASON."},
		{"", "", "Report whom? (/report NAME REASON)"},
	} {
		reportReq{from{"hurt", e.players["hurt"].session}, tc.about, tc.text}.handle(e)
		if got := last("hurt"); got != tc.want {
			t.Errorf("report %q %q: %q, want %q", tc.about, tc.text, got, tc.want)
		}
	}
	// A knight that has left can be reported, by the lines it said.
	e.leave("rude", e.players["rude"].session)
	reportReq{from{"other", e.players["other"].session}, "", "rude was rude"}.handle(e)
	if r := a.reports[len(a.reports)-1]; r.About != "Rude" || r.AboutKnight != "rude" || len(r.Lines) != 5 ||
		r.Lines[2].Line != "Rude whispers: not you" {
		t.Fatalf("a report about a knight who left: %+v", r)
	}
}

// What is said aloud is kept for the history's time, whispers for the report window, and
// nothing with a negative history time; the counts say what was said and refused.
func TestHistoryIsKeptForItsTimeAndCounted(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.Community.HistoryTurns, e.cfg.Community.ReportTurns = 1000, 100
	e.cfg.ChatWindowTurns = 1
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	sayAs(e, "a", Chat{Kind: ChatShout, Text: "kept"})
	sayAs(e, "a", Chat{Kind: ChatWhisper, To: "Kay b", Text: "brief"})
	for range 2 * DefaultCheckpointTurns {
		e.Step()
	}
	if len(e.soc.public) != 1 || len(e.soc.whispers) != 0 {
		t.Fatalf("after the report window: %d lines aloud, %d whispers", len(e.soc.public), len(e.soc.whispers))
	}
	for range 1000 {
		e.Step()
	}
	if len(e.soc.public) != 0 {
		t.Fatal("a line outlived the history's time")
	}
	e.cfg.Community.HistoryTurns = -1
	sayAs(e, "a", Chat{Kind: ChatShout, Text: "not kept"})
	channelAs(e, "a", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	sayAs(e, "a", Chat{Kind: ChatChannel, To: "ooc", Text: "nor this"})
	if len(e.soc.public) != 0 || len(e.soc.channels[1].lines) != 0 {
		t.Fatal("history was kept with the history off")
	}
	e.cfg.ChatWindowTurns = 100
	for range ChatLines + 1 {
		sayAs(e, "b", Chat{Kind: ChatEmote, Text: "hops"})
	}
	ctx := running(t, e)
	c, err := e.TalkCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Said["shout"] != 2 || c.Said["whisper"] != 1 || c.Said["channel"] != 1 || c.Said["emote"] != ChatLines || c.Refused["emote"] != 1 || c.Refused["say"] != 0 {
		t.Fatalf("counts: %+v", c)
	}
}
