package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 47: the character sheet (C) shows the knight's deeds, the newest first, and pages
// them at any size when they do not fit: every deed is seen whole on one of its pages.
func TestTheSheetShowsEveryDeedNewestFirst(t *testing.T) {
	for _, sz := range [][2]int{{40, 20}, {80, 24}} {
		w, h := sz[0], sz[1]
		m, _ := viewModel(t, deedful(t), w, h)
		keys(m, "C")
		if m.screen != screenSheet {
			t.Fatalf("%d×%d: C opened screen %d", w, h, m.screen)
		}
		first := m.Text()
		newest, oldest := world.DeedTable[len(world.DeedTable)-1], world.DeedTable[0]
		checkWhole(t, fmt.Sprintf("%d×%d sheet", w, h), first, 0, w, "YOUR KNIGHT", deedLine(newest),
			fmt.Sprintf("Deeds: %d of the %d there are", len(world.DeedTable), len(world.DeedTable)))
		if wholeIn(first, 0, w, deedLine(oldest)) {
			t.Fatalf("%d×%d: the oldest deed on the first page of %d:\n%s", w, h, len(world.DeedTable), first)
		}
		screens := scrolled(m, "space")
		var texts []string
		for _, r := range world.DeedTable {
			texts = append(texts, deedLine(r))
		}
		wholeSomewhere(t, fmt.Sprintf("%d×%d sheet", w, h), screens, w, texts...)
		if last := screens[len(screens)-1]; !wholeIn(last, 0, w, deedLine(oldest)) {
			t.Fatalf("%d×%d: the last page has not the oldest deed:\n%s", w, h, last)
		}
	}
	m, _ := viewModel(t, crowdedView(t), 40, 20)
	keys(m, "C")
	checkWhole(t, "no deeds", m.Text(), 0, 40, "None yet: going down into the dungeon is the first.")
	keys(m, "x")
	if m.screen != screenPlay {
		t.Fatalf("a key left the sheet for screen %d", m.screen)
	}
}

// Screen-reader mode: status says how many deeds and the newest three (nothing of none: a
// replay records none); deeds lists them all in the order earned.
func TestTheDeedsInWords(t *testing.T) {
	v := crowdedView(t)
	for _, id := range []string{world.DeedDepth(1), world.DeedSlew(world.Animal), world.DeedUnscathed, world.DeedDepth(2)} {
		v.Self.Deeds = append(v.Self.Deeds, world.Deed{ID: id})
	}
	if got := statusText(v); got[len(got)-1] != "Deeds: 4; the newest Down to level 2, Unscathed and Hunter. (deeds lists them.)" {
		t.Fatalf("status says %q", got)
	}
	got := deedsText(v)
	want := []string{"Your deeds, 4 of the " + fmt.Sprint(len(world.DeedTable)) + " there are, in the order earned:",
		"Into the labyrinth: went down into the dungeon.", "Hunter: slew an animal for the first time.",
		"Unscathed: won a fight without losing a hit.", "Down to level 2: reached level 2 of the dungeon."}
	if !slices.Equal(got, want) {
		t.Fatalf("deeds says\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	v.Self.Deeds = nil
	if got := statusText(v); strings.Contains(strings.Join(got, " "), "Deeds") {
		t.Fatalf("status of no deeds says %q", got)
	}
}

// Another knight's rare deed on newbie, and the knight's own deed, are no knight speaking:
// they call no one, whatever the bell's setting ("all" rings for anything said).
func TestADeedToldIsNoCall(t *testing.T) {
	r, _ := world.DeedByID(world.DeedDragon)
	for _, c := range []struct {
		line string
		kind world.MsgKind
	}{{"[newbie] " + r.Said("Lis Kay"), world.MsgChannel}, {r.Line(), world.MsgDeed}} {
		if kind, from, ok := callIn(c.line, c.kind, "Kay"); ok {
			t.Errorf("%q read as call %d from %q", c.line, kind, from)
		}
	}
}
