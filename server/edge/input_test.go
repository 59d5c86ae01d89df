package edge

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

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
	p := StartInput(in, func(ev uv.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case uv.UnknownEvent:
			unknown = max(unknown, len(ev))
		case uv.KeyPressEvent:
			keys++
		}
	}, nil)
	defer p.Stop()
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
// FloodClose without a pause is flooding.
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
		if flooding && now.Sub(b.over) < FloodClose {
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

// viewReady stands for the program's message that a view waits.
type viewReady struct{}

// The pump's parser waits for a session's views beside its keys (Wait): a token on
// Ready sends the message only once the program has asked (a token on Arm), one message
// an ask, and the wait goes on after the client's input has ended, until Stop.
func TestPumpWaitsForViews(t *testing.T) {
	arm, ready := make(chan struct{}, 1), make(chan struct{}, 1)
	got := make(chan uv.Event, 4)
	r, w := io.Pipe()
	p := StartGameInput(nil, r, func(ev uv.Event) { got <- ev }, nil, Wait{Arm: arm, Ready: ready, Msg: viewReady{}})
	defer p.Stop()
	next := func(what string) uv.Event {
		t.Helper()
		select {
		case ev := <-got:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s in 5 s", what)
			return nil
		}
	}
	ready <- struct{}{} // a view, before the program asked
	_, _ = w.Write([]byte("j"))
	if ev, ok := next("key").(uv.KeyPressEvent); !ok || ev.Text != "j" {
		t.Fatalf("got %#v, want the key j (a view not asked for is not told)", ev)
	}
	arm <- struct{}{}
	if ev := next("view"); ev != (viewReady{}) {
		t.Fatalf("got %#v, want the view's message", ev)
	}
	_ = w.Close() // the client's input ends; the views go on
	ready <- struct{}{}
	arm <- struct{}{}
	if ev := next("view after the input ended"); ev != (viewReady{}) {
		t.Fatalf("got %#v, want the view's message", ev)
	}
}
