package app

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// rollState is a new knight on its way in: the characteristics rolled, its hits, the
// name offered, and the name typed with what was wrong with the last one.
type rollState struct {
	stats     world.Stats
	hits      int
	suggested string
	name      lineInput
	nameErr   string
}

// The way into the game and out of it: the title (with the screen-reader question), the
// character roll, the name prompt and the tombstone (a death or a retirement), drawn,
// answered by keys, and said in screen-reader mode.

var banner = []string{
	`  ___  ____ _____ _   _    _    _   _  ____ `,
	` / _ \|  _ \_   _| | | |  / \  | \ | |/ ___|`,
	`| | | | |_) || | | |_| | / _ \ |  \| | |    `,
	`| |_| |  _ < | | |  _  |/ ___ \| |\  | |___ `,
	` \___/|_| \_\|_| |_| |_/_/   \_\_| \_|\____|`,
}

func (m *Model) drawTitle(c *canvas) {
	// The banner is decoration: a terminal too narrow or too low for it (a phone) gets the
	// name in one line.
	title := banner
	if c.w < textWidth(banner[0])+2 || c.h < MinFullHeight {
		title = []string{"O R T H A N C"}
	}
	top := max(1, c.h/2-8)
	if c.h < MinFullHeight {
		top = 1
	}
	for i, line := range title {
		c.text((c.w-textWidth(line))/2, top+i, line, clsTitle)
	}
	top += len(title) - len(banner)
	lines := []string{
		"A dungeon of the PLATO age, shared by everyone connected.",
		"",
	}
	if motd := m.p.MOTD; motd != "" {
		if w := c.w - 4; len([]rune(motd)) > w {
			motd = string([]rune(motd)[:max(1, w-1)]) + "…"
		}
		lines = append(lines, motd, "")
	}
	if sv := m.p.Saved; sv != nil && sv.Retirement != nil {
		lines = append(lines, fmt.Sprintf("Your last knight, %s, retired with %d experience.", sv.Name, sv.Retirement.Experience),
			"", "Press Enter to roll a new knight.")
	} else if sv != nil && sv.Death != nil {
		lines = append(lines, fmt.Sprintf("Your last knight, %s, was slain by %s %s.", sv.Name, sv.Death.Killer, sv.Death.Where()),
			"", "Press Enter to roll a new knight.")
	} else if sv != nil {
		lines = append(lines, fmt.Sprintf("Welcome back, %s.", sv.Name), "", "Press Enter to continue your adventure.")
	} else if m.p.Guest {
		t := m.guestTitle()
		lines = append(lines, t[0], t[1], "", "Press Enter to begin.")
	} else {
		lines = append(lines, m.accountLine(), "", "Press Enter to begin.")
	}
	// The screen-reader question is answered by the same key that starts the game: Enter
	// is no, so pressing Enter through the start still reaches the dungeon.
	lines = append(lines, "", "Do you use a screen reader? y/N", "(y: the game as lines of text; o: options)",
		"", newbieLine)
	gap := 2
	if c.h < MinFullHeight {
		gap = 1
	}
	centred(c, top+len(banner)+gap, lines, clsText)
}

func (m *Model) drawRoll(c *canvas) { m.drawRollAt(c) }

// drawRollAt draws the roll and returns the row after it. On a low screen its blank
// rows go first.
func (m *Model) drawRollAt(c *canvas) int {
	gap := 1
	if c.h < MinFullHeight {
		gap = 0
	}
	c.text(2, 1, "A new knight", clsTitle)
	y := 2 + gap
	y += c.paragraph(2, y, c.w-4, "The dice have spoken. A good knight has every characteristic of at least 10.", clsText) + gap
	rows := []struct {
		name string
		v    int
	}{{"Strength", m.rolled.stats.Str}, {"Intelligence", m.rolled.stats.Int}, {"Constitution", m.rolled.stats.Con}, {"Dexterity", m.rolled.stats.Dex},
		{"", -1}, {"Hits", m.rolled.hits}, {"Spell units", world.SpellUnitsForLevel(1)}}
	x := min(6, max(2, c.w-22))
	for _, r := range rows {
		if r.v < 0 {
			y += gap
			continue
		}
		c.text(x, y, fmt.Sprintf("%-14s %2d", r.name, r.v), clsText)
		y++
	}
	if m.rolled.stats.Dex <= 6 {
		// Seed 000: you hit when your die, with sides = Dexterity, rolls over 6.
		y += c.paragraph(x, y, c.w-x-2, "Beware: with Dexterity 6 or less your sword hits only with Pray.", clsTitle)
	} else {
		y += gap
	}
	if m.screen == screenRoll {
		y += c.paragraph(2, y, c.w-4, "Press r to roll again, Enter to keep this knight, q to leave.", clsTitle)
	}
	return y
}

