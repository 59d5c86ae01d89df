package server

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// Regression (issue 17): a session that hung up with input still unread left its input
// reader goroutine blocked for ever, sending parsed keys to a program that had ended; it
// held the session, its connection and the queued input (30 sessions of 300 KB: 17 more
// goroutines and 69 MB more heap, never given back).

// leakSessions is how many sessions each round of TestNoLeakPerSession opens, and
// leakInput how much each sends.
const (
	leakSessions = 30
	leakInput    = 300 * 1024
)

// heapNow is the live heap after a collection, in bytes.
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// settle waits (up to 15 s) until the server has no session open and the process's
// goroutines are within slack of base, and returns the goroutine count and heap then.
func settle(srv *Server, base, slack int) (int, uint64) {
	var n int
	poll(15*time.Second, 50*time.Millisecond, func() bool {
		n = runtime.NumGoroutine()
		return srv.live.Len() == 0 && n <= base+slack
	})
	return n, heapNow()
}

// summariseStacks keeps the first frames of each goroutine's stack, so a failure shows
// where the extra ones are parked without pages of output.
func summariseStacks(all []byte) string {
	var out strings.Builder
	for _, g := range bytes.Split(all, []byte("\n\n")) {
		lines := strings.Split(string(g), "\n")
		out.WriteString(strings.Join(lines[:min(len(lines), 5)], "\n"))
		out.WriteString("\n\n")
	}
	return out.String()
}

// After 30 sessions that each send 300 KB of keys and hang up, and 30 that paste while the
// game quits under them, the server is back to its goroutines and heap from before.
func TestNoLeakPerSession(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Limits.MaxPerIP, cfg.Limits.MaxSessions = 200, 200
	ts, srv := startConfigured(t, cfg)
	// One session first, so what the server starts once (the world's caches, the
	// runtime's workers) is in the baseline.
	c, s, in := rawGame(t, ts.addr)
	_, _ = io.WriteString(in, "j")
	_ = s.Close()
	_ = c.Close()
	waitUntil(t, "the first session to end", func() bool { return srv.live.Len() == 0 })
	base := runtime.NumGoroutine()
	baseHeap := heapNow()
	t.Logf("baseline: %d goroutines, heap %.1f MB", base, float64(baseHeap)/1e6)

	keys := bytes.Repeat([]byte("jjjjjjjjj\n"), leakInput/10)
	round := func(name string, send func(in io.Writer)) {
		var wg sync.WaitGroup
		for range leakSessions {
			c, s, in := rawGame(t, ts.addr)
			wg.Add(1)
			go func() {
				defer wg.Done()
				send(in)
				_ = s.Close()
				_ = c.Close()
			}()
		}
		wg.Wait()
		n, heap := settle(srv, base, 2)
		t.Logf("after %d sessions that %s: %d goroutines (baseline %d), heap %.1f MB (baseline %.1f MB)",
			leakSessions, name, n, base, float64(heap)/1e6, float64(baseHeap)/1e6)
		if n > base+2 {
			buf := make([]byte, 1<<20)
			t.Errorf("after %d sessions that %s: %d goroutines, %d over the baseline; they are:\n%s",
				leakSessions, name, n, n-base, summariseStacks(buf[:runtime.Stack(buf, true)]))
		}
		if heap > baseHeap+10<<20 {
			t.Errorf("after %d sessions that %s the heap is %.1f MB, %.1f MB over the baseline", leakSessions, name,
				float64(heap)/1e6, float64(heap-baseHeap)/1e6)
		}
	}
	round("sent 300 KB of keys and hung up", func(in io.Writer) { _, _ = in.Write(keys) })
	paste := append(append([]byte("\x1b[200~"), bytes.Repeat([]byte("a pasted line\r\n"), leakInput/15)...), "\x1b[201~"...)
	round("pasted while the game quit", func(in io.Writer) {
		_, _ = io.WriteString(in, "\x03") // ctrl+c: the game quits at once
		_, _ = in.Write(paste)
	})
}

// stream writes n bytes of filler to w in small writes, so the test itself holds little.
func stream(t *testing.T, w io.Writer, filler byte, n int) {
	t.Helper()
	chunk := bytes.Repeat([]byte{filler}, 32<<10)
	for sent := 0; sent < n; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatalf("stream: %v", err)
		}
	}
}

// A paste that never ends holds a bounded amount of memory while the client is
// connected, and the game takes keys again once it ends. Before the pump the parser
// gathered the paste for as long as bytes kept coming.
func TestEndlessPasteIsBounded(t *testing.T) {
	ts := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Flood")
	before := heapNow()
	tm.press(pasteStart)
	stream(t, tm.stdin, 'p', 8<<20)
	during := heapNow()
	t.Logf("heap before %.1f MB, with 8 MB of a paste still open %.1f MB", float64(before)/1e6, float64(during)/1e6)
	// Up to 2 MiB may still be on its way (the SSH channel's window); the paste itself is
	// cut at maxPaste. Gathered whole, it would be more than 8 MB.
	if during > before+4<<20 {
		t.Errorf("8 MB of a paste grew the heap by %.1f MB", float64(during-before)/1e6)
	}
	tm.press(pasteEnd)
	start := whoamiJSON(t, ts.addr, key)
	tm.stepOut("the knight to walk after the paste", start, func() command.Whoami { return whoamiJSON(t, ts.addr, key) })
}

// Regression (issue 30): a client sending h as fast as it could took two thirds of a core,
// and its excess keys were dropped but the session went on for ever. Past the key rate
// keys are dropped, and a client still past it after edge.FloodClose is told why and closed;
// its knight is saved, and a player beside it walks on.
func TestAKeyFloodIsClosed(t *testing.T) {
	t.Parallel()
	ts := startServer(t, t.TempDir())
	flooder := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	flooder.enterDungeon("Flood")
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := bytes.Repeat([]byte{'h'}, 4<<10)
		for time.Since(start) < edge.FloodClose+20*time.Second { // bounded: the server closes it long before
			if _, err := flooder.stdin.Write(chunk); err != nil {
				return
			}
		}
	}()
	if !flooder.ended(edge.FloodClose + 15*time.Second) {
		t.Fatalf("a flood of keys was not closed in %v", time.Since(start))
	}
	took := time.Since(start)
	<-done
	if out := flooder.finalOutput(); !strings.Contains(screenWords(out), "You sent keys faster than anyone types") {
		t.Errorf("the flooder was not told why:\n%s", out)
	}
	if took < edge.FloodClose {
		t.Errorf("closed after %v, before edge.FloodClose", took)
	}
	t.Logf("a flood of keys closed after %v", took)
}
