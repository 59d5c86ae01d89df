package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// castHandler is the page with a cast function that knows one public replay, "abc1",
// and one kept private, "def2"; it counts the casts it makes.
// With block, a cast says it has begun on started and waits for block.
func castHandler(t *testing.T, maxCasts int, made *atomic.Int32, started, block chan struct{}) *Handler {
	t.Helper()
	cast := func(ctx context.Context, id string) ([]byte, error) {
		switch id {
		case "abc1":
			made.Add(1)
			if block != nil {
				started <- struct{}{}
				<-block
			}
			return []byte(`{"version":2,"width":80,"height":24}` + "\n" + `[0.000, "o", "hi"]` + "\n"), nil
		case "def2":
			return nil, ErrNoCast // private: the server says none, as for one not kept
		}
		return nil, ErrNoCast
	}
	st := fixed()
	st.Fame[0].Replay = CastPath("abc1")
	h := New(func(context.Context) (Status, error) { return st, nil }, nil, Options{Cast: cast, MaxCasts: maxCasts, RateBurst: 1000})
	return h
}

// GET /replay/ID.cast: a public replay is its cast, application/x-asciicast, made once
// and kept; a private one, one not kept, and a name that is no cast's are 404 with a
// line that says why; the page links the replay and says how to play it.
func TestTheReplayRoutes(t *testing.T) {
	var made atomic.Int32
	h := castHandler(t, 0, &made, nil, nil)
	for range 2 {
		r := get(h, "GET", "/replay/abc1.cast", "192.0.2.1:5000")
		if b := body(t, r); r.StatusCode != 200 || r.Header.Get("Content-Type") != CastType || !strings.HasPrefix(b, `{"version":2`) {
			t.Fatalf("GET the cast = %d %q\n%s", r.StatusCode, r.Header.Get("Content-Type"), b)
		}
	}
	if made.Load() != 1 {
		t.Errorf("the cast was made %d times for two requests, want once", made.Load())
	}
	r := get(h, "HEAD", "/replay/abc1.cast", "192.0.2.1:5000")
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != CastType {
		t.Errorf("HEAD the cast = %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	for path, want := range map[string]string{
		"/replay/def2.cast":      "its knight keeps it private",
		"/replay/0000.cast":      "it is not kept",
		"/replay/abc1":           "replays are at /replay/ID.cast",
		"/replay/ABC1.cast":      "replays are at /replay/ID.cast",
		"/replay/a%2F..%2F.cast": "replays are at /replay/ID.cast",
		"/replay/.cast":          "replays are at /replay/ID.cast",
	} {
		r := get(h, "GET", path, "192.0.2.1:5000")
		if b := body(t, r); r.StatusCode != 404 || !strings.Contains(b, want) || r.Header.Get("Content-Type") == CastType {
			t.Errorf("GET %s = %d %q, want 404 saying %q", path, r.StatusCode, b, want)
		}
	}
	page := body(t, get(h, "GET", "/", "192.0.2.1:5000"))
	for _, want := range []string{`<a class="replay" href="/replay/abc1.cast"`, "asciinema play URL", "replay NAME --death"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, `class="replay"`) != 1 {
		t.Errorf("the page links %d replays, want 1 (Mordred's death has none)", strings.Count(page, `class="replay"`))
	}

	none := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{})
	if r := get(none, "GET", "/replay/abc1.cast", "192.0.2.1:5000"); r.StatusCode != 404 {
		t.Errorf("with no cast function, GET a cast = %d, want 404", r.StatusCode)
	}
	if page := body(t, get(none, "GET", "/", "192.0.2.1:5000")); strings.Contains(page, `id="replays"`) {
		t.Error("a page with no replays explains them")
	}
}

// At most MaxCasts casts are made at once: a request that finds no turn within the wait
// is answered 503 with Retry-After.
func TestCastsAreMadeFewAtATime(t *testing.T) {
	var made atomic.Int32
	started, block := make(chan struct{}), make(chan struct{})
	h := castHandler(t, 1, &made, started, block)
	h.casts.wait = 50 * time.Millisecond
	first := make(chan int)
	go func() { first <- get(h, "GET", "/replay/abc1.cast", "192.0.2.1:5000").StatusCode }()
	<-started // the first request holds the only turn
	r := get(h, "GET", "/replay/abc1.cast", "192.0.2.2:5000")
	if b := body(t, r); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(b, "busy") {
		t.Errorf("a second cast while the only turn is taken = %d %q", r.StatusCode, b)
	}
	close(block)
	if code := <-first; code != 200 {
		t.Errorf("the first cast = %d", code)
	}
}

