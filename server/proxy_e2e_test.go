package server

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// proxiedWeb is the server's web page behind a reverse proxy of the test's own
// (net/http/httputil, which appends the address it was reached from to
// X-Forwarded-For, as nginx's $proxy_add_x_forwarded_for does), listening on
// 127.0.0.1; trusted lists the proxies the server trusts. It returns the page's address,
// the proxy's, and the server's log.
func proxiedWeb(t *testing.T, trusted string) (page, proxy string, log *lockedBuffer) {
	t.Helper()
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	var err error
	if cfg.Web.Trusted, err = web.ParsePrefixes(trusted); err != nil {
		t.Fatal(err)
	}
	log = &lockedBuffer{}
	_, srv := startLogging(t, cfg, log)
	page = "http://" + srv.httpLn.Addr().String()
	target, _ := url.Parse(page)
	ps := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(ps.Close)
	return page, ps.URL, log
}

// fromAddr is an HTTP client whose connections come from the loopback address ip, so a
// test has as many clients, each with its own address, as it likes.
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// status GETs url from c with the X-Forwarded-For lines xff, and returns the status code.
func status(t *testing.T, c *http.Client, url string, xff ...string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for _, v := range xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	r, err := c.Do(req)
	if err != nil {
		t.Error(err) // not Fatal: called from the requests' goroutines
		return 0
	}
	r.Body.Close()
	return r.StatusCode
}

// codes counts the answers of n requests made at once, do(i) making the i-th.
func codes(t *testing.T, n int, do func(i int) int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code := do(i)
			mu.Lock()
			got[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return got
}

// flood makes n requests one after another, do(i) making the i-th, as quickly as they
// go (one client's connections to the page are capped, so not at once), and counts the
// answers; took is how long they took.
func flood(n int, do func(i int) int) (got map[int]int, took time.Duration) {
	start := time.Now()
	got = map[int]int{}
	for i := range n {
		got[do(i)]++
	}
	return got, time.Since(start)
}

// capped tells whether got is a flood of n from one address capped as the default rate
// cap does it: burst served at once, plus what the allowance refilled while the flood
// went on (none on a quick machine; a busy one may take longer than a refill).
func capped(got map[int]int, took time.Duration, n int) bool {
	refilled := int(took.Seconds() * float64(webpage.DefaultConfig.Rate))
	ok := got[http.StatusOK]
	return ok+got[http.StatusTooManyRequests] == n && ok >= webpage.DefaultConfig.Burst && ok <= webpage.DefaultConfig.Burst+refilled
}

// Issue 32: behind a reverse proxy every visitor shared the proxy's rate cap (9 of 30
// quick requests got 429). With the proxy trusted (-http-trusted-proxies), 30 requests at
// once from 30 clients through it are all served, though they arrive on more
// connections than one address may hold; one client's flood through it is still capped,
// and the log names that client, not the proxy. Without the trust, the same 30 share one
// cap.
func TestBehindATrustedProxyEachClientHasItsOwnCap(t *testing.T) {
	_, proxy, log := proxiedWeb(t, "127.0.0.1")
	got := codes(t, 30, func(i int) int { return status(t, fromAddr(fmt.Sprintf("127.0.0.%d", 10+i)), proxy+"/api/who") })
	if got[http.StatusOK] != 30 {
		t.Errorf("30 clients through a trusted proxy: %v, want 30 × 200", got)
	}
	flooder := fromAddr("127.0.0.77")
	got, took := flood(30, func(int) int { return status(t, flooder, proxy+"/api/who") })
	if !capped(got, took, 30) {
		t.Errorf("one client's 30 through the proxy: %v in %v, want %d × 200 and a refill", got, took, webpage.DefaultConfig.Burst)
	}
	waitUntil(t, "the flooder named in the log", func() bool {
		return strings.Contains(log.String(), "over its rate") && strings.Contains(log.String(), "addr=127.0.0.77")
	})
	if strings.Contains(log.String(), "addr=127.0.0.1 ") {
		t.Errorf("the proxy's address in the log:\n%s", log)
	}

	_, untrusting, _ := proxiedWeb(t, "")
	got, took = flood(30, func(i int) int { return status(t, fromAddr(fmt.Sprintf("127.0.0.%d", 10+i)), untrusting+"/api/who") })
	if !capped(got, took, 30) {
		t.Errorf("30 clients through a proxy not trusted: %v in %v, want %d × 200 and a refill", got, took, webpage.DefaultConfig.Burst)
	}
}

// X-Forwarded-For is believed only from a trusted proxy, and only its rightmost
// untrusted address: a client that writes the header itself, straight to the page or
// through the proxy, is counted by its own address whatever it writes.
func TestAForgedForwardedForIsIgnored(t *testing.T) {
	page, proxy, _ := proxiedWeb(t, "127.0.0.1")
	direct := fromAddr("127.0.0.2")
	got, took := flood(30, func(i int) int { return status(t, direct, page+"/api/who", fmt.Sprintf("198.51.100.%d", i)) })
	if !capped(got, took, 30) {
		t.Errorf("30 forged headers straight to the page: %v in %v, want %d × 200 and a refill", got, took, webpage.DefaultConfig.Burst)
	}
	// Through the proxy the header reads "198.51.100.i, 127.0.0.3": the client's own
	// address is the rightmost untrusted one, and it is the one capped.
	through := fromAddr("127.0.0.3")
	got, took = flood(30, func(i int) int {
		return status(t, through, proxy+"/api/who", fmt.Sprintf("198.51.100.%d", i), "127.0.0.1")
	})
	if !capped(got, took, 30) {
		t.Errorf("30 forged headers through the proxy: %v in %v, want %d × 200 and a refill", got, took, webpage.DefaultConfig.Burst)
	}
}
