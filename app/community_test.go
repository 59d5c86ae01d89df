package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The chat line's commands of issue 20 read as the world's actions; /leave alone is
// still the party's, /leave with a name a channel's.
func TestCommunityChatCommands(t *testing.T) {
	chat := func(k world.ChatKind, to, text string) chatAction {
		return chatSay{Kind: k, To: to, Text: text}
	}
	channel := func(k world.ChannelActionKind, name string) chatAction {
		return chatChannel{Kind: k, Name: name}
	}
	for _, tc := range []struct {
		in   string
		want chatAction
		note string
	}{
		{in: "/me waves", want: chat(world.ChatEmote, "", "waves")},
		{in: "/emote bows low", want: chat(world.ChatEmote, "", "bows low")},
		{in: "/me", note: "Act out what?"},
		{in: "/r on my way", want: chat(world.ChatReply, "", "on my way")},
		{in: "/c newbie how do I open a door?", want: chat(world.ChatChannel, "newbie", "how do I open a door?")},
		{in: "/newbie how do I open a door?", want: chat(world.ChatChannel, "newbie", "how do I open a door?")},
		{in: "/OOC lunch", want: chat(world.ChatChannel, "ooc", "lunch")},
		{in: "/newbie", note: "Say what on newbie?"},
		{in: "/c", note: "Talk on which channel?"},
		{in: "/join ooc", want: channel(world.ChannelJoin, "ooc")},
		{in: "/join", note: "Join which channel?"},
		{in: "/leave ooc", want: channel(world.ChannelLeave, "ooc")},
		{in: "/channels", want: channel(world.ChannelList, "")},
		{in: "/leave", want: chatParty{Kind: world.PartyLeave}},
		{in: "/leave party", want: chatParty{Kind: world.PartyLeave}},
		{in: "/mail", want: chatMail{}},
		{in: "/mail Bors meet me", want: chatLetter{"", "Bors meet me"}},
		{in: `/mail "Bors the Bold" meet me`, want: chatLetter{"Bors the Bold", "meet me"}},
		{in: "/report Mordred spam on newbie", want: chatReport{"", "Mordred spam on newbie"}},
		{in: "/report", note: "Report whom?"},
		{in: "/help", note: "/mail NAME TEXT writes to any knight"},
	} {
		a := parseChat(tc.in)
		if tc.note != "" {
			if n, ok := a.(chatNote); !ok || !strings.Contains(string(n), tc.note) {
				t.Errorf("%q: %#v, want a note with %q", tc.in, a, tc.note)
			}
			continue
		}
		if a != tc.want {
			t.Errorf("%q: %#v, want %#v", tc.in, a, tc.want)
		}
	}
	for _, in := range []string{"/afk", "/away brb, tea"} {
		if a := parseChat(in); a != chatAway(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(in, "/afk"), "/away"))) {
			t.Errorf("%q: %#v", in, a)
		}
	}
}

// A letter shows in the status line; e opens the letters, which reads them; a letter's
// key starts a reply on the chat line and its capital deletes it.
func TestTheLettersScreen(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:kay", Params{})
	d := newDriver(t, m)
	d.key("enter", "enter", "enter")
	d.waitText("level 1 of the dungeon")
	ctx := context.Background()
	bors, err := e.Join(ctx, world.NewAdventurer("SHA256:bors", "Bors the Bold", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10), NewViewSlot())
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	if err := bors.SendLetter(ctx, m.view.Self.Name, "meet me at the exit", sent); err != nil {
		t.Fatal(err)
	}
	d.waitText("1 letter (e)", "A letter from Bors the Bold has come.")
	d.key("e")
	d.waitText("LETTERS: 1 letter, 1 new", "a  from Bors the Bold, 2025-06-01 14:00 UTC (new)", "meet me at the exit")
	d.key("a")
	if m.screen != screenPlay || !m.chat.open || m.chat.input.value() != `/mail "Bors the Bold" ` {
		t.Fatalf("a reply: screen %v, chat line %q", m.screen, m.chat.input.value())
	}
	d.key("esc")
	if strings.Contains(m.Text(), "1 letter (e)") {
		t.Fatal("a letter read is still counted")
	}
	d.key("e")
	d.waitText("LETTERS: 1 letter, 0 new")
	d.key("A")
	d.waitText("LETTERS: 0 letters", "No letters.")
	d.key("q")
	d.waitText("You delete the letter from Bors the Bold.")
}

// /afk says the knight is away until the next key, whatever screen that key is for; the
// who-list says so, with the reason.
func TestAwayUntilTheNextKey(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:kay", Params{})
	d := newDriver(t, m)
	d.key("enter", "enter", "enter")
	d.waitText("level 1 of the dungeon")
	d.key("enter")
	d.line("/afk making tea")
	d.waitText("You are away: making tea.", "│ Away")
	who, err := e.Who(context.Background())
	if err != nil || len(who) != 1 || !who[0].Away || who[0].AwayReason != "making tea" {
		t.Fatalf("who: %+v, %v", who, err)
	}
	d.key("w") // the who-list's key brings the knight back, and the list shows it
	d.waitText("WHO IS IN THE GAME")
	d.key("q")
	d.waitText("You are back.")
	if strings.Contains(m.Text(), "│ Away") {
		t.Fatal("the status line still says away")
	}
}

// Screen-reader mode's words of issue 20 reach the world: me, reply, a channel's name,
// join, leave and a channel, channels, mail, afk, report.
func TestPlainCommunityWords(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:reader", Params{Plain: true})
	d := newDriver(t, m)
	d.waitOut("New here? Questions are welcome on the newbie channel")
	d.line("")
	d.line("")
	d.line("Lamorak")
	d.waitOut("Welcome, Lamorak.", "You are on the newbie channel")
	for _, tc := range []struct{ line, want string }{
		{"me waves", "Lamorak waves. (no one is near enough to hear)"},
		{"reply hi", "No one has whispered to you yet."},
		{"newbie how do I open a door?", "[newbie] Lamorak: how do I open a door?"},
		{"join ooc", "You join ooc: out of character"},
		{"leave ooc", "You leave ooc."},
		{"leave", "Type leave party to leave your party, leave and a channel's name"},
		{"channels", "Channels (join NAME, leave NAME, a channel's name and your words)"},
		{"mail", "You have no letters."},
		{"mail Nobody hello", "No knight named Nobody has been here."},
		{"mail delete 3", "Delete which letter?"},
		{"report Nobody for nothing", "No knight named Nobody has been here."},
		{"afk tea", "You are away: tea."},
		{"look", "You are back."},
		{"help talking", "me TEXT (or emote) acts it out"},
	} {
		d.line(tc.line)
		d.waitOut(tc.want)
	}
}
