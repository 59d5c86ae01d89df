package realm

import (
	"net"
	"sync"
	"testing"
)

// proxy is a TCP proxy between a realm's client and etcd that a test can cut: a cut
// closes every connection through it and leaves new ones hanging, unanswered, as a
// partition does; heal lets them through again. A stall holds what is sent, both
// ways, and delivers it when the stall ends, as TCP does across a short partition:
// a request sent before it reaches etcd late, after its sender has given up.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	open  chan struct{} // closed while not stalled
	conns map[net.Conn]struct{}
}

// newProxy listens on a free loopback port and forwards to target; closed with the test.
func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, open: make(chan struct{})}
	close(p.open)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) || p.isCut() {
			continue // held open and silent until the cut heals or the proxy closes
		}
		go p.forward(c)
	}
}

func (p *proxy) forward(c net.Conn) {
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
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			<-p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) gate() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// setStalled starts or ends a stall.
func (p *proxy) setStalled(stalled bool) {
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
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// setCut cuts or heals; either way the connections open now are closed, so a client
// hangs on new ones while cut and dials through again once healed.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *proxy) close() {
	p.ln.Close()
	p.setStalled(false)
	p.setCut(true)
	p.mu.Lock()
	p.conns = nil
	p.mu.Unlock()
}
