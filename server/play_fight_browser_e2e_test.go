package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 45: a guest plays in real Chromium from the title to a fight and through it,
// with the keyboard alone: Enter through the title and the roll, its name typed, the
// arrows along the way to a guarded room (Shift and an arrow through its door, sent as
// xterm sends it), and f until the fight ends (the monster dead, or the knight).
func TestAGuestFightsInTheBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, srv, base := webServer(t)
	p := browserPage{t: t, ctx: headless(t, exe, 120*time.Second)}
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	p.open(base + web.PlayPath + "?plain=0")
	p.waitScreen("Press Enter to begin")
	if err := chromedp.Do(p.ctx, chromedp.Focus("#screen")); err != nil {
		t.Fatal(err)
	}
	p.press(kb.Enter)
	p.waitScreen("Press r to roll again")
	p.press(kb.Enter)
	p.waitScreen("Name your knight")
	p.press("Gaheris", kb.Enter)
	p.waitScreen("Depth 1")

	id := playingGuest(t, srv, "Gaheris")
	keys, squares := pathToGuard(t)
	arrows := map[string]string{keyUp: kb.ArrowUp, keyDown: kb.ArrowDown, keyRight: kb.ArrowRight, keyLeft: kb.ArrowLeft}
	press := func(k string) { // an arrow, or Shift and an arrow, which opens a door
		if a, ok := arrows[k]; ok {
			p.press(a)
			return
		}
		a, ok := arrows["\x1b["+strings.TrimPrefix(k, "\x1b[1;2")]
		if !strings.HasPrefix(k, "\x1b[1;2") || !ok {
			t.Fatalf("the path's key %q is no arrow", k)
		}
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent(a, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			t.Fatal(err)
		}
	}
	followPath(t, keys, squares, press, func() world.Pos {
		rec, _ := knightNow(t, srv, id)
		return world.Pos{X: rec.X, Y: rec.Y}
	}, p.screenText)
	p.waitScreen("FIGHT", "guards this")
	fight := p.screenText()
	if !poll(60*time.Second, 50*time.Millisecond, func() bool {
		if s := p.screenText(); strings.Contains(s, "is dead!") || strings.Contains(s, "R. I. P.") {
			return true
		}
		p.press("f")
		return false
	}) {
		t.Fatalf("the fight did not end; it began:\n%s\nand shows:\n%s", fight, p.screenText())
	}
}
