package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{Play: echoPlay, PlayOrigins: origins})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// readFrame reads the next frame the page is sent, as text rows by number.
func readFrame(t *testing.T, c *websocket.Conn) (w, h int, rows map[int]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read a frame: %v", err)
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
