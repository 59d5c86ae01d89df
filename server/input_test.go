package server

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
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
func settle(srv *server, base, slack int) (int, uint64) {
	var n int
	poll(15*time.Second, 50*time.Millisecond, func() bool {
		n = runtime.NumGoroutine()
		return srv.live.len() == 0 && n <= base+slack
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
	cfg.limits.maxPerIP, cfg.limits.maxSessions = 200, 200
	ts, srv := startConfigured(t, cfg)
	// One session first, so what the server starts once (the world's caches, the
	// runtime's workers) is in the baseline.
	c, s, in := rawGame(t, ts.addr)
	_, _ = io.WriteString(in, "j")
	_ = s.Close()
	_ = c.Close()
	waitUntil(t, "the first session to end", func() bool { return srv.live.len() == 0 })
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
	tm.stepOut("the knight to walk after the paste", start, func() whoami { return whoamiJSON(t, ts.addr, key) })
}

// endless is input that never ends: after its start it repeats one byte, as fast as it
// is read, until done is closed.
type endless struct {
	start  []byte
	filler byte
	done   chan struct{}
}

func (e *endless) Read(p []byte) (int, error) {
	select {
	case <-e.done:
		return 0, io.EOF
	default:
	}
	n := copy(p, e.start)
	e.start = e.start[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.filler
	}
	return len(p), nil
}

// An escape sequence that never ends is given up after about maxUnparsed bytes, with no
// pause in the input: the parser lets go of it and reads what follows as keys. Before the
// pump it held the sequence, and parsed it again on every read, while bytes kept coming.
func TestEndlessSequenceIsGivenUp(t *testing.T) {
	in := &endless{start: []byte("\x1b]52;c;"), filler: 'A', done: make(chan struct{})}
	defer close(in.done)
	var mu sync.Mutex
	var unknown, keys int
	p := startInput(in, func(ev uv.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case uv.UnknownEvent:
			unknown = max(unknown, len(ev))
		case uv.KeyPressEvent:
			keys++
		}
	}, nil)
	defer p.stopInput()
	waitUntil(t, "the sequence to be given up and keys to follow", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return unknown > 0 && keys > 0
	})
	mu.Lock()
	defer mu.Unlock()
	if unknown > maxUnparsed+inputQueue*readChunk {
		t.Fatalf("the parser held %d bytes of one sequence", unknown)
	}
	t.Logf("an endless sequence was given up after %d bytes", unknown)
}

