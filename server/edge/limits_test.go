package edge

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
)

// fakeListener hands out the in-memory connections queued on conns, which seem to come
// from the given addresses, and an error once none is queued: a test whose connection is
// refused fails rather than waits for another.
type fakeListener struct {
	conns chan net.Conn
}

func (f *fakeListener) Accept() (net.Conn, error) {
	select {
	case c, ok := <-f.conns:
		if ok {
			return c, nil
		}
	default:
	}
	return nil, net.ErrClosed
}
func (f *fakeListener) Close() error   { return nil }
func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// fromConn is one end of a pipe with a remote address of its own.
type fromConn struct {
	net.Conn
	from net.Addr
}

func (c fromConn) RemoteAddr() net.Addr { return c.from }

// The per-address limit counts one IPv6 /64 as one address: twenty-odd addresses of one
// /64 do not get twenty places each.
func TestPerAddressLimitCountsIPv6Per64(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 64)}
	lim := DefaultLimits
	lim.MaxPerIP = 3
	var mu sync.Mutex
	refused := 0
	l := NewListener(f, lim, func(string, net.Addr) { mu.Lock(); refused++; mu.Unlock() })
	var admitted []*limitedConn
	for i := range 3 + RefusalsPerAddr + 2 {
		server, client := net.Pipe()
		defer client.Close()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		f.conns <- fromConn{server, &net.TCPAddr{IP: net.ParseIP(fmt.Sprintf("2001:db8::%x", i+1)), Port: 40000 + i}}
	}
	close(f.conns)
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		admitted = append(admitted, c.(*limitedConn))
	}
	over := 0
	for _, c := range admitted {
		if c.slot.overAddr {
			over++
		}
	}
	if len(admitted) != 3+RefusalsPerAddr || over != RefusalsPerAddr || refused != 2 {
		t.Fatalf("from one /64: %d admitted (%d of them to be refused at login), %d closed at once; want %d, %d, 2",
			len(admitted), over, refused, 3+RefusalsPerAddr, RefusalsPerAddr)
	}
	for _, c := range admitted {
		_ = c.Close()
	}
	if w, p := l.Counts(); w != 0 || p != 0 || len(l.perAddr) != 0 {
		t.Fatalf("after closing: %d waiting, %d playing, %v", w, p, l.perAddr)
	}
}
