package server

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// cutter is a network between a browser and the server that the test can cut: a TCP
// forwarder whose connections all end at once on cut, as a phone's do when it changes
// networks; new ones go through as before.
type cutter struct {
	ln    net.Listener
	to    string
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// newCutter forwards a loopback port to the address to until the test ends.
func newCutter(t *testing.T, to string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln, to: to, conns: map[net.Conn]struct{}{}}
	c.wg.Go(c.accept)
	t.Cleanup(func() { _ = ln.Close(); c.cut(); c.wg.Wait() })
	return c
}

func (c *cutter) accept() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", c.to)
		if err != nil {
			_ = in.Close()
			continue
		}
		c.mu.Lock()
		c.conns[in], c.conns[out] = struct{}{}, struct{}{}
		c.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			_ = dst.Close()
			_ = src.Close()
		}
		c.wg.Go(func() { pipe(in, out) })
		c.wg.Go(func() { pipe(out, in) })
	}
}

// cut ends every connection through the network at once.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn := range c.conns {
		_ = conn.Close()
	}
	clear(c.conns)
}

// Issue 45: a page plays in real Chromium, and its network is cut under it. The page
// comes back on its own with the token it was given, and the same knight and screen are
// there, in the same game (one session, not two); a reload of the tab takes the game up
// as well, on the screen it was on.
func TestABrowserComesBackAfterItsNetworkIsCut(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, srv, base := webServer(t)
	net := newCutter(t, strings.TrimPrefix(base, "http://"))
	page := "http://" + net.ln.Addr().String()
	ctx := headless(t, exe, 90*time.Second)

	p := browserPage{t: t, ctx: ctx}
	screen, waitFor, press := p.screenText, p.waitScreen, p.press
	token := func() string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("orthanc.play.resume") || ""`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(page+web.PlayPath)); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	waitFor("Press Enter to begin")
	press(kb.Enter)
	waitFor("Press r to roll again")
	press(kb.Enter)
	waitFor("Name your knight")
	press("Gawain")
	press(kb.Enter)
	waitFor("Depth 1", "Guest Gawain")
	press(kb.ArrowRight)
	press(kb.ArrowLeft)
	first := token()
	if first == "" {
		t.Fatal("the page keeps no token to come back with")
	}

	net.cut()
	if !poll(20*time.Second, pollEvery, func() bool { t := token(); return t != "" && t != first }) {
		t.Fatalf("the page did not come back after its network was cut; it shows:\n%s", screen())
	}
	waitFor("Depth 1", "Guest Gawain")
	if n := srv.live.Len(); n != 1 {
		t.Errorf("after the page came back %d sessions are listed; want its one game", n)
	}
	press("?") // the same game answers its keys
	waitFor("HELP: the knight's lesson")

	second := token()
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if !poll(20*time.Second, pollEvery, func() bool { t := token(); return t != "" && t != second }) {
		t.Fatalf("a reload did not take the game up; it shows:\n%s", screen())
	}
	waitFor("HELP: the knight's lesson") // the screen it left, of the same game
	if s := screen(); strings.Contains(s, "Press Enter to begin") || srv.live.Len() != 1 {
		t.Errorf("after a reload %d sessions are listed and the page shows:\n%s", srv.live.Len(), s)
	}
}
