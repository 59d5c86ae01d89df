package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// Issue 47, item 1, in the play page: the bell the game rings reaches the page. A
// whisper over SSH to a guest playing in the browser who has left the keys for 30
// seconds (the server's clock in the test's hands) rings the page once: it flashes
// (body's data-bells counts it), and a hidden tab's title is marked "(!) " until the tab
// is seen again; a second whisper within the bell's gap rings no more.
func TestTheBellInTheBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	cfg, _, clock := clockedConfig(t)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Web.PlayGrace = testPlayGrace
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	a := openTerminal(t, ts.addr, newKey(t), 100, 30, nil)
	a.enterDungeon("Gawain")

	p := browserPage{t: t, ctx: headless(t, exe, 90*time.Second)}
	const screenJS = `document.getElementById("screen").innerText`
	press := func(keys string) {
		t.Helper()
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent(keys)); err != nil {
			t.Fatalf("press %q: %v", keys, err)
		}
	}
	bells := func() int { return eval[int](p, `Number(document.body.dataset.bells || 0)`) }
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(base+web.PlayPath)); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	p.waitText(screenJS, "Press Enter to begin")
	press(kb.Enter)
	p.waitText(screenJS, "Press r to roll again")
	press(kb.Enter)
	p.waitText(screenJS, "Name your knight")
	press("Bors")
	press(kb.Enter)
	p.waitText(screenJS, "Depth 1")
	a.waitFor("Bors")
	// The flash is the class bell on the page's body, for a moment: seen by a watcher
	// that notes each time it is put on.
	eval[bool](p, `(() => { window.flashes = 0;
	  new MutationObserver(() => { if (document.body.classList.contains("bell")) { window.flashes++; } })
	    .observe(document.body, { attributes: true, attributeFilter: ["class"] });
	  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
	  return true; })()`)
	if n := bells(); n != 0 {
		t.Fatalf("the page rang %d bells coming into the game", n)
	}

	// Bors leaves the keys, its tab hidden: the whisper rings once, and marks the title.
	clock.add(app.AlertIdle + time.Second)
	a.chat("/w guest bors one")
	a.waitFor("You whisper to Guest Bors: one")
	p.waitText(screenJS, "Gawain whispers: one")
	if !poll(10*time.Second, pollEvery, func() bool { return bells() == 1 }) {
		t.Fatalf("a whisper to an idle knight rang %d bells in the page, want 1", bells())
	}
	if n := eval[int](p, `window.flashes`); n != 1 {
		t.Errorf("the page flashed %d times for the bell, want 1", n)
	}
	if title := eval[string](p, `document.title`); !strings.HasPrefix(title, "(!) ") {
		t.Errorf("the hidden tab's title is %q after the bell; want it marked (!)", title)
	}
	if !poll(10*time.Second, pollEvery, func() bool { return !eval[bool](p, `document.body.classList.contains("bell")`) }) {
		t.Error("the page's flash did not end")
	}
	a.chat("/w guest bors two")
	p.waitText(screenJS, "Gawain whispers: two")
	if n := bells(); n != 1 {
		t.Errorf("a second whisper within the bell's gap rang the page: %d bells, want 1", n)
	}

	// The tab seen again: the title's mark goes.
	eval[bool](p, `(() => { Object.defineProperty(document, "hidden", { configurable: true, get: () => false });
	  document.dispatchEvent(new Event("visibilitychange")); return true; })()`)
	if title := eval[string](p, `document.title`); strings.Contains(title, "(!)") {
		t.Errorf("the tab seen again kept the title's mark: %q", title)
	}
}
