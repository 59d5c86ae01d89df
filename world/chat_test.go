package world

import (
	"slices"
	"strings"
	"testing"
)

// Seed of the rule (DESIGN §9): a plain line is heard by the knights who see the
// speaker's square; it is cleaned of escape sequences first.
func TestSayReachesTheKnightsWhoSeeTheSpeaker(t *testing.T) {
	e, _ := chatters(t, map[string]where{
		"arthur": {1, Pos{0, 0}}, // at the exit
		"bors":   {1, Pos{2, 0}}, // down the corridor: sees the exit
		"cai":    {1, Pos{3, 0}}, // behind the door
		"dag":    {2, Pos{0, 0}}, // another level
		"ector":  {0, Pos{}},     // outside
	})
	sayAs(e, "arthur", Chat{Text: "hello \x1b[2J\x1b]0;pwned\x07there\u202e"})
	if got := said(e, "arthur"); !strings.Contains(got, "You say: hello there") || strings.Contains(got, "no one is near") {
		t.Fatalf("the speaker's log:\n%s", got)
	}
	if got := said(e, "bors"); !strings.Contains(got, "Arthur says: hello there") {
		t.Fatalf("a knight who sees the speaker did not hear:\n%s", got)
	}
	for _, fp := range []string{"cai", "dag", "ector"} {
		if got := said(e, fp); strings.Contains(got, "hello") {
			t.Fatalf("%s heard a line it should not have:\n%s", fp, got)
		}
	}
	for _, msg := range e.players["bors"].msgs() {
		if strings.ContainsAny(msg, "\x1b\x07\u202e") {
			t.Fatalf("an escape reached another knight: %q", msg)
		}
	}
	sayAs(e, "cai", Chat{Text: "anyone?"})
	if got := said(e, "cai"); !strings.Contains(got, "You say: anyone? (no one is near enough to hear)") {
		t.Fatalf("a line no one hears:\n%s", got)
	}
	// Outside the dungeon everyone outside hears.
	dag := e.players["dag"]
	dag.rec.Depth = 0
	e.stand(dag) // off the level's squares, and on the surface's list, as place does it
	e.levelsChanged()
	sayAs(e, "ector", Chat{Text: "sunny"})
	if !strings.Contains(said(e, "dag"), "Ector says: sunny") {
		t.Fatalf("outside, a knight did not hear:\n%s", said(e, "dag"))
	}
}

func TestShoutWhisperAndParty(t *testing.T) {
	e, _ := chatters(t, map[string]where{
		"arthur": {1, Pos{0, 0}},
		"bors":   {2, Pos{0, 0}},
		"cai":    {0, Pos{}},
	})
	e.players["bors"].rec.Name = "Bors the Bold"
	sayAs(e, "arthur", Chat{Kind: ChatShout, Text: "to arms"})
	for _, fp := range []string{"bors", "cai"} {
		if !strings.Contains(said(e, fp), "Arthur shouts: to arms") {
			t.Fatalf("%s did not hear the shout:\n%s", fp, said(e, fp))
		}
	}
	// A whisper names its knight without regard to case; a name may have spaces.
	sayAs(e, "arthur", Chat{Kind: ChatWhisper, Text: "bors the bold meet me below"})
	if !strings.Contains(said(e, "bors"), "Arthur whispers: meet me below") ||
		!strings.Contains(said(e, "arthur"), "You whisper to Bors the Bold: meet me below") {
		t.Fatalf("whisper:\n%s\n--\n%s", said(e, "bors"), said(e, "arthur"))
	}
	if strings.Contains(said(e, "cai"), "meet me") {
		t.Fatal("a whisper reached a third knight")
	}
	sayAs(e, "arthur", Chat{Kind: ChatWhisper, To: "CAI", Text: "psst"})
	if !strings.Contains(said(e, "cai"), "Arthur whispers: psst") {
		t.Fatalf("whisper by To:\n%s", said(e, "cai"))
	}
	sayAs(e, "arthur", Chat{Kind: ChatWhisper, Text: "Nobody here"})
	if !strings.Contains(said(e, "arthur"), "No knight named Nobody is in the game.") {
		t.Fatalf("whisper to no one:\n%s", said(e, "arthur"))
	}
	sayAs(e, "arthur", Chat{Kind: ChatParty, Text: "hi party"})
	if !strings.Contains(said(e, "arthur"), NoPartyNote) || strings.Contains(said(e, "bors"), "hi party") {
		t.Fatal("party chat from a knight alone")
	}
}

