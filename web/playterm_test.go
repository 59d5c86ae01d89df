package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// vtScreen is the page's screen as x/vt's emulator kept it, and the frames made from it
// as encoding/json wrote them: the reference the play screen is held to.
type vtScreen struct {
	em    *vt.Emulator
	size  Size
	shown []string
}

func newVTScreen(t testing.TB, size Size) *vtScreen {
	em := vt.NewEmulator(size.W, size.H)
	go func() { _, _ = io.Copy(io.Discard, em) }()
	t.Cleanup(func() {
		if c, ok := em.InputPipe().(io.Closer); ok {
			_ = c.Close()
		}
	})
	return &vtScreen{em: em, size: size, shown: make([]string, size.H)}
}

// frame writes p and is the frame the page would be sent, nil when no row changed.
func (v *vtScreen) frame(p []byte) []byte {
	_, _ = v.em.Write(p)
	f := playFrame{W: v.size.W, H: v.size.H}
	for y := range v.size.H {
		row := v.row(y)
		if row == v.shown[y] {
			continue
		}
		v.shown[y] = row
		f.Rows = append(f.Rows, json.RawMessage(row))
	}
	if len(f.Rows) == 0 {
		return nil
	}
	b, _ := json.Marshal(f)
	return b
}

// row is row y as [y, runs], each cell's text, colours and attributes from the emulator.
func (v *vtScreen) row(y int) string {
	type run struct {
		text   strings.Builder
		fg, bg string
		attrs  int
	}
	var runs []any
	var cur *run
	end := func() {
		if cur != nil {
			runs = append(runs, []any{cur.text.String(), cur.fg, cur.bg, cur.attrs})
		}
	}
	for x := range v.size.W {
		c := v.em.CellAt(x, y)
		text, fg, bg, attrs := " ", "", "", 0
		if c != nil {
			if c.Width == 0 {
				continue
			}
			if c.Content != "" {
				text = c.Content
			}
			fg, bg, attrs = cssColour(c.Style.Fg), cssColour(c.Style.Bg), playAttrs(c.Style)
		}
		if cur == nil || cur.fg != fg || cur.bg != bg || cur.attrs != attrs {
			end()
			cur = &run{fg: fg, bg: bg, attrs: attrs}
		}
		cur.text.WriteString(text)
	}
	end()
	b, _ := json.Marshal([]any{y, runs})
	return string(b)
}

