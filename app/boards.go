package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The F screen's pages: the hall of fame, then each board of the living (world.Boards),
// for all time or, after w, this week. A page is read when it opens.

// famePages is how many pages the F screen has: the hall of fame and every board.
const famePages = 1 + int(world.NumBoards)

// fameScreen is what the F screen keeps while it shows: its page, the week or all time,
// what the page read when it opened, and where its lines are scrolled to.
type fameScreen struct {
	pager
	page  int  // 0 the hall of fame; 1 + a world.BoardID that board
	week  bool // the boards count this week
	lines []string
	board world.BoardPage
	// unread is set when the board could not be read.
	unread bool
}

// fameOpenKey opens the F screen on the hall of fame, reading it.
func (m *Model) fameOpenKey(keyPress) tea.Cmd {
	m.screen = screenFame
	m.fame.page, m.fame.week = 0, false
	m.readFamePage()
	return nil
}

// readFamePage reads the page the F screen shows, scrolled to its top.
func (m *Model) readFamePage() {
	f := &m.fame
	f.home()
	f.lines, f.board, f.unread = nil, world.BoardPage{}, false
	if f.page == 0 {
		if m.p.Fame != nil {
			f.lines = m.p.Fame()
		}
		if len(f.lines) == 0 {
			f.lines = []string{"No knight has retired yet."}
		}
		return
	}
	b := world.BoardID(f.page - 1)
	f.board = world.BoardPage{Board: world.Boards[b].Name, Title: world.Boards[b].Title}
	if m.p.Board == nil {
		return
	}
	page, err := m.p.Board(b, f.week)
	if err != nil {
		f.unread = true
		return
	}
	f.board = page
}

// fameLines are the lines of the page shown, laid out for width columns.
func (m *Model) fameLines(width int) []string {
	if m.fame.page == 0 {
		return m.fame.lines
	}
	if m.fame.unread {
		return []string{fit(width, "The board could not be read just now.", "Not read just now; try again.")}
	}
	return boardTable(m.fame.board, m.fame.week, width)
}

// famePage is how many lines of a page show at once.
func (m *Model) famePage() int {
	_, h := m.frameSize()
	return max(1, h-6)
}

func (m *Model) drawFame(c *canvas) {
	w := c.w - 4
	if m.fame.page == 0 {
		c.text(2, 1, "HALL OF FAME", clsTitle)
		c.text(2, 2, fit(w, "The knights who retired with honour near the seat of the king.", "Knights retired with honour."), clsText)
	} else {
		c.text(2, 1, fit(w, strings.ToUpper(m.fame.board.Title), strings.ToUpper(world.Boards[m.fame.page-1].Name)), clsTitle)
		when := "for all time"
		if m.fame.week {
			when = "this week"
		}
		c.text(2, 2, fit(w, "The living knights, "+when+" (guests are not ranked).", "The living knights, "+when+".",
			"The living, "+when+"."), clsText)
	}
	c.text(2, 3, fit(w, m.fameTabsOf("  "), m.fameTabsOf(" ")), clsText)
	lines, page := m.fameLines(c.w-6), m.famePage() // drawn from column 4
	m.fame.draw(c, 4, 4, lines, page, clsText)
	keys := []string{"h/l or left/right: the pages; w: this week or all time; other keys return.",
		"h/l: pages; w: the week; other keys return.", "h/l pages, w week, q returns"}
	if m.fame.page == 0 {
		keys = []string{"h/l or left/right: the boards of the living; other keys return.", "h/l: the boards; other keys return.",
			"h/l boards, q returns"}
	}
	foot := fit(w, keys...)
	if len(lines) > page {
		from, to := m.fame.span(len(lines), page)
		foot = fit(w, fmt.Sprintf("Lines %d-%d of %d: %s pages, up and down scroll; %s", from, to, len(lines), pageKeysHint, keys[1]),
			fmt.Sprintf("Lines %d-%d of %d: %s pages", from, to, len(lines), pageKeysHint), fmt.Sprintf("%d-%d of %d, %s", from, to, len(lines), pageKeysHint))
	}
	c.text(2, c.h-2, foot, clsTitle)
}

// fameTabsOf names the F screen's pages, the one shown in brackets, sep between them.
func (m *Model) fameTabsOf(sep string) string {
	names := append([]string{"fame"}, world.BoardNames()...)
	for i, n := range names {
		if i == m.fame.page {
			names[i] = "[" + n + "]"
		}
	}
	return strings.Join(names, sep)
}

// fameKey turns the pages, turns a board to the week and back, and scrolls a long page;
// any other key returns to the game.
func (m *Model) fameKey(k tea.KeyPressMsg) tea.Cmd {
	w, _ := m.frameSize()
	switch k.String() {
	case "right", "l", "tab":
		m.fame.page = (m.fame.page + 1) % famePages
		m.readFamePage()
		return nil
	case "left", "h", "shift+tab":
		m.fame.page = (m.fame.page + famePages - 1) % famePages
		m.readFamePage()
		return nil
	case "w":
		if m.fame.page > 0 {
			m.fame.week = !m.fame.week
			m.readFamePage()
			return nil
		}
	}
	if lines, page := m.fameLines(w-6), m.famePage(); len(lines) <= page || !m.fame.scrollBy(k.String(), len(lines), page) {
		m.screen = screenPlay
	}
	return nil
}

// boardTable lays a board's rows out as a table of at most width columns where it can:
// RANK NAME LEVEL and the board's value, "(yours)" on the asker's row; narrower, without
// the knight's level; narrowest, with single spaces and "*" for the asker's row.
func boardTable(page world.BoardPage, week bool, width int) []string {
	if len(page.Rows) == 0 {
		if week {
			return []string{fit(width, "No knight is on this board this week yet.", "No knight on it this week yet.")}
		}
		return []string{fit(width, "No knight is on this board yet.", "No knight on it yet.")}
	}
	col := strings.ToUpper(page.Board)
	if b, ok := world.BoardByName(page.Board); ok {
		col = world.Boards[b].Column
	}
	layouts := []struct {
		level      bool
		gap, yours string
	}{{true, "  ", "(yours)"}, {false, "  ", "(yours)"}, {false, " ", "*"}}
	var lines []string
	for _, lay := range layouts {
		cells := [][]string{{"RANK", "NAME", "LEVEL", col}}
		if !lay.level {
			cells[0] = []string{"RANK", "NAME", col}
		}
		for _, r := range page.Rows {
			row := []string{fmt.Sprint(r.Rank), r.Name, fmt.Sprint(r.Level), fmt.Sprint(r.Value)}
			if !lay.level {
				row = []string{row[0], row[1], row[3]}
			}
			if r.Yours {
				row = append(row, lay.yours)
			}
			cells = append(cells, row)
		}
		lines = columns(cells, lay.gap)
		widest := 0
		for _, l := range lines {
			widest = max(widest, textWidth(l))
		}
		if widest <= width {
			break
		}
	}
	return lines
}

// columns lays rows of cells out in columns sep apart, each as wide as its widest cell
// (the last cell of a row, a mark, as it is).
func columns(rows [][]string, sep string) []string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], textWidth(cell))
		}
	}
	out := make([]string, len(rows))
	for j, r := range rows {
		var b strings.Builder
		for i, cell := range r {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(cell)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-textWidth(cell)))
			}
		}
		out[j] = b.String()
	}
	return out
}