// Flood control counts lines per key over a window of turns: the sixth line within the
// window is dropped with a note to the sender only, a reconnect does not reset the count,
// and once the window has passed the key may talk again.
func TestFloodIsSlowedPerKey(t *testing.T) {
	e, subs := chatters(t, map[string]where{"arthur": {1, Pos{0, 0}}, "bors": {1, Pos{1, 0}}})
	e.cfg.ChatWindowTurns = 100
	for i := range ChatLines {
		sayAs(e, "arthur", Chat{Text: "line " + string(rune('a'+i))})
	}
	// The same key connects again: the count goes with the key.
	e.join(e.players["arthur"].rec, subs["arthur"])
	sayAs(e, "arthur", Chat{Text: "one too many"})
	if strings.Contains(said(e, "bors"), "one too many") {
		t.Fatal("the flood reached another knight")
	}
	if !strings.Contains(said(e, "arthur"), FloodNote) || strings.Contains(said(e, "bors"), FloodNote) {
		t.Fatal("the note went to the wrong knight")
	}
	for range 100 {
		e.Step()
	}
	sayAs(e, "arthur", Chat{Text: "later"})
	if !strings.Contains(said(e, "bors"), "Arthur says: later") {
		t.Fatalf("after the window the key may not talk:\n%s", said(e, "bors"))
	}
	for range DefaultCheckpointTurns * 2 {
		e.Step()
	}
	if len(e.talk) != 0 {
		t.Fatalf("quiet keys are remembered: %d", len(e.talk))
	}

	// A guest may say fewer lines in the window.
	e.players["arthur"].rec.Guest = true
	for i := range GuestChatLines {
		sayAs(e, "arthur", Chat{Text: "guest line " + string(rune('a'+i))})
	}
	sayAs(e, "arthur", Chat{Text: "a guest's one too many"})
	if got := said(e, "bors"); !strings.Contains(got, "guest line b") || strings.Contains(got, "a guest's one too many") ||
		!strings.Contains(said(e, "arthur"), GuestFloodNote) {
		t.Fatalf("a guest's flood:\n%s", got)
	}
}

func TestMutedKnightsAreNotHeard(t *testing.T) {
	e, _ := chatters(t, map[string]where{"arthur": {1, Pos{0, 0}}, "bors": {1, Pos{1, 0}}})
	b := e.players["bors"]
	optionsReq{from{"bors", b.session}, Options{Muted: []string{"ARTHUR", "bad\x1bname", "Arthur"}}}.handle(e)
	if got := b.rec.Options.Muted; !slices.Equal(got, []string{"ARTHUR"}) {
		t.Fatalf("mute list kept %q", got)
	}
	sayAs(e, "arthur", Chat{Text: "can you hear me"})
	sayAs(e, "arthur", Chat{Kind: ChatShout, Text: "HEAR ME"})
	if strings.Contains(said(e, "bors"), "hear me") || strings.Contains(said(e, "bors"), "HEAR ME") {
		t.Fatalf("a muted knight was heard:\n%s", said(e, "bors"))
	}
	// A look-alike spelling of the muted name is muted as well.
	if !(Options{Muted: []string{"Lancelot"}}).Mutes("LANCE1OT") {
		t.Fatal("a look-alike of a muted name is heard")
	}
}