// drawName draws the roll with the name prompt under it.
func (m *Model) drawName(c *canvas) {
	y := m.drawRollAt(c) + 1
	y += c.paragraph(4, y, c.w-6, "Name your knight, or press Enter to be "+m.rolled.suggested+".", clsText)
	if c.h >= MinFullHeight {
		y++
	}
	c.text(4, y, m.rolled.name.tail(c.w-6, "_"), clsSelf)
	if c.h >= MinFullHeight {
		y++
	}
	c.paragraph(4, y+1, c.w-6, m.rolled.nameErr, clsTitle)
}

// drawJoining is the screen while the world takes the knight in.
func (*Model) drawJoining(c *canvas) { c.text(2, 2, "Entering the dungeon...", clsText) }

// joiningLine is a line typed while the world takes the knight in.
func (m *Model) joiningLine(string) tea.Cmd {
	m.say("Entering the dungeon; a moment...")
	return nil
}

// drawEnded says why the session ended.
func (m *Model) drawEnded(c *canvas) { c.paragraph(2, 2, c.w-4, m.ended, clsTitle) }

// endedLine is a line typed after the session ended: it ends the program.
func (*Model) endedLine(string) tea.Cmd { return tea.Quit }

func (m *Model) drawDead(c *canvas) {
	d := m.tomb
	name := m.view.Self.Name
	if r := m.retired; r != nil {
		lines := []string{
			"RETIRED WITH HONOUR",
			"",
			name,
			fmt.Sprintf("level %d, %d experience, %d%% from kills", r.Level, r.Experience, r.PercentKills),
			"",
			"The king is pleased. Press Enter to roll a new knight, q to leave.",
		}
		centred(c, max(1, c.h/2-len(lines)/2-2), lines, clsTitle)
		return
	}
	lines := []string{
		"R. I. P.",
		"",
		name,
		fmt.Sprintf("level %d, %d experience", d.Level, d.Experience),
		fmt.Sprintf("slain by %s", d.Killer),
		tombWhere(*d),
		"",
	}
	if how := deathLines(d); len(how) > 0 {
		lines = append(append(lines, how...), "")
	}
	var way []string // how to go on: always on the screen, whole
	if m.p.Fell != nil {
		way = append(way, "r: see how you fell (the last minute).")
	}
	way = append(way, "Death is permanent. Press Enter to roll a new knight, q to leave.")
	wayRows := rowsOf(way, c.w-4)
	if rowsOf(lines, c.w-4)+wayRows <= c.h-2 { // it all fits: centred, as a tombstone
		y := max(1, c.h/2-rowsOf(append(lines, way...), c.w-4)/2-2)
		y = tombstone(c, y, c.h, lines)
		centred(c, y, way, clsText)
		return
	}
	// A small screen: the stone as far as it goes, the way on at the bottom.
	tombstone(c, 0, c.h-wayRows, lines)
	centred(c, c.h-wayRows, way, clsText)
}

// tombstone draws the death screen's lines centred from row y, the first and the name
// as titles, up to row end; a line that would pass it is left out, and so is a heading
// ("The last blows:") whose first line would.
func tombstone(c *canvas, y, end int, lines []string) int {
	for i, s := range lines {
		rows := len(wrap(s, c.w-4))
		if strings.HasSuffix(s, ":") && i+1 < len(lines) {
			rows += len(wrap(lines[i+1], c.w-4))
		}
		if y+rows > end {
			break
		}
		cls := clsText
		if i == 0 || i == 2 {
			cls = clsTitle
		}
		y = centred(c, y, []string{s}, cls)
	}
	return y
}

// rowsOf is how many rows centred takes for lines at width w.
func rowsOf(lines []string, w int) int {
	n := 0
	for _, s := range lines {
		n += len(wrap(s, w))
	}
	return n
}

func (m *Model) roll() {
	m.rolled.stats = world.RollStats(m.p.Rand)
	m.rolled.hits = world.StartHits(m.p.Rand, m.rolled.stats.Con)
}

