package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/coder/websocket"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// A browser's own key in real Chromium: the play page makes an Ed25519 key (WebCrypto on
// localhost, a secure context) and proves it; a key that plays no knight plays a guest,
// and the page says why and offers the link. The code of `keys add` from the knight's
// SSH key links it; reloaded, the page plays that knight (its name on the title). `keys`
// over SSH lists the browser's key, marked as a browser's, with the fingerprint of its
// ssh-ed25519 key; `keys remove` closes the browser's game, and the page, opened again,
// is a guest and is told so.
func TestABrowsersKeyPlaysAKnight(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	ts, _, base := webServer(t)
	laptop := newKey(t)
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Percival")
	tm.quit()

	ctx := headless(t, exe, 120*time.Second)
	text := func(sel string) string {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("`+sel+`") || {}).innerText || ""`))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	waitFor := func(sel string, want ...string) string {
		t.Helper()
		var s string
		if !poll(20*time.Second, pollEvery, func() bool { s = text(sel); return containsAll(s, want) }) {
			t.Fatalf("%s never showed %q; it shows:\n%s", sel, want, s)
		}
		return s
	}
	open := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+web.PlayPath)); err != nil {
			t.Fatalf("open the play page: %v", err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	open()
	if secure, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.isSecureContext`)); err != nil || !secure {
		t.Fatalf("the play page on localhost is no secure context (%v): WebCrypto keys need one", err)
	}
	ed25519, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"]).then(() => true, () => false)`, chromedp.EvalAwaitPromise))
	if err != nil || !ed25519 {
		t.Skipf("this Chromium makes no Ed25519 key with WebCrypto (%v)", err)
	}

	// A new browser: a guest, told why, offered the link.
	waitFor("#screen", "Press Enter to begin")
	waitFor("#who", "You play as a guest", "plays no knight yet", "keys add")
	code := keysAdd(t, ts.addr, laptop)
	if err := chromedp.Do(ctx, chromedp.SendKeys("#link-code", code+kb.Enter)); err != nil {
		t.Fatalf("type the code: %v", err)
	}
	waitFor("#link-said", "This browser now plays Percival.")
	if strings.Contains(text("#screen"), code) {
		t.Error("the code typed in the link box reached the game")
	}

	// Reloaded: the page plays Percival, and says nothing of guests.
	open()
	waitFor("#screen", "Welcome back, Percival.")
	if who := text("#who"); who != "" {
		t.Errorf("a linked browser's page says %q; want nothing", who)
	}
	shots := map[string][]byte{"play-key-knight.png": shot(t, ctx, 1280, 800)}

	rows := keysOf(t, ts.addr, laptop)
	var browser string
	for _, r := range rows {
		if r.Kind == knights.KindBrowser {
			browser = r.Fingerprint
			if r.Type != "ssh-ed25519" || !strings.HasPrefix(r.Fingerprint, "SHA256:") || r.Comment != "browser" {
				t.Errorf("the browser's key is listed as %+v; want an ssh-ed25519 fingerprint, comment browser", r)
			}
		}
	}
	if len(rows) != 2 || browser == "" {
		t.Fatalf("keys lists %+v; want the laptop's key and the browser's", rows)
	}
	if out := mustRun(t, ts.addr, laptop, "keys"); !strings.Contains(out, "ssh-ed25519 (browser)") {
		t.Errorf("keys does not mark the browser's key:\n%s", out)
	}

	// Removed: the browser's game is closed, and the page, opened again, is a guest.
	mustRun(t, ts.addr, laptop, "keys remove "+browser)
	waitFor("#status", "Play again")
	open()
	waitFor("#screen", "Press Enter to begin")
	waitFor("#who", "You play as a guest", "plays no knight yet")
	shots["play-key-guest.png"] = shot(t, ctx, 1280, 800)
	keepShots(t, shots)
}

// browserKey is a browser's own key as the tests hold it: an Ed25519 key, which proves
// itself on the play page's sockets as the page's script does.
type browserKey struct {
	priv ed25519.PrivateKey
	fp   string // its ssh-ed25519 key's fingerprint
}

func newBrowserKey(t *testing.T) browserKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshKey, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return browserKey{priv: priv, fp: gossh.FingerprintSHA256(sshKey)}
}

// proof is the key's answer to challenge from a page served by base.
func (k browserKey) proof(base, challenge string) map[string]string {
	msg := "orthanc-ssh play v1\n" + strings.TrimPrefix(base, "http://") + "\n" + challenge
	return map[string]string{"key": base64.StdEncoding.EncodeToString(k.priv.Public().(ed25519.PublicKey)),
		"sig": base64.StdEncoding.EncodeToString(ed25519.Sign(k.priv, []byte(msg)))}
}

// readMessage reads the socket's next message into v.
func readMessage(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}

