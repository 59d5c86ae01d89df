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

// The numbers of docs/DESIGN.md's web page rulings, written out here rather than read from
// the constants, which a test would follow wherever they went.
const (
	rulingBurst    = 20
	rulingRate     = 2 // a second
	rulingAddrs    = 10000
	rulingMisses   = 3
	rulingCasts    = 2
	rulingCastWait = 5 * time.Second
)

// An address may make 20 requests at once and 2 a second after, and a pause of any length
// gives it back 20, no more.
func TestTheRateCapIsTheRuling(t *testing.T) {
	h, _, now := handler(t, func() (Status, error) { return fixed(), nil })
	served := func(n int) int {
		ok := 0
		for range n {
			if get(h, "GET", "/style.css", "198.51.100.7:4000").StatusCode == 200 {
				ok++
			}
		}
		return ok
	}
	if n := served(rulingBurst + 5); n != rulingBurst {
		t.Errorf("%d of %d requests at once served, want %d", n, rulingBurst+5, rulingBurst)
	}
	*now = now.Add(time.Second)
	if n := served(rulingRate + 1); n != rulingRate {
		t.Errorf("a second later %d of %d served, want %d", n, rulingRate+1, rulingRate)
	}
	*now = now.Add(time.Hour)
	if n := served(rulingBurst + 5); n != rulingBurst {
		t.Errorf("an hour later %d of %d at once served, want %d", n, rulingBurst+5, rulingBurst)
	}
}

// The rate cap remembers 10000 addresses: past them the ones whose allowance has filled
// again are forgotten (they would start full anyway), and those still short of it are
// kept, so a flooder is not let off by a flood of others.
func TestRememberedAddressesAreBounded(t *testing.T) {
	h, _, now := handler(t, func() (Status, error) { return fixed(), nil })
	addr := func(i int) string { return fmt.Sprintf("10.%d.%d.%d:4000", i>>16, i>>8&0xff, i&0xff) }
	for i := range rulingAddrs {
		n := 1
		if i%2 == 0 {
			n = rulingBurst // emptied its allowance
		}
		for range n {
			get(h, "GET", "/style.css", addr(i))
		}
	}
	h.requests.mu.Lock()
	if n := len(h.requests.buckets); n != rulingAddrs {
		t.Fatalf("%d addresses remembered of %d", n, rulingAddrs)
	}
	h.requests.mu.Unlock()
	*now = now.Add(time.Second)
	get(h, "GET", "/style.css", "192.0.2.1:4000")
	h.requests.mu.Lock()
	n := len(h.requests.buckets)
	h.requests.mu.Unlock()
	if n != rulingAddrs/2+1 {
		t.Errorf("past %d addresses %d are remembered, want the %d still short of their allowance and the new one", rulingAddrs, n, rulingAddrs/2)
	}
	ok := 0
	for range rulingRate + 1 {
		if get(h, "GET", "/style.css", addr(0)).StatusCode == 200 {
			ok++
		}
	}
	if ok != rulingRate {
		t.Errorf("a flooder kept: %d of %d served a second on, want %d", ok, rulingRate+1, rulingRate)
	}
}

// An address may ask for 3 casts not kept at once; its fourth is 429.
func TestThreeCastsNotKeptAtOnce(t *testing.T) {
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{
		RateBurst: 1000,
		Cast: func(_ context.Context, id string) ([]byte, error) {
			return []byte(`{"version":2,"width":80,"height":24}` + "\n"), nil
		}})
	var codes []int
	for i := range rulingMisses + 1 {
		codes = append(codes, get(h, "GET", fmt.Sprintf("/replay/m%d.cast", i), "198.51.100.7:4000").StatusCode)
	}
	if want := []int{200, 200, 200, http.StatusTooManyRequests}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("four casts not kept at once from an address: %v, want %v", codes, want)
	}
}

