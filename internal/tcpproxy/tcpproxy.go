// Package tcpproxy is a TCP proxy a test puts between a program and a server (a realm
// and etcd) to cut or stall the way between them, as a partition does, or to make it
// long (Delay). Tests import it, and the load tool for a distant etcd; no server does.
package tcpproxy

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP to a target until cut: a cut closes every connection through it and
// leaves new ones hanging, unanswered, as a partition does; healing lets them through
// again. A stall holds what is sent, both ways, and delivers it when the stall ends, as
// TCP does across a short partition: a request sent before it reaches the server late,
// after its sender has given up (or died).
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	down  bool          // a server that stopped: each new connection closed at once
	open  chan struct{} // closed while not stalled
	conns map[net.Conn]struct{}
}

// New listens on a free loopback port and forwards to target; it is closed with the test.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, open: make(chan struct{})}
	close(p.open)
	go p.serve()
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's address, host:port, to give the program in place of the target's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.isDown() {
			c.Close()
			continue
		}
		if !p.track(c) || p.isCut() {
			continue // held open and silent until the cut heals or the proxy closes
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(up) {
		c.Close()
		return
	}
	go func() { p.pipe(up, c); up.Close() }()
	p.pipe(c, up)
	c.Close()
}

// pipe copies src to dst, holding each read while the proxy is stalled.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			<-p.Gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Gate is closed while the proxy is not stalled.
func (p *Proxy) Gate() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// SetStalled starts or ends a stall.
func (p *Proxy) SetStalled(stalled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		if stalled {
			p.open = make(chan struct{})
		}
	default:
		if !stalled {
			close(p.open)
		}
	}
}

// track notes an open connection, so that a cut can close it; false if the proxy closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

func (p *Proxy) isDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

// SetDown makes the target look stopped, or started again, as its clients see a
// restart: the connections open now are closed, and while down each new one is closed
// as soon as it is made, so the client tries again at its own pace (gRPC's reconnect
// backoff). An embedded etcd takes seconds to close (it waits for its streams), during
// which its clients can open no new stream: the proxy makes the pause the test's length.
func (p *Proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// SetCut cuts or heals; either way the connections open now are closed, so a client
// hangs on new ones while cut and dials through again once healed.
func (p *Proxy) SetCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Close stops the proxy and closes every connection through it.
func (p *Proxy) Close() {
	p.ln.Close()
	p.SetStalled(false)
	p.SetCut(true)
	p.mu.Lock()
	p.conns = nil
	p.mu.Unlock()
}
