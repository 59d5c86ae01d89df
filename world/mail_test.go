package world

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A letter to a knight who is not online waits in the archive, survives a restart (a new
// engine loading the archive), is announced with a count when the knight arrives, and is
// read once (issue 20).
func TestALetterReachesAKnightWhoWasAway(t *testing.T) {
	e, a := mailEngine(t, []KnownKnight{{ID: "bors", Name: "Bors the Bold"}}, nil)
	e.join(knight("a", 10), &recorder{})
	mailAs(e, "a", "", "bors the bold meet me \x1b]52;c;Zm9v\x07at the exit\u202e")
	if !strings.Contains(said(e, "a"), "Your letter to Bors the Bold is sent: Bors the Bold will find it on arriving.") {
		t.Fatalf("the writer:\n%s", said(e, "a"))
	}
	kept := a.mail["bors"] // by the knight's id
	if len(kept) != 1 || kept[0].Text != "meet me at the exit" || kept[0].From != "Kay a" || kept[0].Read ||
		!kept[0].Sent.Equal(time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)) {
		t.Fatalf("archived: %+v", kept)
	}

	// The server restarts: the new engine loads the archive.
	e2, a2 := mailEngine(t, []KnownKnight{{ID: "bors", Name: "Bors the Bold"}, {ID: "a", Name: "Kay a"}}, a.mail)
	bors := NewAdventurer("bors", "Bors the Bold", Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10)
	e2.join(bors, &recorder{})
	p := e2.players["bors"]
	if !strings.Contains(said(e2, "bors"), "You have 1 unread letter. (/mail reads them.)") || e2.view(p).Self.Unread != 1 {
		t.Fatalf("the count on arrival:\n%s", said(e2, "bors"))
	}
	got := e2.letters(p, true)
	if len(got) != 1 || got[0].Text != "meet me at the exit" {
		t.Fatalf("the letters read: %+v", got)
	}
	if e2.unread(p) != 0 || !a2.mail["bors"][0].Read {
		t.Fatal("a letter read is not marked read in the archive")
	}
	deleteLetterReq{from{"bors", p.session}, got[0].ID}.handle(e2)
	if _, ok := a2.mail["bors"]; ok || !strings.Contains(said(e2, "bors"), "You delete the letter from Kay a.") {
		t.Fatalf("deleting: %v\n%s", a2.mail, said(e2, "bors"))
	}
}

// Every bad letter is refused with a line saying why: no such knight, a dead or retired
// knight, oneself, nothing to say, a full mailbox (the 21st unread letter), a sixth
// unread letter from one writer, a silenced writer; a long letter is cut and its writer
// told. A letter to a knight online reaches it at once.
func TestBadLettersAreRefused(t *testing.T) {
	e, a := mailEngine(t, []KnownKnight{{ID: "bors", Name: "Bors"}, {ID: "gone", Name: "Gone", Ended: true}}, nil)
	for i := range 6 {
		e.join(knight(fmt.Sprint(i), 10), &recorder{})
	}
	last := func(fp string) string { m := e.players[fp].msgs(); return m[len(m)-1] }
	for _, tc := range []struct{ to, text, want string }{
		{"", "Nobody hello", "No knight named Nobody has been here."},
		{"", "", "Write to whom? (/mail NAME TEXT)"},
		{"Gone", "hello", "Gone is no longer of this world: letters do not reach a knight who has died or retired."},
		{"Kay 0", "hello", "You cannot write to yourself."},
		{"Bors", " \x1b[2J ", "Write what? (/mail Bors TEXT)"},
	} {
		mailAs(e, "0", tc.to, tc.text)
		if got := last("0"); got != tc.want {
			t.Errorf("mail %q %q: %q, want %q", tc.to, tc.text, got, tc.want)
		}
	}
	for i := range MaxFromOne {
		mailAs(e, "0", "Bors", fmt.Sprint("letter ", i))
	}
	mailAs(e, "0", "Bors", "one more")
	if got := last("0"); got != "Bors has not read the 5 letters you sent yet: yours was not sent." {
		t.Fatalf("a sixth letter from one writer: %q", got)
	}
	for w := 1; w <= 3; w++ {
		for i := range MaxFromOne {
			mailAs(e, fmt.Sprint(w), "Bors", fmt.Sprint("letter ", i))
		}
	}
	mailAs(e, "4", "Bors", "the 21st")
	if got := last("4"); got != "Bors has 20 unread letters, as many as a mailbox holds: yours was not sent." {
		t.Fatalf("the 21st letter: %q", got)
	}
	if n := len(a.mail["bors"]); n != MaxUnread {
		t.Fatalf("%d letters kept, want %d", n, MaxUnread)
	}

	// A letter to a knight online reaches it at once, cut to its length, its writer told.
	mailAs(e, "4", "Kay 5", strings.Repeat("word ", 200))
	if got := last("4"); got != "Your letter to Kay 5 is delivered. (It was cut to 500 characters.)" {
		t.Fatalf("a long letter: %q", got)
	}
	if got := last("5"); got != "A letter from Kay 4 has come. (/mail reads it.)" {
		t.Fatalf("the recipient online: %q", got)
	}
	if l := a.mail["5"][0]; len([]rune(l.Text)) > MaxLetterRunes || len([]rune(l.Text)) < MaxLetterRunes-1 { // a space at the cut is trimmed
		t.Fatalf("the long letter kept %d characters", len([]rune(l.Text)))
	}

	e.soc.silenced["4"] = silence{until: e.turn + 100, text: "15:04 UTC", reason: "spam"}
	mailAs(e, "4", "Kay 5", "hi again")
	if got := last("4"); got != "You are silenced until 15:04 UTC (spam): no one hears you." {
		t.Fatalf("a silenced writer: %q", got)
	}

	// A knight that dies takes no more letters, and the ones waiting for it go.
	e.die(e.players["5"], "the Troll")
	if _, ok := a.mail["5"]; ok {
		t.Fatal("a dead knight's letters were kept")
	}
	mailAs(e, "3", "Kay 5", "rest well")
	if got := last("3"); !strings.HasPrefix(got, "Kay 5 is no longer of this world") {
		t.Fatalf("a letter to a knight who died: %q", got)
	}
}

