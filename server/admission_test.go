package server

import (
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
)

// silentFlood holds n sockets from the loopback address src to addr that never send a
// byte, each opened again pause after the server drops it, until stop is closed; opened
// counts the sockets it opened.
func silentFlood(addr, src string, n int, pause time.Duration, stop <-chan struct{}, wg *sync.WaitGroup, opened *int64, mu *sync.Mutex) {
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
				mu.Lock()
				*opened++
				mu.Unlock()
				go func() { <-stop; c.Close() }()
				_, _ = io.Copy(io.Discard, c) // the server's version line, then nothing: until it drops us
				c.Close()
				select {
				case <-stop:
					return
				case <-time.After(pause):
				}
			}
		}()
	}
}

// Regression (issue 30): sockets that never send a byte held handshake places for 10 s:
// 60 addresses × 20 sockets held all 1000, and every new login was reset. Now a silent
// socket is dropped at the banner deadline and its address penalised, admission drops at
// random once places fill (as OpenSSH's MaxStartups), and a keyed player gets in within
// 2 s at least 9 times in 10 while the 60 addresses reconnect as fast as they are dropped.
func TestSilentSocketsFromManyAddressesHoldNoPlace(t *testing.T) {
	if raceDetector {
		t.Skip("the issue's 2 s is a real server's bound: under the race detector a handshake alone takes seconds")
	}
	ts := startServer(t, t.TempDir())
	key := newKey(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened int64
	for i := range 60 {
		silentFlood(ts.addr, fmt.Sprintf("127.0.0.%d", 2+i), 20, 0, stop, &wg, &opened, &mu)
	}
	defer func() { close(stop); wg.Wait() }()
	time.Sleep(time.Second) // the flood under way: not a wait for something to happen

	var times []time.Duration
	ok := 0
	for range 10 {
		start := time.Now()
		cfg := clientConfig(gossh.PublicKeys(key))
		cfg.Timeout = 5 * time.Second
		c, err := gossh.Dial("tcp", ts.addr, cfg)
		took := time.Since(start)
		if err == nil {
			c.Close()
			if took <= 2*time.Second {
				ok++
			}
		} else {
			took = -took // a failed login, as a negative time
		}
		times = append(times, took)
		time.Sleep(1500 * time.Millisecond) // the attempts spread over the flood
	}
	mu.Lock()
	n := opened
	mu.Unlock()
	t.Logf("logins (negative: failed) %v; %d of 10 within 2 s; the flood opened %d sockets", times, ok, n)
	if ok < 9 {
		t.Errorf("%d of 10 logins within 2 s under the silent flood, want 9 at least", ok)
	}
}

// loginTimes logs in n times with key and returns how long each took (a failure fails
// the test).
func loginTimes(t *testing.T, addr string, key gossh.Signer, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for range n {
		start := time.Now()
		c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
		if err != nil {
			t.Fatalf("login: %v", err)
		}
		out = append(out, time.Since(start))
		c.Close()
	}
	return out
}

// median is the middle of ds.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2]
}

// Regression (issue 30): the web page took any number of sockets from one address, and
// shared descriptors with SSH, so a web flood slowed SSH logins from 0.1 s to 4.35 s.
// The page holds at most maxPerAddr connections of an address and maxConns in all (webpage.DefaultConfig),
// while 60 addresses open 20 each and reconnect a second after they are closed; an SSH login
// takes no more than 100 ms longer than without the flood.
func TestTheWebPageHasAShareOfItsOwn(t *testing.T) {
	ts, srv, _ := webServer(t)
	key := newKey(t)
	before := loginTimes(t, ts.addr, key, 5)
	web := srv.httpLn.(*webpage.Listener)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened int64
	for i := range 60 {
		// A socket dropped comes back a second later: 1200 a second, from 60 addresses. As
		// fast as dropped, the flood's own goroutines took the test's two cores.
		silentFlood(web.Addr().String(), fmt.Sprintf("127.0.0.%d", 2+i), 20, time.Second, stop, &wg, &opened, &mu)
	}
	most := 0
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) { // bounded: the flood's first seconds, sampled
		all, perAddr := web.Held()
		most = max(most, all)
		for addr, n := range perAddr {
			if n > webpage.DefaultConfig.MaxPerAddr {
				t.Errorf("%d connections to the page from %s", n, addr)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	during := loginTimes(t, ts.addr, key, 5)
	close(stop)
	wg.Wait()
	mu.Lock()
	t.Logf("SSH logins without the web flood %v (median %v), with it %v (median %v); the page held %d at most, the flood opened %d, %d closed at once",
		before, median(before), during, median(during), most, opened, web.Refused())
	mu.Unlock()
	if most > webpage.DefaultConfig.MaxConns {
		t.Errorf("the page held %d connections, more than %d", most, webpage.DefaultConfig.MaxConns)
	}
	if d := median(during) - median(before); d > 100*time.Millisecond {
		t.Errorf("the web flood made an SSH login %v slower", d)
	}
}

// A player through its key exchange is out of the banner deadline's reach, places scarce
// or not, while it logs in: OpenSSH may be asking for its key's passphrase. Its deadline
// runs out while it logs in, with a silent socket making places scarce (early-drop-at 2).
func TestAPlayerThroughTheKeyExchangeOutlivesTheBannerDeadline(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.BannerTimeout, l.EarlyDropAt = time.Second, 2 })
	key := newKey(t)
	var heard []byte
	auth := gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		// The server reads this socket after the player's, so once it is dropped at its
		// deadline, the player's has run out too.
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
		c, err := d.Dial("tcp", ts.addr)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		heard, err = io.ReadAll(c) // the server's version line, then nothing until it drops us
		return []gossh.Signer{key}, err
	})
	c, err := gossh.Dial("tcp", ts.addr, clientConfig(auth))
	if !strings.HasPrefix(string(heard), "SSH-2.0-") {
		t.Fatalf("the silent socket was told %q, want the server's version line", heard)
	}
	if err != nil {
		t.Fatalf("a player logging in past the banner deadline, places scarce: %v", err)
	}
	c.Close()
}
