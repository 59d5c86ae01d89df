package main

import (
	"crypto/ed25519"
	crand "crypto/rand"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// emulator is x/vt's emulator, the text screen's reference, with its answers drained.
func emulator(t *testing.T) *vt.Emulator {
	t.Helper()
	em := vt.NewEmulator(termWidth, termHeight)
	em.SetScrollbackSize(1)
	go func() { _, _ = io.Copy(io.Discard, em) }()
	t.Cleanup(func() {
		if pw, ok := em.InputPipe().(*io.PipeWriter); ok {
			_ = pw.CloseWithError(io.EOF)
		}
	})
	return em
}

// emulatorText is the emulator's screen as textScreen.screen gives it: a line a row,
// trailing blanks left out, the second column of a wide character skipped.
func emulatorText(em *vt.Emulator) string {
	var b strings.Builder
	for y := range em.Height() {
		if y > 0 {
			b.WriteByte('\n')
		}
		var row strings.Builder
		for x := range em.Width() {
			switch c := em.CellAt(x, y); {
			case c == nil || c.Width == 0 && c.Content == "":
			case c.Content == "":
				row.WriteByte(' ')
			default:
				row.WriteString(c.Content)
			}
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
	}
	return b.String()
}

// randomFrame is output of the kinds the game writes (app's terminal), at random: rows'
// stretches of text (ASCII, walls, wide characters, accents), each from a cursor move
// and ending by the right edge, blanks erased, lines erased, the screen cleared,
// colours and modes, a title string, and the screen-reader transcript's lines, which
// scroll at the bottom.
func randomFrame(r *rand.Rand) string {
	words := []string{"Bot qkxetmaw", "()", "│", "──┐", "┌┼╴", "In sight: ", "騎士", "Ga", " ", "EX", "é", "a\u0301", "x"}
	var b strings.Builder
	for range 1 + r.IntN(30) {
		switch r.IntN(12) {
		case 0, 1, 2, 3, 4:
			// A stretch: the cursor moved to it (or on from the last), its cells up to
			// the right edge.
			x, y := r.IntN(termWidth-8), r.IntN(termHeight)
			b.WriteString("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1) + "H")
			if r.IntN(3) == 0 { // and on, as the game skips a few unchanged cells
				n := 1 + r.IntN(6)
				b.WriteString("\x1b[" + strconv.Itoa(n) + "C")
				x += n
			}
			room := termWidth - x
			if room > 8 {
				room = 8 + r.IntN(room-8)
			}
			for room > 0 {
				w := words[r.IntN(len(words))]
				// Not a wide character into the last column: x/vt drops it (the tool's
				// screen keeps it, as xterm does).
				n := ansi.StringWidth(w)
				if wide := n > utf8.RuneCountInString(w); n < room || n == room && !wide {
					b.WriteString(w)
					room -= n
				} else {
					room = 0
				}
				if r.IntN(5) == 0 {
					b.WriteString([]string{"\x1b[m", "\x1b[2;38;5;208;48;5;16m", "\x1b[1;7m", "\x1b[38:2:1:2:3m", "\x1b[22m"}[r.IntN(5)])
				}
			}
		case 5:
			b.WriteString("\x1b[" + strconv.Itoa(1+r.IntN(20)) + "X")
		case 6:
			b.WriteString("\x1b[" + strconv.Itoa(r.IntN(24)+1) + ";1H\x1b[" + []string{"", "0", "2"}[r.IntN(3)] + "K")
		case 7:
			if r.IntN(4) == 0 {
				b.WriteString([]string{"\x1b[H\x1b[2J", "\x1b[m\x1b[H\x1b[J"}[r.IntN(2)])
			}
		case 8:
			b.WriteString([]string{"\x1b[?25l", "\x1b[?2004h", "\x1b]0;title\x07", "\x1b[?1049h", "\x1b(B", "\x1b[?25h"}[r.IntN(6)])
		case 9:
			if r.IntN(3) == 0 {
				b.WriteString("\x1b[?1049l") // the transcript's normal screen
			}
		default:
			// A transcript line: a carriage return, a line no wider than the screen, a
			// line feed (the screen scrolls at the bottom).
			b.WriteString("\r\x1b[2K")
			for range r.IntN(6) {
				b.WriteString(words[r.IntN(len(words)-3)])
			}
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

// The text screen shows what x/vt's emulator shows, whatever the frames and however the
// reads cut them: mid-sequence, mid-character.
func TestTextScreenIsTheEmulatorsText(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 4))
	for run := range 200 {
		em, ts := emulator(t), newTextScreen(termWidth, termHeight)
		var sent strings.Builder
		for range 20 {
			frame := randomFrame(r)
			sent.WriteString(frame)
			_, _ = em.WriteString(frame)
			for b := []byte(frame); len(b) > 0; { // reads of 1 to 16 bytes
				n := min(len(b), 1+r.IntN(16))
				_, _ = ts.Write(b[:n])
				b = b[n:]
			}
			if got, want := ts.screen(), emulatorText(em); got != want {
				t.Fatalf("run %d, after ...%q:\ntext screen\n%s\nemulator\n%s", run, tailOf(sent.String()), got, want)
			}
		}
		for y := range termHeight {
			var want strings.Builder
			for x := range termWidth {
				if c := em.CellAt(x, y); c != nil {
					want.WriteString(c.Content)
				}
			}
			if got := ts.lines(y, y+1); got != want.String()+"\n" {
				t.Fatalf("run %d: lines(%d) = %q, want %q", run, y, got, want.String())
			}
		}
	}
}

// A sequence with more parameters than x/ansi's parser holds, a string that never ends,
// invalid UTF-8 and a lone continuation byte are read without harm, and the text after
// them shows.
func TestTextScreenTakesBadOutput(t *testing.T) {
	ts, em := newTextScreen(termWidth, termHeight), emulator(t)
	long := "\x1b[" + strings.Repeat("12;", 40) + "m"
	bad := "\xffa\x80b\x9b5C" + "one\xe2\x94"
	_, _ = ts.Write([]byte(long + bad))
	_, _ = em.WriteString(long + bad)
	if got, want := ts.screen(), emulatorText(em); got != want {
		t.Fatalf("text screen\n%s\nemulator\n%s", got, want)
	}
	_, _ = ts.Write([]byte("\x1b]0;" + strings.Repeat("t", 2*maxTail)))
	if len(ts.tail) != 0 {
		t.Fatalf("an endless string is kept: %d bytes", len(ts.tail))
	}
	_, _ = ts.Write([]byte("\x07\x1b[2;1Htwo"))
	if got := ts.lines(1, 2); !strings.HasPrefix(got, "two ") {
		t.Fatalf("line 1 = %q", got)
	}
}

func BenchmarkTextScreen(b *testing.B) {
	frames := make([][]byte, 64)
	r := rand.New(rand.NewPCG(1, 2))
	size := 0
	for i := range frames {
		frames[i] = []byte(randomFrame(r))
		size += len(frames[i])
	}
	ts := newTextScreen(termWidth, termHeight)
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, f := range frames {
			_, _ = ts.Write(f)
		}
		_ = ts.screen()
	}
}

// tailOf is the end of s, for a failure's message.
func tailOf(s string) string { return s[max(0, len(s)-400):] }

// The text screen reads the game itself as x/vt does: a session walks in through the
// title, the roll and the name, then walks, opens the map and the help and goes back,
// says a line and waits in the dungeon. After every read of its output the two show
// the same text.
func TestTextScreenReadsTheGame(t *testing.T) {
	t.Parallel()
	g := runGame(t, t.TempDir(), "127.0.0.1:0")
	_, priv, err := ed25519.GenerateKey(crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	client, err := gossh.Dial("tcp", g.addr, &gossh.ClientConfig{
		User: "reader", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty(termType, termHeight, termWidth, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	stdin, _ := sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	reads := make(chan []byte, 64)
	go func() {
		defer close(reads)
		for {
			buf := make([]byte, 1+rand.IntN(512)) // reads of any size cut sequences anywhere
			n, err := stdout.Read(buf)
			if n > 0 {
				reads <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	em, ts := emulator(t), newTextScreen(termWidth, termHeight)
	wk := newWalker(gameScript, termWidth, termHeight, "Bot abc")
	// next reads until the screen shows want, checking the two screens after each read.
	next := func(want string) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case b, ok := <-reads:
				if !ok {
					t.Fatalf("the session ended, waiting for %q:\n%s", want, ts.screen())
				}
				_, _ = em.Write(b)
				_, _ = ts.Write(b)
				send, _ := wk.feed(b)
				for _, k := range send {
					_, _ = io.WriteString(stdin, k)
				}
				if len(ts.tail) == 0 {
					if got, emu := ts.screen(), emulatorText(em); got != emu {
						t.Fatalf("text screen\n%s\nemulator\n%s", got, emu)
					}
				}
				if strings.Contains(ts.screen(), want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q on the screen:\n%s", want, ts.screen())
			}
		}
	}
	next(dungeonStatus) // the walker takes it in
	for _, k := range []string{"l", "l", "j", "h", "k", "m", "x", "?", "x", "l", "j", "j"} {
		_, _ = io.WriteString(stdin, k)
		switch k {
		case "m":
			next("Map of level")
		case "?":
			next("HELP")
		case "x":
			next(dungeonStatus)
		default:
			// A step, or a bump into a wall, which says so: either draws a frame (no
			// key here bumps three times running, which would not).
			next(dungeonStatus)
		}
	}
	_, _ = io.WriteString(stdin, keyEnter+"hello all"+keyEnter)
	next("hello all")
}

// Whatever a server sends, cut wherever, the text screen takes it: no panic, every row
// as wide as the screen, and no unfinished sequence held past its bound.
func FuzzTextScreenTakesAnyOutput(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		f.Add([]byte(randomFrame(r)), uint8(r.IntN(256)))
	}
	f.Add([]byte("\x1b["+strings.Repeat("1;", 60)+"H\x9b\xff\xe2\x94"), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		ts := newTextScreen(termWidth, termHeight)
		n := int(cut) % (len(b) + 1)
		_, _ = ts.Write(b[:n])
		_, _ = ts.Write(b[n:])
		if rows := strings.Count(ts.screen(), "\n") + 1; rows != termHeight {
			t.Fatalf("%d rows", rows)
		}
		for y := range termHeight {
			if w := ansi.StringWidth(strings.TrimSuffix(ts.lines(y, y+1), "\n")); w > termWidth {
				t.Fatalf("row %d is %d columns", y, w)
			}
		}
		if len(ts.tail) > maxTail {
			t.Fatalf("%d bytes held", len(ts.tail))
		}
	})
}

// BenchmarkTextScreenSteer is a walker's use of its screen: a frame or two between
// keys, and the screen read at each key.
func BenchmarkTextScreenSteer(b *testing.B) {
	frames := make([][]byte, 64)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range frames {
		frames[i] = []byte(randomFrame(r))
	}
	ts := newTextScreen(termWidth, termHeight)
	i := 0
	for b.Loop() {
		_, _ = ts.Write(frames[i%len(frames)])
		_, _ = ts.Write(frames[(i+1)%len(frames)])
		benchScreen = ts.screen()
		i += 2
	}
}

// benchScreen keeps what a benchmark read, so the reading is not left out.
var benchScreen string
