package command

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// helpCommand is help's row: it reads the table, so the table makes it.
func (t *Table) helpCommand() Command {
	return Command{Name: "help", Usage: "help [monsters | COMMAND] [--json]", Summary: "this list; help monsters: the monster tables; help COMMAND: its help",
		Guests: true, Takes: TakesWords | TakesJSON, Run: t.help}
}

// help lists the commands the key may run, from the table: admin commands to admins
// only, and in the console only what runs there. help monsters prints the monster tables.
func (t *Table) help(c *Call) int {
	if len(c.Args) > 0 {
		return t.helpTopic(c)
	}
	var everyone, admins []Command
	for _, cmd := range t.rows {
		switch {
		case c.Console && cmd.Shell != "": // it does not run there
		case !cmd.Admin:
			everyone = append(everyone, cmd)
		case c.Admin: // admin commands are listed to admins only
			admins = append(admins, cmd)
		}
	}
	if c.JSON {
		return c.WriteJSON(helpJSON(append(everyone, admins...)))
	}
	if c.Console {
		writeCommands(c.Out, "Admin console (Enter runs a line, Esc closes, PgUp/PgDn scroll):", append(everyone, admins...))
		return 0
	}
	fmt.Fprintln(c.Out, "Orthanc over SSH. Connect with a terminal to play:", c.SSH())
	writeCommands(c.Out, "Commands ("+c.SSH()+" COMMAND):", everyone)
	if len(admins) > 0 {
		fmt.Fprintln(c.Out)
		writeCommands(c.Out, "Admin commands (also typed after : in the game; each takes --help):", admins)
	}
	return 0
}

// helpTopic is help with a topic: help monsters prints the monster tables; help NAME a
// command's help, as NAME --help does (an admin's commands for admins only).
func (t *Table) helpTopic(c *Call) int {
	if cmd, n := t.Find(c.Args); cmd != nil && n == len(c.Args) && (!cmd.Admin || c.Admin) && cmd.Name != "help" {
		t.WriteHelp(c.Out, cmd)
		return 0
	}
	if c.Args[0] != "monsters" {
		return c.Fail("no help on %q; try `help`, `help monsters` or `help COMMAND`", Printable(c.Args[0]))
	}
	if len(c.Args) > 1 {
		return c.Fail("unexpected %q; usage: help monsters [--json]", Printable(c.Args[1]))
	}
	return helpMonsters(c)
}

// writeCommands prints a heading and the commands' usage lines and summaries as a table.
func writeCommands(w io.Writer, heading string, cmds []Command) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, heading)
	for _, cmd := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", cmd.Usage, cmd.Summary)
	}
	_ = tw.Flush()
}

// commandJSON is one row of `help --json`.
type commandJSON struct {
	Name    string `json:"name"`
	Usage   string `json:"usage"`
	Summary string `json:"summary"`
	Admin   bool   `json:"admin,omitempty"`
}

// helpJSON is `help --json`: the commands listed.
func helpJSON(cmds []Command) []commandJSON {
	out := make([]commandJSON, 0, len(cmds))
	for _, cmd := range cmds {
		out = append(out, commandJSON{cmd.Name, cmd.Usage, cmd.Summary, cmd.Admin})
	}
	return out
}

// monsterJSON is one row of `help monsters --json`.
type monsterJSON struct {
	Name            string `json:"name"`
	Class           string `json:"class"`
	Level           int    `json:"level"`
	HitDice         string `json:"hit_dice"`
	AttackDice      string `json:"attack_dice"`
	Dexterity       int    `json:"dexterity"`
	Experience      int    `json:"experience"`
	Speed           int    `json:"speed"`
	AttacksPerRound int    `json:"attacks_per_round"`
	Glyph           string `json:"glyph"`
}

// helpMonsters prints the monster tables, as the seed's help lesson did.
func helpMonsters(c *Call) int {
	if c.JSON {
		list := make([]monsterJSON, 0, len(world.Monsters))
		for _, k := range world.Monsters {
			list = append(list, monsterJSON{k.Name, k.Class.String(), k.Level, k.HitDice.String(), k.AttackDice.String(),
				k.Dex, k.Experience, k.Speed, k.AttacksPerRound, k.Glyph})
		}
		return c.WriteJSON(list)
	}
	for _, l := range world.MonsterTableLines() {
		fmt.Fprintln(c.Out, l)
	}
	return 0
}
