package app

import (
	"bytes"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
)

// The PLATO look: plasma-panel orange on black. A theme turns these colours into the
// nearest the terminal's profile can show (256 or 16 colours) or drops them (NO_COLOR).
var (
	platoOrange = lipgloss.Color("#FF8C00")
	platoBright = lipgloss.Color("#FFB347")
	platoBlack  = lipgloss.Color("#000000")
)

// class says how one cell of the screen is styled.
type class uint8

const (
	clsText class = iota
	clsWall
	clsDoor
	clsSelf
	clsOther
	clsFeature
	clsDim
	clsTitle
	clsMonster
	numClasses
)

// theme holds one style per class, and the escape sequences each style puts around a run
// of plain text, worked out once so a frame needs no styling calls.
type theme struct {
	styles      [numClasses]lipgloss.Style
	open, close [numClasses]string
	// plainBlank marks the classes in which a blank cell looks like any other blank: no
	// underline, no reverse video (every class has the same background).
	plainBlank [numClasses]bool
	// alike marks pairs of classes drawn with the same sequences (in the profile the
	// theme was made for: with no colour, several classes look the same).
	alike [numClasses][numClasses]bool
}

// The high-contrast look: bright white on black, doors and the knight in bright yellow,
// monsters in bright cyan, and no faint text (faint is what low vision loses first).
var (
	contrastWhite  = lipgloss.Color("#FFFFFF")
	contrastGrey   = lipgloss.Color("#D0D0D0")
	contrastYellow = lipgloss.Color("#FFFF00")
	contrastCyan   = lipgloss.Color("#00FFFF")
)

// Theme names, as world.Options.Theme keeps them.
const (
	themePlato    = ""
	themeContrast = "contrast"
)

// themeFor builds the theme an option names, in the colours a terminal of profile p
// shows; an unknown name is PLATO orange.
func themeFor(name string, p colorprofile.Profile) theme {
	t := platoTheme()
	if name == themeContrast {
		t = contrastTheme()
	}
	t.downsample(p)
	return t
}

// themes are the themes sessions draw with, made once for each look and profile and
// shared: a theme is 6 KB, and never changes once made.
var themes sync.Map // themeKey → *theme

type themeKey struct {
	contrast bool
	p        colorprofile.Profile
}

// sharedTheme is themeFor(name, p), made once.
func sharedTheme(name string, p colorprofile.Profile) *theme {
	k := themeKey{name == themeContrast, p}
	if t, ok := themes.Load(k); ok {
		return t.(*theme)
	}
	t := themeFor(name, p)
	got, _ := themes.LoadOrStore(k, &t)
	return got.(*theme)
}

func contrastTheme() theme {
	base := lipgloss.NewStyle().Foreground(contrastWhite).Background(platoBlack)
	var t theme
	for i := range t.styles {
		t.styles[i] = base
	}
	t.styles[clsDoor] = base.Foreground(contrastYellow)
	t.styles[clsSelf] = base.Foreground(contrastYellow).Bold(true)
	t.styles[clsOther] = base.Reverse(true)
	t.styles[clsFeature] = base.Foreground(contrastYellow).Bold(true)
	t.styles[clsDim] = base.Foreground(contrastGrey)
	t.styles[clsTitle] = base.Foreground(contrastYellow).Bold(true)
	t.styles[clsMonster] = base.Foreground(contrastCyan).Bold(true).Underline(true)
	t.finish()
	return t
}

func platoTheme() theme {
	base := lipgloss.NewStyle().Foreground(platoOrange).Background(platoBlack)
	var t theme
	for i := range t.styles {
		t.styles[i] = base
	}
	t.styles[clsDoor] = base.Foreground(platoBright)
	t.styles[clsSelf] = base.Foreground(platoBright).Bold(true)
	t.styles[clsOther] = base.Reverse(true)
	t.styles[clsFeature] = base.Bold(true)
	t.styles[clsDim] = base.Faint(true)
	t.styles[clsTitle] = base.Bold(true)
	t.styles[clsMonster] = base.Foreground(platoBright).Bold(true).Underline(true)
	t.finish()
	return t
}

// finish works out what each style writes around a run and whether its blanks are plain.
func (t *theme) finish() {
	for i, st := range t.styles {
		t.open[i], t.close[i] = wrapping(st)
		t.plainBlank[i] = !st.GetUnderline() && !st.GetReverse() && st.GetBackground() == t.styles[clsText].GetBackground()
	}
	t.compare()
}

// downsample turns the theme's sequences into what a terminal of profile p shows, as
// colorprofile does for any output: the nearest of 256 or 16 colours, or none.
func (t *theme) downsample(p colorprofile.Profile) {
	if p == colorprofile.Unknown || p == colorprofile.TrueColor {
		return
	}
	var b bytes.Buffer
	w := colorprofile.Writer{Forward: &b, Profile: p}
	conv := func(seq string) string {
		b.Reset()
		_, _ = w.WriteString(seq) // a bytes.Buffer takes every write
		return b.String()
	}
	for i := range t.open {
		t.open[i], t.close[i] = conv(t.open[i]), conv(t.close[i])
	}
	t.compare()
}

// compare works out which classes are drawn alike.
func (t *theme) compare() {
	for i := range t.alike {
		for j := range t.alike[i] {
			t.alike[i][j] = t.open[i] == t.open[j] && t.close[i] == t.close[j]
		}
	}
}

// wrapping is what a style writes before and after a run of plain text: lipgloss renders a
// one-line run as its opening sequence, the text, and a reset.
func wrapping(st lipgloss.Style) (open, close string) {
	const probe = "x"
	out := st.Render(probe)
	i := strings.Index(out, probe)
	return out[:i], out[i+len(probe):]
}
