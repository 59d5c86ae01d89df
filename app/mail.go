package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Letters: the letters screen (e, or /mail alone) lists the knight's letters,
// the unread ones first, each in full; reading them there marks them read. A letter's key
// starts a reply on the chat line and its capital deletes it. Screen-reader mode's mail
// reads them aloud, mail delete N deletes one, and mail NAME TEXT writes one, as /mail
// does.

// mailState is the letters screen. It is part of the Model.
type mailState struct {
	letters []world.Letter
	have    bool // the world has answered
	note    string
	pager   // the list, when it scrolls
}

// lettersMsg is the world's answer with the knight's letters.
type lettersMsg struct {
	letters []world.Letter
	err     error
}

// now is the wall clock of the session, for the date a letter is sent and the frames'
// pace (pace.go).
func (m *Model) now() time.Time {
	if m.p.Now != nil {
		return m.p.Now()
	}
	return time.Now()
}

// openMail asks the world for the letters, marking the unread ones read: the full screen
// shows them, screen-reader mode says them when they come. A guest has none, and is told
// why (world.GuestLettersNote).
func (m *Model) openMail() tea.Cmd {
	pl := m.player.Load()
	if pl == nil {
		return nil
	}
	if m.p.Guest {
		if m.pl.active {
			m.say(world.GuestLettersNote)
		} else {
			m.screen, m.mail = screenMail, mailState{}
		}
		return nil
	}
	if !m.pl.active {
		m.screen, m.mail = screenMail, mailState{}
	}
	return func() tea.Msg {
		ls, err := pl.Letters(m.ctx, true)
		return lettersMsg{ls, err}
	}
}

// gotLetters takes the world's answer.
func (m *Model) gotLetters(msg lettersMsg) tea.Cmd {
	m.mail.letters, m.mail.have, m.mail.note = msg.letters, true, ""
	if msg.err != nil {
		m.mail.note = "The world is not answering; please try again later."
	}
	if m.pl.active {
		m.sayLetters()
	}
	return nil
}

// letterHead is the line that opens a letter: who wrote it, when, and whether it is new.
func letterHead(l world.Letter) string {
	head := "from " + l.From
	if !l.Sent.IsZero() {
		head += ", " + l.Sent.UTC().Format("2006-01-02 15:04 MST")
	}
	if !l.Read {
		head += " (new)"
	}
	return head
}

// mailFoot is the letters screen's keys.
const mailFoot = "A letter's key (a, b, ...) replies to it, its capital (A, B, ...) deletes it; any other key returns."

// mailPage lays out the letters at the screen's size: each letter's head and its text
// wrapped under it, the keys at the bottom, and how many rows the list has.
func (m *Model) mailPage() (lines, foot []string, page int) {
	w, h := m.frameSize()
	for i, l := range m.mail.letters {
		key := "   " // past z: screen-reader mode's mail delete N reaches it
		if i < listLetters {
			key = fmt.Sprintf("%c  ", listLetter(i))
		}
		lines = append(lines, wrapHang(key+letterHead(l), w-6, 3)...)
		lines = append(lines, wrapHang("   "+l.Text, w-6, 3)...)
		lines = append(lines, "")
	}
	foot = wrap(mailFoot, w-4)
	if m.p.Guest {
		foot = []string{"Any key returns."}
	}
	if m.mail.note != "" {
		foot = append(wrap(m.mail.note, w-4), foot...)
	}
	return lines, foot, max(1, h-4-len(foot)-1)
}

// drawMail draws the letters screen.
func (m *Model) drawMail(c *canvas) {
	ls := m.mail.letters
	unread := 0
	for _, l := range ls {
		if !l.Read {
			unread++
		}
	}
	title := "LETTERS"
	if m.mail.have {
		title += fmt.Sprintf(": %s, %d new", english.Count(len(ls), "letter", "letters"), unread)
	}
	c.text(2, 1, title, clsTitle)
	lines, foot, page := m.mailPage()
	switch {
	case m.p.Guest:
		c.paragraph(4, 3, c.w-6, world.GuestLettersNote, clsDim)
	case !m.mail.have:
		c.text(4, 3, "Asking...", clsDim)
	case len(ls) == 0:
		c.paragraph(4, 3, c.w-6, "No letters. /mail NAME TEXT on the chat line writes to any knight, online or not.", clsDim)
	}
	m.mail.draw(c, 4, 3, lines, page, clsText)
	if len(lines) > page {
		from, to := m.mail.span(len(lines), page)
		c.text(4, 3+page, fit(c.w-4, fmt.Sprintf("(lines %d-%d of %d; %s pages, up and down scroll)", from, to, len(lines), pageKeysHint),
			fmt.Sprintf("(more: %d-%d of %d, %s)", from, to, len(lines), pageKeysHint)), clsDim)
	}
	for i, l := range foot {
		c.text(2, c.h-len(foot)+i, l, clsTitle)
	}
}

// mailKey is a key on the letters screen.
func (m *Model) mailKey(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if lines, _, page := m.mailPage(); len(lines) > page && m.mail.scrollBy(s, len(lines), page) {
		return nil
	}
	switch i, capital := listIndex(s); {
	case i < 0 || i >= len(m.mail.letters):
		m.screen = screenPlay
	case capital:
		m.deleteLetter(i)
	default:
		return m.openChatWith("/mail " + nameForLine(m.mail.letters[i].From) + " ")
	}
	return nil
}

// deleteLetter deletes the i-th letter shown; the world confirms it in the messages.
func (m *Model) deleteLetter(i int) {
	if pl := m.player.Load(); pl != nil {
		_ = pl.DeleteLetter(m.ctx, m.mail.letters[i].ID) // fails only when the session or the world is ending
	}
	m.mail.letters = append(m.mail.letters[:i:i], m.mail.letters[i+1:]...)
}

// nameForLine is a knight's name as a chat line takes it: quoted when it has spaces.
func nameForLine(name string) string {
	if strings.Contains(name, " ") {
		return `"` + name + `"`
	}
	return name
}

// sayLetters says the letters in screen-reader mode.
func (m *Model) sayLetters() {
	if m.mail.note != "" {
		m.say(m.mail.note)
		return
	}
	ls := m.mail.letters
	if len(ls) == 0 {
		m.say("You have no letters. Type mail, a knight's name and the text to write to any knight, online or not.")
		return
	}
	m.say(fmt.Sprintf("You have %s:", english.Count(len(ls), "letter", "letters")))
	for i, l := range ls {
		m.say(fmt.Sprintf("Letter %d, %s: %s", i+1, letterHead(l), l.Text))
	}
	m.say("Type mail delete and a number to delete one, or mail, a name and the text to write.")
}

// wordMail is screen-reader mode's mail: alone it reads the letters, mail delete N
// deletes one of those last read, and with a name and a text it writes one.
func (m *Model) wordMail(c plainCall) tea.Cmd {
	switch {
	case c.rest == "":
		return m.openMail()
	case len(c.args) == 2 && strings.EqualFold(c.args[0], "delete"):
		n, err := strconv.Atoi(c.args[1])
		if err != nil || n < 1 || n > len(m.mail.letters) {
			m.say("Delete which letter? Type mail to hear them with their numbers, then mail delete and a number.")
			return nil
		}
		m.deleteLetter(n - 1)
		return nil
	}
	return m.plainChat("/mail " + c.rest)
}