// A paste of at most maxPaste bytes passes whole; a longer one is cut there and still
// ends; text around pastes passes; markers split across reads are found.
func TestPasteLimit(t *testing.T) {
	long := strings.Repeat("x", maxPaste+100)
	for _, tc := range []struct {
		name string
		in   []string // the reads, in order
		want string
	}{
		{"keys", []string{"jjk"}, "jjk"},
		{"short paste", []string{"a" + pasteStart + "hello" + pasteEnd + "b"}, "a" + pasteStart + "hello" + pasteEnd + "b"},
		{"long paste", []string{pasteStart + long + pasteEnd + "k"}, pasteStart + long[:maxPaste] + pasteEnd + "k"},
		{"long paste in pieces", []string{pasteStart + long[:9000], long[9000:], pasteEnd[:3], pasteEnd[3:] + "k"},
			pasteStart + long[:maxPaste] + pasteEnd + "k"},
		{"escape keys", []string{"\x1b[A\x1b[20~\x1b"}, "\x1b[A\x1b[20~\x1b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l pasteLimit
			var got []byte
			for _, in := range tc.in {
				got = l.filter(got, []byte(in))
			}
			if string(got) != tc.want {
				t.Fatalf("got %d bytes %.40q…, want %d bytes %.40q…", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

// The decoder gives the game the keys and pastes a terminal sends, however the reads
// cut them: a sequence split across reads waits for its rest, a lone Esc or an
// unfinished sequence is taken as it stands once the input pauses, and a paste comes
// whole, with its keys as text.
func TestDecoderGathersSequences(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string // each read is scanned as it comes; the input then pauses
		want  []string
	}{
		{"keys", []string{"hjkl"}, []string{"h", "j", "k", "l"}},
		{"arrow", []string{"\x1b[A"}, []string{"up"}},
		{"arrow split", []string{"\x1b", "[", "B"}, []string{"down"}},
		{"lone esc", []string{"\x1b"}, []string{"esc"}},
		{"alt key", []string{"\x1bx"}, []string{"alt+x"}},
		{"function key", []string{"\x1b[20~"}, []string{"f9"}},
		{"rune split", []string{"\xc3", "\xa9"}, []string{"é"}},
		{"paste", []string{"a" + pasteStart + "hi\rthere" + pasteEnd + "b"}, []string{"a", "paste \"hi\\rthere\"", "b"}},
		{"paste split", []string{pasteStart + "hi", " there\x1b[20", "1~k"}, []string{"paste \"hi there\"", "k"}},
		{"unfinished", []string{"\x1b]52;c;"}, []string{"unknown \"\\x1b]52;c;\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			send := func(ev uv.Event) {
				switch ev := ev.(type) {
				case uv.KeyPressEvent:
					got = append(got, ev.String())
				case uv.PasteEvent:
					got = append(got, fmt.Sprintf("paste %q", ev.Content))
				case uv.UnknownEvent:
					got = append(got, fmt.Sprintf("unknown %q", string(ev)))
				default:
					t.Errorf("unexpected event %T", ev)
				}
			}
			var d decoder
			for _, r := range tc.reads {
				d.buf = append(d.buf, r...)
				d.scan(false, send)
			}
			d.scan(true, send) // the pause: escTimeout with no input
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(d.buf) != 0 || d.paste != nil {
				t.Errorf("%d bytes left undecoded, paste %q", len(d.buf), d.paste)
			}
		})
	}
}

// The key rate: a burst passes, then keys past the rate are dropped; a pause fills the
// burst again; a paste is charged but never dropped; a client past the rate for
// floodClose without a pause is flooding.
func TestKeyBucket(t *testing.T) {
	var b keyBucket
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if fits, _ := b.take(keyBurst, false, now); !fits {
		t.Fatal("a burst was dropped")
	}
	if fits, _ := b.take(10, false, now); fits {
		t.Error("a key past the burst passed")
	}
	now = now.Add(time.Second)
	if fits, _ := b.take(keyRate, false, now); !fits {
		t.Error("a second's keys at the rate were dropped")
	}
	now = now.Add(keyBurst / keyRate * time.Second)
	if fits, flooding := b.take(keyBurst, false, now); !fits || flooding {
		t.Error("after a pause a burst was dropped")
	}
	if fits, _ := b.take(maxPaste, true, now); !fits {
		t.Error("a paste was dropped")
	}
	flooding := false
	for i := 0; i < 1000 && !flooding; i++ {
		now = now.Add(100 * time.Millisecond)
		_, flooding = b.take(readChunk, false, now) // 10 KiB/s
		if flooding && now.Sub(b.over) < floodClose {
			t.Fatalf("flooding after %v", now.Sub(b.over))
		}
	}
	if !flooding {
		t.Error("10 KiB/s of keys for 100 s is no flood")
	}
	var steady keyBucket
	for range 1000 {
		now = now.Add(100 * time.Millisecond)
		if fits, flooding := steady.take(30, false, now); !fits || flooding { // 300 bytes/s: a fast typist's keys and then some
			t.Fatal("keys under the rate were dropped")
		}
	}
}

// Regression (issue 30): a client sending h as fast as it could took two thirds of a core,
// and its excess keys were dropped but the session went on for ever. Past the key rate
// keys are dropped, and a client still past it after floodClose is told why and closed;
// its knight is saved, and a player beside it walks on.
func TestAKeyFloodIsClosed(t *testing.T) {
	ts := startServer(t, t.TempDir())
	flooder := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	flooder.enterDungeon("Flood")
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := bytes.Repeat([]byte{'h'}, 4<<10)
		for time.Since(start) < floodClose+20*time.Second { // bounded: the server closes it long before
			if _, err := flooder.stdin.Write(chunk); err != nil {
				return
			}
		}
	}()
	if !flooder.ended(floodClose + 15*time.Second) {
		t.Fatalf("a flood of keys was not closed in %v", time.Since(start))
	}
	took := time.Since(start)
	<-done
	if out := flooder.finalOutput(); !strings.Contains(screenWords(out), "You sent keys faster than anyone types") {
		t.Errorf("the flooder was not told why:\n%s", out)
	}
	if took < floodClose {
		t.Errorf("closed after %v, before floodClose", took)
	}
	t.Logf("a flood of keys closed after %v", took)
}
