package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// playPage is a browser's game as the tests see it: the play socket, and the screen its
// frames paint, row by row as the page's script does.
type playPage struct {
	t     *testing.T
	conn  *websocket.Conn
	mu    sync.Mutex
	rows  []string
	token string        // the newest the socket was sent, which takes its game up again
	done  chan struct{} // closed when the socket ends
	code  websocket.StatusCode
}

// dialPlay opens the play socket of the page at base (http://host:port) at w×h, from a
// page of origin, with the query's more (as "&resume=TOKEN").
func dialPlay(ctx context.Context, base, origin string, w, h int, more ...string) (*websocket.Conn, *http.Response, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + web.PlaySocketPath + "?w=" + itoa(w) + "&h=" + itoa(h) + strings.Join(more, "")
	return websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
}

func itoa(n int) string { return strconv.Itoa(n) }

// openPlay opens a game at w×h from the page's own origin and paints its frames.
func openPlay(t *testing.T, base string, w, h int) *playPage {
	t.Helper()
	return openPlayQuery(t, base, w, h)
}

// resumePlay opens a socket at w×h that takes up the game token was given for.
func resumePlay(t *testing.T, base, token string, w, h int) *playPage {
	t.Helper()
	return openPlayQuery(t, base, w, h, "&resume="+token)
}

// openPlayQuery opens the play socket at w×h with the query's more, and paints its
// frames.
func openPlayQuery(t *testing.T, base string, w, h int, more ...string) *playPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := dialPlay(ctx, base, base, w, h, more...)
	if err != nil {
		t.Fatalf("open the play socket: %v", err)
	}
	c.SetReadLimit(1 << 20)
	p := &playPage{t: t, conn: c, done: make(chan struct{})}
	t.Cleanup(func() { _ = c.CloseNow(); <-p.done })
	go p.read()
	return p
}

