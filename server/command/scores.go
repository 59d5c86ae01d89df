package command

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// fameTop is how many retirees the hall of fame shows server-wide (seed 000: "The top
// three retirees are saved.").
const fameTop = 3

// Score is one row of the hall of fame, and of `scores --json`.
type Score struct {
	Rank         int    `json:"rank"`
	Name         string `json:"name"`
	Level        int    `json:"level"`
	Experience   int    `json:"experience"`
	PercentKills int    `json:"percent_kills"`
	Retired      string `json:"retired"`
	Yours        bool   `json:"yours"`
	// Deeds are the retired knight's deeds, in the order earned.
	Deeds []Deed `json:"deeds"`
}

// Scores is scores's row.
func (p Player) Scores() Command {
	return Command{Name: "scores", Usage: "scores [--board NAME [--week]] [--json]",
		Summary: "the hall of fame: the top three retired knights, and yours, with their deeds; or a board of the living",
		Help: "A board ranks the living knights (guests are not ranked) by " + boardsHelp() +
			", for all time or, with --week, this week (ISO weeks, UTC): the top " + fmt.Sprint(knights.BoardTop) +
			" and yours. A board may be a few seconds behind the game.",
		Guests: true, Takes: TakesJSON | TakesBoard, Run: p.scores}
}

// boardsHelp names each board and what it ranks: "deepest (the deepest level reached), ...".
func boardsHelp() string {
	var parts []string
	for _, b := range world.Boards {
		parts = append(parts, fmt.Sprintf("%s (%s)", b.Name, strings.ToLower(b.Title)))
	}
	return strings.Join(parts, ", ")
}

// scores prints the hall of fame, or a board, as the key's knight sees it.
func (p Player) scores(c *Call) int {
	if c.HasBoard || c.Week {
		return p.board(c)
	}
	list, err := HallOfFame(p.Knights, c.Knight)
	if err != nil {
		p.Log.Error("scores", "err", err)
		return c.Fail("the hall of fame could not be read just now; try again later")
	}
	if c.JSON {
		return c.WriteJSON(list)
	}
	for _, l := range ScoreLines(list) {
		fmt.Fprintln(c.Out, l)
	}
	return 0
}

// board prints the board --board names, for all time or --week.
func (p Player) board(c *Call) int {
	if !c.HasBoard {
		return c.UsageError("--week is a board's: give --board NAME (%s)", strings.Join(world.BoardNames(), ", "))
	}
	b, ok := world.BoardByName(strings.ToLower(c.Board))
	if !ok {
		return c.Fail("there is no board %q; the boards are %s", Printable(c.Board), strings.Join(world.BoardNames(), ", "))
	}
	page, err := p.Boards.Board(b, c.Week, c.Knight)
	if err != nil {
		p.Log.Error("scores", "board", c.Board, "err", err)
		return c.Fail("the board could not be read just now; try again later")
	}
	if c.JSON {
		return c.WriteJSON(page)
	}
	fmt.Fprintln(c.Out, BoardTitle(page))
	for _, l := range BoardLines(page) {
		fmt.Fprintln(c.Out, l)
	}
	return 0
}

// BoardTitle is a board's title and its time: "Monsters slain, this week (2026-W50)".
func BoardTitle(page world.BoardPage) string {
	if page.Week != "" {
		return page.Title + ", this week (" + page.Week + ")"
	}
	return page.Title + ", for all time"
}

// BoardLines writes a board's rows as lines of text (a table, or a line saying it is
// empty), for the command and the game's pages.
func BoardLines(page world.BoardPage) []string {
	if len(page.Rows) == 0 {
		if page.Week != "" {
			return []string{"No knight is on this board this week yet."}
		}
		return []string{"No knight is on this board yet."}
	}
	col := page.Board
	if b, ok := world.BoardByName(page.Board); ok {
		col = world.Boards[b].Column
	}
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "RANK\tNAME\tLEVEL\t%s\t\n", col)
	for _, r := range page.Rows {
		mine := ""
		if r.Yours {
			mine = "(yours)"
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\n", r.Rank, r.Name, r.Level, r.Value, mine)
	}
	_ = w.Flush()
	return tableLines(sb.String())
}

// tableLines are a tabwriter's lines without the padding it leaves after the last
// column: a row with nothing there (not the asker's) would end in spaces that a
// screen reader says and a copied table carries.
func tableLines(table string) []string {
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// HallOfFame is the hall of fame as the knight (an id; "" for none) sees it: the top
// three, then its own retirees. The game's title screen shows it too.
func HallOfFame(k knights.Keeper, knight string) ([]Score, error) {
	if err := k.Flush(); err != nil { // a knight retired a moment ago is in it
		return nil, err
	}
	all, err := k.Fame()
	if err != nil {
		return nil, err
	}
	out := []Score{}
	for i, f := range all {
		a := f.Adventurer
		mine := knight != "" && a.ID == knight
		if i < fameTop || mine {
			out = append(out, Score{i + 1, a.Name, a.Level, a.Experience, a.PercentKills(),
				f.Retired.UTC().Format("2006-01-02"), mine, DeedsOf(a.Deeds)})
		}
	}
	return out, nil
}

// ScoreLines writes the hall of fame as lines of text, for the command and the game's
// screen.
func ScoreLines(list []Score) []string {
	if len(list) == 0 {
		return []string{"No knight has retired yet."}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "RANK\tNAME\tLEVEL\tEXPERIENCE\tKILLS\tRETIRED\tDEEDS\t")
	for _, e := range list {
		mine := ""
		if e.Yours {
			mine = "(yours)"
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d%%\t%s\t%d\t%s\n", e.Rank, e.Name, e.Level, e.Experience, e.PercentKills, e.Retired, len(e.Deeds), mine)
	}
	_ = w.Flush()
	lines := tableLines(b.String())
	for _, e := range list { // each retiree's deeds, a line each, newest first: a narrow screen shows them whole
		if len(e.Deeds) == 0 {
			continue
		}
		lines = append(lines, "", fmt.Sprintf("Deeds of %s (rank %d), newest first:", e.Name, e.Rank))
		for i := len(e.Deeds) - 1; i >= 0; i-- {
			lines = append(lines, "  "+e.Deeds[i].Title)
		}
	}
	return lines
}
