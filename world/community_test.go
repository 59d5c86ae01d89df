package world

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzCommunityText sends the escape-injection corpus, and whatever the fuzzer makes of
// it, down every text path of issue 20 — an emote, a reply, a channel line, a letter, a
// report, an away reason — and checks what other knights and the admins would read: the
// listener's log, its letters, the report, the who-list. Nothing a terminal would act on
// gets through, everything is valid UTF-8, and nothing is longer than its cap. Run it
// with go test -fuzz FuzzCommunityText ./world.
func FuzzCommunityText(f *testing.F) {
	for _, s := range escapeCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, a := mailEngine(t, nil, nil)
		e.cfg.ChatWindowTurns = 1
		e.join(knight("speaker", 10), &recorder{})
		e.join(knight("ear", 10), &recorder{})
		sp := e.players["speaker"].session
		sayAs(e, "ear", Chat{Kind: ChatWhisper, To: "Kay speaker", Text: "hi"})
		channelAs(e, "ear", ChannelAction{Kind: ChannelJoin, Name: s})
		e.Step()
		sayAs(e, "speaker", Chat{Kind: ChatEmote, Text: s})
		sayAs(e, "speaker", Chat{Kind: ChatReply, Text: s})
		sayAs(e, "speaker", Chat{Kind: ChatChannel, To: "newbie", Text: s})
		sayAs(e, "speaker", Chat{Kind: ChatChannel, To: s, Text: s})
		e.Step()
		mailReq{from{"speaker", sp}, "Kay ear", s, time.Time{}}.handle(e)
		mailReq{from{"speaker", sp}, "", s, time.Time{}}.handle(e)
		reportReq{from{"speaker", sp}, "Kay ear", s}.handle(e)
		reportReq{from{"speaker", sp}, s, s}.handle(e)
		awayReq{from{"speaker", sp}, true, s}.handle(e)
		check := func(what, got string, most int) {
			if !utf8.ValidString(got) {
				t.Fatalf("%s: %q is not valid UTF-8", what, got)
			}
			if most > 0 && utf8.RuneCountInString(got) > most {
				t.Fatalf("%s: %d runes, over %d", what, utf8.RuneCountInString(got), most)
			}
			for _, r := range got {
				if acted(r) {
					t.Fatalf("%s: %q keeps %U", what, got, r)
				}
			}
		}
		for _, m := range e.players["ear"].msgs() {
			check("the listener's log", m, 0)
		}
		for _, m := range e.players["speaker"].msgs() {
			check("the speaker's log", m, 0)
		}
		for _, l := range e.letters(e.players["ear"], false) {
			check("a letter", l.Text, MaxLetterRunes)
		}
		for _, r := range a.reports {
			check("a report's reason", r.Reason, MaxChatRunes)
			for _, l := range r.Lines {
				check("a report's line", l.Line, 0)
			}
		}
		w := e.whoEntry(e.players["speaker"])
		check("an away reason", w.AwayReason, MaxAwayRunes)
		if strings.Contains(w.AwayReason, "  ") {
			t.Fatalf("an away reason keeps a run of spaces: %q", w.AwayReason)
		}
	})
}
