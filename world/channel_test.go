package world

import (
	"fmt"
	"strings"
	"testing"
)

// A knight below level 3 is on newbie until it leaves it, and told so when it arrives;
// a channel line reaches everyone on the channel, wherever they stand, but not the
// knights off it or those who mute the speaker; a knight joining a channel reads its last
// lines; a choice is saved with the knight (issue 20).
func TestChannels(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.ChatWindowTurns = 1
	rec := &recorder{}
	e.join(knight("new", 10), rec)
	vet := knight("vet", 10)
	vet.Level = 3
	e.join(vet, &recorder{})
	e.join(knight("far", 10), &recorder{})
	e.players["far"].rec.Depth = 2
	if !strings.Contains(said(e, "new"), "You are on the newbie channel, where questions are welcome: /newbie TEXT asks") {
		t.Fatalf("a new knight was not told of newbie:\n%s", said(e, "new"))
	}
	if strings.Contains(said(e, "vet"), "newbie") {
		t.Fatalf("a level 3 knight was put on newbie:\n%s", said(e, "vet"))
	}

	sayAs(e, "new", Chat{Kind: ChatChannel, To: "newbie", Text: "how do I open a door?"})
	want := "[newbie] Kay new: how do I open a door?"
	if !strings.Contains(said(e, "far"), want) || !strings.Contains(said(e, "new"), want) {
		t.Fatalf("a knight on the channel, on another level, did not read it:\n%s", said(e, "far"))
	}
	if strings.Contains(said(e, "vet"), "open a door") {
		t.Fatal("a knight off the channel read it")
	}
	sayAs(e, "vet", Chat{Kind: ChatChannel, To: "NEWBIE", Text: "shift and an arrow"})
	if !strings.Contains(said(e, "vet"), "You are not on newbie. (/join newbie joins it.)") {
		t.Fatalf("talking on a channel one is not on:\n%s", said(e, "vet"))
	}
	sayAs(e, "vet", Chat{Kind: ChatChannel, To: "gossip", Text: "hi"})
	if !strings.Contains(said(e, "vet"), "There is no channel named gossip; the channels are newbie and ooc.") {
		t.Fatalf("an unknown channel:\n%s", said(e, "vet"))
	}

	// Joining reads the channel's last lines, then says what it is.
	channelAs(e, "vet", ChannelAction{Kind: ChannelJoin, Name: "#newbie"})
	v := said(e, "vet")
	if !strings.Contains(v, "The last 1 line said on newbie:\n"+want+"\nYou join newbie: questions about the game") {
		t.Fatalf("joining did not show the history:\n%s", v)
	}
	if !e.players["vet"].rec.Channels["newbie"] || !e.players["vet"].changed {
		t.Fatal("the choice to join is not kept with the knight")
	}
	channelAs(e, "vet", ChannelAction{Kind: ChannelJoin, Name: "newbie"})
	if !strings.Contains(said(e, "vet"), "You are on newbie already.") {
		t.Fatal("joining twice")
	}
	optionsReq{from{"far", e.players["far"].session}, Options{Muted: []string{"Kay vet"}}}.handle(e)
	sayAs(e, "vet", Chat{Kind: ChatChannel, To: "newbie", Text: "shift and an arrow"})
	if !strings.Contains(said(e, "new"), "[newbie] Kay vet: shift and an arrow") || strings.Contains(said(e, "far"), "shift and an arrow") {
		t.Fatalf("a muted speaker on a channel:\n%s", said(e, "far"))
	}

	channelAs(e, "new", ChannelAction{Kind: ChannelLeave, Name: "newbie"})
	if !strings.Contains(said(e, "new"), "You leave newbie. (/join newbie comes back.)") || e.onChannel(e.players["new"], &Channels[0]) {
		t.Fatalf("leaving:\n%s", said(e, "new"))
	}
	channelAs(e, "new", ChannelAction{Kind: ChannelLeave, Name: "ooc"})
	if !strings.Contains(said(e, "new"), "You are not on ooc.") {
		t.Fatal("leaving a channel one is not on")
	}
	// The choice goes with the record, so it holds when the knight comes back.
	back, _ := e.leave("new", e.players["new"].session)
	if on, chose := back.Channels["newbie"]; !chose || on {
		t.Fatalf("the saved record's channels: %v", back.Channels)
	}
	e.join(back, rec)
	if strings.Contains(said(e, "new")[strings.LastIndex(said(e, "new"), "Welcome"):], "newbie") {
		t.Fatal("a knight who left newbie was put back on it")
	}

	channelAs(e, "new", ChannelAction{Kind: ChannelList})
	if l := said(e, "new"); !strings.Contains(l, "newbie: questions about the game, asked and answered; no question is too small (2 knights online on it; you are not on it).") ||
		!strings.Contains(l, "ooc: out of character: anything but the game (0 knights online on it; you are not on it).") {
		t.Fatalf("the list of channels:\n%s", l)
	}
}

// A channel keeps its last MaxChannelHistory lines for the knights who join it, and only
// for the history's time.
func TestChannelHistoryIsBounded(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.cfg.ChatWindowTurns = 1
	e.cfg.Community.HistoryTurns = 1000
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	channelAs(e, "a", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	for i := range MaxChannelHistory + 10 {
		sayAs(e, "a", Chat{Kind: ChatChannel, To: "ooc", Text: fmt.Sprintf("line %d", i)})
		e.Step()
	}
	channelAs(e, "b", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	b := said(e, "b")
	if !strings.Contains(b, "The last 50 lines said on ooc:\n[ooc] Kay a: line 10\n") || strings.Contains(b, "line 9\n") ||
		!strings.Contains(b, "line 59\nYou join ooc") {
		t.Fatalf("the history shown:\n%s", b)
	}
	for range 1000 {
		e.Step()
	}
	channelAs(e, "b", ChannelAction{Kind: ChannelLeave, Name: "ooc"})
	channelAs(e, "b", ChannelAction{Kind: ChannelJoin, Name: "ooc"})
	if !strings.Contains(said(e, "b"), "Nothing has been said on ooc lately.") {
		t.Fatalf("history older than its time was shown:\n%s", said(e, "b")[len(b):])
	}
}