// Joins, leaves, deaths and retirements are announced to everyone online.
func TestAnnouncements(t *testing.T) {
	e := fixtureEngine(t, nil)
	a, b := &recorder{}, &recorder{}
	e.join(knight("a", 10), a)
	e.join(knight("b", 10), b)
	if got := said(e, "a"); !strings.Contains(got, "Kay b joins the game.") {
		t.Fatalf("join not announced:\n%s", got)
	}
	if strings.Contains(said(e, "b"), "Kay b joins") {
		t.Fatal("a knight was told of its own arrival")
	}
	e.join(knight("c", 10), &recorder{})
	e.leave("c", e.players["c"].session)
	if !strings.Contains(said(e, "a"), "Kay c leaves the game.") {
		t.Fatalf("leave not announced:\n%s", said(e, "a"))
	}
	e.die(e.players["b"], "the Troll")
	if !strings.Contains(said(e, "a"), "Kay b has been slain by the Troll on level 1.") {
		t.Fatalf("death not announced:\n%s", said(e, "a"))
	}
	e.join(knight("d", 10), &recorder{})
	d := e.players["d"]
	d.rec.Depth = 0
	e.retire(d)
	if !strings.Contains(said(e, "a"), "Kay d retires with honour into the hall of fame.") {
		t.Fatalf("retirement not announced:\n%s", said(e, "a"))
	}
}

// The public API: a line sent from a session's goroutine is carried out at once, without
// waiting for the knight's energy.
func TestChatThroughThePlayerHandle(t *testing.T) {
	ctx, pa, _, mb := twoHandles(t)
	if err := pa.Chat(ctx, Chat{Kind: ChatShout, Text: "ho"}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, mb, "the shout", func(v View) bool {
		n := len(v.Log.Lines())
		return n > 0 && v.Log.Lines()[n-1] == "Kay a shouts: ho"
	})
	if n := len(v.Log.Lines()); v.Said != uint64(n) {
		t.Fatalf("Said %d for %d messages", v.Said, n)
	}
}

// A line said in a room is what others do: an idle listener reads it at its refresh, an
// active one within ActiveRefreshTurns, and the speaker at once; a whisper shows at once.
func TestSaidLinesReachListenersAtTheirRefresh(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.IdleTurns, e.cfg.IdleRefreshTurns, e.cfg.ActiveRefreshTurns = 50, 20, DefaultActiveRefreshTurns
	subs := map[string]*recorder{}
	for _, fp := range []string{"speaker", "idle", "active"} {
		subs[fp] = &recorder{}
		e.join(knight(fp, 10), subs[fp]) // all on the exit of level 1
	}
	for range e.cfg.IdleTurns {
		e.Step()
	}
	e.stir(e.players["active"])
	heard := func(fp, line string) bool {
		return strings.Contains(strings.Join(subs[fp].last().Log.Lines(), "\n"), line)
	}
	sayAs(e, "speaker", Chat{Text: "hail"})
	if !heard("speaker", "You say: hail") {
		t.Fatal("the speaker did not see its own line at once")
	}
	if heard("idle", "Kay speaker says: hail") {
		t.Fatal("an idle listener got its own frame for the line at once")
	}
	turns := 0
	for ; !heard("active", "Kay speaker says: hail"); turns++ {
		e.Step()
	}
	if turns > DefaultActiveRefreshTurns {
		t.Fatalf("the active listener read the line after %d turns, want at most %d", turns, DefaultActiveRefreshTurns)
	}
	for ; !heard("idle", "Kay speaker says: hail"); turns++ {
		e.Step()
	}
	if turns > e.cfg.IdleRefreshTurns {
		t.Fatalf("the idle listener read the line after %d turns, want at most %d", turns, e.cfg.IdleRefreshTurns)
	}
	sayAs(e, "speaker", Chat{Kind: ChatWhisper, To: "Kay idle", Text: "psst"})
	if !heard("idle", "Kay speaker whispers: psst") {
		t.Fatal("a whisper did not show at once")
	}
}

