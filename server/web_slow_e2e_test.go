package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
)

// slowRequests holds n connections to addr from src, each with a request begun and never
// finished (a request line and one header, then nothing), opening another as soon as the
// server closes one, until stop.
func slowRequests(addr, src string, n int, stop <-chan struct{}, wg *sync.WaitGroup, opened *atomic.Int64) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: time.Second}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ { // bounded: the flood ends with stop long before
				select {
				case <-stop:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					select {
					case <-stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
					continue
				}
				opened.Add(1)
				done := make(chan struct{})
				go func() {
					select {
					case <-stop:
					case <-done:
					}
					c.Close()
				}()
				_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: orthanc\r\n")
				_, _ = io.Copy(io.Discard, c) // until the server closes it
				close(done)
			}
		}()
	}
}

// Regression: 32 addresses holding 8 requests each, begun and never finished, took
// every one of the page's 256 places, and nobody else was answered (0 of 3 within 10 s)
// while each held its place until the header deadline and came straight back. Now 40
// addresses hold 8 each, coming back as soon as they are dropped, and a GET from an
// address of its own is answered 200 within a second, three times over.
func TestSlowRequestsLeaveThePageToOthers(t *testing.T) {
	if raceDetector {
		t.Skip("the 1 s is a real server's bound: under the race detector the flood's own goroutines take the cores")
	}
	_, srv, _ := webServer(t)
	l := srv.httpLn.(*webpage.Listener)
	addr := l.Addr().String()
	const addrs, each = 40, 8
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var opened atomic.Int64
	defer func() { close(stop); wg.Wait() }()
	for i := range addrs {
		slowRequests(addr, fmt.Sprintf("127.0.1.%d", 2+i), each, stop, &wg, &opened)
	}
	waitUntil(t, "the slow requests to take every place", func() bool {
		all, _ := l.Held()
		return all == webpage.DefaultConfig.MaxConns && opened.Load() >= addrs*each
	})
	for i := range 3 {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 2, byte(2+i))}}
		c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 10 * time.Second}
		start := time.Now()
		r, err := c.Get("http://" + addr + "/")
		took := time.Since(start)
		if err != nil {
			t.Fatalf("GET / from a fresh address, under the slow requests: %v after %v", err, took)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		all, _ := l.Held()
		t.Logf("GET / %d in %v; the page holds %d, the flood has opened %d, %d dropped for others", r.StatusCode, took, all, opened.Load(), l.Evicted())
		if r.StatusCode != http.StatusOK || took > time.Second {
			t.Errorf("GET / from a fresh address: %d in %v, want 200 within 1 s", r.StatusCode, took)
		}
	}
}
