package app

import (
	"image/color"

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

// theme holds one style per class.
type theme [numClasses]lipgloss.Style

func platoTheme() theme {
	base := lipgloss.NewStyle().Foreground(platoOrange).Background(platoBlack)
	var t theme
	for i := range t {
		t[i] = base
	}
	t[clsDoor] = base.Foreground(platoBright)
	t[clsSelf] = base.Foreground(platoBright).Bold(true)
	t[clsOther] = base.Reverse(true)
	t[clsFeature] = base.Bold(true)
	t[clsDim] = base.Faint(true)
	t[clsTitle] = base.Bold(true)
	t[clsMonster] = base.Foreground(platoBright).Bold(true).Underline(true)
	return t
}

var _ color.Color = platoOrange
