package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// receiver is a webhook's receiver in the test: it keeps every body posted to it and
// answers each with what answer says for that request (1 the first).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	at     []time.Time
	got    chan struct{} // a value each request
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{got: make(chan struct{}, 1024)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, b)
		rc.at = append(rc.at, time.Now())
		n := len(rc.bodies)
		rc.mu.Unlock()
		rc.got <- struct{}{}
		answer(n, w, r)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// requests is how many requests came, and their bodies.
func (rc *receiver) requests() (int, [][]byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.bodies), append([][]byte(nil), rc.bodies...)
}

// waitRequests waits for the receiver's nth request, failing after a few seconds.
func (rc *receiver) waitRequests(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if got, _ := rc.requests(); got >= n {
			return
		}
		select {
		case <-rc.got:
		case <-deadline:
			got, _ := rc.requests()
			t.Fatalf("the receiver had %d requests, want %d", got, n)
		}
	}
}

// lockedBuffer is a log written by the sender and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// started is a started Poster to url, with retries a thousand times quicker than a
// server's, logging to log; it is stopped when the test ends.
func started(t *testing.T, url string, log *lockedBuffer) *Poster {
	t.Helper()
	p, err := New(Config{URL: url, Server: "Orthanc", Timeout: 2 * time.Second}, slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p.backoff, p.retryCap = time.Millisecond, 5*time.Second
	p.Start()
	t.Cleanup(func() { p.Stop(time.Second) })
	return p
}

// waitStats waits until the poster's counts satisfy cond, failing after a few seconds.
func waitStats(t *testing.T, p *Poster, what string, cond func(Stats) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond(p.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: stats %+v", what, p.Stats())
		}
		time.Sleep(5 * time.Millisecond) // polling a counter, with a deadline
	}
}

func death() Event {
	return Event{Kind: KindDeath, Time: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), Knight: "Gareth",
		Fields: map[string]any{"level": 3, "killer": "a Wolf", "depth": 2},
		Text:   "Gareth, a knight of level 3, has been slain by a Wolf on level 2."}
}

// Every post has one shape: kind, time, server, realm (on a realm), knight, fields (an
// object, {} when none), text, and Discord's content with every mention turned off.
func TestAnEventsJSONHasItsShape(t *testing.T) {
	e := death()
	e.Server, e.Realm = "Orthanc", "Avalon"
	b, err := Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	const golden = `{"kind":"death","time":"2026-12-07T12:00:00Z","server":"Orthanc","realm":"Avalon","knight":"Gareth",` +
		`"fields":{"depth":2,"killer":"a Wolf","level":3},"text":"Gareth, a knight of level 3, has been slain by a Wolf on level 2.",` +
		`"content":"Gareth, a knight of level 3, has been slain by a Wolf on level 2.","allowed_mentions":{"parse":[]}}`
	if string(b) != golden {
		t.Errorf("the event posted:\n%s\nwant\n%s", b, golden)
	}
	b, err = Encode(Event{Kind: KindBroadcast, Time: e.Time, Server: "Orthanc", Text: "[admin] hello"})
	if err != nil {
		t.Fatal(err)
	}
	const broadcast = `{"kind":"broadcast","time":"2026-12-07T12:00:00Z","server":"Orthanc","fields":{},"text":"[admin] hello",` +
		`"content":"[admin] hello","allowed_mentions":{"parse":[]}}`
	if string(b) != broadcast {
		t.Errorf("a broadcast posted:\n%s\nwant\n%s", b, broadcast)
	}
}

