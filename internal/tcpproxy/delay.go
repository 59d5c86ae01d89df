package tcpproxy

import (
	"errors"
	"net"
	"sync"
	"time"
)

// Delay forwards TCP to a target with every byte held a fixed time each way, as a
// distant link does: a request and its answer take twice the delay more, and bytes keep
// their order. It bounds no bandwidth and drops nothing. The load tool runs one between a
// realm and etcd (`orthanc-load delay`), and tests may too.
type Delay struct {
	ln     net.Listener
	target string
	delay  time.Duration

	mu    sync.Mutex
	conns map[net.Conn]struct{} // nil once closed
}

// ListenDelay listens on addr ("127.0.0.1:0" for a free port) and forwards to target,
// holding what goes either way for delay.
func ListenDelay(addr, target string, delay time.Duration) (*Delay, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	d := &Delay{ln: ln, target: target, delay: delay, conns: map[net.Conn]struct{}{}}
	go d.serve()
	return d, nil
}

// Addr is the proxy's address, host:port, to give the program in place of the target's.
func (d *Delay) Addr() string { return d.ln.Addr().String() }

func (d *Delay) serve() {
	for {
		c, err := d.ln.Accept()
		if err != nil {
			return
		}
		go d.forward(c)
	}
}

func (d *Delay) forward(c net.Conn) {
	up, err := net.Dial("tcp", d.target)
	if err != nil || !d.track(c) || !d.track(up) {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	go func() { d.pipe(up, c); up.Close(); c.Close() }()
	d.pipe(c, up)
	c.Close()
	up.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns != nil {
		delete(d.conns, c)
		delete(d.conns, up)
	}
}

// chunk is what one read took, and when it may be written on.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst, each read written delay after it was read. The reader never
// waits for the writer beyond what the channel holds, so the delay is a link's latency,
// not a cut in its bandwidth.
func (d *Delay) pipe(dst, src net.Conn) {
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{buf[:n], time.Now().Add(d.delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due)) // the link's latency, not a wait for an event
		if _, err := dst.Write(c.data); err != nil {
			src.Close()
			for range q { // let the reader end
			}
			return
		}
	}
}

// track notes an open connection, so that Close can close it; false once closed.
func (d *Delay) track(c net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conns == nil {
		return false
	}
	d.conns[c] = struct{}{}
	return true
}

// Close stops the proxy and closes every connection through it.
func (d *Delay) Close() error {
	err := d.ln.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.conns {
		c.Close()
	}
	d.conns = nil
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
