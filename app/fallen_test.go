package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 31, deaths explained: the death screen shows the last blows and what might have
// saved the knight, screen-reader mode says the same, and the next knight named in the
// session carries the fallen one's last lines for its log to begin with. The inventory
// marks the sword, shield and armour in use.
func TestTheDeathScreenTellsHowTheKnightFell(t *testing.T) {
	d := &world.Death{Killer: "an Illusionist", Depth: 2, Level: 1, Experience: 300,
		LastBlows: []world.Blow{{By: "an Illusionist", Damage: 9, HitsLeft: 4}, {By: "an Illusionist", Damage: 7, HitsLeft: -3}},
		Hints:     []string{"Sleep would have put an Illusionist to sleep (you had 4 spell units).", "There is no running from a room: enter one with more hits."},
		LastLines: []string{"The last moments of Kay:", "The Illusionist hits Kay for 7. Kay is slain!", "You have been slain by an Illusionist."}}
	want := []string{"The last blows:", "An Illusionist: 9 hits (4 left)", "An Illusionist: 7 hits (0 left)", "What might have saved you:",
		"Sleep would have put an Illusionist to sleep (you had 4 spell units).", "There is no running from a room: enter one with more hits."}
	m, _ := viewModel(t, world.View{}, 80, 24)
	m.screen, m.tomb = screenDead, d
	checkWhole(t, "the death screen", m.Text(), 0, 80, append(want, "slain by an Illusionist", "Death is permanent. Press Enter to roll a new knight, q to leave.")...)
	m.pl.active = true
	m.sayEnd()
	said := strings.Join(m.pl.out, "\n")
	for _, w := range want {
		if !strings.Contains(said, w) {
			t.Fatalf("screen-reader mode does not say %q:\n%s", w, said)
		}
	}
	if !slices.Equal(m.prelude(), d.LastLines) {
		t.Fatalf("the next knight's log would begin %q, want %q", m.prelude(), d.LastLines)
	}
	m.tomb, m.retired = nil, &world.Retirement{}
	if m.prelude() != nil {
		t.Fatal("a retired knight's lines begin the next knight's log")
	}

	v := world.View{}
	v.Self.Items = []world.Item{{Kind: world.ItemSword}, {Kind: world.ItemSword, Plus: 2}, {Kind: world.ItemArmour, Plus: 1}, {Kind: world.ItemGem, Value: 5}}
	text := strings.Join(inventoryText(v), "\n")
	for _, w := range []string{"a: sword;", "b: sword +2 (in use)", "c: armour +1 (in use)"} {
		if !strings.Contains(text, w) {
			t.Fatalf("the inventory does not say %q:\n%s", w, text)
		}
	}
	m, _ = viewModel(t, v, 80, 24)
	m.screen = screenInventory
	if s := m.Text(); strings.Count(s, "(in use)") != 2 {
		t.Fatalf("the inventory screen marks %d things in use, want 2:\n%s", strings.Count(s, "(in use)"), s)
	}
}

// The knight rolled after a death in the same session begins its log with the fallen
// one's last lines, in screen-reader mode printed before its welcome.
func TestTheNextKnightsLogBeginsWithTheLastMoments(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:heir", Params{})
	d := newDriver(t, m)
	d.key("y") // screen-reader mode
	d.waitOut("Press Enter to begin.")
	m.screen, m.tomb = screenDead, &world.Death{Killer: "an Illusionist",
		LastLines: []string{"The last moments of Kay:", "The Illusionist hits Kay for 7. Kay is slain!"}}
	d.line("")
	d.waitOut("The dice have spoken")
	d.line("")
	d.waitOut("Name your knight")
	d.line("Percival")
	out := d.waitOut("The last moments of Kay:", "The Illusionist hits Kay for 7. Kay is slain!", "Welcome, Percival.")
	if strings.Index(out, "The last moments of Kay:") > strings.Index(out, "Welcome, Percival.") {
		t.Fatalf("the last moments come after the welcome:\n%s", out)
	}
}
