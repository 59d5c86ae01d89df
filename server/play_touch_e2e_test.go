package server

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// tap taps the middle of the element sel, as a finger would.
func (p browserPage) tap(sel string) {
	p.t.Helper()
	xy := eval[[2]float64](p, fmt.Sprintf(`(() => { const b = document.querySelector(%q).getBoundingClientRect(); return [b.x + b.width/2, b.y + b.height/2]; })()`, sel))
	if err := chromedp.Do(p.ctx, chromedp.TapXY(xy[0], xy[1])); err != nil {
		p.t.Fatalf("tap %s: %v", sel, err)
	}
}

// touchScreen makes the browser a phone's touch screen of w×h.
func (p browserPage) touchScreen(w, h int64) {
	p.t.Helper()
	orient := chromedp.EmulatePortrait
	if w > h {
		orient = chromedp.EmulateLandscape
	}
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(w, h, chromedp.EmulateMobile, chromedp.EmulateTouch, orient)); err != nil {
		p.t.Fatalf("a touch screen of %d×%d: %v", w, h, err)
	}
}

// box is an element's bounding box: left, top, right, bottom.
type box [4]float64

func (b box) empty() bool { return b[2]-b[0] < 1 || b[3]-b[1] < 1 }

// overlaps says b and o share more than a hair's breadth.
func (b box) overlaps(o box) bool {
	const hair = 0.5
	return b[0] < o[2]-hair && o[0] < b[2]-hair && b[1] < o[3]-hair && o[1] < b[3]-hair
}

// inside says b lies within o.
func (b box) inside(o box) bool {
	const hair = 0.5
	return b[0] >= o[0]-hair && b[1] >= o[1]-hair && b[2] <= o[2]+hair && b[3] <= o[3]+hair
}

// touchLayout is where the page put the screen, what it drew, and the touch keys.
type touchLayout struct {
	Touch   bool           `json:"touch"`
	Screen  box            `json:"screen"`
	Drawn   box            `json:"drawn"`
	Window  box            `json:"window"`
	Keys    map[string]box `json:"keys"`
	Who     box            `json:"who"` // who the page plays as (a guest's link box); empty when hidden
	Columns int            `json:"columns"`
	Rows    int            `json:"rows"`
}

const touchLayoutJS = `(() => {
  const r = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const rows = [...document.querySelectorAll("#screen > div")];
  const spans = [...document.querySelectorAll("#screen span")];
  const drawn = [1e9, 1e9, 0, 0];
  spans.forEach(s => { const b = r(s); drawn[0] = Math.min(drawn[0], b[0]); drawn[1] = Math.min(drawn[1], b[1]); drawn[2] = Math.max(drawn[2], b[2]); drawn[3] = Math.max(drawn[3], b[3]); });
  const keys = {};
  document.querySelectorAll("#pad button, #pad input").forEach(k => { keys[k.getAttribute("aria-label") || k.textContent] = r(k); });
  return {touch: document.body.classList.contains("touch"), screen: r(document.getElementById("screen")), drawn,
    window: [0, 0, innerWidth, innerHeight], keys, who: r(document.getElementById("who")), rows: rows.length,
    columns: Math.max(0, ...rows.map(d => d.textContent.length))};
})()`

// checkTouchLayout checks that the touch keys are on the page, each whole in the window and
// none over the screen, and that the game drew within the screen, at a size it plays at.
func (p browserPage) checkTouchLayout(w, h int64) touchLayout {
	p.t.Helper()
	var l touchLayout
	// The page has its new size once the game has drawn it whole at the room left.
	if !poll(10*time.Second, pollEvery, func() bool {
		l = eval[touchLayout](p, touchLayoutJS)
		return l.Window[2] == float64(w) && l.Window[3] == float64(h) && l.Drawn.inside(l.Screen) && l.Rows >= 20
	}) {
		p.t.Fatalf("at %d×%d the game was not drawn within its screen: %+v", w, h, l)
	}
	if !l.Touch {
		p.t.Fatalf("at %d×%d the page did not see a touch screen", w, h)
	}
	for _, k := range []string{"North", "South", "East", "West", "Enter", "Escape", "Fight", "Run", "Shoot", "Target", "Stats", "Talk", "Type to the game"} {
		b, ok := l.Keys[k]
		switch {
		case !ok || b.empty():
			p.t.Errorf("at %d×%d the touch key %q is not shown: %v", w, h, k, b)
		case !b.inside(l.Window):
			p.t.Errorf("at %d×%d the touch key %q %v is not all in the window %v", w, h, k, b, l.Window)
		case b.overlaps(l.Screen):
			p.t.Errorf("at %d×%d the touch key %q %v covers the screen %v", w, h, k, b, l.Screen)
		case b.overlaps(l.Who):
			p.t.Errorf("at %d×%d the who box %v covers the touch key %q %v", w, h, l.Who, k, b)
		}
	}
	if l.Who.empty() {
		p.t.Errorf("at %d×%d the guest's who box is not shown", w, h)
	} else if l.Who.overlaps(l.Screen) {
		p.t.Errorf("at %d×%d the who box %v covers the screen %v", w, h, l.Who, l.Screen)
	}
	if l.Columns < 40 || l.Rows < 20 {
		p.t.Errorf("at %d×%d the screen is %d×%d cells; the game plays from 40×20", w, h, l.Columns, l.Rows)
	}
	return l
}

