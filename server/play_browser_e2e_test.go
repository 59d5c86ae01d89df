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