// An emote is heard by those who would hear a say, as "Name text." (issue 20), and
// cleaned like every line; a reply goes to the last knight who whispered, and tells the
// sender when that knight has gone or when no one has whispered yet.
func TestEmoteAndReply(t *testing.T) {
	e, _ := chatters(t, map[string]where{
		"arthur": {1, Pos{0, 0}},
		"bors":   {1, Pos{2, 0}}, // sees the exit
		"cai":    {2, Pos{0, 0}}, // another level
	})
	sayAs(e, "arthur", Chat{Kind: ChatEmote, Text: "waves \x1b]0;x\x07cheerfully"})
	if !strings.Contains(said(e, "bors"), "Arthur waves cheerfully.") || !strings.Contains(said(e, "arthur"), "Arthur waves cheerfully.") {
		t.Fatalf("the emote:\n%s\n--\n%s", said(e, "arthur"), said(e, "bors"))
	}
	if strings.Contains(said(e, "cai"), "waves") {
		t.Fatal("an emote reached a knight on another level")
	}
	for text, want := range map[string]string{"'s sword gleams": "Arthur's sword gleams.", "bows!": "Arthur bows!", "asks, \"why?\"": `Arthur asks, "why?"`, "trails off…": "Arthur trails off…", "says é": "Arthur says é."} {
		e.talk = nil // a fresh flood allowance for each
		sayAs(e, "arthur", Chat{Kind: ChatEmote, Text: text})
		if !strings.Contains(said(e, "bors"), want) {
			t.Fatalf("emote %q: want %q in\n%s", text, want, said(e, "bors"))
		}
	}
	e.players["arthur"].rec.Depth = 2 // beside no one but Cai, on another square
	e.players["arthur"].rec.X = 5
	sayAs(e, "arthur", Chat{Kind: ChatEmote, Text: "sighs"})
	if !strings.Contains(said(e, "arthur"), "Arthur sighs. (no one is near enough to hear)") {
		t.Fatalf("an emote no one sees:\n%s", said(e, "arthur"))
	}

	sayAs(e, "bors", Chat{Kind: ChatReply, Text: "hello?"})
	if !strings.Contains(said(e, "bors"), "No one has whispered to you yet.") {
		t.Fatalf("a reply with no one to answer:\n%s", said(e, "bors"))
	}
	sayAs(e, "cai", Chat{Kind: ChatWhisper, To: "bors", Text: "psst"})
	sayAs(e, "bors", Chat{Kind: ChatReply, Text: "what?"})
	if !strings.Contains(said(e, "cai"), "Bors whispers: what?") || !strings.Contains(said(e, "bors"), "You whisper to Cai: what?") {
		t.Fatalf("the reply:\n%s\n--\n%s", said(e, "bors"), said(e, "cai"))
	}
	if strings.Contains(said(e, "arthur"), "what?") {
		t.Fatal("a reply reached a third knight")
	}
	// The reply goes to the newest whisperer, and one who has left is said to be gone.
	e.talk = nil // Arthur has used its flood allowance above
	sayAs(e, "arthur", Chat{Kind: ChatWhisper, To: "bors", Text: "me too"})
	e.leave("arthur", e.players["arthur"].session)
	sayAs(e, "bors", Chat{Kind: ChatReply, Text: "where are you"})
	if !strings.Contains(said(e, "bors"), "Arthur is not in the game now. (/mail Arthur TEXT leaves a letter.)") {
		t.Fatalf("a reply to a knight who left:\n%s", said(e, "bors"))
	}
}

// Muting and unmuting are confirmed in the message log, however the options changed.
func TestMutingIsConfirmedInTheLog(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	s := e.players["a"].session
	optionsReq{from{"a", s}, Options{Muted: []string{"Mordred"}}}.handle(e)
	optionsReq{from{"a", s}, Options{Muted: []string{"Mordred"}, Theme: "contrast"}}.handle(e)
	optionsReq{from{"a", s}, Options{}}.handle(e)
	want := "You have muted Mordred: you will not see what Mordred says. (/unmute Mordred undoes it.)\n" +
		"You have unmuted Mordred: you will see what Mordred says again."
	if got := said(e, "a"); !strings.HasSuffix(got, want) {
		t.Fatalf("the log:\n%s", got)
	}
}