// writeMessage sends v on the socket.
func writeMessage(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, _ := json.Marshal(v)
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// openKeyedPlay opens a game at 80×24 on the page at base with the browser's key, and
// returns it with what the page was told of who it plays as.
func openKeyedPlay(t *testing.T, base string, k browserKey) (*playPage, web.PlayWho) {
	t.Helper()
	return openPlayAnswer(t, base, func(challenge string) map[string]any {
		return map[string]any{"proof": k.proof(base, challenge)}
	})
}

// openPlayAnswer opens a game at 80×24 that asks for the challenge, sends answer's
// message for it, and returns the game with what the page was told of who it plays as
// (past the resume token, which comes first).
func openPlayAnswer(t *testing.T, base string, answer func(challenge string) map[string]any) (*playPage, web.PlayWho) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(base, "http") + web.PlaySocketPath + "?w=80&h=24&key=1"
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
	if err != nil {
		t.Fatalf("open the play socket: %v", err)
	}
	c.SetReadLimit(1 << 20)
	var ch struct{ Challenge string }
	readMessage(t, c, &ch)
	writeMessage(t, c, answer(ch.Challenge))
	var who struct {
		Who    web.PlayWho
		Resume string
	}
	readMessage(t, c, &who)
	if who.Resume != "" { // the token that takes the game up again comes before
		readMessage(t, c, &who)
	}
	p := &playPage{t: t, conn: c, done: make(chan struct{})}
	t.Cleanup(func() { _ = c.CloseNow(); <-p.done })
	go p.read()
	return p, who.Who
}

// linkBrowser links the browser's key on the page at base with code, as the page's link
// box does, and returns the answer.
func linkBrowser(t *testing.T, base string, k browserKey, code string) (ok bool, text string) {
	t.Helper()
	return giveBrowserCode(t, base, k, code, false)
}

// giveBrowserCode gives code on the link socket for the browser's key: a code of keys
// add, or with claim a guest's, which keeps that guest's knight.
func giveBrowserCode(t *testing.T, base string, k browserKey, code string, claim bool) (ok bool, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+web.PlayLinkPath,
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
	if err != nil {
		t.Fatalf("open the link socket: %v", err)
	}
	defer c.CloseNow()
	var ch struct{ Challenge string }
	readMessage(t, c, &ch)
	writeMessage(t, c, map[string]any{"proof": k.proof(base, ch.Challenge), "code": code, "claim": claim})
	var a struct {
		OK   bool
		Text string
	}
	readMessage(t, c, &a)
	return a.OK, a.Text
}

// A browser's key is a key like any other to the records and the bans: its fingerprint
// is its ssh-ed25519 key's; unlinked, it is a guest offered the link (and a wrong code
// links nothing); linked, it plays the knight, takes a place counted by its key, and is
// listed by whoami's knight; banned by its fingerprint, its game and its links are
// refused; and an address ban refuses its link as SSH's login refuses a key.
func TestABrowsersKeyIsAKeyToTheBans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin, laptop := newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Web.PlayGrace = 500 * time.Millisecond // the guest's game, its socket closed, is soon over
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Tristan")
	tm.quit()
	k := newBrowserKey(t)

	p, who := openKeyedPlay(t, base, k)
	if !who.Guest || !who.Link || who.Key != k.fp || who.Why != playNotLinkedWhy || !strings.Contains(who.Add, "keys add") {
		t.Errorf("an unlinked browser was told %+v; want a guest, its fingerprint %s, offered the link", who, k.fp)
	}
	p.waitFor("You are a guest")
	if ok, text := linkBrowser(t, base, k, "AAAA-AAAA"); ok || !strings.Contains(text, "no such code") {
		t.Errorf("a wrong code: %v %q; want refused, saying why", ok, text)
	}
	if ok, text := linkBrowser(t, base, k, keysAdd(t, ts.addr, laptop)); !ok || text != "This browser now plays Tristan." {
		t.Fatalf("the link: %v %q", ok, text)
	}

	_ = p.conn.CloseNow() // the guest's game ends, past its grace
	p, who = openKeyedPlay(t, base, k)
	if who.Guest || who.Key != k.fp {
		t.Errorf("a linked browser was told %+v; want its knight", who)
	}
	p.waitFor("Welcome back, Tristan.")
	if !poll(5*time.Second, pollEvery, func() bool {
		l := srv.live.List()
		return len(l) == 1 && l[0].Fingerprint == k.fp && !l[0].Guest
	}) {
		t.Errorf("the open sessions: %+v; want the browser's knight, by its key", srv.live.List())
	}

	if out, errOut, code := runCmd(t, ts.addr, admin, "ban "+k.fp); code != 0 {
		t.Fatalf("ban the browser's key: %d %s %s", code, out, errOut)
	}
	p, _ = openKeyedPlay(t, base, k)
	p.waitFor(playKeyBannedWhy)
	if ok, text := linkBrowser(t, base, k, keysAdd(t, ts.addr, laptop)); ok || text != playKeyBannedWhy {
		t.Errorf("a banned browser's link: %v %q; want refused", ok, text)
	}
	mustRun(t, ts.addr, admin, "unban "+k.fp)
	code := keysAdd(t, ts.addr, laptop) // before the address, the laptop's too, is banned
	mustRun(t, ts.addr, admin, "ban 127.0.0.1")
	if ok, text := linkBrowser(t, base, newBrowserKey(t), code); ok || text != playKeyBannedWhy {
		t.Errorf("a link from a banned address: %v %q; want refused", ok, text)
	}
}