// GuestPrefix starts the name of every guest's knight, so that everyone who sees it (the
// who-list, chat, announcements, the views, a watcher, the web page) knows it for a
// guest; a knight with a key may not take such a name.
const GuestPrefix = "Guest "

// guestTitle is what the title tells a guest over SSH: its knight is not kept, and how
// to keep one.
var guestTitle = [2]string{
	"You are a guest (no SSH key): this knight is not saved.",
	"To keep a knight, make a key (ssh-keygen -t ed25519) and connect again.",
}

// browserGuestTitle is guestTitle for a guest on the play page, which may have no SSH
// client: the page itself offers to keep the knight, or says how, when it leaves.
var browserGuestTitle = [2]string{
	"You are a guest: this knight is not saved.",
	"When you leave, the page offers to keep it, or tells you how.",
}

// guestTitle is the title's two lines for this guest.
func (m *Model) guestTitle() [2]string {
	if m.p.Browser {
		return browserGuestTitle
	}
	return guestTitle
}

// accountLine is what the title tells a key with no knight yet.
func (m *Model) accountLine() string {
	if m.p.Browser {
		return "This browser's key is your account: a new knight is rolled for it."
	}
	return "Your SSH key is your account: a new key rolls a new knight."
}

// guestQuitQuestion asks a guest whether to leave: its knight is not saved, but it is
// given a code to keep it.
const guestQuitQuestion = "Leave? A guest is not saved: you get a code to keep this knight. (y/n)"

// guestName is the name a guest's knight has for the base name typed: GuestPrefix and
// the name, cut to fit (a guest prefix typed too is not doubled).
func guestName(base string) string {
	base = strings.TrimSpace(base)
	if len(base) >= len(GuestPrefix) && strings.EqualFold(base[:len(GuestPrefix)], GuestPrefix) {
		base = strings.TrimSpace(base[len(GuestPrefix):])
	}
	if n := world.MaxNameLen - len(GuestPrefix); len(base) > n {
		base = strings.TrimSpace(base[:n])
	}
	return GuestPrefix + base
}

// begin leaves the title: a saved knight goes back in, a new key rolls a knight.
func (m *Model) begin() tea.Cmd {
	if m.p.Saved != nil && !m.p.Saved.Ended() {
		rec := m.p.Saved.Clone()
		rec.Options = m.opts.Clone()
		return m.join(rec)
	}
	m.roll()
	m.screen = screenRoll
	return nil
}

// toName goes from the roll to the name prompt, suggesting a name nobody has.
func (m *Model) toName() tea.Cmd {
	m.rolled.suggested = m.suggestName()
	m.rolled.name.reset()
	m.rolled.nameErr = ""
	m.screen = screenName
	return nil
}

// suggestName is a random knight's name that no other key's knight has: a few tries of
// the usual names, then the same with a number.
func (m *Model) suggestName() string {
	random := func() string {
		n := world.RandomName(m.p.Rand)
		if m.p.Guest { // a guest's name is short: its first word, after the guest's mark
			first, _, _ := strings.Cut(n, " ")
			return guestName(first)
		}
		return n
	}
	name := random()
	for i := 0; m.p.Names != nil && m.p.Names.Taken(name) && i < 20; i++ {
		name = random()
		if i >= 5 {
			first, _, _ := strings.Cut(strings.TrimPrefix(name, GuestPrefix), " ")
			name = fmt.Sprintf("%s %d", first, 2+m.p.Rand.IntN(9998))
			if m.p.Guest {
				name = guestName(name)
			}
		}
	}
	return name
}

// Why a name is refused, at the name prompt and to an admin's rename.
const (
	BadNameNote   = "A name is 1 to 20 letters, digits, spaces, ' or -, starting with a letter."
	TakenNameNote = "That name is taken (or looks too like another knight's); please choose another."
	GuestNameNote = "Names that begin with Guest are kept for guests; please choose another."
)

// guestLike reports whether a name begins with "Guest" (GuestPrefix without its space) in
// any case: a knight with a key may not take one, or moderators would take a "Guestly"
// for a guest.
func guestLike(name string) bool {
	word := strings.TrimSpace(GuestPrefix)
	return len(name) >= len(word) && strings.EqualFold(name[:len(word)], word)
}