// On a phone's touch screen the play page shows the keys a phone's keyboard lacks (the
// four directions, Enter, Esc, the fight keys, a chat line and a box that opens the
// keyboard) beside the game's screen, never over it: the screen's size in cells is the
// room left, upright (390×844) and on its side (844×390). Tapping them plays: Enter
// through the title and the roll, the name typed in the box, a direction walks.
func TestThePlayPageOnATouchScreen(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, _, base := webServer(t)
	p := browserPage{t: t, ctx: headless(t, exe, 90*time.Second)}

	p.touchScreen(390, 844)
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(base+web.PlayPath+"?plain=0")); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	p.waitText(screenJS, "Press Enter to begin")
	upright := p.checkTouchLayout(390, 844)
	p.tap(`#pad [data-key="Enter"]`)
	p.waitText(screenJS, "Press r to roll again")
	p.tap(`#pad [data-key="Enter"]`)
	p.waitText(screenJS, "Name your knight")
	p.tap("#type")
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent("Bors")); err != nil {
		t.Fatal(err)
	}
	p.waitText(screenJS, "Bors")
	p.tap(`#pad [data-key="Enter"]`)
	p.waitText(screenJS, "Depth 1")
	p.checkTouchLayout(390, 844)
	// The knight, "()", stands on the exit ("EX", hidden under it) of level 1 (the test
	// seed's), with a wall to its east and a passage to its north: a step north shows the
	// exit below the knight, a step south hides it again.
	rowOf := func(s string) int { // the first row showing s, not within a word
		return eval[int](p, `[...document.querySelectorAll("#screen > div")].findIndex(d => /(^|[^A-Za-z])`+regexp.QuoteMeta(s)+`([^A-Za-z]|$)/.test(d.textContent))`)
	}
	exitBelow := func() bool { k, x := rowOf("()"), rowOf("EX"); return k >= 0 && x > k }
	onExit := func() bool { return rowOf("()") >= 0 && rowOf("EX") < 0 }
	walks := func(size string) {
		t.Helper()
		if !onExit() {
			t.Fatalf("%s: the knight is not on the exit:\n%s", size, eval[string](p, screenJS))
		}
		p.tap(`#pad [data-key="ArrowRight"]`)
		p.waitText(screenJS, "A wall blocks the way east")
		p.tap(`#pad [data-key="ArrowUp"]`)
		if !poll(10*time.Second, pollEvery, exitBelow) {
			t.Fatalf("%s: tapping north did not walk the knight off the exit, north:\n%s", size, eval[string](p, screenJS))
		}
		p.tap(`#pad [data-key="ArrowDown"]`)
		if !poll(10*time.Second, pollEvery, onExit) {
			t.Fatalf("%s: tapping south did not walk the knight back onto the exit:\n%s", size, eval[string](p, screenJS))
		}
	}
	walks("upright")
	// A keyboard's keys, with a touch key focused by its tap (a tablet's keyboard), play too.
	eval[bool](p, `(() => { document.querySelector('#pad [data-key="Enter"]').focus(); return true; })()`)
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.ArrowUp)); err != nil {
		t.Fatal(err)
	}
	if !poll(10*time.Second, pollEvery, exitBelow) {
		t.Fatalf("the keyboard's up, a touch key focused, did not walk north:\n%s", eval[string](p, screenJS))
	}
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	if !poll(10*time.Second, pollEvery, onExit) {
		t.Fatalf("the keyboard's down, a touch key focused, did not walk back south:\n%s", eval[string](p, screenJS))
	}
	phone := shotAs(t, p.ctx, 390, 844)

	p.touchScreen(844, 390)
	side := p.checkTouchLayout(844, 390)
	p.waitText(screenJS, "Depth 1")
	walks("on its side")
	if side.Columns <= upright.Columns {
		t.Errorf("on its side the screen is %d columns wide, upright %d: the keys took the width", side.Columns, upright.Columns)
	}
	landscape := shotAs(t, p.ctx, 844, 390)
	keepShots(t, map[string][]byte{"play-touch-390x844.png": phone, "play-touch-844x390.png": landscape})
}

// shotAs is a screenshot of the page as the browser is now (a touch screen stays one).
func shotAs(t *testing.T, ctx context.Context, w, h int64) []byte {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("a screenshot at %d×%d: %v", w, h, err)
	}
	return png
}