// Content pings no one even where allowed_mentions is not read (@everyone, a user's <@id>)
// and fits Discord's 2000 characters, counted in UTF-16 units as Discord counts them.
func TestContentPingsNoOneAndFitsDiscord(t *testing.T) {
	if c := Content("@everyone look: <@123> and @here"); strings.Contains(c, "@everyone") || strings.Contains(c, "<@1") || strings.Contains(c, "@here") {
		t.Errorf("content %q can ping", c)
	}
	for _, long := range []string{strings.Repeat("a", 5000), strings.Repeat("🐉", 1500), strings.Repeat("@", 1500), strings.Repeat("a", 2000)} {
		c := Content(long)
		if n := len(utf16.Encode([]rune(c))); n > maxContent {
			t.Errorf("content of %d runes is %d UTF-16 units, more than %d", len(long), n, maxContent)
		}
		if len([]rune(long)) > 2000 && !strings.HasSuffix(c, "…") || strings.Contains(c, "\uFFFD") {
			t.Errorf("content of %.10q… cut as %.10q…%q", long, c, c[len(c)-8:])
		}
	}
	if c := Content(strings.Repeat("a", 2000)); c != strings.Repeat("a", 2000) {
		t.Errorf("2000 characters were cut to %d", len(c))
	}
}

// A bad URL is refused with the flag's words (an http or https URL), and a URL's
// secret (its path) is never shown.
func TestOnlyHTTPURLsAreTaken(t *testing.T) {
	for _, bad := range []string{"", "discord.com/api/webhooks/1/x", "ftp://example.com/hook", "https://", "http//example.com", "https://exa mple.com/"} {
		if err := Validate(bad); err == nil {
			t.Errorf("Validate(%q) took it", bad)
		}
	}
	for _, good := range []string{"https://discord.com/api/webhooks/1/TOKEN", "http://127.0.0.1:8080/hook"} {
		if err := Validate(good); err != nil {
			t.Errorf("Validate(%q): %v", good, err)
		}
	}
	if r := Redact("https://discord.com/api/webhooks/1/TOKEN"); r != "https://discord.com/…" {
		t.Errorf("redacted: %q", r)
	}
}

// A receiver that answers 500 and then 200 has the event once it takes it: posted once,
// retried once.
func TestA500IsRetriedAndTheEventArrivesOnce(t *testing.T) {
	rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent) // Discord's answer
	})
	p := started(t, rc.URL, &lockedBuffer{})
	p.Post(death())
	waitStats(t, p, "posted", func(s Stats) bool { return s.Posted == 1 })
	n, bodies := rc.requests()
	if n != 2 || !bytes.Equal(bodies[0], bodies[1]) {
		t.Fatalf("%d requests, want 2 of the same body: %q", n, bodies)
	}
	var got Event
	if err := json.Unmarshal(bodies[1], &got); err != nil || got.Kind != KindDeath || got.Knight != "Gareth" || got.Server != "Orthanc" {
		t.Fatalf("the body: %s (%v)", bodies[1], err)
	}
	if s := p.Stats(); s != (Stats{Posted: 1, Retried: 1}) {
		t.Errorf("stats %+v, want one posted, one retry", s)
	}
}

// A 429 is retried after its Retry-After (seconds, with a fraction as Discord's may
// have), not after the backoff; one far too long is waited up to the cap.
func TestA429IsRetriedAfterItsRetryAfter(t *testing.T) {
	for _, c := range []struct {
		header        string
		cap, min, max time.Duration
	}{
		{"0.3", 2 * time.Second, 300 * time.Millisecond, 1900 * time.Millisecond},
		{"3600", 200 * time.Millisecond, 200 * time.Millisecond, 3 * time.Second}, // the cap
	} {
		rc := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", c.header)
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		p := started(t, rc.URL, &lockedBuffer{})
		p.backoff, p.retryCap = 10*time.Second, c.cap // the backoff alone would outlast the test
		p.Post(death())
		waitStats(t, p, "posted", func(s Stats) bool { return s.Posted == 1 })
		rc.mu.Lock()
		gap := rc.at[1].Sub(rc.at[0])
		rc.mu.Unlock()
		if gap < c.min || gap > c.max {
			t.Errorf("Retry-After %s: retried after %v, want %v to %v", c.header, gap, c.min, c.max)
		}
		if s := p.Stats(); s != (Stats{Posted: 1, Retried: 1}) {
			t.Errorf("Retry-After %s: stats %+v", c.header, s)
		}
	}
}

