package webpage

import (
	"net"
	"net/netip"
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

// A trusted proxy has no cap of its own, only the share of all: past it, Accept waits.
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
