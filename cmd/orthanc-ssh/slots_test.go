package main

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Regression (issue 17): a connection that logged in with a throwaway key and never
// opened a session was kept until its 12-hour lifetime; 500 of them from 25 addresses
// filled -max-sessions and real players were refused.

// loginOnly logs in from the loopback address from (127.0.0.x) with a new key and opens
// no session.
func loginOnly(t *testing.T, addr, from string) (gossh.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c, chans, reqs, err := gossh.NewClientConn(raw, addr, &gossh.ClientConfig{User: "squatter", Config: gossh.Config{KeyExchanges: []string{gossh.KeyExchangeCurve25519}},
		Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))}, HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		raw.Close()
		return nil, err
	}
	go gossh.DiscardRequests(reqs)
	go func() {
		for ch := range chans {
			_ = ch.Reject(gossh.Prohibited, "no")
		}
	}()
	return c, nil
}

// With 500 connections logged in from 25 addresses and holding no session (20 an
// address, 500 players, a 20 s channel timeout), a real player still gets
// in and sees the title within a second, and the 500 are closed once the channel timeout
// has passed. (It runs in parallel: most of it is waiting for the timeout, which has to
// be longer than opening 500 connections takes under -race.)
func TestLoggedInWithoutASessionHoldsNoPlace(t *testing.T) {
	t.Parallel()
	const addrs, perAddr = 25, 20
	cfg := testConfig(t.TempDir(), defaultSeed)
	// The connections are logged in, so admission let them through: their addresses may
	// each hold 20 waiting, and no early drop comes before every handshake place is taken.
	cfg.limits.maxShakesPerIP, cfg.limits.earlyDropAt = perAddr, cfg.limits.maxHandshakes
	ts, srv := startConfigured(t, cfg)
	start := time.Now()
	var mu sync.Mutex
	var conns []gossh.Conn
	var wg sync.WaitGroup
	errs := make(chan error, addrs)
	for a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := fmt.Sprintf("127.0.0.%d", a+2) // the player comes from 127.0.0.1
			for range perAddr {
				c, err := loginOnly(t, ts.addr, from)
				if err != nil {
					errs <- fmt.Errorf("from %s: %w", from, err)
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	opened := time.Since(start)
	if waiting, _ := srv.limits.counts(); waiting != addrs*perAddr {
		t.Fatalf("%d connections waiting, want %d", waiting, addrs*perAddr)
	}
	closed := make(chan struct{})
	var all sync.WaitGroup
	for _, c := range conns {
		all.Add(1)
		go func() { defer all.Done(); _ = c.Wait() }()
	}
	go func() { all.Wait(); close(closed) }()

	t0 := time.Now()
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.waitFor("Press Enter to begin")
	firstFrame := time.Since(t0)
	if firstFrame > time.Second {
		t.Errorf("with %d connections holding no session, a player's first frame took %v", len(conns), firstFrame)
	}
	select {
	case <-closed:
	case <-time.After(cfg.limits.channelTimeout + 15*time.Second):
		waiting, _ := srv.limits.counts()
		t.Fatalf("%d connections still waiting long after the channel timeout", waiting)
	}
	gone := time.Since(start)
	// The server gives a place back once its side of the connection is done, a moment
	// after the client sees it close.
	waitUntil(t, "every place but the player's to be given back", func() bool {
		waiting, playing := srv.limits.counts()
		return waiting == 0 && playing == 1
	})
	if !strings.Contains(tm.screen(), "Press Enter") {
		t.Fatalf("the player's game ended with the others:\n%s", tm.screen())
	}
	t.Logf("%d connections logged in without a session from %d addresses in %v; a player's first frame came %v later; all %d were closed %v after the first opened (channel timeout %v)",
		len(conns), addrs, opened.Round(time.Millisecond), firstFrame.Round(time.Millisecond), len(conns), gone.Round(time.Millisecond), cfg.limits.channelTimeout)
}
