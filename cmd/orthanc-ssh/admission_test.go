package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// silentFlood holds n sockets from the loopback address src to addr that never send a
// byte, each opened again as soon as the server drops it, until stop is closed. It
// returns how many sockets it opened.
func silentFlood(addr, src string, n int, stop <-chan struct{}, wg *sync.WaitGroup, opened *int64, mu *sync.Mutex) {
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
	ts := startServer(t, t.TempDir())
	key := newKey(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened int64
	for i := range 60 {
		silentFlood(ts.addr, fmt.Sprintf("127.0.0.%d", 2+i), 20, stop, &wg, &opened, &mu)
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

// An address is charged for each silent or failed connection and refused once its charge
// is past penaltyGrace, until it runs down, never for more than penaltyMax; early drop
// takes none below early-drop-at and all at max-handshakes.
func TestPenaltiesAndEarlyDrop(t *testing.T) {
	lim := defaultLimits
	l := newLimitListener(nil, lim, nil)
	now := time.Now()
	l.penalise("192.0.2.1", penaltySilent, now)
	if reason, _ := l.admission("192.0.2.1", now); reason != "" {
		t.Errorf("one silent connection refuses its address: %s", reason)
	}
	l.penalise("192.0.2.1", penaltySilent, now)
	reason, msg := l.admission("192.0.2.1", now)
	if reason != refusedPenalty || !strings.Contains(msg, "try again in 5s") {
		t.Errorf("two silent connections: %q %q", reason, msg)
	}
	if reason, _ := l.admission("192.0.2.2", now); reason != "" {
		t.Errorf("another address is refused: %s", reason)
	}
	if reason, _ := l.admission("192.0.2.1", now.Add(6*time.Second)); reason != "" {
		t.Errorf("a charge run down below the grace still refuses: %s", reason)
	}
	for range 1000 {
		l.penalise("192.0.2.3", penaltySilent, now)
	}
	if left := l.penalty("192.0.2.3", now); left != penaltyMax-penaltyGrace {
		t.Errorf("a thousand charges refuse for %s, want %s", left, penaltyMax-penaltyGrace)
	}
	drops := func(waiting int) int {
		l.waiting = waiting
		n := 0
		for range 1000 {
			if l.earlyDrop() {
				n++
			}
		}
		return n
	}
	if n := drops(lim.earlyDropAt - 1); n != 0 {
		t.Errorf("%d of 1000 dropped below early-drop-at", n)
	}
	if n := drops(lim.earlyDropAt); n < 200 || n > 400 {
		t.Errorf("%d of 1000 dropped at early-drop-at, want about 300", n)
	}
	if n := drops(lim.maxHandshakes - 1); n < 980 {
		t.Errorf("%d of 1000 dropped with one place left, want nearly all", n)
	}
}
