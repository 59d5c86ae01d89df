package server

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
// address, 500 players), a real player still gets in and sees the title, about as soon as
// without them; and once the channel timeout has passed the 500 are closed and their
// places given back. Regression (issue 32): with a real 20 s timeout from the start, a
// busy machine took longer than the timeout to open the 500, and the first were closed
// before the test had them all. So the timeout is an hour while they open, and the test
// then lets it pass, setting each waiting connection's own timer (the one the server
// armed at accept, whose firing is what is tested) to run out now. Under -race, where a
// handshake takes far more CPU, they are 100 from 5 addresses and the places are 100:
// they would fill every place all the same.
func TestLoggedInWithoutASessionHoldsNoPlace(t *testing.T) {
	t.Parallel()
	addrs, perAddr := 25, 20
	if raceDetector {
		addrs = 5
	}
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Limits.MaxSessions = addrs * perAddr // the default's 500 without -race
	// The connections are logged in, so admission let them through: their addresses may
	// each hold 20 waiting, and no early drop comes before every handshake place is taken.
	cfg.Limits.MaxShakesPerIP, cfg.Limits.EarlyDropAt = perAddr, cfg.Limits.MaxHandshakes
	cfg.Limits.ChannelTimeout = time.Hour
	ts, srv := startConfigured(t, cfg)
	t0 := time.Now()
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).waitFor("Press Enter to begin")
	alone := time.Since(t0)
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
	// The first player, at its title, is playing; the others wait.
	waitUntil(t, "the waiting all logged in", func() bool {
		waiting, playing := srv.limits.Counts()
		return waiting == addrs*perAddr && playing == 1
	})
	closed := make(chan struct{})
	var all sync.WaitGroup
	for _, c := range conns {
		all.Add(1)
		go func() { defer all.Done(); _ = c.Wait() }()
	}
	go func() { all.Wait(); close(closed) }()

	t0 = time.Now()
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.waitFor("Press Enter to begin")
	firstFrame := time.Since(t0)
	if firstFrame > alone+2*time.Second {
		t.Errorf("with %d connections holding no session, a player's first frame took %v (%v without them)", len(conns), firstFrame, alone)
	}
	select {
	case <-closed:
		t.Fatal("connections with no session were closed before their channel timeout")
	default:
	}
	// The channel timeout passes: each waiting connection's timer runs out.
	srv.limits.ExpireWaiting()
	timedOut := time.Now()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		waiting, _ := srv.limits.Counts()
		t.Fatalf("%d connections still waiting a minute after their channel timeout", waiting)
	}
	gone := time.Since(timedOut)
	// The server gives a place back once its side of the connection is done, a moment
	// after the client sees it close.
	waitUntil(t, "every place but the players' to be given back", func() bool {
		waiting, playing := srv.limits.Counts()
		return waiting == 0 && playing == 2
	})
	if !strings.Contains(tm.screen(), "Press Enter") {
		t.Fatalf("the player's game ended with the others:\n%s", tm.screen())
	}
	t.Logf("%d connections logged in without a session from %d addresses in %v; a player's first frame came in %v (%v without them); all %d were closed %v after their channel timeout ran out",
		len(conns), addrs, opened.Round(time.Millisecond), firstFrame.Round(time.Millisecond), alone.Round(time.Millisecond), len(conns), gone.Round(time.Millisecond))
}
