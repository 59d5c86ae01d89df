package app

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// testRunes are what random frames are made of: blanks, letters, the map's box drawing,
// wide characters that fill two columns, and a combining mark, which takes none.
var testRunes = []rune("     abcXYZ#@.·─│┼╋世界龍\u0301")

// blankRows blanks n random stretches of rows of c, of up to a whole row, in one class: a
// screen changing to another leaves long runs of blanks.
func blankRows(r *rand.Rand, c *canvas, n int) {
	for range n {
		y, x := r.IntN(c.h), r.IntN(c.w)
		cls := class(r.IntN(int(numClasses)))
		for i := x; i < min(c.w, x+r.IntN(c.w)+1); i++ {
			c.set(i, y, ' ', cls)
		}
	}
}

// randomChange changes n random cells of c, with random runes and classes.
func randomChange(r *rand.Rand, c *canvas, n int) {
	for range n {
		x, y := r.IntN(c.w), r.IntN(c.h)
		c.set(x, y, testRunes[r.IntN(len(testRunes))], class(r.IntN(int(numClasses))))
	}
}

// checkScreen fails unless the emulator shows c cell for cell, and in the same styles as
// the emulator want (of c's size) shows when it is given c whole.
func checkScreen(t *testing.T, step int, em, want *vt.Emulator, c *canvas, th *theme) {
	t.Helper()
	var whole bytes.Buffer
	ref := terminal{out: &whole}
	copyOf := &canvas{w: c.w, h: c.h, cells: append([]cell(nil), c.cells...)}
	ref.paint(copyOf, th) // clears the screen first: nothing of the last check stays
	_, _ = want.Write(whole.Bytes())
	for y := range c.h {
		for x := range c.w {
			g, w := em.CellAt(x, y), want.CellAt(x, y)
			r := c.cells[y*c.w+x].r()
			content := string(r)
			if r == wideRest {
				content = ""
			}
			if g == nil || g.Content != content || w.Content != content {
				t.Fatalf("step %d: cell %d,%d shows %q (whole frame: %q), want %q\nscreen:\n%s", step, x, y, g.Content, w.Content, content, em.String())
			}
			// A blank shows only its background, underline and reverse video (blanks join
			// the styled runs they stand in).
			same := g.Style.Equal(&w.Style)
			if content == " " {
				same = colorsEqual(g.Style.Bg, w.Style.Bg) && g.Style.Underline == w.Style.Underline &&
					g.Style.Attrs&uv.AttrReverse == w.Style.Attrs&uv.AttrReverse
			}
			if !same {
				t.Fatalf("step %d: cell %d,%d (%q) is styled %+v, the whole frame %+v", step, x, y, content, g.Style, w.Style)
			}
		}
	}
}

// Whatever the frames, the terminal shows exactly the last one: hundreds of seeded random
// frames, small changes and large, wide characters written over, new sizes and new
// colours, each painted as changes to the one before and read back by a terminal
// emulator.
func TestPaintShowsEveryFrameExactly(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1977))
			profiles := []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI, colorprofile.ASCII}
			th := themeFor(themePlato, profiles[seed%4])
			var out bytes.Buffer
			term := terminal{out: &out, bce: seed%2 == 0}
			w, h := 30, 8
			em, want := vt.NewEmulator(w, h), vt.NewEmulator(w, h)
			prev := newCanvas(w, h)
			for step := range 300 {
				switch r.IntN(40) {
				case 0: // the window changes size
					w, h = 10+r.IntN(30), 3+r.IntN(10)
					em.Resize(w, h)
					want = vt.NewEmulator(w, h)
					prev = newCanvas(w, h)
				case 1: // the colours change
					th = themeFor([]string{themePlato, themeContrast}[r.IntN(2)], profiles[r.IntN(4)])
					term.redraw()
				}
				c := term.canvas(w, h)
				copy(c.cells, prev.cells)
				randomChange(r, c, []int{0, 1, 3, 20, w * h}[r.IntN(5)])
				blankRows(r, c, r.IntN(3))
				prev = &canvas{w: w, h: h, cells: append([]cell(nil), c.cells...)}
				out.Reset()
				term.paint(c, &th)
				_, _ = em.Write(out.Bytes())
				checkScreen(t, step, em, want, prev, &th)
			}
		})
	}
}

