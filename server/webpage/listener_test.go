package webpage

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

// accepted hands on what ln accepts.
func accepted(ln net.Listener) <-chan net.Conn {
	out := make(chan net.Conn, 16)
	go func() {
		defer close(out)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			out <- c
		}
	}()
	return out
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// An address gets MaxPerAddr connections, the next closed at once; a place freed is
// taken again; and past MaxConns in all Accept waits until one frees.
func TestListenerCaps(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", Config{MaxConns: 3, MaxPerAddr: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := ln.(*Listener)
	got := accepted(ln)
	addr := ln.Addr().String()
	var held []net.Conn
	for range 2 {
		dial(t, addr)
		held = append(held, <-got)
	}
	extra := dial(t, addr)
	_ = extra.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := extra.Read(make([]byte, 1)); err == nil {
		t.Fatal("a third connection from one address was not closed")
	}
	if all, per := l.Held(); all != 2 || len(per) != 1 || l.Refused() != 1 {
		t.Fatalf("held %d %v, refused %d; want 2 from one address, 1 refused", all, per, l.Refused())
	}
	held[0].Close()
	dial(t, addr)
	select {
	case c := <-got:
		held[0] = c
	case <-time.After(2 * time.Second):
		t.Fatal("a place freed was not taken again")
	}
	if all, _ := l.Held(); all != 2 {
		t.Errorf("held %d, want 2", all)
	}
}

// A trusted proxy has no cap of its own, only the share of all: past it, while every
// connection is being answered, Accept waits.
func TestListenerTrustsProxiesWithinTheShare(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", Config{MaxConns: 3, MaxPerAddr: 1, Trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := accepted(ln)
	var held []net.Conn
	for range 4 {
		dial(t, ln.Addr().String())
	}
	for range 3 {
		select {
		case c := <-got:
			ln.(*Listener).ConnState(c, http.StateActive) // answering: it keeps its place
			held = append(held, c)
		case <-time.After(2 * time.Second):
			t.Fatal("the proxy's connections within the share were not accepted")
		}
	}
	select {
	case <-got:
		t.Fatal("a connection past MaxConns was accepted")
	case <-time.After(200 * time.Millisecond):
	}
	held[0].Close()
	select {
	case <-got:
	case <-time.After(2 * time.Second):
		t.Fatal("the waiting connection was not accepted once a place freed")
	}
	if ln.(*Listener).Refused() != 0 {
		t.Errorf("a trusted proxy's connections were refused: %d", ln.(*Listener).Refused())
	}
}

// closedByServer reports whether the server closed c, reading until it does or a while
// has passed.
func closedByServer(c net.Conn, within time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(within))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF)
}

// With every place taken, a new connection takes the place of one that waits on its
// client (its request not whole, or idle between requests), of the address holding the
// most such, before any being answered; one being answered keeps its place through its
// grace; and a connection past its address's cap, or from an address that holds one
// waiting on it, takes nobody's.
func TestASlowConnectionGivesUpItsPlace(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", Config{MaxConns: 3, MaxPerAddr: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := ln.(*Listener)
	got := accepted(ln)
	addr := ln.Addr().String()
	from := func(ip string) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	next := func(what string) net.Conn {
		t.Helper()
		select {
		case c := <-got:
			return c
		case <-time.After(5 * time.Second):
			t.Fatalf("%s was not accepted", what)
			return nil
		}
	}
	a1, a2, b := from("127.0.0.2"), from("127.0.0.2"), from("127.0.0.3")
	sa1, sa2, sb := next("a1"), next("a2"), next("b")
	l.ConnState(sa1, http.StateActive)
	l.ConnState(sb, http.StateActive)
	l.ConnState(sa2, http.StateIdle) // a2 waits on its client: the one to go

	c := from("127.0.0.4")
	sc := next("a new connection with every place taken")
	if !closedByServer(a2, 5*time.Second) {
		t.Fatal("the connection waiting on its client kept its place")
	}
	if closedByServer(a1, 100*time.Millisecond) || closedByServer(b, 100*time.Millisecond) {
		t.Fatal("a connection being answered, within its grace, gave up its place")
	}

	// 127.0.0.4 holds c, which waits on it: another from there takes nobody's place.
	if !closedByServer(from("127.0.0.4"), 5*time.Second) {
		t.Fatal("a second connection from an address holding one that waits on it was not closed")
	}
	// From 127.0.0.2 (a1 answered) one takes c's place; a third is past the address's cap.
	from("127.0.0.2")
	sa3 := next("a second connection from an address with none waiting")
	if !closedByServer(c, 5*time.Second) {
		t.Fatal("the connection waiting on its client kept its place")
	}
	l.ConnState(sc, http.StateActive) // too late: gone; its state changes nothing
	l.ConnState(sa3, http.StateActive)
	if !closedByServer(from("127.0.0.2"), 5*time.Second) {
		t.Fatal("a third connection from one address was not closed")
	}
	if all, per := l.Held(); all != 3 || per["127.0.0.2"] != 2 || l.Evicted() != 2 || l.Refused() != 2 {
		t.Fatalf("held %d %v, %d given up, %d refused; want 3 (2 of 127.0.0.2), 2 given up, 2 refused", all, per, l.Evicted(), l.Refused())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.waitingBy) != 0 || len(l.held) != 3 {
		t.Errorf("waiting by address %v, %d held; want none waiting, 3 held", l.waitingBy, len(l.held))
	}
}

// A connection hijacked for a game (the play socket) never gives up its place, however
// long it has been "answered": with every place taken a new connection takes a slow
// one's instead. (It took the game's, the longest answered, before.)
func TestAGamesConnectionKeepsItsPlace(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", Config{MaxConns: 2, MaxPerAddr: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := ln.(*Listener)
	var clock atomic.Int64
	start := time.Now()
	clock.Store(start.UnixNano())
	l.now = func() time.Time { return time.Unix(0, clock.Load()) }
	got := accepted(ln)
	next := func(what string) net.Conn {
		t.Helper()
		select {
		case c := <-got:
			return c
		case <-time.After(5 * time.Second):
			t.Fatalf("%s was not accepted", what)
			return nil
		}
	}
	game := dial(t, ln.Addr().String())
	sg := next("the game's")
	slow := dial(t, ln.Addr().String())
	ss := next("the slow one's")
	l.ConnState(sg, http.StateActive)
	clock.Store(start.Add(time.Second).UnixNano())
	l.ConnState(ss, http.StateActive)
	l.ConnState(sg, http.StateHijacked)
	clock.Store(start.Add(time.Minute).UnixNano()) // both long past their grace

	dial(t, ln.Addr().String())
	next("a new connection with every place taken")
	if !closedByServer(slow, 5*time.Second) {
		t.Fatal("the slow connection kept its place")
	}
	if closedByServer(game, 100*time.Millisecond) {
		t.Fatal("the game's connection gave up its place")
	}
}