// nameKnight checks the typed name (or the suggestion, when nothing was typed), reserves
// it and joins the new knight; it returns a note when the name is refused.
func (m *Model) nameKnight(raw string) (tea.Cmd, string) {
	if strings.TrimSpace(raw) == "" {
		raw = m.rolled.suggested
	}
	if m.p.Guest {
		raw = guestName(raw)
	}
	name, err := world.CleanName(raw)
	if err != nil {
		return nil, BadNameNote
	}
	if !m.p.Guest && guestLike(name) {
		return nil, GuestNameNote
	}
	if m.p.Names != nil && !m.p.Names.Claim(name) {
		return nil, TakenNameNote
	}
	rec := world.NewAdventurer(m.p.Fingerprint, name, m.rolled.stats, m.rolled.hits)
	rec.Options = m.opts.Clone()
	rec.Guest = m.p.Guest
	rec.Created = m.now().UTC().Truncate(time.Second)
	rec.Prelude = m.prelude() // its log begins with the last moments of the knight that fell
	m.rolled.name.close()     // named: the prompt is done with until the next knight
	return m.join(rec), ""
}

// newbieLine tells a newcomer on the title screen where to ask, a guest too,
// in one line at 80 columns (a guest's title with a message of the day fills 24 rows);
// plainNewbieLine says it in screen-reader mode's words.
const (
	newbieLine      = "New here? Ask on the newbie channel: Enter, then /newbie and your question."
	plainNewbieLine = "New here? Questions are welcome on the newbie channel: in the game, type newbie and your question."
)

// plainIntro is the title, spoken.
func (m *Model) plainIntro() {
	m.say("ORTHANC: a dungeon of the PLATO age, shared by everyone connected.",
		"Screen-reader mode is on: the game speaks in lines; type a command and press Enter. Type help at any time, and options to change the settings.")
	if m.opts.PlainHere && !m.opts.Plain && !m.watch.only {
		m.say(plainHereLine)
	}
	if m.p.MOTD != "" {
		m.say("Message of the day: " + m.p.MOTD)
	}
	switch sv := m.p.Saved; {
	case sv != nil && sv.Retirement != nil:
		m.say(fmt.Sprintf("Your last knight, %s, retired with %d experience. Press Enter to roll a new knight.", sv.Name, sv.Retirement.Experience))
	case sv != nil && sv.Death != nil:
		m.say(fmt.Sprintf("Your last knight, %s, was slain by %s %s. Press Enter to roll a new knight.", sv.Name, sv.Death.Killer, sv.Death.Where()))
	case sv != nil:
		m.say(fmt.Sprintf("Welcome back, %s. Press Enter to continue your adventure.", sv.Name))
	case m.watch.replay != nil:
		m.say(fmt.Sprintf("You watch the replay of %s. What happened to them is told to you. Type look, status, map or messages; stop to leave.", m.watch.replay.Name()),
			replayWords())
	case m.watch.only:
		m.say(fmt.Sprintf("You watch %s. What happens to them is told to you. Type look, status, map or messages; stop to leave.", m.watch.w.Name()))
	case m.p.Guest:
		t := m.guestTitle()
		m.say(t[0] + " " + t[1] + " Press Enter to begin.")
		m.say(plainNewbieLine)
	default:
		m.say(m.accountLine() + " Press Enter to begin.")
		m.say(plainNewbieLine)
	}
}

// plainHereLine tells a play --plain session that the mode is its own: the key's next
// ssh draws the screen unless the player keeps it.
const plainHereLine = "This connection only: type set plain on to keep screen-reader mode for your key."

// sayRoll speaks the character roll.
func (m *Model) sayRoll() {
	st := m.rolled.stats
	m.say(fmt.Sprintf("A new knight. The dice have spoken: Strength %d, Intelligence %d, Constitution %d, Dexterity %d; %d hits and %d spell units.",
		st.Str, st.Int, st.Con, st.Dex, m.rolled.hits, world.SpellUnitsForLevel(1)))
	if st.Dex <= 6 {
		m.say("Beware: with Dexterity 6 or less your sword hits only with Pray.")
	}
	m.say("A good knight has every characteristic of at least 10. Type r to roll again, or press Enter to keep this knight.")
}

// sayNamePrompt asks for the knight's name.
func (m *Model) sayNamePrompt() {
	m.say(fmt.Sprintf("Name your knight: type a name and press Enter, or press Enter to be %s.", m.rolled.suggested))
}

