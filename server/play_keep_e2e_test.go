package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// openChromePage opens the play page at base in a new headless Chromium at 1280×800,
// and skips when this Chromium makes no Ed25519 key with WebCrypto.
func openChromePage(t *testing.T, base string) browserPage {
	t.Helper()
	c := browserPage{t: t, ctx: headless(t, chromium(t), 120*time.Second)}
	if err := chromedp.Do(c.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	c.open(base + web.PlayPath)
	ok, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](
		`crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"]).then(() => true, () => false)`, chromedp.EvalAwaitPromise))
	if err != nil || !ok {
		t.Skipf("this Chromium makes no Ed25519 key with WebCrypto (%v)", err)
	}
	return c
}

func (c browserPage) click(sel string) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		c.t.Fatalf("click %s: %v", sel, err)
	}
}

// noSSHWords fails the test when s, what a browser reads, names an ssh command or an SSH
// key on its own.
func noSSHWords(t *testing.T, where, s string) {
	t.Helper()
	for _, bad := range []string{"ssh", "SSH"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s names %q to a browser:\n%s", where, bad, s)
		}
	}
}

// A browser with a key of its own, linked to no knight, plays a guest; the title says
// the page will offer to keep it, in no SSH words. When it leaves, the end screen and the
// box offer "Keep this knight" (an SSH key's claim named beside it), and the button keeps
// the knight for the browser's key, through claim as over SSH: the page, reloaded, plays
// that knight by its kept name, and the key is kept as a browser's.
func TestABrowserGuestKeepsItsKnight(t *testing.T) {
	t.Parallel()
	_, srv, base := webServer(t)
	c := openChromePage(t, base)

	title := c.waitFor("#screen", "Press Enter to begin", "When you leave, the page offers to keep it")
	noSSHWords(t, "a browser guest's title", title)
	c.waitFor("#who", "You play as a guest", "plays no knight yet")
	c.click("#screen")
	c.press(kb.Enter)
	c.waitFor("#screen", "Press r to roll again")
	c.press(kb.Enter)
	c.waitFor("#screen", "Name your knight")
	c.press("Gawain", kb.Enter)
	c.waitFor("#screen", "Depth 1")
	c.press("q")
	c.waitFor("#screen", "(y/n)")
	c.press("y")

	bye := c.waitFor("#screen", "Farewell. You played as a guest", "choose Keep this knight on this page", "claim ")
	if strings.Contains(bye, "ssh-keygen") {
		t.Errorf("a browser with a key is told to make one:\n%s", bye)
	}
	c.waitFor("#who", "You played as a guest", "This browser can keep Guest Gawain", "within "+command.CodeLifeWords+".")
	shots := map[string][]byte{"play-keep-offered.png": shot(t, c.ctx, 1280, 800)}
	c.click("#keep")
	c.waitFor("#link-said", "This browser now plays Gawain.")

	c.open(base + web.PlayPath)
	c.waitFor("#screen", "Welcome back, Gawain.")
	if who := c.text("#who"); who != "" {
		t.Errorf("a browser that kept its knight says %q; want nothing", who)
	}
	c.press(kb.Enter)
	c.waitFor("#screen", "Depth 1")
	var fp string
	waitUntil(t, "the browser's game listed by its key", func() bool {
		l := srv.live.List()
		if len(l) == 1 && !l[0].Guest {
			fp = l[0].Fingerprint
		}
		return fp != ""
	})
	if k, err := srv.knights.KeyOf(fp); err != nil || k.Kind != knights.KindBrowser {
		t.Errorf("the key that kept the guest: %+v, %v; want a browser's", k, err)
	}
	shots["play-keep-kept.png"] = shot(t, c.ctx, 1280, 800)
	keepShots(t, shots)
}

// A page that can keep no key (it answers the challenge with why) plays a guest, and
// when it leaves is told both ways to keep the knight: its code in a browser that can
// keep a key, or over SSH with ssh-keygen and claim. The code is good in another
// browser's link box (claim on the link socket), which then plays the knight.
func TestABrowserWithoutAKeyIsToldBothWaysToKeepItsGuest(t *testing.T) {
	_, _, base := webServer(t)
	p, who := openPlayAnswering(t, base, map[string]any{"nokey": "this page is not a secure one (https), where browsers make keys"})
	if !who.Guest || who.Key != "" {
		t.Fatalf("a page without a key was told %+v; want a guest", who)
	}
	p.waitFor("When you leave, the page offers to keep it")
	p.press("\r")
	p.waitFor("Press r to roll again")
	p.press("\r")
	p.waitFor("Name your knight")
	p.press("Tom\r")
	p.waitFor("Depth 1")
	p.press("q")
	p.waitFor("(y/n)")
	p.press("y")
	bye := p.waitFlowed("Farewell. You played as a guest", "in a browser that can keep a key", "Keep a guest's knight", "ssh-keygen -t ed25519", "claim ")
	m := claimCodeRe.FindStringSubmatch(bye)
	if m == nil {
		t.Fatalf("no claim code in the end words:\n%s", bye)
	}
	k := newBrowserKey(t)
	if ok, text := giveBrowserCode(t, base, k, m[1], true); !ok || text != "This browser now plays Tom." {
		t.Fatalf("another browser keeps the guest: %v %q", ok, text)
	}
	kept, who := openKeyedPlay(t, base, k)
	if who.Guest {
		t.Errorf("the browser that kept the guest was told %+v; want its knight", who)
	}
	kept.waitFor("Welcome back, Tom.")
}

