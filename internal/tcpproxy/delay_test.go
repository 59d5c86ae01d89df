package tcpproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

// Through a Delay of 40 ms each way a round trip takes at least 80 ms more, and lines
// written back to back come back whole and in order, each no later than the first.
func TestDelayHoldsBothWays(t *testing.T) {
	d, err := ListenDelay("127.0.0.1:0", echo(t), 40*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	c, err := net.Dial("tcp", d.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 200 {
		if _, err := fmt.Fprintf(c, "line %d\n", i); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(c)
	for i := range 200 {
		line, err := r.ReadString('\n')
		if err != nil || line != fmt.Sprintf("line %d\n", i) {
			t.Fatalf("line %d came back as %q, %v", i, line, err)
		}
		if took := time.Since(start); i == 0 && took < 80*time.Millisecond {
			t.Fatalf("the first round trip took %v, under twice the delay", took)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("200 lines took %v: the delay held each in turn, not all at once", took)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("a connection closed by the proxy's end: %v", err)
	}
}
