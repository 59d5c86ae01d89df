package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The options screen (o): screen-reader mode, theme, colours, the key help line,
// spectators and muted players. Options live in world.Options, saved with the knight, so
// they follow the key to its next connection and its next knight.

// colourChoice is one value of the colour option.
type colourChoice struct {
	key   string // as world.Options.Colour keeps it
	label string
	p     colorprofile.Profile
}

// colourChoices are the colour option's values in the order o cycles through them; the
// first follows what the terminal says (its profile, or none with NO_COLOR).
var colourChoices = []colourChoice{
	{"", "follow the terminal", colorprofile.Unknown},
	{"truecolor", "true colour", colorprofile.TrueColor},
	{"256", "256 colours", colorprofile.ANSI256},
	{"16", "16 colours", colorprofile.ANSI},
	{"none", "no colour", colorprofile.ASCII},
}

// colourState is what the terminal said of its colours: the profile Bubble Tea detected
// from its TERM and NO_COLOR, once the program has sent it.
type colourState struct {
	client *colorprofile.Profile
}

// forcedProfile is the profile an option forces, if it forces one.
func forcedProfile(key string) (colorprofile.Profile, bool) {
	for _, c := range colourChoices {
		if c.key == key && c.p != colorprofile.Unknown {
			return c.p, true
		}
	}
	return colorprofile.Unknown, false
}

// profile is the colour profile the screen is drawn in: the one the colour option forces,
// else the terminal's; ok is false while neither is known.
func (m *Model) profile() (p colorprofile.Profile, ok bool) {
	if p, ok := forcedProfile(m.opts.Colour); ok {
		return p, true
	}
	if m.colour.client != nil {
		return *m.colour.client, true
	}
	return colorprofile.Unknown, false
}

// restyle makes the theme for the options and the profile now, and has the next frame
// written whole: a new theme changes how cells look, not which cells there are.
func (m *Model) restyle() {
	p, _ := m.profile()
	m.theme = sharedTheme(m.opts.Theme, p)
	m.term.redraw()
}

// setOptions takes new options: the theme, colours and mode follow at once, and the world
// keeps them with the knight.
func (m *Model) setOptions(o world.Options) tea.Cmd {
	old := m.opts
	m.opts = o
	if o.Theme != old.Theme || o.Colour != old.Colour {
		m.restyle()
	}
	m.setPlain(o.ScreenReader())
	m.sendOptions()
	return nil
}

// sendOptions hands the options to the world, to keep with the knight.
func (m *Model) sendOptions() {
	if pl := m.player.Load(); pl != nil {
		_ = pl.SetOptions(m.ctx, m.opts) // fails only when the session or the world is ending
	}
}

// setPlain turns screen-reader mode on or off for this session now. The next frame
// leaves the alternate screen for the transcript, or comes back to it and draws it whole.
func (m *Model) setPlain(on bool) {
	if on == m.pl.active {
		return
	}
	m.pl.reset()
	m.pl.active = on
	if m.p.PlainChanged != nil {
		m.p.PlainChanged(on)
	}
	m.chat.open, m.optScreen.muting = false, false
	if m.console != nil {
		m.console.open = false
	}
	if !on {
		return
	}
	if m.screen == screenOptions {
		m.screen = m.optScreen.back
	}
	const isOn = "Screen-reader mode is on: the game speaks in lines, and you type commands and press Enter. Type help for the commands."
	switch sc := screens[m.screen]; {
	case sc.speak != nil:
		sc.speak(m)
	case sc.typed != nil: // a page of its own in the mode: watching, the way in, the end
		m.say(isOn)
	default: // the dungeon and the screens over it, which the mode says in words instead
		m.screen = screenPlay
		m.say(isOn)
		if m.haveView {
			m.pl.own = told{said: m.view.Said, fightSeq: m.view.FightSeq}
			m.say(m.lookText(m.view, true)...)
		}
	}
}

// optionsScreen is what the options screen keeps: where it returns to, and the field a
// player to mute is typed in.
type optionsScreen struct {
	back   screen // where the options screen returns to
	mute   lineInput
	muting bool // the mute name field is open
}

// openOptions shows the options screen, returning to the screen it was opened from.
func (m *Model) openOptions() {
	if m.screen != screenOptions {
		m.optScreen.back = m.screen
	}
	m.screen, m.optScreen.muting = screenOptions, false
}

// optionRows are the options screen's lines: a label and the value now.
func (m *Model) optionRows() [][2]string {
	o := m.opts
	onOff := func(b bool, on, off string) string {
		if b {
			return on
		}
		return off
	}
	theme := "PLATO orange on black"
	if o.Theme == themeContrast {
		theme = "high contrast: white and yellow on black"
	}
	colour := colourChoices[0].label
	for _, c := range colourChoices {
		if c.key == o.Colour {
			colour = c.label
		}
	}
	if o.Colour == "" && m.colour.client != nil {
		colour += " (" + profileName(*m.colour.client) + ")"
	}
	spect := onOff(o.NoSpectators, "not allowed", "allowed")
	if w := m.view.Watchers; len(w) > 0 && !o.NoSpectators {
		spect += " (watching you now: " + strings.Join(w, ", ") + ")"
	}
	muted := "nobody"
	if len(o.Muted) > 0 {
		muted = strings.Join(o.Muted, ", ")
	}
	return [][2]string{
		{"Screen-reader mode", onOff(o.Plain, "on", onOff(o.PlainHere, "on for this connection (set plain on keeps it)", "off"))},
		{"Theme", theme},
		{"Colours", colour},
		{"Key help line", onOff(o.HideKeys, "hidden", "shown")},
		{"Spectators", spect},
		{"Muted players", muted},
		{"Death replays", onOff(o.PrivateReplays, "yours alone", "anyone may watch them")},
		{"Bell", bellChoices[bellChoice(o.Bell)].word},
	}
}