// A 4xx other than 429 (a webhook deleted, a body refused) is not retried: the event
// is given up at once, and the log says so; so is a redirect, which is not followed.
func TestA4xxIsNotRetried(t *testing.T) {
	for _, code := range []int{http.StatusNotFound, http.StatusBadRequest, http.StatusTemporaryRedirect} {
		rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(code)
		})
		log := &lockedBuffer{}
		p := started(t, rc.URL, log)
		p.Post(death())
		waitStats(t, p, "failed", func(s Stats) bool { return s.Failed == 1 })
		if n, _ := rc.requests(); n != 1 {
			t.Errorf("%d: %d requests, want 1", code, n)
		}
		if s := p.Stats(); s != (Stats{Failed: 1}) {
			t.Errorf("%d: stats %+v", code, s)
		}
		if l := log.String(); !strings.Contains(l, "gave up on an event") || !strings.Contains(l, "kind=death") || !strings.Contains(l, http.StatusText(code)) {
			t.Errorf("%d: the log:\n%s", code, l)
		}
	}
}

// A receiver that cannot be reached is tried five times, then given up; the log never
// holds the URL's token (net/http puts the URL in its errors).
func TestAnUnreachableReceiverIsRetriedThenGivenUpWithoutLoggingTheToken(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL + "/api/webhooks/1234/SECRET-TOKEN"
	gone.Close()
	log := &lockedBuffer{}
	p := started(t, url, log)
	p.Post(death())
	waitStats(t, p, "failed", func(s Stats) bool { return s.Failed == 1 })
	if s := p.Stats(); s != (Stats{Failed: 1, Retried: maxAttempts - 1}) {
		t.Errorf("stats %+v, want one failed after %d retries", s, maxAttempts-1)
	}
	if l := log.String(); strings.Contains(l, "SECRET-TOKEN") || !strings.Contains(l, "attempts=5") || !strings.Contains(l, "refused") {
		t.Errorf("the log:\n%s", l)
	}
}

// A receiver that hangs never holds up the one who posts: Post returns at once, the
// queue holds QueueSize events, the rest are dropped, counted and logged once a burst;
// stopping ends the post under way within its grace and drops what is left.
func TestAHangingReceiverNeverBlocksAndTheQueueIsBounded(t *testing.T) {
	release := make(chan struct{})
	rc := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	log := &lockedBuffer{}
	p, err := New(Config{URL: rc.URL + "/api/webhooks/1/SECRET-TOKEN", Server: "Orthanc", Timeout: time.Minute}, slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p.Start()
	p.Post(death())
	rc.waitRequests(t, 1) // the sender holds the first, hanging
	const more = QueueSize + 50
	begin := time.Now()
	taken := 0
	for range more {
		if p.Post(death()) {
			taken++
		}
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("%d posts took %v: Post waited", more, d)
	}
	if taken != QueueSize || p.Stats().Dropped != 50 {
		t.Errorf("%d taken of %d, stats %+v: want %d taken, 50 dropped", taken, more, p.Stats(), QueueSize)
	}
	stopped := time.Now()
	p.Stop(100 * time.Millisecond)
	if d := time.Since(stopped); d > 3*time.Second {
		t.Errorf("Stop took %v with a grace of 100 ms", d)
	}
	if s := p.Stats(); s != (Stats{Dropped: 1 + more}) {
		t.Errorf("after Stop: stats %+v, want all %d dropped", s, 1+more)
	}
	if p.Post(death()) {
		t.Error("a post after Stop was taken")
	}
	l := log.String()
	if n := strings.Count(l, "events dropped"); n != 1 || !strings.Contains(l, "dropped=307") || strings.Contains(l, "SECRET-TOKEN") {
		t.Errorf("%d lines of drops in the log, want 1 with all 307:\n%s", n, l)
	}
}

// Stopping posts what is queued when the receiver takes it within the grace.
func TestStopPostsWhatIsQueued(t *testing.T) {
	rc := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	p, err := New(Config{URL: rc.URL}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // queued before the sender starts, so all are there when Stop comes
		p.Post(death())
	}
	p.Start()
	p.Stop(5 * time.Second)
	if n, _ := rc.requests(); n != 3 || p.Stats() != (Stats{Posted: 3}) {
		t.Errorf("%d requests, stats %+v: want 3 posted", n, p.Stats())
	}
}
