package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fixed is a status with a knight whose name would be markup if it were not escaped.
func fixed() Status {
	return Status{
		Name: "Test <Orthanc>", MOTD: `<script>alert("motd")</script> & welcome`,
		Host: "play.example", Port: 2222, SSH: "ssh -p 2222 play.example", Plain: "ssh -t -p 2222 play.example play --plain",
		HostKey: "SHA256:abcdefABCDEF0123456789+/abcdefABCDEF0123456", HostKeyType: "ssh-ed25519",
		KnownHosts: "[play.example]:2222 ssh-ed25519 AAAAC3Nza", Guests: true,
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Online: []Player{{Name: "Lancelot", Level: 3, Depth: 2, Deeds: []Deed{{"depth-1", "Into the labyrinth"}, {"slew-animal", "Hunter"}}},
			{Name: "Guest Tom", Level: 1, Guest: true}},
		Fame: []Fame{{Rank: 1, Name: "Galahad", Level: 9, Experience: 500000, PercentKills: 70, Retired: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
			Deeds: []Deed{{"dragon", "Dragonslayer"}, {"retired-9", "Honour of level 9"}}}},
		Deaths: []Death{{Name: "Mordred", Level: 2, Killer: "a <b>Balrog</b>", Depth: 7, Died: time.Now()}},
		Boards: []Board{{Name: "slain", Title: "Monsters slain", Column: "Slain", Week: "2026-W50",
			AllTime: []BoardRow{{Rank: 1, Name: "Bors <i>the</i> Bold", Level: 4, Value: 917}}}},
	}
}

// handler is the page over a status function that counts its calls, at a clock the
// test moves.
func handler(t *testing.T, st func() (Status, error)) (*Handler, *atomic.Int32, *time.Time) {
	t.Helper()
	var calls atomic.Int32
	h := New(func(context.Context) (Status, error) { calls.Add(1); return st() }, nil, Options{})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return now }
	return h, &calls, &now
}

