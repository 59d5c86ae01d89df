package app

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// The PLATO look: plasma-panel orange on black. Bubble Tea turns these colours into the
// nearest the client's profile can show (256 or 16 colours) or drops them (NO_COLOR).
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

// themeFor builds the theme an option names; an unknown name is PLATO orange.
func themeFor(name string) theme {
	if name == themeContrast {
		return contrastTheme()
	}
	return platoTheme()
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
}

// wrapping is what a style writes before and after a run of plain text: lipgloss renders a
// one-line run as its opening sequence, the text, and a reset.
func wrapping(st lipgloss.Style) (open, close string) {
	const probe = "x"
	out := st.Render(probe)
	i := strings.Index(out, probe)
	return out[:i], out[i+len(probe):]
}
