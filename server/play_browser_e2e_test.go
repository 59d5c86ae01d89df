package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// A guest plays in real Chromium: the play page's script connects, paints the title,
// and the keyboard's Enter, letters and arrows take it through the roll and naming into
// the dungeon, where a step changes the screen. The page comes with a CSP of scripts from
// the server only, under which its script runs. Shot at a phone's size and a desktop's
// (into ORTHANC_SCREENSHOTS when set, to look at).
func TestAGuestPlaysInTheBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, _, base := webServer(t)
	ctx := headless(t, exe, 90*time.Second)

	p := browserPage{t: t, ctx: ctx}
	screen, waitFor, press := p.screenText, p.waitScreen, p.press

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+web.PlayPath))
	if err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	csp, _ := resp.Headers["Content-Security-Policy"].(string)
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("the play page's CSP is %q; want scripts from the server only", csp)
	}
	waitFor("Press Enter to begin")
	press(kb.Enter)
	waitFor("Press r to roll again")
	press(kb.Enter)
	waitFor("Name your knight")
	press("Bors")
	press(kb.Enter)
	before := waitFor("Depth 1")
	desktop := shot(t, ctx, 1280, 800)
	wallsJoin(p)
	for _, k := range []string{kb.ArrowRight, kb.ArrowLeft, kb.ArrowDown, kb.ArrowUp} {
		press(k)
	}
	if !poll(10*time.Second, pollEvery, func() bool { return screen() != before }) {
		t.Fatalf("walking changed nothing on the page:\n%s", before)
	}
	// A phone's screen: the page asks for its new size, the game draws at it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	if !poll(10*time.Second, pollEvery, func() bool {
		lines := strings.Split(screen(), "\n")
		return len(lines) > 30 && len(strings.TrimRight(lines[len(lines)-1], " \u00a0")) < 60
	}) {
		t.Fatalf("the page at a phone's size was not drawn anew:\n%s", screen())
	}
	waitFor("Depth 1")
	phone := shot(t, ctx, 390, 844)

	keepShots(t, map[string][]byte{"play-phone.png": phone, "play-desktop.png": desktop})
}

// shot is a screenshot of the browser's page at w×h.
func shot(t *testing.T, ctx context.Context, w, h int64) []byte {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatalf("the browser at %d×%d: %v", w, h, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("a screenshot at %d×%d: %v", w, h, err)
	}
	return png
}

// wallsJoin fails the test unless every box-drawing character on the page's screen is
// in a span of its own kind (.x), drawn taller than its row so that walls join across
// rows, and nothing else is; a box-drawing glyph is a little shorter than a row, and
// drawn in a plain span it left a seam at every row's edge.
func wallsJoin(p browserPage) {
	p.t.Helper()
	type boxes struct {
		Boxed, Loose, Flat int
		Stray              string
	}
	got := eval[boxes](p, `(function () {
		var r = {Boxed: 0, Loose: 0, Flat: 0, Stray: ""};
		document.querySelectorAll("#screen span").forEach(function (s) {
			var t = s.textContent;
			if (!s.classList.contains("x")) {
				if (/[\u2500-\u257f]/.test(t)) { r.Loose++; r.Stray += t + "|"; }
				return;
			}
			if (!/^[\u2500-\u257f]+$/.test(t)) { r.Stray += t + "|"; }
			var cs = getComputedStyle(s);
			if (cs.transform === "none" || cs.display !== "inline-block") { r.Flat++; }
			r.Boxed++;
		});
		return r;
	})()`)
	if got.Boxed == 0 || got.Loose != 0 || got.Flat != 0 || got.Stray != "" {
		p.t.Errorf("the screen's box drawing: %d spans drawn tall, %d of them not (display or transform), %d box-drawing spans drawn plain, stray text %q; want walls only, all drawn tall",
			got.Boxed, got.Flat, got.Loose, got.Stray)
	}
}
