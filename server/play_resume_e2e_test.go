package server

import (
	"context"
	"encoding/json"
	"github.com/coder/websocket"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// enterDungeon takes a new guest from the title through the roll and its name into the
// dungeon.
func (p *playPage) enterDungeon(name string) string {
	p.t.Helper()
	p.waitFor("Press Enter to begin")
	p.press("\r")
	p.waitFor("Press r to roll again")
	p.press("\r")
	p.waitFor("Name your knight")
	p.press(name, "\r")
	return p.waitFor("level 1 of the dungeon", "Depth 1")
}

// playingGuest is the id of the guest knight named name, online.
func playingGuest(t *testing.T, srv *Server, name string) string {
	t.Helper()
	var id string
	waitUntil(t, "the guest "+name+" online", func() bool {
		who, err := srv.engine.Who(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range who {
			if w.Guest && strings.HasSuffix(w.Name, name) {
				id = w.ID
			}
		}
		return id != ""
	})
	return id
}

// knightNow is the knight id's record as the world has it, and whether it is online.
func knightNow(t *testing.T, srv *Server, id string) (world.Adventurer, bool) {
	t.Helper()
	rec, online, err := srv.engine.Lookup(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec, online
}

// walkPlay presses the keys of a path on the page, waiting for the world to show the
// knight id on each square (followPath: a locked door may hold, and the knight throws
// itself at it again).
func walkPlay(t *testing.T, srv *Server, p *playPage, id string, keys []string, squares []world.Pos) {
	t.Helper()
	followPath(t, keys, squares, func(k string) { p.press(k) }, func() world.Pos {
		rec, _ := knightNow(t, srv, id)
		return world.Pos{X: rec.X, Y: rec.Y}
	}, p.screen)
}

// Issue 45: a phone that sleeps, or changes networks, drops its socket in the middle of
// a fight. The game goes on without the page: the knight stays in the world, in its
// fight, which waits for it as for a quiet SSH player's (a knight alone is never
// hurried). The page comes back with its token, at another size, and is sent the whole
// screen: the same knight, the same fight, which it fights on. The log says the game
// was held and taken up, under the game's id of its session lines.
func TestABrowserGameResumesInItsFight(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0" // the grace is web.PlayResumeGrace's minute
	log := &lockedBuffer{}
	_, srv := startLogging(t, cfg, log)
	base := "http://" + srv.httpLn.Addr().String()

	p := openPlay(t, base, 100, 30)
	p.enterDungeon("Tristan")
	id := playingGuest(t, srv, "Tristan")
	keys, squares := pathToGuard(t)
	walkPlay(t, srv, p, id, keys, squares)
	fight := p.waitFor("FIGHT", "guards this")
	monster := regexp.MustCompile(`An? (\w[\w ]*?) \([^)]*\) guards this`).FindStringSubmatch(fight)
	if monster == nil {
		t.Fatalf("no monster named on the fight's screen:\n%s", fight)
	}
	before, _ := knightNow(t, srv, id)
	token := p.resumeToken()
	p.drop()

	from := turnOf(t, srv)
	waitUntil(t, "400 turns with the page away", func() bool { return turnOf(t, srv) >= from+400 })
	held, online := knightNow(t, srv, id)
	if !online || held.Hits != before.Hits || held.X != before.X || held.Y != before.Y {
		t.Fatalf("400 turns after its page went the knight is online %v, %d hits at %d,%d; it was %d hits at %d,%d",
			online, held.Hits, held.X, held.Y, before.Hits, before.X, before.Y)
	}
	if _, playing := srv.limits.Counts(); playing != 1 {
		t.Errorf("a held game takes %d players' places; want 1", playing)
	}

	q := resumePlay(t, base, token, 80, 24) // a phone turned: another size
	q.waitFor("FIGHT", monster[1], "Tristan")
	if q.resumeToken() == token {
		t.Error("the socket that took the game up was sent the token it came with")
	}
	if !poll(60*time.Second, 50*time.Millisecond, func() bool {
		if s := q.screen(); strings.Contains(s, "is dead!") || strings.Contains(s, "R. I. P.") {
			return true
		}
		q.press("f")
		return false
	}) {
		t.Fatalf("the fight taken up did not end:\n%s", q.screen())
	}

	game := regexp.MustCompile(`msg="session start".* game=(\S+)`).FindStringSubmatch(log.String())
	if game == nil {
		t.Fatalf("the session's start names no game:\n%s", log.String())
	}
	for _, want := range []string{"web: play socket dropped: the game is held", "web: play game resumed"} {
		if !regexp.MustCompile(regexp.QuoteMeta(want) + `.* game=` + game[1]).MatchString(log.String()) {
			t.Errorf("the log does not say %q of game %s:\n%s", want, game[1], log.String())
		}
	}
}

// A browser's games and SSH's count together in an address's -max-per-ip, whichever
// way round: two SSH sessions and a browser fill a cap of three and the next SSH
// login is refused (its banner says why); one SSH session and two browsers fill it and the next browser
// is refused. A game held for its grace, its socket gone, still counts.
func TestBrowsersAndSSHShareTheAddressCap(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Limits.MaxPerIP = 3
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	const full = "too many connections from your address"
	playing := func(want int) {
		t.Helper()
		waitUntil(t, itoa(want)+" players' places taken", func() bool { _, n := srv.limits.Counts(); return n == want })
	}

	ssh1 := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	ssh1.waitFor("Press Enter to begin")
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).waitFor("Press Enter to begin")
	openPlay(t, base, 80, 24).waitFor("Press Enter to begin")
	playing(3)
	if banner, err := dialBanner(t, ts.addr, newKey(t)); err == nil || !strings.Contains(banner, full) {
		t.Errorf("two SSH sessions and a browser of a cap of 3: another SSH login reads %q (%v); want it refused", banner, err)
	}

	ssh1.close()
	playing(2)
	second := openPlay(t, base, 80, 24)
	second.waitFor("Press Enter to begin")
	refused := openPlay(t, base, 80, 24)
	refused.waitFor(full)
	<-refused.done

	second.drop() // held for the grace: its place still taken
	if _, n := srv.limits.Counts(); n != 3 {
		t.Fatalf("with a game held, %d places taken; want 3", n)
	}
	if banner, err := dialBanner(t, ts.addr, newKey(t)); err == nil || !strings.Contains(banner, full) {
		t.Errorf("with a browser's game held, another SSH login reads %q (%v); want it refused", banner, err)
	}
}

// A ban of an address closes its browsers' games, the one playing and the one held for
// its page, and a page of that address does not take a held game up.
func TestABanClosesBrowserGames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	_, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()

	playing := openPlay(t, base, 80, 24)
	playing.enterDungeon("Kay")
	held := openPlay(t, base, 80, 24)
	held.waitFor("Press Enter to begin")
	token := held.resumeToken()
	held.drop()

	var out, errOut strings.Builder
	if code := srv.runCommandLine(context.Background(), publicKey(t, admin), []string{"ban", "127.0.0.1"}, &out, &errOut); code != 0 {
		t.Fatalf("ban: exit %d: %s %s", code, out.String(), errOut.String())
	}
	if code := playing.closedWith(); code != websocket.StatusNormalClosure {
		t.Errorf("the banned address's game was closed with %v", code)
	}
	waitUntil(t, "the banned address's games closed, the held one too", func() bool { return srv.live.Len() == 0 })
	if _, n := srv.limits.Counts(); n != 0 {
		t.Errorf("%d places taken after the ban", n)
	}
	back := resumePlay(t, base, token, 80, 24)
	if code := back.closedWith(); code != web.PlayRefused {
		t.Errorf("a banned address's page coming back was closed with %v; want it refused", code)
	}
}

// Behind a trusted proxy (-http-trusted-proxies) a browser's game is the client's, as
// X-Forwarded-For names it: listed at that address, and counted in that address's cap.
func TestABrowserBehindATrustedProxyIsItsClient(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Limits.MaxPerIP = 1
	var err error
	if cfg.Web.Trusted, err = web.ParsePrefixes("127.0.0.1/32"); err != nil {
		t.Fatal(err)
	}
	_, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	ws := "ws" + strings.TrimPrefix(base, "http") + web.PlaySocketPath + "?w=80&h=24"
	for _, client := range []string{"203.0.113.9", "203.0.113.10"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, _, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{
			"Origin": {base}, "X-Forwarded-For": {client}}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		p := &playPage{t: t, conn: c, done: make(chan struct{})}
		t.Cleanup(func() { _ = c.CloseNow(); <-p.done })
		go p.read()
		p.waitFor("Press Enter to begin")
	}
	var addrs []string
	for _, s := range srv.live.List() {
		addrs = append(addrs, s.Host())
	}
	if strings.Join(addrs, " ") != "203.0.113.9 203.0.113.10" && strings.Join(addrs, " ") != "203.0.113.10 203.0.113.9" {
		t.Errorf("the games behind the proxy are listed at %v; want their clients' addresses", addrs)
	}
}

// A browser's keys go through SSH's input pump, with its rate: a page that sends keys
// past it for edge.FloodClose is told why and closed, as an SSH client is, and its game
// is not held for a page to come back to.
func TestABrowserKeyFloodIsClosed(t *testing.T) {
	t.Parallel()
	_, srv, base := webServer(t)
	p := openPlay(t, base, 80, 24)
	p.enterDungeon("Flood")
	start := time.Now()
	flood := make(chan struct{})
	go func() {
		defer close(flood)
		b, _ := json.Marshal(map[string]string{"keys": strings.Repeat("h", 4<<10)})
		// Bounded: the server closes it long before. A write waits while the server
		// reads nothing (the pump past its rate), as an SSH channel's window fills.
		ctx, cancel := context.WithTimeout(context.Background(), edge.FloodClose+20*time.Second)
		defer cancel()
		for p.conn.Write(ctx, websocket.MessageText, b) == nil {
		}
	}()
	select {
	case <-p.done:
	case <-time.After(edge.FloodClose + 15*time.Second):
		t.Fatalf("a flood of keys from a browser was not closed in %v", time.Since(start))
	}
	took := time.Since(start)
	<-flood
	if took < edge.FloodClose {
		t.Errorf("closed after %v, before edge.FloodClose", took)
	}
	// Its close code may be lost: the server closes with the flood's keys unread, and
	// the TCP reset that makes can overtake the close frame.
	p.waitFor("You sent keys faster than anyone types")
	waitUntil(t, "the flooder's game gone, not held", func() bool { return srv.live.Len() == 0 })
}

// Issue 45: a game taken up from another address mid-grace (a phone that changed
// networks) is listed at the new one, so a ban of only the new address closes it; its
// place in the caps stays at the address it was admitted from. Behind a trusted proxy,
// X-Forwarded-For names each socket's client.
func TestABrowserGameMovedIsListedAtItsNewAddress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	var err error
	if cfg.Web.Trusted, err = web.ParsePrefixes("127.0.0.1/32"); err != nil {
		t.Fatal(err)
	}
	_, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	from := func(client string, more ...string) *playPage {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u := "ws" + strings.TrimPrefix(base, "http") + web.PlaySocketPath + "?w=80&h=24" + strings.Join(more, "")
		c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}, "X-Forwarded-For": {client}}})
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		p := &playPage{t: t, conn: c, done: make(chan struct{})}
		t.Cleanup(func() { _ = c.CloseNow(); <-p.done })
		go p.read()
		return p
	}
	listed := func() string {
		var addrs []string
		for _, s := range srv.live.List() {
			addrs = append(addrs, s.Host())
		}
		return strings.Join(addrs, " ")
	}

	home := from("203.0.113.9")
	home.enterDungeon("Percival")
	token := home.resumeToken()
	home.drop()
	phone := from("198.51.100.20", "&resume="+token)
	phone.waitFor("Percival", "Depth 1")
	waitUntil(t, "the game listed at the address it was taken up from", func() bool { return listed() == "198.51.100.20" })

	var out, errOut strings.Builder
	if code := srv.runCommandLine(context.Background(), publicKey(t, admin), []string{"ban", "198.51.100.20"}, &out, &errOut); code != 0 {
		t.Fatalf("ban: exit %d: %s %s", code, out.String(), errOut.String())
	}
	if code := phone.closedWith(); code != websocket.StatusNormalClosure {
		t.Errorf("the moved game's page was closed with %v", code)
	}
	waitUntil(t, "the moved game closed by the ban of its new address", func() bool { return srv.live.Len() == 0 })
}
