package world

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// MonsterTableLines writes the monster tables and the "where are the monsters" table as
// aligned plain-text lines, as the seed's help lesson showed them: for `help monsters`
// and the in-game help.
func MonsterTableLines() []string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for c := MonsterClass(0); c < NumMonsterClasses; c++ {
		fmt.Fprintf(w, "%s\n", c)
		// The headings take two lines, so the widest class fits 80 columns.
		fmt.Fprintln(w, "  NAME\tLEVEL\tHIT\tATTACK\tDEX\tEXPERIENCE\tSPEED\tATTACKS\t")
		fmt.Fprintln(w, "  \t\tDICE\tDICE\t\t\t\t\t")
		for _, k := range Monsters {
			if k.Class == c {
				fmt.Fprintf(w, "  %s\t%d\t%s\t%s\t%d\t%d\t%+d\t%d\t\n", k.Name, k.Level, k.HitDice, k.AttackDice, k.Dex, k.Experience, k.Speed, k.AttacksPerRound)
			}
		}
		fmt.Fprintln(w, "\t\t\t\t\t\t\t\t")
	}
	fmt.Fprintln(w, "Where are the monsters? The chance in percent of meeting each monster level")
	fmt.Fprintln(w, "(down) on each dungeon level (across).")
	fmt.Fprint(w, "  LEVEL")
	for d := range MonsterLevelOdds {
		fmt.Fprintf(w, "\tD%d", d+1)
	}
	fmt.Fprintln(w, "\t")
	for ml := range len(MonsterLevelOdds[0]) {
		fmt.Fprintf(w, "  %d", ml+1)
		for d := range MonsterLevelOdds {
			fmt.Fprintf(w, "\t%d", MonsterLevelOdds[d][ml])
		}
		fmt.Fprintln(w, "\t")
	}
	_ = w.Flush()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}
