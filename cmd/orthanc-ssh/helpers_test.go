package main

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"testing"
	"time"
)

// The command's tests run it as main does, in the test process: with arguments and a
// getenv of their own, its log written to a buffer.

// envOf is a getenv of the given NAME, value pairs.
func envOf(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

// lockedBuffer is a log the server writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// poll calls cond every every until it holds (true) or within passes (false).
func poll(within, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
	return true
}

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(10*time.Second, 10*time.Millisecond, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// listeningAddr finds the address in the log line of a server that listens, as text or
// JSON.
var listeningAddr = regexp.MustCompile(`msg=listening addr=(\S+)|"msg":"listening","addr":"([^"]+)"`)

// startServer runs the command with args on a free loopback port and a fast tick until
// the test ends, and returns the address it listens on and its log; the test fails if
// it does not exit 0 when stopped.
func startServer(t *testing.T, args ...string) (addr string, log *lockedBuffer) {
	t.Helper()
	log = &lockedBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-tick", "5ms"}, args...), envOf(), log)
	}()
	t.Cleanup(func() {
		stop()
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("exit code %d after the stop:\n%s", c, log)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("the server did not stop:\n%s", log)
		}
	})
	waitUntil(t, "the server to listen", func() bool { return listeningAddr.MatchString(log.String()) })
	m := listeningAddr.FindStringSubmatch(log.String())
	return m[1] + m[2], log
}
