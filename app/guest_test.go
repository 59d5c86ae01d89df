package app

import (
	"strings"
	"testing"
)

// A guest's title says its knight is not saved and how to make a key, under the message
// of the day; the knight it names is marked "Guest " (a name typed with the mark is not
// marked twice) and is a guest's record; the question to leave says it is not saved.
func TestAGuestsTitleNameAndLeaving(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "guest-test", Params{Guest: true, MOTD: "Double treasure this weekend.", Names: fakeNames{}})
	d := newDriver(t, m)
	title := m.Text()
	for _, want := range []string{guestTitle[0], guestTitle[1], "Double treasure this weekend.", "Press Enter to begin", newbieLine} {
		if !strings.Contains(title, want) {
			t.Fatalf("the guest's title lacks %q:\n%s", want, title)
		}
	}
	d.key("enter", "enter")
	if !strings.HasPrefix(m.rolled.suggested, GuestPrefix) {
		t.Fatalf("suggested %q for a guest", m.rolled.suggested)
	}
	d.key("guest Tom", "enter")
	d.waitText("Welcome, Guest Tom.")
	rec, online, err := e.Lookup(t.Context(), "guest-test")
	if err != nil || !online || !rec.Guest || rec.Name != "Guest Tom" {
		t.Fatalf("the guest's knight: %+v %v %v", rec, online, err)
	}
	d.key("q")
	if s := m.Text(); !strings.Contains(s, guestQuitQuestion) {
		t.Fatalf("the guest's question to leave:\n%s", s)
	}
}

// A knight with a key may not take a name that begins with Guest, in any case (issue 30),
// and is told why; a guest's name begins so, and "Tom Guest" is anyone's.
func TestAKeyedKnightIsToldGuestNamesAreGuests(t *testing.T) {
	for name, refused := range map[string]bool{"Guestly": true, "GUEST Kay": true, "guestwick": true, "Tom Guest": false, "Gues": false} {
		m := playModel(t, nil, "keyed", Params{Names: fakeNames{}})
		_, note := m.nameKnight(name)
		if got := note == GuestNameNote; got != refused {
			t.Errorf("%q: note %q", name, note)
		}
	}
	g := playModel(t, nil, "guest", Params{Guest: true, Names: fakeNames{}})
	if _, note := g.nameKnight("Tom"); note == GuestNameNote {
		t.Errorf("a guest's name refused: %q", note)
	}
}

func TestGuestName(t *testing.T) {
	for in, want := range map[string]string{
		"Tom": "Guest Tom", "guest Tom": "Guest Tom", "  Tom  ": "Guest Tom",
		"Bartholomew the Bold": "Guest Bartholomew th",
	} {
		if got := guestName(in); got != want {
			t.Errorf("guestName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A guest is a newcomer: its title points it to the newbie channel, and it asks there; it
// has no letters: e shows why (and how to keep a knight), as /mail does when it writes.
func TestAGuestAsksOnNewbieAndHasNoLetters(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "guest-ask", Params{Guest: true, Names: fakeNames{}})
	d := newDriver(t, m)
	if !strings.Contains(m.Text(), newbieLine) {
		t.Fatalf("the guest's title does not point to newbie:\n%s", m.Text())
	}
	d.key("enter", "enter")
	d.key("Tom", "enter")
	d.waitText("Welcome, Guest Tom.", "You are on the newbie channel")
	d.key("enter")
	d.line("/newbie how do I go down?")
	d.waitText("[newbie] Guest Tom: how do I go down?")
	d.key("e")
	d.waitText("LETTERS", "Guests cannot send or receive letters")
	if s := m.Text(); strings.Contains(s, "No letters.") || strings.Contains(s, "A letter's key") || !strings.Contains(s, "Any key returns.") {
		t.Fatalf("the guest's letters screen offers to write:\n%s", m.Text())
	}
	d.key("q")
	d.key("enter")
	d.line("/mail Bors hello")
	d.waitText("Guests cannot send or receive letters")
}
