package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// A browser's game (Params.Browser) has no SSH client at hand: what its guest reads on
// the title, drawn and spoken, and a window too small, names no ssh command or SSH key
// (the page itself offers to keep the knight); an SSH guest's keeps its ssh words.
func TestABrowsersGuestReadsNoSSHWords(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	noSSH := func(where, s string) {
		t.Helper()
		for _, bad := range []string{"ssh", "SSH"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s names %q for a browser:\n%s", where, bad, s)
			}
		}
	}
	m := playModel(t, e, "guest-page", Params{Guest: true, Browser: true, Names: fakeNames{}, PlainCommand: "ssh -t play.example play --plain"})
	title := m.Text()
	for _, want := range browserGuestTitle {
		if !strings.Contains(words(title), want) {
			t.Errorf("the browser guest's title lacks %q:\n%s", want, title)
		}
	}
	noSSH("the title", title)
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 12})
	small := words(m.Text())
	if !strings.Contains(small, "Please enlarge the window to at least 40×18") {
		t.Errorf("a small window is told %q", small)
	}
	noSSH("the too-small message", small)

	p := playModel(t, e, "guest-page-plain", Params{Guest: true, Browser: true, Plain: true, Names: fakeNames{}})
	d := newDriver(t, p)
	said := d.waitOut(browserGuestTitle[0], browserGuestTitle[1])
	noSSH("the spoken title", said)

	k := playModel(t, e, "SHA256:browser", Params{Browser: true})
	if s := words(k.Text()); !strings.Contains(s, "This browser's key is your account") {
		t.Errorf("a browser's key with no knight reads:\n%s", s)
	}
	noSSH("a key's title", k.Text())

	ssh := playModel(t, e, "guest-ssh", Params{Guest: true, Names: fakeNames{}})
	if s := ssh.Text(); !strings.Contains(s, "ssh-keygen -t ed25519") {
		t.Errorf("an SSH guest's title lost its ssh words:\n%s", s)
	}
}
