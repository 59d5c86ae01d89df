package app

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
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
	// change[a][b] is what takes the terminal from class a's look to class b's: only
	// the attributes and colours that differ (sgrChange), or a reset and b's opening
	// when that is shorter. Most of a frame's changes are between classes that differ in
	// one attribute (faint and not), where this is 4 or 5 bytes instead of 22.
	change [numClasses][numClasses]string
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

// compare works out which classes are drawn alike, and the changes between them.
func (t *theme) compare() {
	for i := range t.alike {
		for j := range t.alike[i] {
			t.alike[i][j] = t.open[i] == t.open[j] && t.close[i] == t.close[j]
			t.change[i][j] = t.close[i] + t.open[j]
			if d, ok := sgrChange(t.open[i], t.open[j]); ok && len(d) < len(t.change[i][j]) && t.close[i] == ansi.ResetStyle {
				t.change[i][j] = d
			}
		}
	}
}

// sgrLook is what an SGR opening sets: attributes by their number (1 bold, 2 faint, 3
// italic, 4 underline, 5 blink, 7 reverse, 8 hidden, 9 crossed out), and the
// foreground, background and underline colours as their parameters ("" for none).
type sgrLook struct {
	attrs          [10]bool
	fg, bg, ulCol  string
	underlineStyle string // the parameter of an underline given with a style ("4:3")
}

// parseSGR reads an opening made of SGR sequences from a reset; ok is false for anything
// else, which sgrChange then leaves to a reset.
func parseSGR(seq string) (l sgrLook, ok bool) {
	for seq != "" {
		rest, found := strings.CutPrefix(seq, "\x1b[")
		end := strings.IndexByte(rest, 'm')
		if !found || end < 0 {
			return l, false
		}
		params := strings.Split(rest[:end], ";")
		seq = rest[end+1:]
		for i := 0; i < len(params); {
			n, ok := l.read(params[i:])
			if !ok {
				return l, false
			}
			i += n
		}
	}
	return l, true
}

// read reads the SGR parameter that starts params into the look, and says how many
// parameters it took (an extended colour takes three or five); ok is false for one it
// does not know.
func (l *sgrLook) read(params []string) (n int, ok bool) {
	switch p := params[0]; {
	case p == "" || p == "0":
		*l = sgrLook{}
	case p == "38" || p == "48" || p == "58":
		return l.readColour(params)
	case len(p) == 1 && p[0] >= '1' && p[0] <= '9' && p != "6":
		l.attrs[p[0]-'0'] = true
	case strings.HasPrefix(p, "4:"):
		l.attrs[4], l.underlineStyle = true, p
	case len(p) == 2 && (p[0] == '3' || p[0] == '9') && p[1] >= '0' && p[1] <= '7':
		l.fg = p
	case len(p) == 2 && p[0] == '4' && p[1] >= '0' && p[1] <= '7',
		len(p) == 3 && p[:2] == "10" && p[2] >= '0' && p[2] <= '7':
		l.bg = p
	default:
		return 0, false
	}
	return 1, true
}

// readColour reads an extended colour (38, 48 or 58, then 5;n or 2;r;g;b) into the look.
func (l *sgrLook) readColour(params []string) (n int, ok bool) {
	n = 3
	if len(params) > 1 && params[1] == "2" {
		n = 5
	}
	if n > len(params) {
		return 0, false
	}
	c := strings.Join(params[:n], ";")
	switch params[0] {
	case "38":
		l.fg = c
	case "48":
		l.bg = c
	default:
		l.ulCol = c
	}
	return n, true
}

// sgrChange is one SGR sequence that takes the terminal from the look opened by from
// to the look opened by to ("" when they look the same); ok is false when either is
// not plain SGR.
func sgrChange(from, to string) (string, bool) {
	a, okA := parseSGR(from)
	b, okB := parseSGR(to)
	if !okA || !okB {
		return "", false
	}
	var ps []string
	// 22 ends both bold and faint; whichever of them the new look has goes on again.
	if a.attrs[1] && !b.attrs[1] || a.attrs[2] && !b.attrs[2] {
		ps = append(ps, "22")
		a.attrs[1], a.attrs[2] = false, false
	}
	offs := [10]string{3: "23", 4: "24", 5: "25", 7: "27", 8: "28", 9: "29"}
	for n := range b.attrs {
		switch {
		case n == 4 && b.attrs[4] && b.underlineStyle != a.underlineStyle:
			ps = append(ps, cmp.Or(b.underlineStyle, "4"))
		case a.attrs[n] && !b.attrs[n]:
			ps = append(ps, offs[n])
		case !a.attrs[n] && b.attrs[n]:
			ps = append(ps, strconv.Itoa(n))
		}
	}
	for _, c := range []struct{ was, now, off string }{{a.fg, b.fg, "39"}, {a.bg, b.bg, "49"}, {a.ulCol, b.ulCol, "59"}} {
		if c.was != c.now {
			ps = append(ps, cmp.Or(c.now, c.off))
		}
	}
	if len(ps) == 0 {
		return "", true
	}
	return "\x1b[" + strings.Join(ps, ";") + "m", true
}

// wrapping is what a style writes before and after a run of plain text: lipgloss renders a
// one-line run as its opening sequence, the text, and a reset.
func wrapping(st lipgloss.Style) (open, close string) {
	const probe = "x"
	out := st.Render(probe)
	i := strings.Index(out, probe)
	return out[:i], out[i+len(probe):]
}
