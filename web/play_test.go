package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// echoPlay is a game that draws what is typed, and its size, on the page's terminal.
func echoPlay(_ context.Context, s PlaySession) {
	fmt.Fprintf(s.Screen, "\x1b[2J\x1b[Hsize %dx%d\r\n", s.Size.W, s.Size.H)
	b := make([]byte, 64)
	for {
		n, err := s.Keys.Read(b)
		if n > 0 {
			fmt.Fprintf(s.Screen, "\x1b[1;31mtyped %q\x1b[m\r\n", b[:n])
		}
		if err != nil {
			return
		}
		if strings.Contains(string(b[:n]), "q") {
			fmt.Fprint(s.Screen, "bye")
			return
		}
	}
}

// playServer is the page with echoPlay as its game, on a real listener.
func playServer(t *testing.T, origins ...string) string {
	t.Helper()
	return playServerWith(t, Options{Play: echoPlay, PlayOrigins: origins})
}

// playServerWith is the page with opt, on a real listener.
func playServerWith(t *testing.T, opt Options) string {
	t.Helper()
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, opt)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// readMessage reads the next message the page is sent.
func readMessage(t *testing.T, c *websocket.Conn) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read a message: %v", err)
	}
	return data
}

// readToken reads the message a socket that takes up a game is sent first: the token
// that takes it up again, which it sends back, kept, as the page does.
func readToken(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	token := readUnkeptToken(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, _ := json.Marshal(playMessage{Resume: token})
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatalf("send the token back: %v", err)
	}
	return token
}

// readUnkeptToken reads the token a socket is sent first, and does not send it back: a
// page whose socket dropped before it kept it.
func readUnkeptToken(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	data := readMessage(t, c)
	var m playResume
	if err := json.Unmarshal(data, &m); err != nil || len(m.Resume) < 20 || m.Grace < 1 {
		t.Fatalf("the first message is %s; want a resume token and the grace", data)
	}
	return m.Resume
}

// readFrame reads the next frame the page is sent, as text rows by number, past the
// resume token a socket is sent first.
func readFrame(t *testing.T, c *websocket.Conn) (w, h int, rows map[int]string) {
	t.Helper()
	data := readMessage(t, c)
	if bytes.HasPrefix(data, []byte(`{"resume"`)) {
		data = readMessage(t, c)
	}
	var f struct {
		W, H int
		Rows [][2]json.RawMessage
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("a frame: %v: %s", err, data)
	}
	rows = map[int]string{}
	for _, r := range f.Rows {
		var y int
		var runs [][4]any
		if json.Unmarshal(r[0], &y) != nil || json.Unmarshal(r[1], &runs) != nil {
			t.Fatalf("a row: %s", r)
		}
		var b strings.Builder
		for _, run := range runs {
			b.WriteString(run[0].(string))
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return f.W, f.H, rows
}

// The play socket: the page's terminal is the size it asked for, what the game draws
// reaches it as rows of styled runs, only the rows that changed, and the keys typed reach
// the game; the game's end closes the socket normally. A page of another origin is
// refused (403) unless the origin is configured; the page and its script are served with
// a CSP that allows scripts from the server only.
func TestThePlaySocket(t *testing.T) {
	base := playServer(t, "play.example")
	ws := "ws" + strings.TrimPrefix(base, "http") + PlaySocketPath
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(origin, query string) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, ws+query, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	}

	c, _, err := dial(base, "?w=50&h=20")
	if err != nil {
		t.Fatalf("the page's own origin: %v", err)
	}
	defer c.CloseNow()
	w, h, rows := readFrame(t, c)
	if w != 50 || h != 20 || rows[0] != "size 50x20" {
		t.Fatalf("first frame %dx%d %v; want 50x20 showing its size", w, h, rows)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"keys":"\u001b[A"}`)); err != nil {
		t.Fatal(err)
	}
	_, _, rows = readFrame(t, c)
	if len(rows) != 1 || rows[1] != `typed "\x1b[A"` {
		t.Fatalf("after a key the page was sent %v; want the one row that changed", rows)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"keys":"q"}`)); err != nil {
		t.Fatal(err)
	}
	readFrame(t, c)
	readFrame(t, c)
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("the game's end closed the socket with %v; want a normal closure", err)
	}

	if c, resp, err := dial("http://evil.example", "?w=50&h=20"); err == nil {
		c.CloseNow()
		t.Error("another origin's page opened the socket")
	} else if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %v %v; want 403", resp, err)
	}
	if c, _, err := dial("https://play.example", "?w=50&h=20"); err != nil {
		t.Errorf("a configured origin was refused: %v", err)
	} else {
		c.CloseNow()
	}
	if _, resp, err := dial(base, "?w=0&h=20"); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no size: %v %v; want 400", resp, err)
	}

	for _, path := range []string{PlayPath, "/play.js", "/play.css"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != http.StatusOK || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("%s: %d, CSP %q; want 200 with scripts from the server only", path, resp.StatusCode, csp)
		}
		if path == "/play.js" && len(b) > 30<<10 {
			t.Errorf("the play page's script is %d bytes; want under 30 KiB", len(b))
		}
		if path == PlayPath && (strings.Contains(string(b), "<script>") || !strings.Contains(string(b), `src="/play.js"`)) {
			t.Errorf("the play page has inline script or none of its own:\n%s", b)
		}
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `href="/play"`) {
		t.Error("the front page does not link the play page")
	}
}