func get(h http.Handler, method, path, addr string, hdr ...string) *http.Response {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = addr
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The page holds what the status says, with every player-supplied text escaped.
func TestThePageShowsTheStatusEscaped(t *testing.T) {
	h, _, _ := handler(t, func() (Status, error) { return fixed(), nil })
	r := get(h, "GET", "/", "192.0.2.1:5000")
	raw := body(t, r)
	page := html.UnescapeString(raw)
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET / = %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	for _, want := range []string{"Lancelot", "Guest Tom", `<span class="guest">guest</span>`, "Galahad", "500000",
		"SHA256:abcdefABCDEF0123456789+/abcdefABCDEF0123456", "[play.example]:2222 ssh-ed25519 AAAAC3Nza",
		"ssh -p 2222 play.example", "play --plain", "level 2", "outside",
		"Phones play too", "40 columns by 18 rows", "ssh -t -p 2222 play.example play --plain</code>",
		`<section id="board-slain" class="board">`, "<h2>Monsters slain</h2>", "<th>Slain</th>", "917", "This week (2026-W50)",
		"No knight is on this board this week yet.",
		"2, the newest: Hunter, Into the labyrinth", "Deeds (2): Honour of level 9, Dragonslayer"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, want := range []string{"Test &lt;Orthanc&gt;", "&lt;script&gt;", "a &lt;b&gt;Balrog&lt;/b&gt;", "Bors &lt;i&gt;the&lt;/i&gt; Bold"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<b>Balrog", "<i>the"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// The JSON routes and the listing for MUD directories.
func TestTheAPI(t *testing.T) {
	h, _, _ := handler(t, func() (Status, error) { return fixed(), nil })
	var who []Player
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/api/who", "192.0.2.1:1"))), &who); err != nil || len(who) != 2 || !who[1].Guest ||
		len(who[0].Deeds) != 2 || who[0].Deeds[1] != (Deed{"slew-animal", "Hunter"}) || who[1].Deeds != nil {
		t.Errorf("/api/who = %+v, %v", who, err)
	}
	var fame []Fame
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/api/fame", "192.0.2.1:1"))), &fame); err != nil || len(fame) != 1 || fame[0].Name != "Galahad" ||
		len(fame[0].Deeds) != 2 || fame[0].Deeds[0] != (Deed{"dragon", "Dragonslayer"}) {
		t.Errorf("/api/fame = %+v, %v", fame, err)
	}
	if got := body(t, get(h, "GET", "/api/boards", "192.0.2.1:1")); got != `[{"name":"slain","title":"Monsters slain","column":"Slain",`+
		`"week":"2026-W50","all_time":[{"rank":1,"name":"Bors \u003ci\u003ethe\u003c/i\u003e Bold","level":4,"value":917}],"this_week":[]}]`+"\n" {
		t.Errorf("/api/boards = %s", got)
	}
	var st Status
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/api/status", "192.0.2.1:1"))), &st); err != nil || st.HostKey != fixed().HostKey || st.MOTD != fixed().MOTD {
		t.Errorf("/api/status = %+v, %v", st, err)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/mssp.json", "192.0.2.1:1"))), &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"NAME": "Test <Orthanc>", "PLAYERS": "2", "CODEBASE": Codebase, "PORT": "2222",
		"LANGUAGE": "English", "GENRE": "Fantasy", "UPTIME": "1767323045", "HOSTNAME": "play.example"} {
		if m[k] != want {
			t.Errorf("mssp %s = %q, want %q", k, m[k], want)
		}
	}
	// An empty world is [] in JSON, never null.
	h2, _, _ := handler(t, func() (Status, error) { return Status{Name: "x"}, nil })
	if got := body(t, get(h2, "GET", "/api/who", "192.0.2.1:1")); got != "[]\n" {
		t.Errorf("/api/who of an empty world = %q", got)
	}
	if got := body(t, get(h2, "GET", "/api/boards", "192.0.2.1:1")); got != "[]\n" {
		t.Errorf("/api/boards of a server without boards = %q", got)
	}
}

// The status is gathered at most once a CacheFor, whatever the traffic; answers say how
// long they may be kept and carry an ETag that a client's If-None-Match is answered 304.
func TestCaching(t *testing.T) {
	h, calls, now := handler(t, func() (Status, error) { return fixed(), nil })
	first := get(h, "GET", "/", "192.0.2.1:1")
	etag := first.Header.Get("ETag")
	if cc := first.Header.Get("Cache-Control"); cc != "public, max-age=5" || etag == "" {
		t.Errorf("Cache-Control %q, ETag %q", cc, etag)
	}
	for range 5 {
		get(h, "GET", "/api/status", "192.0.2.2:1")
	}
	if r := get(h, "GET", "/", "192.0.2.3:1", "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match of the same page = %d, want 304", r.StatusCode)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the status was gathered %d times within CacheFor, want 1", n)
	}
	*now = now.Add(CacheFor)
	get(h, "GET", "/", "192.0.2.1:1")
	if n := calls.Load(); n != 2 {
		t.Errorf("after CacheFor the status was gathered %d times in all, want 2", n)
	}
	if r := get(h, "GET", "/style.css", "192.0.2.1:1"); r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/css") {
		t.Errorf("style.css = %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
}

// A flood from one address is capped (429 with Retry-After) and does not reach the
// status; another address is served meanwhile, and the flooder again after a while.
// Odd paths and methods that would write are refused; nothing gathers the status for
// them.
func TestFloodsAndOddRequests(t *testing.T) {
	h, calls, now := handler(t, func() (Status, error) { return fixed(), nil })
	ok, capped := 0, 0
	for range 200 {
		switch r := get(h, "GET", "/", "198.51.100.7:4000"); r.StatusCode {
		case 200:
			ok++
		case http.StatusTooManyRequests:
			capped++
			if r.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		default:
			t.Fatalf("flood: %d", r.StatusCode)
		}
	}
	if ok != DefaultRateBurst || capped != 200-DefaultRateBurst {
		t.Errorf("flood of 200: %d served, %d capped; want %d served", ok, capped, DefaultRateBurst)
	}
	if r := get(h, "GET", "/", "[2001:db8::1]:1"); r.StatusCode != 200 {
		t.Errorf("another address during the flood: %d", r.StatusCode)
	}
	// The other addresses of an IPv6 /64 are one address.
	for range DefaultRateBurst {
		get(h, "GET", "/api/who", "[2001:db8::2]:1")
	}
	if r := get(h, "GET", "/", "[2001:db8::3]:1"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a /64 past its allowance: %d", r.StatusCode)
	}
	*now = now.Add(time.Second)
	if r := get(h, "GET", "/", "198.51.100.7:4000"); r.StatusCode != 200 {
		t.Errorf("the flooder a second later: %d", r.StatusCode)
	}

	before := calls.Load()
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"POST", "/", 405}, {"PUT", "/api/status", 405}, {"DELETE", "/api/who", 405}, {"PATCH", "/", 405},
		{"GET", "/admin", 404}, {"GET", "/api/", 404}, {"GET", "/api/status/../../etc/passwd", 404},
		{"GET", "/%2e%2e/%2e%2e/etc/passwd", 404}, {"GET", "/index.html", 404}, {"GET", "/page.html", 404},
		{"GET", "/api/kick?name=Lancelot", 404}, {"GET", "/" + strings.Repeat("a", 5000), 404},
		{"HEAD", "/", 200},
	} {
		r := get(h, tc.method, tc.path, "203.0.113."+string(rune('1'+len(tc.path)%9))+":1")
		redirect := r.StatusCode == 301 || r.StatusCode == 307 || r.StatusCode == 308 // to the cleaned path, which is a 404
		if r.StatusCode != tc.want && !(tc.want == 404 && redirect) {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, r.StatusCode, tc.want)
		}
	}
	if calls.Load() != before {
		t.Errorf("refused requests gathered the status")
	}

}