// The letters of a knight one mutes are not counted or shown.
func TestLettersFromAMutedKnightAreHidden(t *testing.T) {
	e, _ := mailEngine(t, nil, nil)
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	optionsReq{from{"b", e.players["b"].session}, Options{Muted: []string{"Kay a"}}}.handle(e)
	mailAs(e, "a", "Kay b", "you cannot ignore me")
	p := e.players["b"]
	if e.unread(p) != 0 || len(e.letters(p, false)) != 0 || strings.Contains(said(e, "b"), "A letter from") {
		t.Fatalf("a muted knight's letter showed:\n%s", said(e, "b"))
	}
}

// Issue 31: a claimed guest's knight, stored under a new id and name, can be sent a
// letter at once (KnowKnight), before its new key first connects.
func TestAClaimedKnightCanBeWrittenToAtOnce(t *testing.T) {
	e, _ := mailEngine(t, nil, nil)
	e.join(knight("kay", 10), &recorder{})
	mailAs(e, "kay", "Gawain", "welcome")
	if got := lastMsg(e.players["kay"]); got != "No knight named Gawain has been here." {
		t.Fatalf("before the claim: %q", got)
	}
	ctx := running(t, e)
	if err := e.KnowKnight(ctx, "K-claimed", "Gawain"); err != nil {
		t.Fatal(err)
	}
	on(t, e, func() { mailAs(e, "kay", "Gawain", "welcome") })
	on(t, e, func() {
		if n := len(e.soc.mail["K-claimed"]); n != 1 {
			t.Errorf("the claimed knight has %d letters, want 1 (told %q)", n, lastMsg(e.players["kay"]))
		}
	})
}

// A letter to a knight the world does not know names the names to look up elsewhere,
// longest first (those no longer than a name may be); one to a knight it knows, online
// or not, names none. A knight then made known takes the letter.
func TestALetterToAnUnknownKnightNamesWhomToLookUp(t *testing.T) {
	e, a := mailEngine(t, []KnownKnight{{ID: "bors", Name: "Bors the Bold"}}, nil)
	e.join(knight("a", 10), &recorder{})
	for _, tc := range []struct {
		to, text string
		want     []string
	}{
		{"Bors the Bold", "hi", nil},
		{"", "bors the bold meet me", nil},
		{"Kay a", "hi", nil}, // online
		{"  Lancelot ", "hi", []string{"Lancelot"}},
		{"", "Lancelot du Lac meet me", []string{"Lancelot du Lac meet", "Lancelot du Lac", "Lancelot du", "Lancelot"}},
		{"", "", nil},
	} {
		if got := e.unknownRecipient(tc.to, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("to %q, %q: %q, want %q", tc.to, tc.text, got, tc.want)
		}
	}
	knowReq{KnownKnight{ID: "lancelot", Name: "Lancelot du Lac"}}.handle(e)
	if got := e.unknownRecipient("", "Lancelot du Lac meet me"); got != nil {
		t.Errorf("a knight made known: %q", got)
	}
	mailAs(e, "a", "", "Lancelot du Lac meet me")
	if len(a.mail["lancelot"]) != 1 {
		t.Fatalf("the letter to the knight made known:\n%s", said(e, "a"))
	}
}