// Two casts are made at once by default: a third request waits, and with no turn free
// within its wait it is 503; the wait is 5 s.
func TestTwoCastsAreMadeAtOnce(t *testing.T) {
	var made atomic.Int32
	started, block := make(chan struct{}), make(chan struct{})
	h := castHandler(t, 0, &made, started, block)
	if h.casts.wait != rulingCastWait {
		t.Errorf("a cast waits %v for its turn, want %v", h.casts.wait, rulingCastWait)
	}
	h.casts.wait = 50 * time.Millisecond
	first := make(chan int, rulingCasts)
	for i := range rulingCasts {
		go func() { first <- get(h, "GET", "/replay/abc1.cast", fmt.Sprintf("192.0.2.%d:5000", i+1)).StatusCode }()
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("cast %d of %d at once did not start", i+1, rulingCasts)
		}
	}
	r := get(h, "GET", "/replay/abc1.cast", "192.0.2.9:5000")
	close(block)
	if r.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third cast while two are made = %d, want 503", r.StatusCode)
	}
	for range rulingCasts {
		if code := <-first; code != 200 {
			t.Errorf("a cast made = %d", code)
		}
	}
}

// A cast's name is its id, of lowercase letters, digits and dashes, a to z and 0 to 9
// included, at most 64 of them.
func TestACastsName(t *testing.T) {
	long := strings.Repeat("a", 64)
	for file, want := range map[string]bool{
		"az09-.cast": true, long + ".cast": true, long + "b.cast": false,
		"a{.cast": false, "a/.cast": false, "A.cast": false, ".cast": false, "abc": false,
	} {
		if _, ok := castID(file); ok != want {
			t.Errorf("castID(%q) is a cast's: %v, want %v", file, ok, want)
		}
	}
}

// A cast forgotten (made private) leaves the others counted: however many are made after,
// no more than 16 are kept.
func TestACastForgottenLeavesTheBound(t *testing.T) {
	var made atomic.Int32
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{
		RateBurst: 1000,
		Cast: func(_ context.Context, id string) ([]byte, error) {
			made.Add(1)
			return []byte(`{"version":2,"width":80,"height":24}` + "\n"), nil
		}})
	hidden := "c01"
	h.casts.shown = func(_ context.Context, id string) bool { return id != hidden }
	for i := range 40 {
		if i == 3 {
			get(h, "GET", "/replay/c01.cast", "192.0.2.1:4000") // kept, now private: forgotten
		}
		get(h, "GET", fmt.Sprintf("/replay/c%02d.cast", i), fmt.Sprintf("198.51.100.%d:4000", i))
	}
	h.casts.mu.Lock()
	defer h.casts.mu.Unlock()
	if len(h.casts.kept) > 16 || len(h.casts.order) != len(h.casts.kept) {
		t.Errorf("%d casts kept, %d in order; want at most 16, each in order", len(h.casts.kept), len(h.casts.order))
	}
}

// With every one of the 10000 addresses still short of its allowance, a new one makes the
// cap forget them all: it is there to spare the server, not to remember attackers.
func TestTenThousandBusyAddressesAreAllForgotten(t *testing.T) {
	h, _, _ := handler(t, func() (Status, error) { return fixed(), nil })
	for i := range rulingAddrs {
		get(h, "GET", "/style.css", fmt.Sprintf("10.%d.%d.%d:4000", i>>16, i>>8&0xff, i&0xff))
	}
	get(h, "GET", "/style.css", "192.0.2.1:4000")
	h.requests.mu.Lock()
	defer h.requests.mu.Unlock()
	if n := len(h.requests.buckets); n != 1 {
		t.Errorf("past %d busy addresses %d are remembered, want the new one", rulingAddrs, n)
	}
}

// The status is given 2 s to be gathered: a world that does not answer holds no request
// longer (the page then says to try again).
func TestTheStatusIsGatheredWithinTwoSeconds(t *testing.T) {
	var left time.Duration
	h := New(func(ctx context.Context) (Status, error) {
		dl, ok := ctx.Deadline()
		if !ok {
			t.Error("the status is gathered with no deadline")
		}
		left = time.Until(dl)
		return fixed(), nil
	}, nil, Options{})
	if r := get(h, "GET", "/", "192.0.2.1:4000"); r.StatusCode != 200 {
		t.Fatalf("GET / = %d", r.StatusCode)
	}
	if left <= 1500*time.Millisecond || left > 2*time.Second {
		t.Errorf("the status had %v left to be gathered, want 2 s", left)
	}
}