// read paints each frame until the socket ends.
func (p *playPage) read() {
	defer close(p.done)
	for {
		_, data, err := p.conn.Read(context.Background())
		if err != nil {
			p.mu.Lock()
			p.code = websocket.CloseStatus(err)
			p.mu.Unlock()
			return
		}
		var f struct {
			H      int               `json:"h"`
			Rows   []json.RawMessage `json:"rows"`
			Who    json.RawMessage   `json:"who"` // who the page plays as: not a frame
			Resume string            `json:"resume"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			p.t.Errorf("a frame that is not JSON: %v: %q", err, data)
			return
		}
		if f.Who != nil {
			continue
		}
		p.mu.Lock()
		if f.Resume != "" { // kept, and sent back, as the page does
			p.token = f.Resume
			p.mu.Unlock()
			b, _ := json.Marshal(map[string]string{"resume": f.Resume})
			wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = p.conn.Write(wctx, websocket.MessageText, b) // a socket gone is the test's to see
			cancel()
			continue
		}
		for len(p.rows) < f.H {
			p.rows = append(p.rows, "")
		}
		p.rows = p.rows[:f.H]
		for _, raw := range f.Rows {
			var row [2]json.RawMessage
			var y int
			var runs [][]any
			if json.Unmarshal(raw, &row) != nil || json.Unmarshal(row[0], &y) != nil || json.Unmarshal(row[1], &runs) != nil || y >= f.H {
				p.t.Errorf("a row that is not [y, runs]: %s", raw)
				continue
			}
			var b strings.Builder
			for _, r := range runs {
				s, _ := r[0].(string)
				b.WriteString(s)
			}
			p.rows[y] = b.String()
		}
		p.mu.Unlock()
	}
}

// screen is the page's screen as text, its rows' trailing blanks cut.
func (p *playPage) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	lines := make([]string, len(p.rows))
	for i, r := range p.rows {
		lines[i] = strings.TrimRight(r, " ")
	}
	return strings.Join(lines, "\n")
}

// waitFor waits until the screen shows every want.
func (p *playPage) waitFor(want ...string) string {
	p.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = p.screen(); return containsAll(s, want) }) {
		p.t.Fatalf("the page never showed %q; it shows:\n%s", want, s)
	}
	return s
}

// resumeToken waits for the token the socket is sent, which takes its game up again.
func (p *playPage) resumeToken() string {
	p.t.Helper()
	var token string
	if !poll(10*time.Second, pollEvery, func() bool { p.mu.Lock(); token = p.token; p.mu.Unlock(); return token != "" }) {
		p.t.Fatal("the play socket was sent no resume token")
	}
	return token
}

// drop cuts the socket as a network that goes does: no close from the page.
func (p *playPage) drop() {
	_ = p.conn.CloseNow()
	<-p.done
}

// closedWith waits for the server to close the socket and returns its code.
func (p *playPage) closedWith() websocket.StatusCode {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.t.Fatal("the play socket was not closed")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code
}

// press sends keys, as the page's script does: each as a terminal's bytes.
func (p *playPage) press(keys ...string) {
	p.t.Helper()
	for _, k := range keys {
		b, _ := json.Marshal(map[string]string{"keys": k})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := p.conn.Write(ctx, websocket.MessageText, b)
		cancel()
		if err != nil {
			p.t.Fatalf("send %q: %v", k, err)
		}
	}
}

// A guest plays in the browser, through the play socket, from the title into the
// dungeon, and takes a player's place counted with SSH's while it plays; its walk
// changes the screen. A page of another origin is refused its socket.
func TestAGuestPlaysOverThePlaySocket(t *testing.T) {
	t.Parallel()
	_, srv, base := webServer(t)
	p := openPlay(t, base, 80, 24)
	p.waitFor("Press Enter to begin")
	if _, playing := srv.limits.Counts(); playing != 1 {
		t.Errorf("a browser's game takes %d players' places; want 1", playing)
	}
	p.press("\r")
	p.waitFor("Press r to roll again")
	p.press("\r")
	p.waitFor("Name your knight")
	p.press("Percival", "\r")
	before := p.waitFor("Depth 1")
	t.Logf("in the dungeon:\n%s", before)
	p.press("\x1b[C", "\x1b[D", "l") // arrows and a letter
	if !poll(10*time.Second, pollEvery, func() bool { return p.screen() != before }) {
		t.Fatalf("walking changed nothing on the page:\n%s", before)
	}
	if !containsAll(strings.Join(onlineNames(t, base), " "), []string{"Percival"}) {
		t.Errorf("the web page's who does not list the browser's knight: %v", onlineNames(t, base))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := dialPlay(ctx, base, "http://evil.example", 80, 24)
	if err == nil {
		_ = c.CloseNow()
		t.Fatal("a page of another origin opened the play socket")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin's socket: %v, %v; want 403", resp, err)
	}

	// The page goes: the game is held for the grace, its place still taken; then the
	// knight leaves the world and its place is given back.
	p.drop()
	if _, playing := srv.limits.Counts(); playing != 1 || srv.live.Len() != 1 {
		t.Fatalf("a dropped socket's game is not held: %d places taken, %d sessions listed", playing, srv.live.Len())
	}
	if !poll(10*time.Second, pollEvery, func() bool { _, playing := srv.limits.Counts(); return playing == 0 }) {
		_, playing := srv.limits.Counts()
		t.Fatalf("a dropped socket left %d players' places taken", playing)
	}
	if !poll(10*time.Second, pollEvery, func() bool { return srv.live.Len() == 0 }) {
		t.Fatalf("a dropped socket left its session listed: %v", srv.live.List())
	}
}

// onlineNames are the knights the web page's /api/who lists.
func onlineNames(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/api/who")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var who []web.Player
	if err := json.NewDecoder(resp.Body).Decode(&who); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	var names []string
	for _, p := range who {
		names = append(names, p.Name)
	}
	return names
}

// A browser's game keeps SSH's rules: it counts in its address's connections with SSH's
// (past -max-per-ip it is refused, and told why), a banned address is refused, and a
// socket that drops leaves no goroutine behind.
func TestThePlaySocketKeepsSSHsRules(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Limits.MaxPerIP = 2
	cfg.Web.PlayGrace = 500 * time.Millisecond
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()

	// Warmed up: the page's server and the world's goroutines are all running.
	warm := openPlay(t, base, 80, 24)
	warm.waitFor("Press Enter to begin")
	warm.drop()
	if !poll(10*time.Second, pollEvery, func() bool { return srv.live.Len() == 0 }) {
		t.Fatal("the warm-up game stayed open")
	}
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	p := openPlay(t, base, 80, 24)
	p.waitFor("Press Enter to begin")
	p.press("\r")
	p.waitFor("Press r to roll again")
	p.drop()
	// Held for the grace, then nothing left: no goroutine, no place, no listing.
	if _, playing := srv.limits.Counts(); playing != 1 {
		t.Fatalf("a game held for its grace takes %d players' places; want 1", playing)
	}
	// Goroutines, places and listing waited on together: the count of goroutines may
	// reach before's while the game's own are still going, as an earlier test's finish.
	var now, playing, listed int
	if !poll(10*time.Second, pollEvery, func() bool {
		now, listed = runtime.NumGoroutine(), srv.live.Len()
		_, playing = srv.limits.Counts()
		return now <= before && playing == 0 && listed == 0
	}) {
		if playing != 0 || listed != 0 {
			t.Fatalf("a dropped socket left %d players' places and %d sessions past the grace", playing, listed)
		}
		buf := make([]byte, 1<<20)
		t.Fatalf("a dropped socket left goroutines past the grace: %d before, %d after:\n%s", before, now, buf[:runtime.Stack(buf, true)])
	}

	// One SSH connection and one browser: the address's two places; a third is refused.
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.waitFor("Press Enter to begin")
	openPlay(t, base, 80, 24).waitFor("Press Enter to begin")
	third := openPlay(t, base, 80, 24)
	third.waitFor("too many connections from your address")
	<-third.done

	if err := srv.knights.Ban(knights.Ban{Addr: "127.0.0.1/32", By: "test", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	tm.close()
	if !poll(10*time.Second, pollEvery, func() bool { _, playing := srv.limits.Counts(); return playing <= 1 }) {
		t.Fatal("the SSH session's place was not given back")
	}
	banned := openPlay(t, base, 80, 24)
	banned.waitFor(playBannedLine)
	<-banned.done
}

// A browser's game idle past -idle-timeout is told so and closed, as an SSH session's;
// keys keep it open.
func TestAnIdleBrowserGameIsClosed(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Limits.IdleTimeout = time.Second
	_, srv := startConfigured(t, cfg)
	p := openPlay(t, "http://"+srv.httpLn.Addr().String(), 80, 24)
	p.waitFor("Press Enter to begin")
	for range 4 { // 1.5 s of keys, each within the timeout
		time.Sleep(300 * time.Millisecond) // a player's pace: the keys' spacing is what is tested
		p.press("x")
	}
	select {
	case <-p.done:
		t.Fatal("a game with keys coming was closed as idle")
	default:
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("an idle browser game stayed open")
	}
	p.waitFor("You were idle for 1s")
}
