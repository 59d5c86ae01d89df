package tcpproxy

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echo is a server that sends back each line it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(t *testing.T, c net.Conn, line string) (string, error) {
	t.Helper()
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// A cut closes the connections through the proxy and leaves a new one unanswered;
// healed, a new one goes through.
func TestCutClosesAndHolds(t *testing.T) {
	p := New(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(t, c, "one"); err != nil || got != "one\n" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}
	p.SetCut(true)
	if _, err := roundTrip(t, c, "two"); err == nil {
		t.Fatal("a connection open at the cut still answers")
	}
	held, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_ = held.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := io.WriteString(held, "three\n"); err == nil {
		if _, err := bufio.NewReader(held).ReadString('\n'); err == nil {
			t.Fatal("a connection made while cut was answered")
		}
	}
	p.SetCut(false)
	d, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, err := roundTrip(t, d, "four"); err != nil || got != "four\n" {
		t.Fatalf("healed: %q, %v", got, err)
	}
}

// A stall holds what is sent and delivers it when it ends.
func TestStallDeliversLate(t *testing.T) {
	p := New(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.SetStalled(true)
	if _, err := io.WriteString(c, "late\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(c).ReadString('\n')
		got <- s
	}()
	select {
	case s := <-got:
		t.Fatalf("%q came through a stall", s)
	case <-p.Gate():
		t.Fatal("the gate is open in a stall")
	default:
	}
	p.SetStalled(false)
	select {
	case s := <-got:
		if s != "late\n" {
			t.Fatalf("after the stall: %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("what was held never came")
	}
}