// A frame like the last writes nothing; one changed cell writes that cell, where it is.
func TestPaintWritesOnlyWhatChanged(t *testing.T) {
	th := themeFor(themePlato, colorprofile.TrueColor)
	var out bytes.Buffer
	term := terminal{out: &out}
	c := term.canvas(80, 24)
	c.text(2, 2, "Bedivere", clsSelf)
	term.paint(c, &th)
	if s := out.String(); !strings.HasPrefix(s, syncStart+enterFull+clearScreen) || !strings.HasSuffix(s, syncEnd) {
		t.Fatalf("the first frame does not take the screen and clear it, as one update: %q", s[:min(len(s), 40)])
	}
	whole := out.Len()

	out.Reset()
	c = term.canvas(80, 24)
	c.text(2, 2, "Bedivere", clsSelf)
	term.paint(c, &th)
	if out.Len() != 0 {
		t.Fatalf("an unchanged frame wrote %q", out.String())
	}

	out.Reset()
	c = term.canvas(80, 24)
	c.text(2, 2, "Bedivere", clsSelf)
	c.set(40, 10, '@', clsMonster)
	term.paint(c, &th)
	got := out.String()
	if !strings.HasPrefix(got, "\x1b[11;41H") || strings.Count(got, "H") != 1 || !strings.Contains(got, "@") || len(got) > 60 {
		t.Fatalf("one changed cell wrote %q (%d bytes; the whole frame was %d)", got, len(got), whole)
	}
}

// Cells are terminal columns: a wide character takes two, a combining mark none, a wide
// character that does not fit at the edge is a blank, and writing over half of a wide
// character blanks the other half.
func TestCanvasCellsAreColumns(t *testing.T) {
	c := newCanvas(6, 1)
	c.text(0, 0, "a世e\u0301", clsText)
	if got := c.render(nil, true); got != "a世e  " {
		t.Fatalf("got %q", got)
	}
	c.set(2, 0, 'x', clsText) // the right half of 世
	if got := c.render(nil, true); got != "a xe  " {
		t.Fatalf("after writing over a right half: %q", got)
	}
	c.text(3, 0, "界", clsText)
	c.set(3, 0, 'y', clsText) // the left half of 界
	if got := c.render(nil, true); got != "a xy  " {
		t.Fatalf("after writing over a left half: %q", got)
	}
	c.text(5, 0, "龍", clsText)
	if got := c.render(nil, true); got != "a xy  " {
		t.Fatalf("a wide character at the edge: %q", got)
	}
	// Drawn onto another canvas, a wide character keeps both its halves.
	src := newCanvas(4, 1)
	src.text(0, 0, "b世c", clsText)
	dst := newCanvas(6, 1)
	dst.blit(src, 1, 0)
	if got := dst.render(nil, true); got != " b世c " {
		t.Fatalf("blit of a wide character: %q", got)
	}
}

// Erasing in colour is for the terminals that do it; others get every cell written.
func TestErasesInColour(t *testing.T) {
	for term, want := range map[string]bool{"xterm-256color": true, "xterm": true, "screen": true,
		"tmux-256color": true, "alacritty": true, "linux": true, "vt100": false, "dumb": false, "": false} {
		if got := erasesInColour(term); got != want {
			t.Errorf("%q: %v, want %v", term, got, want)
		}
	}
}

// The terminal is given back as it was: the normal screen, the cursor, paste as keys.
func TestRestoreGivesTheTerminalBack(t *testing.T) {
	th := themeFor(themePlato, colorprofile.TrueColor)
	var out bytes.Buffer
	term := terminal{out: &out}
	em := vt.NewEmulator(80, 24)
	term.paint(term.canvas(80, 24), &th)
	_, _ = em.Write(out.Bytes())
	if !em.IsAltScreen() || !em.CursorHidden() {
		t.Fatal("the game is not on the alternate screen with the cursor hidden")
	}
	out.Reset()
	term.restore()
	_, _ = em.Write(out.Bytes())
	if em.IsAltScreen() || em.CursorHidden() || !strings.Contains(out.String(), ansi.ResetModeBracketedPaste) {
		t.Fatalf("the terminal was not given back: %q", out.String())
	}
	out.Reset()
	term.restore()
	if out.Len() != 0 {
		t.Fatalf("a second restore wrote %q", out.String())
	}
}