// Without a game, there is no play page.
func TestNoPlayPageWithoutAGame(t *testing.T) {
	h, _, _ := handler(t, func() (Status, error) { return fixed(), nil })
	for _, path := range []string{PlayPath, "/play.js", PlaySocketPath + "?w=80&h=24"} {
		if r := get(h, "GET", path, "192.0.2.1:1"); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s without a game: %d; want 404", path, r.StatusCode)
		}
	}
	if r := get(h, "GET", "/", "192.0.2.1:1"); strings.Contains(body(t, r), `href="/play"`) {
		t.Error("the front page links a play page there is not")
	}
}

// lockedLog is a log's text, written by the handler's goroutines and read by the test.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A dropped socket takes its game up again: the page is sent a token when its socket
// opens, and a socket that comes with it within the grace is sent the screen whole, as
// the game drew it while no page showed it, and its keys reach the same game. Each socket
// is sent its own token, and the one it came with is spent once the page sends the new
// one back. Two pages with one token: the newest takes the
// game, the older is told and closed. Past the grace the game ends, and its
// token takes nothing up (PlayGone). The log says when a game is held, taken up, ended.
func TestAPlaySocketResumes(t *testing.T) {
	draw := make(chan string)
	ended := make(chan struct{})
	game := func(ctx context.Context, s PlaySession) {
		defer close(ended)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case line := <-draw:
					fmt.Fprintf(s.Screen, "%s\r\n", line)
				}
			}
		}()
		echoPlay(ctx, s)
	}
	var logged lockedLog
	const grace = 300 * time.Millisecond
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, slog.New(slog.NewTextHandler(&logged, nil)),
		Options{Play: game, PlayGrace: grace})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the log:\n%s", logged.String())
		}
	})
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + PlaySocketPath + "?w=50&h=20"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(token string) *websocket.Conn {
		t.Helper()
		u := ws
		if token != "" {
			u += "&resume=" + token
		}
		c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {srv.URL}}})
		if err != nil {
			t.Fatalf("open the play socket: %v", err)
		}
		t.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	press := func(c *websocket.Conn, k string) {
		t.Helper()
		b, _ := json.Marshal(playMessage{Keys: k})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	closedWith := func(c *websocket.Conn) websocket.StatusCode {
		t.Helper()
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return websocket.CloseStatus(err)
			}
		}
	}

	first := dial("")
	token1 := readToken(t, first)
	if _, _, rows := readFrame(t, first); rows[0] != "size 50x20" {
		t.Fatalf("the game's first frame: %v", rows)
	}
	press(first, "a")
	readFrame(t, first)
	_ = first.CloseNow() // the network goes: no close from the page
	if !poll(5*time.Second, func() bool { return strings.Contains(logged.String(), "the game is held") }) {
		t.Fatalf("a dropped socket's game is not held; the log:\n%s", logged.String())
	}
	select {
	case draw <- "drawn while away":
	case <-ended:
		t.Fatal("the game ended as its socket dropped")
	}

	if c := dial("NOSUCHTOKEN"); closedWith(c) != PlayGone {
		t.Error("a token no game was given took one up")
	}
	second := dial(token1)
	token2 := readToken(t, second)
	if token2 == token1 {
		t.Error("a socket that took a game up was sent the token it came with")
	}
	_, _, rows := readFrame(t, second)
	if rows[0] != "size 50x20" || rows[1] != `typed "a"` || rows[2] != "drawn while away" || len(rows) != 20 {
		t.Fatalf("the page that came back was sent %v; want the whole screen as the game drew it", rows)
	}
	press(second, "b")
	if _, _, rows := readFrame(t, second); rows[3] != `typed "b"` {
		t.Fatalf("a key after coming back: %v; want it typed into the same game", rows)
	}
	if c := dial(token1); closedWith(c) != PlayGone {
		t.Error("a token took a game up twice")
	}

	// Another page with the same token: it takes the game, the older page is told.
	third := dial(token2)
	token3 := readToken(t, third)
	readFrame(t, third)
	if got := string(readMessage(t, second)); got != `{"taken":"`+playTakenLine+`"}` {
		t.Errorf("the page whose game another took up was sent %s; want it told", got)
	}
	closedWith(second)
	press(third, "c")
	if _, _, rows := readFrame(t, third); rows[4] != `typed "c"` {
		t.Fatalf("a key of the page that took the game up: %v", rows)
	}
	select {
	case <-ended:
		t.Fatal("the game ended when another page took it up")
	default:
	}

	// Past the grace, the game ends, and its token takes nothing up.
	_ = third.CloseNow()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("a game held past its grace did not end")
	}
	if c := dial(token3); closedWith(c) != PlayGone {
		t.Error("a token took up a game past its grace")
	}
	h.gamesMu.Lock()
	held := len(h.games)
	h.gamesMu.Unlock()
	if held != 0 {
		t.Errorf("past the grace the handler still holds %d games", held)
	}
	for _, want := range []string{"web: play game resumed", "taken=true", "web: held play game ended: its page did not come back", "grace=300ms"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logged.String())
		}
	}
}