// A status that cannot be gathered is a 503 that says to try again, never a page
// half-made, and it is not cached.
func TestStatusUnavailable(t *testing.T) {
	fail := true
	h, _, _ := handler(t, func() (Status, error) {
		if fail {
			return Status{}, errors.New("the world is not answering")
		}
		return fixed(), nil
	})
	if r := get(h, "GET", "/", "192.0.2.1:1"); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("GET / with the world down = %d", r.StatusCode)
	}
	fail = false
	if r := get(h, "GET", "/", "192.0.2.1:1"); r.StatusCode != 200 {
		t.Errorf("GET / once the world answers = %d", r.StatusCode)
	}
}

// Behind a trusted proxy, a request is counted by the rightmost address of
// X-Forwarded-For that is not a trusted proxy; from anyone else the header is ignored.
func TestClientAddr(t *testing.T) {
	trusted, err := ParsePrefixes("10.0.0.0/8, 192.0.2.1,2001:db8:1::/48")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"198.51.100.7:4000", nil, "198.51.100.7"},
		{"198.51.100.7:4000", []string{"203.0.113.9"}, "198.51.100.7"}, // not a proxy of ours: ignored
		{"10.1.2.3:4000", nil, "10.1.2.3"},                             // the proxy's own request
		{"10.1.2.3:4000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"192.0.2.1:80", []string{"203.0.113.9"}, "203.0.113.9"},
		{"[2001:db8:1::5]:80", []string{"2001:db8:2::7"}, "2001:db8:2::7"},
		// The client wrote the leftmost; the proxy appended what it saw: the rightmost untrusted.
		{"10.1.2.3:4000", []string{"1.1.1.1, 203.0.113.9"}, "203.0.113.9"},
		// Two proxies of ours in a row: past both.
		{"10.1.2.3:4000", []string{"1.1.1.1, 203.0.113.9, 10.9.9.9"}, "203.0.113.9"},
		{"10.1.2.3:4000", []string{"1.1.1.1", "203.0.113.9, 10.9.9.9"}, "203.0.113.9"}, // two header lines are one list
		// Everything trusted: the furthest proxy.
		{"10.1.2.3:4000", []string{"10.4.4.4, 10.9.9.9"}, "10.4.4.4"},
		// Garbage the client wrote left of the untrusted address does not matter; garbage
		// where a proxy should have written leaves the proxy's own address.
		{"10.1.2.3:4000", []string{"not-an-address, 203.0.113.9"}, "203.0.113.9"},
		{"10.1.2.3:4000", []string{"203.0.113.9, junk"}, "10.1.2.3"},
		{"10.1.2.3:4000", []string{"[2001:db8:2::7]:5555"}, "2001:db8:2::7"},
		{"10.1.2.3:4000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := ClientAddr(r, trusted).String(); got != tc.want {
			t.Errorf("from %s with X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "10.0.0", "example.org", "fe80::1%eth0", "10.0.0.0/8,,nope"} {
		if _, err := ParsePrefixes(bad); err == nil {
			t.Errorf("ParsePrefixes(%q): no error", bad)
		}
	}
	if p, err := ParsePrefixes(" "); err != nil || len(p) != 0 {
		t.Errorf("ParsePrefixes of nothing: %v, %v", p, err)
	}
}

// The rate cap's numbers are the handler's options: a burst of 3 at 1 a second.
func TestRateOptions(t *testing.T) {
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{RatePerSecond: 1, RateBurst: 3})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return now }
	var codes []int
	for range 5 {
		codes = append(codes, get(h, "GET", "/", "198.51.100.7:4000").StatusCode)
	}
	now = now.Add(time.Second)
	codes = append(codes, get(h, "GET", "/", "198.51.100.7:4000").StatusCode)
	if want := []int{200, 200, 200, 429, 429, 200}; !slices.Equal(codes, want) {
		t.Errorf("codes %v, want %v", codes, want)
	}
}

