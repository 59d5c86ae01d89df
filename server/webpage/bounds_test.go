package webpage

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// The page's caps and timeouts are docs/DESIGN.md's and docs/OPERATIONS.md's: 256
// connections, 8 an address, 2 s to send a request's header, 10 s for the whole request
// and for the answer, a minute idle, 8 KiB of header.
func TestThePagesBoundsAreTheRulings(t *testing.T) {
	if DefaultConfig.MaxConns != 256 || DefaultConfig.MaxPerAddr != 8 {
		t.Errorf("DefaultConfig %+v, want 256 connections, 8 an address", DefaultConfig)
	}
	hs := (&Page{Log: slog.New(slog.DiscardHandler)}).server()
	if hs.ReadHeaderTimeout != 2*time.Second || hs.ReadTimeout != 10*time.Second || hs.WriteTimeout != 10*time.Second ||
		hs.IdleTimeout != time.Minute || hs.MaxHeaderBytes != 8<<10 {
		t.Errorf("header %v, request %v, answer %v, idle %v, header bytes %d; want 2s, 10s, 10s, 1m, 8192",
			hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
}

// A client that sends part of a request's header and nothing more is closed 2 s after it
// began, by the page served as the server serves it; and an address holds 8 connections
// at the default caps, its ninth closed at once.
func TestAHalfSentHeaderIsClosedAtTwoSeconds(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&Page{Log: slog.New(slog.DiscardHandler)}).Serve(ctx, ln)
	}()
	defer func() { cancel(); <-done }()

	c := dial(t, ln.Addr().String())
	start := time.Now()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: orthanc\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(8 * time.Second))
	_, err = io.ReadAll(c)
	took := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("a half-sent header held its connection past %v", took)
	}
	if took < 1500*time.Millisecond || took > 5*time.Second { // room for a busy machine
		t.Errorf("a half-sent header was closed after %v, want 2 s", took)
	}

	var held []net.Conn
	for range 8 {
		held = append(held, dial(t, ln.Addr().String()))
	}
	for i, h := range held { // each is answered: held, not closed
		if _, err := io.WriteString(h, "HEAD /style.css HTTP/1.1\r\nHost: orthanc\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = h.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := h.Read(make([]byte, 1)); err != nil {
			t.Fatalf("connection %d of 8 from one address: %v", i+1, err)
		}
	}
	ninth := dial(t, ln.Addr().String())
	_ = ninth.SetReadDeadline(time.Now().Add(time.Second)) // closed at once, not at the header deadline
	if _, err := ninth.Read(make([]byte, 1)); err == nil {
		t.Error("a ninth connection from one address was not closed")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("a ninth connection from one address was held")
	}
}