func cssColour(c color.Color) string {
	if c == nil {
		return ""
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// frame writes p to the play screen and is the frame it would send, nil for none.
func (s *playScreen) frame(p []byte) []byte {
	_, _ = s.term.Write(p)
	b, ok := s.appendFrame(nil)
	if !ok {
		return nil
	}
	return b
}

// withoutBell is frame f as it would be had no bell rung: its bell field taken out, and
// nil for a frame that only rang it.
func withoutBell(f []byte) []byte {
	g := bytes.Replace(f, []byte(`,"bell":true,`), []byte(`,`), 1)
	if bytes.HasSuffix(g, []byte(`,"rows":[]}`)) {
		return nil
	}
	return g
}

// randomFrame is output of the kinds the game writes (app's terminal), at random, on a
// w×h screen: stretches of text from cursor moves (ASCII, walls, wide characters,
// accents, characters JSON escapes), colours and attributes set and reset, blanks and
// lines erased in colour, the screen cleared, the alternate screen left and entered,
// modes, a title string and the bell, the cursor saved and restored, and transcript lines that
// scroll at the bottom.
func randomFrame(r *rand.Rand, w, h int) string {
	words := []string{"Bot qkxetmaw", "()", "│", "──┐", "┌┼╴", "In sight: ", "騎士", "Ga", " ", "EX", "é", "a\u0301",
		`<&>"\`, "x"}
	sgrs := []string{"\x1b[m", "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[3m", "\x1b[4m", "\x1b[4:3m", "\x1b[7m", "\x1b[22m",
		"\x1b[23;24;27m", "\x1b[31m", "\x1b[92;44m", "\x1b[105m", "\x1b[39;49m", "\x1b[38;5;208;48;5;16m",
		"\x1b[38;5;3m", "\x1b[38;2;255;140;0;48;2;0;0;0m", "\x1b[38:2::1:2:3m", "\x1b[48;2;10;20;30m", "\x1b[1;2;3;4;7m", "\x1b[;1m"}
	var b strings.Builder
	for range 1 + r.IntN(30) {
		switch r.IntN(14) {
		case 0, 1, 2, 3, 4:
			x, y := r.IntN(w-8), r.IntN(h)
			b.WriteString("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1) + "H")
			if r.IntN(3) == 0 {
				n := 1 + r.IntN(6)
				b.WriteString("\x1b[" + strconv.Itoa(n) + "C")
				x += n
			}
			room := w - x
			if room > 8 {
				room = 8 + r.IntN(room-8)
			}
			for room > 0 {
				word := words[r.IntN(len(words))]
				// Not a wide character into the last column: x/vt drops it.
				n := ansi.StringWidth(word)
				if n < room || n == room && n == len([]rune(word)) {
					b.WriteString(word)
					room -= n
				} else {
					room = 0
				}
				if r.IntN(3) == 0 {
					b.WriteString(sgrs[r.IntN(len(sgrs))])
				}
			}
		case 5:
			b.WriteString(sgrs[r.IntN(len(sgrs))] + "\x1b[" + strconv.Itoa(1+r.IntN(20)) + "X")
		case 6:
			b.WriteString(sgrs[r.IntN(len(sgrs))] + "\x1b[" + strconv.Itoa(r.IntN(h)+1) + ";1H\x1b[" + []string{"", "0", "1", "2"}[r.IntN(4)] + "K")
		case 7:
			if r.IntN(4) == 0 {
				b.WriteString([]string{"\x1b[H\x1b[2J", "\x1b[m\x1b[H\x1b[J", "\x1b[44m\x1b[5;5H\x1b[1J"}[r.IntN(3)])
			}
		case 8:
			b.WriteString([]string{"\x1b[?25l", "\x1b[?2004h", "\x1b]0;title\x07", "\x1b[?1049h", "\x1b(B", "\x1b[?25h", "\a"}[r.IntN(7)])
		case 9:
			if r.IntN(3) == 0 {
				b.WriteString("\x1b[?1049l")
			}
		case 10:
			b.WriteString([]string{"\x1b7", "\x1b8", "\x1bD", "\x1bM", "\x1b[2A", "\x1b[3B", "\x1b[2D", "\x1b[7G", "\x1b[4d", "\b", "\t"}[r.IntN(11)])
		default:
			b.WriteString("\r\x1b[2K")
			for range r.IntN(6) {
				b.WriteString(words[r.IntN(len(words)-5)])
			}
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

// The play screen sends the page, write for write, the very frames it sent when x/vt's
// emulator kept its terminal and encoding/json wrote them: the game's own walk, and
// random frames of the sequences the game writes, whole and cut anywhere (mid-sequence,
// mid-character), at 80×24 and at a phone's size.
func TestPlayScreenSendsTheSameFrames(t *testing.T) {
	check := func(t *testing.T, size Size, writes [][]byte) {
		t.Helper()
		ref := newVTScreen(t, size)
		s := &playScreen{}
		s.setSize(size)
		for i, p := range writes {
			// x/vt rings no bell: the frames are the same but for it.
			want, got := ref.frame(p), withoutBell(s.frame(p))
			if string(got) != string(want) {
				t.Fatalf("write %d (%q):\n%s", i, p, frameDiff(got, want))
			}
		}
	}
	t.Run("the game", func(t *testing.T) { check(t, Size{W: 80, H: 24}, gameWalk(t)) })
	t.Run("the game in one write", func(t *testing.T) {
		var all []byte
		for _, p := range gameWalk(t) {
			all = append(all, p...)
		}
		check(t, Size{W: 80, H: 24}, [][]byte{all})
	})
	for _, size := range []Size{{W: 80, H: 24}, {W: 43, H: 40}} {
		t.Run(fmt.Sprintf("random %dx%d", size.W, size.H), func(t *testing.T) {
			r := rand.New(rand.NewPCG(45, uint64(size.W)))
			var writes [][]byte
			for range 300 {
				f := []byte(randomFrame(r, size.W, size.H))
				for len(f) > 0 && r.IntN(3) == 0 { // cut anywhere
					n := r.IntN(len(f) + 1)
					writes = append(writes, f[:n])
					f = f[n:]
				}
				writes = append(writes, f)
			}
			check(t, size, writes)
		})
	}
}

// The bell the game rings (issue 47) reaches the page in the next frame, as "bell":true,
// once: with the rows that changed, or in a frame of no rows when none did. A frame
// without a bell has no such field, and the BEL that ends a string (a title) is no bell.
func TestPlayScreenRingsTheBell(t *testing.T) {
	s := newPlayScreen(Size{W: 20, H: 4})
	s.frame([]byte("first")) // the whole screen, sent
	for _, c := range []struct {
		name, write string
		bell        bool
		rows        int
	}{
		{"text", "\x1b[2;1Hno bell", false, 1},
		{"a bell with text", "\x1b[3;1Hcalled\a", true, 1},
		{"the next frame", "\x1b[3;1Hcalled again", false, 1},
		{"a bell alone", "\a", true, 0},
		{"two bells in one write", "\a\x1b[4;1Hx\a", true, 1},
		{"a title's BEL", "\x1b]0;title\a\x1b[1;1Hy", false, 1},
		{"nothing", "", false, -1},
	} {
		f := s.frame([]byte(c.write))
		if c.rows < 0 {
			if f != nil {
				t.Fatalf("%s: a frame, %s", c.name, f)
			}
			continue
		}
		var got playFrame
		if err := json.Unmarshal(f, &got); err != nil {
			t.Fatalf("%s: %s: %v", c.name, f, err)
		}
		if got.Bell != c.bell || len(got.Rows) != c.rows {
			t.Fatalf("%s: %s: want bell %v and %d rows", c.name, f, c.bell, c.rows)
		}
		if !c.bell && bytes.Contains(f, []byte(`"bell":`)) {
			t.Fatalf("%s: a bell field in %s", c.name, f)
		}
	}
}

// A row is encoded as encoding/json encodes it, whatever its characters: < > & and
// quotes escaped, control characters, bad UTF-8 as U+FFFD, U+2028 and U+2029.
func TestAppendJSONString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "<", ">", "&", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x01", "\x1f", "\x7f", "é", "騎",
		"\u2028", "\u2029", "\xff", "\xe2\x94", "🐉", " "}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		want, _ := json.Marshal(b.String())
		if got := appendJSONString(nil, []byte(b.String())); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", b.String(), got, want)
		}
	}
}

// A browser's terminal is small: it keeps no emulator's 4 MiB parser buffer. Forty
// screens that have drawn the game's walk take under 100 KB each of the heap.
func TestPlayScreenIsSmall(t *testing.T) {
	walk := gameWalk(t)
	const n = 40
	screens := make([]*playScreen, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range screens {
		s := &playScreen{}
		s.setSize(Size{W: 80, H: 24})
		for _, p := range walk {
			s.frame(p)
		}
		screens[i] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes of heap a screen", per)
	if per > 100<<10 {
		t.Errorf("%d bytes of heap a screen, want under 100 KB", per)
	}
	runtime.KeepAlive(screens)
}

// frameDiff is the rows of two frames that differ.
func frameDiff(got, want []byte) string {
	rows := func(b []byte) map[int]string {
		var f struct{ Rows []json.RawMessage }
		_ = json.Unmarshal(b, &f)
		m := map[int]string{}
		for _, r := range f.Rows {
			var yr [2]json.RawMessage
			_ = json.Unmarshal(r, &yr)
			y, _ := strconv.Atoi(string(yr[0]))
			m[y] = string(yr[1])
		}
		return m
	}
	g, w := rows(got), rows(want)
	var out strings.Builder
	for y := range 400 {
		if g[y] != w[y] {
			fmt.Fprintf(&out, "row %d:\n got %s\nwant %s\n", y, g[y], w[y])
		}
	}
	return out.String()
}