// startWebRealm is startRealm with the web page and its play page, and the page's address.
func startWebRealm(t *testing.T, name, etcd string, seed uint64) (*testServer, string) {
	t.Helper()
	cfg := testConfig(t.TempDir(), seed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
	cfg.HTTPAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	return ts, "http://" + srv.httpLn.Addr().String()
}

// On a realm, a browser's key is linked realm-wide as an SSH key is: linked on realm A
// with the code of `keys add`, its entry in etcd names the knight and says it is a
// browser's, and the browser plays that knight on realm B.
func TestABrowsersKeyOnARealm(t *testing.T) {
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	a, pageA := startWebRealm(t, "A", etcd, defaultSeed)
	_, pageB := startWebRealm(t, "B", etcd, defaultSeed+1)
	laptop := newKey(t)
	kay := openTerminal(t, a.addr, laptop, 80, 24, nil)
	kay.enterDungeon("Kay")
	kay.quit()
	var kayID string
	waitUntil(t, "Kay's key in etcd", func() bool {
		k, err := shared.KeyOf(keys.Fingerprint(laptop.PublicKey()))
		kayID = k.Knight
		return err == nil
	})

	k := newBrowserKey(t)
	if ok, text := linkBrowser(t, pageA, k, linkCode(t, a.addr, laptop)); !ok || text != "This browser now plays Kay." {
		t.Fatalf("the link on A: %v %q", ok, text)
	}
	if e, err := shared.KeyOf(k.fp); err != nil || e.Knight != kayID || e.Kind != knights.KindBrowser || e.Type != "ssh-ed25519" {
		t.Fatalf("the browser's key in etcd: %+v, %v; want Kay's, a browser's", e, err)
	}
	p, who := openKeyedPlay(t, pageB, k)
	if who.Guest {
		t.Errorf("the browser on B was told %+v; want Kay", who)
	}
	p.waitFor("Welcome back, Kay.")
}

// The admin allow-list holds a browser's key as it holds an SSH key: a browser whose key
// is listed there has the admin console in its game (':'), and one whose key is not is
// told the console is for admins.
func TestABrowsersKeyInTheAdminAllowList(t *testing.T) {
	dir := t.TempDir()
	laptop, admin, player := newKey(t), newBrowserKey(t), newBrowserKey(t)
	signer, err := gossh.NewSignerFromKey(admin.priv)
	if err != nil {
		t.Fatal(err)
	}
	writeAdminKeys(t, dir, signer)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Ector")
	tm.quit()
	for _, k := range []browserKey{admin, player} {
		if ok, text := linkBrowser(t, base, k, keysAdd(t, ts.addr, laptop)); !ok {
			t.Fatalf("link: %s", text)
		}
	}
	for _, c := range []struct {
		key  browserKey
		want string
	}{{admin, "── console"}, {player, "The console is for admins."}} {
		p, _ := openKeyedPlay(t, base, c.key)
		p.waitFor("Welcome back, Ector.")
		p.press("\r")
		p.waitFor("Depth 1")
		p.press(":")
		p.waitFor(c.want)
		_ = p.conn.CloseNow()
	}
}

// A page served over plain http from a host that is not this machine is no secure
// context, where a browser makes no WebCrypto key: the page plays as a guest and says
// why (the host is mapped to the loopback address in Chromium, so the page is served
// by the real server under another name).
func TestABrowserWithoutASecureContextPlaysAsAGuest(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, srv, _ := webServer(t)
	_, port, _ := strings.Cut(srv.httpLn.Addr().String(), ":")
	ctx := headless(t, exe, 60*time.Second, chromedp.Flag("host-resolver-rules", "MAP play.example 127.0.0.1"))
	if err := chromedp.Do(ctx, chromedp.Navigate("http://play.example:"+port+web.PlayPath)); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	var who string
	if !poll(20*time.Second, pollEvery, func() bool {
		who, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("who").innerText`))
		return strings.Contains(who, "You play as a guest: this page is not a secure one")
	}) {
		t.Fatalf("the page without a secure context says %q; want that it plays as a guest, and why", who)
	}
	if secure, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.isSecureContext`)); err != nil || secure {
		t.Fatalf("the page at play.example is a secure context (%v); the test proves nothing", err)
	}
}