// listeningRows are the options of what screen-reader mode says, which its options list
// adds to optionRows; the drawn screen, which says none of it, leaves them out.
func (m *Model) listeningRows() [][2]string {
	o := m.opts
	said := func(off bool) string {
		if off {
			return "not said"
		}
		return "said"
	}
	steps := "brief"
	if o.Verbose {
		steps = "in full"
	}
	return [][2]string{
		{"Steps", steps},
		{"Sightings", said(o.NoSightings)},
		{"Others' movements", said(o.NoMovements)},
		{"Party chatter", said(o.NoPartyChat)},
	}
}

// profileName says a colour profile in words.
func profileName(p colorprofile.Profile) string {
	switch p {
	case colorprofile.TrueColor:
		return "true colour"
	case colorprofile.ANSI256:
		return "256 colours"
	case colorprofile.ANSI:
		return "16 colours"
	}
	return "no colour"
}

// optionsKey handles a key on the options screen: a letter changes its option (f asks
// for a name to mute or unmute); anything else returns.
func (m *Model) optionsKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if m.optScreen.muting {
		switch {
		case s == "esc", s == "backspace" && m.optScreen.mute.empty(): // a phone has no Esc
			m.optScreen.muting = false
		case s == "enter":
			m.optScreen.muting = false
			if v := strings.TrimSpace(m.optScreen.mute.value()); v != "" {
				if m.opts.Mutes(v) {
					m.chat.note = m.setMuted(v, false)
				} else {
					m.chat.note = m.setMuted(v, true)
				}
			}
		default:
			m.optScreen.mute.key(k)
		}
		return nil
	}
	m.chat.note = ""
	o := m.opts.Clone()
	switch s {
	case "a":
		o.Plain, o.PlainHere = !o.ScreenReader(), false
	case "b":
		if o.Theme == themeContrast {
			o.Theme = themePlato
		} else {
			o.Theme = themeContrast
		}
	case "c":
		next := 0
		for i, c := range colourChoices {
			if c.key == o.Colour {
				next = (i + 1) % len(colourChoices)
			}
		}
		o.Colour = colourChoices[next].key
	case "d":
		o.HideKeys = !o.HideKeys
	case "e":
		o.NoSpectators = !o.NoSpectators
	case "f":
		m.optScreen.muting = true
		m.optScreen.mute.reset()
		return nil
	case "g":
		o.PrivateReplays = !o.PrivateReplays
	case "h":
		o.Bell = bellChoices[(bellChoice(o.Bell)+1)%len(bellChoices)].key
	default:
		m.screen = m.optScreen.back
		return nil
	}
	return m.setOptions(o)
}

// optionHelp says more of the options than their rows do.
var optionHelp = []string{
	"a: the game as lines of text for screen readers; you type commands.",
	"c: colours follow your terminal (and NO_COLOR) unless you pick a profile.",
	"e: who may watch your screen (ssh -t host watch NAME, or w in the game).",
	"f: type a name to mute it, or a muted name to unmute it.",
}

// drawOptions draws the options screen.
func (m *Model) drawOptions(c *canvas) {
	c.text(2, 1, "OPTIONS", clsTitle)
	var rows []string
	for i, r := range m.optionRows() {
		// A long value (the muted players) hangs under the values.
		rows = append(rows, wrapHang(fmt.Sprintf("%c  %-20s %s", 'a'+i, r[0], r[1]), c.w-6, 24)...)
	}
	y := 2
	const saved = "Saved with your knight, for this key's next connection and its next knight."
	if len(wrap(saved, c.w-4))+len(rows)+y+1 < c.h-3 { // the options first, where room is short
		y += c.paragraph(2, y, c.w-4, saved, clsText)
	}
	y++
	for _, l := range rows {
		c.text(4, y, l, clsText)
		y++
	}
	y++
	// What each option does, where it fits above the footer (screen-reader mode and the
	// help tell it too).
	var help []string
	for _, h := range optionHelp {
		help = append(help, wrapHang(h, c.w-6, 3)...)
	}
	if y+len(help) < c.h-4 {
		for _, l := range help {
			c.text(4, y, l, clsDim)
			y++
		}
	}
	if m.optScreen.muting {
		// Under the options where they leave room, else over the last of them: the name
		// being typed is in sight on a phone too.
		const how = "Enter mutes or unmutes that name; Esc cancels."
		hows := wrap(how, c.w-6)
		py := min(y+1, c.h-3-len(hows))
		blank := strings.Repeat(" ", c.w)
		for r := py; r <= py+len(hows); r++ {
			c.text(0, r, blank, clsText)
		}
		c.text(4, py, m.optScreen.mute.tail(c.w-6, "_"), clsSelf)
		c.paragraph(4, py+1, c.w-6, how, clsDim)
	} else if m.chat.note != "" {
		c.paragraph(4, y+1, c.w-6, m.chat.note, clsText)
	}
	c.text(2, c.h-2, fit(c.w-4, "A letter changes that option; any other key returns.", "A letter changes it; q returns."), clsTitle)
}