// sayEnd speaks a death or a retirement.
func (m *Model) sayEnd() {
	name := m.view.Self.Name
	if r := m.retired; r != nil {
		m.say(fmt.Sprintf("Retired with honour: %s, level %d, %d experience, %d%% from kills. The king is pleased.", name, r.Level, r.Experience, r.PercentKills))
	} else if d := m.tomb; d != nil {
		m.say(fmt.Sprintf("R.I.P. %s, level %d, %d experience, slain by %s %s. Death is permanent.", name, d.Level, d.Experience, d.Killer, tombWhere(*d)))
		m.say(deathLines(d)...)
		if m.p.Fell != nil {
			m.say("Type replay to hear how you fell, the last minute told again.")
		}
	}
	m.say("Press Enter to roll a new knight, or type quit to leave.")
}

// tombWhere is where the tombstone says the knight fell: "on level 3 of the dungeon", or
// "on the surface".
func tombWhere(d world.Death) string {
	if d.Depth == 0 {
		return d.Where()
	}
	return d.Where() + " of the dungeon"
}

// sayWayOn says, back at the tombstone from its replay, where the player is and its way
// on: the tombstone itself was said before the replay.
func (m *Model) sayWayOn() {
	m.say("You are back at your knight's tombstone.")
	if m.p.Fell != nil && m.tomb != nil {
		m.say("Type replay to hear how you fell again.")
	}
	m.say("Press Enter to roll a new knight, or type quit to leave.")
}

// newKnight leaves the tombstone for the roll of the key's next knight.
func (m *Model) newKnight() {
	m.roll()
	m.screen = screenRoll
	m.view, m.haveView = world.View{}, false
}

// titleKey is a key on the title: Enter begins, y answers the screen-reader question, o
// opens the options, q leaves.
func (m *Model) titleKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter", "space":
		return m.begin()
	case "y", "Y":
		// "Do you use a screen reader? y/N": y turns screen-reader mode on (and it is
		// remembered with the knight); Enter is no.
		m.opts.Plain = true
		m.setPlain(true)
	case "o":
		m.openOptions()
	case "q":
		return tea.Quit
	}
	return nil
}

// rollKey is a key on the roll: r rolls again, Enter keeps the knight, q leaves.
func (m *Model) rollKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "r":
		m.roll()
	case "enter":
		return m.toName()
	case "q":
		return tea.Quit
	}
	return nil
}

// nameKey is a key on the name prompt: Enter names the knight, other keys edit the name.
func (m *Model) nameKey(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "enter" {
		cmd, note := m.nameKnight(m.rolled.name.value())
		m.rolled.nameErr = note
		return cmd
	}
	m.rolled.nameErr = ""
	m.rolled.name.key(k)
	return nil
}

// deadKey is a key on the tombstone: Enter rolls a new knight, q leaves.
func (m *Model) deadKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		m.newKnight()
	case "q":
		return tea.Quit
	case "r":
		return m.seeFell()
	}
	return nil
}

// titleLine is a line typed on the title in screen-reader mode.
func (m *Model) titleLine(line string) tea.Cmd {
	switch strings.ToLower(firstWord(line)) {
	case "":
		cmd := m.begin()
		if m.screen == screenRoll {
			m.sayRoll()
		}
		return cmd
	case "q", "quit":
		return tea.Quit
	case "options", "set":
		return m.plainOptions(line)
	}
	m.say("Press Enter to begin, or type help.")
	return nil
}

// rollLine is a line typed on the roll in screen-reader mode.
func (m *Model) rollLine(line string) tea.Cmd {
	switch strings.ToLower(firstWord(line)) {
	case "":
		cmd := m.toName()
		m.sayNamePrompt()
		return cmd
	case "r", "roll", "reroll":
		m.roll()
		m.sayRoll()
	case "q", "quit":
		return tea.Quit
	default:
		m.say("Type r to roll again, or press Enter to keep this knight.")
	}
	return nil
}

// nameLine is the name typed at the name prompt in screen-reader mode.
func (m *Model) nameLine(line string) tea.Cmd {
	cmd, note := m.nameKnight(line)
	if note != "" {
		m.say(note)
		m.sayNamePrompt()
		return nil
	}
	m.say("Entering the dungeon...")
	return cmd
}

// deadLine is a line typed at the tombstone in screen-reader mode.
func (m *Model) deadLine(line string) tea.Cmd {
	switch strings.ToLower(firstWord(line)) {
	case "":
		m.newKnight()
		m.sayRoll()
	case "q", "quit":
		return tea.Quit
	case "r", "replay":
		return m.seeFell()
	default:
		m.say("Press Enter to roll a new knight, or type quit to leave.")
	}
	return nil
}

// firstWord is the first word of a line.
func firstWord(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