// poll calls cond until it holds or within passes.
func poll(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// A page that takes up a game in screen-reader mode but asked for the grid (or the other
// way round) is told the game's mode, {"plain": ...}, which it then shows; one that asked
// for the game's mode is told nothing of it, and a game in that mode sends it its lines.
func TestAPageTakingAGameUpIsToldItsMode(t *testing.T) {
	base := playServerWith(t, Options{Play: echoPlay, PlayGrace: 10 * time.Second})
	ws := "ws" + strings.TrimPrefix(base, "http") + PlaySocketPath + "?w=50&h=20"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(query string) *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(ctx, ws+query, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
		if err != nil {
			t.Fatalf("open the play socket: %v", err)
		}
		t.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	first := dial("&plain=1")
	token := readToken(t, first)
	if got := string(readMessage(t, first)); got != `{"lines":["size 50x20"]}` {
		t.Fatalf("a game in screen-reader mode sent %s; want its line", got)
	}
	_ = first.CloseNow()

	grid := dial("&resume=" + token)
	token = readToken(t, grid)
	if got := string(readMessage(t, grid)); got != `{"plain":true}` {
		t.Fatalf("a page asking for the grid took up a game in screen-reader mode and was sent %s; want told the mode", got)
	}
	_ = grid.CloseNow()

	log := dial("&plain=1&resume=" + token)
	readToken(t, log)
	b, _ := json.Marshal(playMessage{Keys: "x"})
	if err := log.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	if got := string(readMessage(t, log)); got != `{"lines":["typed \"x\""]}` {
		t.Fatalf("a page asking for the log took up a game in it and was sent %s; want the game's next line", got)
	}
}

// The play page's rulings' times, named as numbers (DESIGN, "A socket that drops"): a
// game is held a minute for its page, which is pinged every 20 s; with no grace given,
// the handler holds it the minute.
func TestThePlayRulingsTimes(t *testing.T) {
	if PlayResumeGrace != time.Minute || PlayPingEvery != 20*time.Second || PlayWriteTimeout != 30*time.Second {
		t.Errorf("grace %v, pings every %v, a frame's timeout %v; want 1 min, 20 s, 30 s", PlayResumeGrace, PlayPingEvery, PlayWriteTimeout)
	}
	if h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{Play: echoPlay}); h.grace != PlayResumeGrace {
		t.Errorf("with no grace given a game is held %v; want %v", h.grace, PlayResumeGrace)
	}
}

// Issue 45: a socket that drops after the server sent it a new token but before the page
// kept it (sent it back) leaves the page the token it came with, which still takes the
// game up; once the page keeps a newer one, the older ones take nothing up.
func TestATokenNotKeptLeavesThePageTheOneItHad(t *testing.T) {
	base := playServerWith(t, Options{Play: echoPlay, PlayGrace: 10 * time.Second})
	ws := "ws" + strings.TrimPrefix(base, "http") + PlaySocketPath + "?w=50&h=20"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(token string) *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(ctx, ws+"&resume="+token, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
		if err != nil {
			t.Fatalf("open the play socket: %v", err)
		}
		t.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	gone := func(c *websocket.Conn) bool {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return websocket.CloseStatus(err) == PlayGone
			}
		}
	}

	first := dial("")
	kept := readToken(t, first)
	readFrame(t, first)
	_ = first.CloseNow()

	second := dial(kept)
	lost := readUnkeptToken(t, second) // sent, but the socket drops before the page keeps it
	_ = second.CloseNow()

	third := dial(kept)
	_, data, err := third.Read(ctx)
	var m playResume
	if err != nil || json.Unmarshal(data, &m) != nil || m.Resume == "" {
		t.Fatalf("a page with the token it kept, the next one lost, was sent %s (%v); want its game taken up", data, err)
	}
	for _, msg := range []playMessage{{Resume: m.Resume}, {Keys: "x"}} { // kept, then a key
		b, _ := json.Marshal(msg)
		if err := third.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, rows := readFrame(t, third); rows[0] != "size 50x20" {
		t.Fatalf("the page that took its game up was sent %v; want the game's screen", rows)
	}
	readFrame(t, third) // the key typed: the token sent back before it was read
	// Kept: the older tokens are spent, both the one it came with and the one it lost.
	if !gone(dial(kept)) || !gone(dial(lost)) {
		t.Error("a token older than the one the page kept took the game up")
	}
}

// What a game in screen-reader mode says while no page shows it (a phone asleep in a
// fight) reaches the page that takes the game up, after a line that says so: a listener
// hears what the monster did while the page was away.
func TestAPageComingBackIsReadWhatItMissed(t *testing.T) {
	screens := make(chan io.Writer, 1)
	game := func(ctx context.Context, s PlaySession) {
		screens <- s.Screen
		echoPlay(ctx, s)
	}
	var screen io.Writer
	// say writes a line as the game would, and returns once the screen has taken it.
	say := func(line string) { fmt.Fprintf(screen, "%s\r\n", line) }
	var logged lockedLog
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, slog.New(slog.NewTextHandler(&logged, nil)),
		Options{Play: game, PlayGrace: 10 * time.Second})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + PlaySocketPath + "?w=50&h=20&plain=1"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(query string) *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(ctx, ws+query, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {srv.URL}}})
		if err != nil {
			t.Fatalf("open the play socket: %v", err)
		}
		t.Cleanup(func() { _ = c.CloseNow() })
		return c
	}
	first := dial("")
	token := readToken(t, first)
	if got := string(readMessage(t, first)); got != `{"lines":["size 50x20"]}` {
		t.Fatalf("the game's first line: %s", got)
	}
	screen = <-screens
	_ = first.CloseNow()
	if !poll(5*time.Second, func() bool { return strings.Contains(logged.String(), "the game is held") }) {
		t.Fatalf("a dropped socket's game is not held; the log:\n%s", logged.String())
	}
	say("The Gnoll hits you for 3.")
	say("You have 7 hits left.")
	for i := range playMissedKeep { // more than are kept: the oldest go
		say(fmt.Sprintf("line %d", i))
	}

	back := dial("&resume=" + token)
	readToken(t, back)
	var m playLines
	if data := readMessage(t, back); json.Unmarshal(data, &m) != nil || len(m.Lines) == 0 {
		t.Fatalf("the page that came back was sent %s; want the lines it missed", data)
	}
	if m.Lines[0] != playMissedLine || len(m.Lines) != playMissedKeep+1 || m.Lines[1] != "line 0" ||
		m.Lines[playMissedKeep] != fmt.Sprintf("line %d", playMissedKeep-1) {
		t.Fatalf("the page that came back was sent %d lines, %q … %q; want %q and the last %d said",
			len(m.Lines), m.Lines[0], m.Lines[len(m.Lines)-1], playMissedLine, playMissedKeep)
	}
	say("The Gnoll flees.")
	if got := string(readMessage(t, back)); got != `{"lines":["The Gnoll flees."]}` {
		t.Fatalf("after what it missed the page was sent %s; want the game's next line alone", got)
	}
}