// openPlayAnswering opens a game at 80×24 that asks for the challenge and answers it
// with hello (here, why the page has no key), and returns it with what it was told.
func openPlayAnswering(t *testing.T, base string, hello map[string]any) (*playPage, web.PlayWho) {
	t.Helper()
	return openPlayAnswer(t, base, func(string) map[string]any { return hello })
}

// A server that takes no guests, met by a browser whose key plays no knight: the page
// says plainly that this server plays only linked keys (not that it plays a guest) and
// offers the link box; the code of keys add links it, and the page then plays the
// knight. A page with no key is told both ways in: SSH with a key, or a browser with one.
func TestAServerWithoutGuestsOffersABrowserTheLink(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr, cfg.Guests = "127.0.0.1:0", false
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	laptop := newKey(t)
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Bedivere")
	tm.quit()

	c := openChromePage(t, base)
	who := c.waitFor("#who", "This server plays only knights of linked keys", "Link to my knight")
	if strings.Contains(who, "You play as a guest") {
		t.Errorf("the page of a server without guests says it plays a guest:\n%s", who)
	}
	c.waitFor("#screen", "This server plays only knights of linked keys")
	shot := shot(t, c.ctx, 1280, 800)
	if err := chromedp.Do(c.ctx, chromedp.SendKeys("#link-code", keysAdd(t, ts.addr, laptop)+kb.Enter)); err != nil {
		t.Fatalf("type the code: %v", err)
	}
	c.waitFor("#link-said", "This browser now plays Bedivere.")
	c.open(base + web.PlayPath)
	c.waitFor("#screen", "Welcome back, Bedivere.")
	keepShots(t, map[string][]byte{"play-no-guests.png": shot})

	p, told := openPlayAnswering(t, base, map[string]any{"nokey": "this browser has no WebCrypto or IndexedDB to make and keep a key"})
	if !told.Refused || !strings.Contains(told.Why, "takes no guests") {
		t.Errorf("a page without a key on a server without guests was told %+v", told)
	}
	p.waitFlowed("This server takes no guests", "over SSH with its key", "a browser that can keep a key of its own")
}

// One knight from SSH and from a browser at once: as two SSH sessions of one knight's
// keys, the newer connection takes the knight over and the older is told so, whichever
// is the browser.
func TestOneKnightFromSSHAndABrowserAtOnce(t *testing.T) {
	ts, _, base := webServer(t)
	laptop := newKey(t)
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Lancelot")
	tm.quit()
	k := newBrowserKey(t)
	if ok, text := linkBrowser(t, base, k, keysAdd(t, ts.addr, laptop)); !ok {
		t.Fatalf("link: %s", text)
	}

	first := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	first.continueKnight()
	p, _ := openKeyedPlay(t, base, k)
	p.waitFor("Welcome back, Lancelot.")
	p.press("\r")
	p.waitFor("Depth ")
	first.waitRaw(world.TakenOverMessage)
	if !first.ended(10 * time.Second) {
		t.Errorf("the SSH session whose knight the browser took over did not end:\n%s", first.screen())
	}

	again := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	again.continueKnight()
	p.waitFor("This knight has been taken over by another connection")
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Errorf("the browser's game whose knight SSH took over did not end:\n%s", p.screen())
	}
}

// flowed is the page's screen with its lines wrapped at its width (80) joined again, as
// a line the server wrote longer than the screen reads.
func (p *playPage) flowed() string {
	var b strings.Builder
	for _, row := range strings.Split(p.screen(), "\n") {
		b.WriteString(row)
		if len([]rune(row)) < 80 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// waitFlowed waits until the flowed screen shows every one of want, and returns it.
func (p *playPage) waitFlowed(want ...string) string {
	p.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = p.flowed(); return containsAll(s, want) }) {
		p.t.Fatalf("the page never showed %q; it shows:\n%s", want, s)
	}
	return s
}
