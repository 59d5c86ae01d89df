package command

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
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
}

// Scores is scores's row.
func (p Player) Scores() Command {
	return Command{Name: "scores", Usage: "scores [--json]", Summary: "the hall of fame: the top three retired knights, and yours",
		Guests: true, Takes: TakesJSON, Run: p.scores}
}

// scores prints the hall of fame as the key's knight sees it.
func (p Player) scores(c *Call) int {
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
				f.Retired.UTC().Format("2006-01-02"), mine})
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
	fmt.Fprintln(w, "RANK\tNAME\tLEVEL\tEXPERIENCE\tKILLS\tRETIRED\t")
	for _, e := range list {
		mine := ""
		if e.Yours {
			mine = "(yours)"
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d%%\t%s\t%s\n", e.Rank, e.Name, e.Level, e.Experience, e.PercentKills, e.Retired, mine)
	}
	_ = w.Flush()
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