// Issue 28: screen-reader mode's lines were cut by the terminal mid-word ("press Ent" /
// "er."). The transcript's writer breaks each at the terminal's width between words.
func TestPlainLinesBreakBetweenWordsAtTheWidth(t *testing.T) {
	var out bytes.Buffer
	term := terminal{out: &out}
	text := "You stand on the exit of level 1. To leave the dungeon, press Enter."
	term.plain([]string{text, "a short one\nand a second line"}, "> ", false, 20)
	lines := strings.Split(out.String(), "\r\n")
	var said []string
	for _, l := range lines {
		l = strings.TrimPrefix(ansi.Strip(l), "\r")
		if textWidth(l) > 20 {
			t.Errorf("a line of %d columns at 20: %q", textWidth(l), l)
		}
		said = append(said, l)
	}
	if got := words(strings.Join(said, " ")); !strings.Contains(got, words(text)) || !strings.Contains(got, "a short one and a second line") {
		t.Errorf("the words are not whole: %q", said)
	}
	if !strings.HasSuffix(out.String(), "\r\n> ") {
		t.Errorf("the prompt does not end the transcript: %q", out.String())
	}
}

// A frame written whole (the first, a new size, new colours) on a terminal that erases in
// its colours is compared with a blank screen from the pool, not with one made for it
// (80×24 cells, 7.5 KB), and the screen it replaces goes back to the pool.
func TestAWholeFrameMakesNoScreen(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector's sync.Pool drops what it is given at random")
	}
	views := crowdViews(t, world.New(world.Config{Seed: 1977, Depth: 3}), "Bedivere", 2)
	m := crowdModel(t, views, 80, 24, io.Discard)
	whole := func() {
		m.term.redraw()
		m.frameOK = false
		m.View()
	}
	if _, bytes, big := frameCost(20, whole); big > 0 {
		t.Errorf("a frame written whole makes %.1f blocks of %d bytes or more (%.0f bytes in all)", big, bigBlock, bytes)
	}
}

// A frame longer than syncFrom (a screen drawn whole) is one synchronized update, its
// marks around all of it once; a step's short frame goes without them. The bytes between
// the marks are the frame as it was.
func TestALongFrameIsOneSynchronizedUpdate(t *testing.T) {
	th := themeFor(themePlato, colorprofile.TrueColor)
	var out bytes.Buffer
	term := terminal{out: &out}
	c := term.canvas(80, 24)
	for y := range 24 {
		c.text(0, y, strings.Repeat("Bedivere ", 8), clsSelf)
	}
	term.paint(c, &th)
	whole := out.String()
	if len(whole) <= syncFrom || strings.Count(whole, syncStart) != 1 || strings.Count(whole, syncEnd) != 1 ||
		!strings.HasPrefix(whole, syncStart) || !strings.HasSuffix(whole, syncEnd) {
		t.Fatalf("a whole screen of %d bytes is not one synchronized update: %q ... %q", len(whole), whole[:40], whole[len(whole)-20:])
	}
	for _, n := range []int{0, 1, syncFrom, syncFrom + 1, 3 * syncFrom} {
		frame := []byte(strings.Repeat("x", n-min(n, 3)) + "end"[:min(n, 3)])
		want := string(frame)
		if n > syncFrom {
			want = syncStart + want + syncEnd
		}
		roomy := append(make([]byte, 0, n+64), frame...) // the marks fit in its buffer: the frame moves along in place
		for _, b := range [][]byte{slices.Clip(frame), roomy} {
			if got := string(synchronized(b)); got != want {
				t.Errorf("a frame of %d bytes (room for %d) is sent as %q..., want %q...", n, cap(b), got[:min(len(got), 12)], want[:min(len(want), 12)])
			}
		}
	}

	out.Reset()
	c = term.canvas(80, 24)
	for y := range 24 {
		c.text(0, y, strings.Repeat("Bedivere ", 8), clsSelf)
	}
	c.text(2, 2, "Gawain", clsText)
	term.paint(c, &th)
	if s := out.String(); len(s) == 0 || len(s) > syncFrom || strings.Contains(s, syncStart) || strings.Contains(s, syncEnd) {
		t.Fatalf("a step's frame of %d bytes: %q", len(s), s)
	}
}