// A cast made before is served again only while CastShown says anyone may see it: once
// its knight makes its replays private, or an admin removes it, the cast kept in memory
// is 404 too, and made anew if it is shown again.
func TestACastKeptIsServedOnlyWhileShown(t *testing.T) {
	var made atomic.Int32
	h := castHandler(t, 0, &made, nil, nil)
	var hidden atomic.Bool
	h.casts.shown = func(_ context.Context, id string) bool { return id == "abc1" && !hidden.Load() }
	if r := get(h, "GET", "/replay/abc1.cast", "192.0.2.1:5000"); r.StatusCode != 200 {
		t.Fatalf("GET the cast = %d", r.StatusCode)
	}
	hidden.Store(true)
	if r := get(h, "GET", "/replay/abc1.cast", "192.0.2.1:5000"); r.StatusCode != 404 {
		t.Fatalf("GET the cast made private = %d, want 404", r.StatusCode)
	}
	hidden.Store(false)
	if r := get(h, "GET", "/replay/abc1.cast", "192.0.2.1:5000"); r.StatusCode != 200 || made.Load() != 2 {
		t.Fatalf("GET the cast shown again = %d, made %d times, want 200 and twice", r.StatusCode, made.Load())
	}
}

// Regression: requests for casts nobody else had asked for were each made, or looked for,
// however many: 60 addresses asking in turn at the page's rate (2 a second each) for casts
// not kept made 120 a second, the server's CPU a core's half. Now each address may ask for
// castMisses at once and one a castMissEvery after (the rest are 429 with Retry-After),
// so over two minutes of it the casts made are a few a second; a cast kept is served to
// an address past its allowance all the same.
func TestCastsNotKeptAreCountedPerAddress(t *testing.T) {
	var made atomic.Int32
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{
		Cast: func(_ context.Context, id string) ([]byte, error) {
			made.Add(1)
			return []byte(`{"version":2,"width":80,"height":24}` + "\n"), nil
		}})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return now }
	const addrs, rate, span = 60, 2, 2 * time.Minute
	every := time.Second / (addrs * rate)
	codes := map[int]int{}
	var served string // the last cast made
	for k := range int(span / every) {
		addr, path := fmt.Sprintf("198.51.100.%d:4000", k%addrs), fmt.Sprintf("/replay/c%06d.cast", k) // each a cast not kept
		r := get(h, "GET", path, addr)
		codes[r.StatusCode]++
		if r.StatusCode == 200 {
			served = path
		}
		if r.StatusCode == http.StatusTooManyRequests && r.Header.Get("Retry-After") != "20" {
			t.Fatalf("429 with Retry-After %q", r.Header.Get("Retry-After"))
		}
		now = now.Add(every)
	}
	most := addrs * (castMisses + int(span/castMissEvery))
	t.Logf("%v of %d addresses at %d a second: %v, %d casts made (%.1f a second)", span, addrs, rate, codes, made.Load(), float64(made.Load())/span.Seconds())
	if n := int(made.Load()); n > most || codes[200] != n {
		t.Errorf("%d casts made (%d answered 200), want at most %d", n, codes[200], most)
	}
	if codes[http.StatusTooManyRequests] == 0 {
		t.Error("no request was refused")
	}
	// An address past its allowance is served the cast last made, which is kept.
	for i := 0; get(h, "GET", fmt.Sprintf("/replay/more%d.cast", i), "198.51.100.0:4000").StatusCode != 429; i++ {
		if i > castMisses {
			t.Fatal("an address's allowance of casts not kept never ran out")
		}
	}
	if r := get(h, "GET", served, "198.51.100.0:4000"); r.StatusCode != 200 {
		t.Errorf("GET %s, kept, past the allowance = %d, want 200", served, r.StatusCode)
	}
}

// Regression (issue 42): 16 casts are kept made, the newest asked for, but a cast served
// from the cache stayed where its making had put it, so the seventeenth cast made pushed
// out the one everyone was watching. Now a cast asked for again is the newest, and the
// seventeenth pushes out the one asked for longest ago, which is then made again.
func TestSixteenCastsAreKept(t *testing.T) {
	var made atomic.Int32
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{
		RateBurst: 1000,
		Cast: func(_ context.Context, id string) ([]byte, error) {
			made.Add(1)
			return []byte(`{"version":2,"width":80,"height":24}` + "\n"), nil
		}})
	ask := func(i int) {
		// each from an address of its own: none past its allowance of casts not kept
		if r := get(h, "GET", fmt.Sprintf("/replay/c%02d.cast", i), fmt.Sprintf("198.51.100.%d:4000", made.Load())); r.StatusCode != 200 {
			t.Fatalf("cast %d: %d", i, r.StatusCode)
		}
	}
	for i := range 16 {
		ask(i)
	}
	ask(0) // now the newest asked for; 1 is the oldest
	if made.Load() != 16 {
		t.Fatalf("%d casts made for %d and one asked again, want %d", made.Load(), 16, 16)
	}
	ask(16) // the seventeenth pushes out 1
	ask(0)
	if made.Load() != 16+1 {
		t.Errorf("cast 0, asked for again, was made anew (%d made)", made.Load())
	}
	ask(1)
	if made.Load() != 16+2 {
		t.Errorf("cast 1, the oldest asked for, outlived the seventeenth (%d made)", made.Load())
	}
}