// On a realm the page and /api/who name each knight's realm, and list the knights of the
// other realms too (their depth unknown here); the listing for MUD directories counts
// only this server's players.
func TestARealmsPageNamesEachKnightsRealm(t *testing.T) {
	st := fixed()
	st.Online = []Player{{Name: "Kay", Level: 2, Depth: 3, Realm: "Camelot"}, {Name: "Bors", Level: 4, Realm: "Avalon", Far: true}}
	h, _, _ := handler(t, func() (Status, error) { return st, nil })
	page := html.UnescapeString(body(t, get(h, "GET", "/", "192.0.2.1:1")))
	for _, want := range []string{"level 3 in Camelot", ">in Avalon<"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	var who []Player
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/api/who", "192.0.2.1:1"))), &who); err != nil || len(who) != 2 || who[1].Realm != "Avalon" || !who[1].Far {
		t.Errorf("/api/who = %+v, %v", who, err)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(body(t, get(h, "GET", "/mssp.json", "192.0.2.1:1"))), &m); err != nil || m["PLAYERS"] != "1" {
		t.Errorf("mssp PLAYERS = %q, %v", m["PLAYERS"], err)
	}
}

// A request that says it has a body, and sends none, is answered at once and its
// connection closed: no route reads a body, and the server would otherwise read what is
// left of it (up to 256 KiB), a byte at a time as a slow client sends it, before it
// answered.
func TestABodyIsNotWaitedFor(t *testing.T) {
	h, _, _ := handler(t, func() (Status, error) { return fixed(), nil })
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: orthanc\r\nContent-Length: 1000\r\n\r\n",
		"POST /api/who HTTP/1.1\r\nHost: orthanc\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// Closed before the server's Close, which waits for its connections; the deadline
		// bounds the test (without the fix the server would wait for the body forever).
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: no answer: %v", req, err)
		}
		rest, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil || !r.Close { // Connection: close, which ReadResponse takes out of the header
			t.Fatalf("%q: %d %q, the body read: %v, the connection kept", req, r.StatusCode, rest, err)
		}
		if n, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%q: the connection was not closed after the answer: %d, %v", req, n, err)
		}
	}
}
