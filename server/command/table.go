package command

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// PermissionDenied is all a key that is not an admin's learns about an admin command.
const PermissionDenied = "permission denied"

// GuestNeedsKey is what a guest is told of a command that needs a key (through WithSSH).
const GuestNeedsKey = "orthanc: guests have no key, and this needs one. Make a key (ssh-keygen -t ed25519) and connect again;\n" +
	"a guest knight can be kept with the code it is given when it leaves: ssh -p PORT host claim CODE"

// Gate is what the table's gate asks of the server before a command runs.
type Gate struct {
	Log *slog.Logger
	// IsAdmin reports whether a key is in the admin allow-list now.
	IsAdmin func(key ssh.PublicKey) bool
	// KnightOf is the id of the knight a key's fingerprint plays, "" for none.
	KnightOf func(fp string) (string, error)
	// SSH is the command that reaches this server, with flags after ssh.
	SSH func(flags ...string) string
}

// Table is the command table and its gate.
type Table struct {
	gate Gate
	rows []Command
}

// NewTable is a table of help and rows, in that order (help lists them so), guarded by
// gate.
func NewTable(gate Gate, rows ...Command) *Table {
	t := &Table{gate: gate}
	t.rows = append([]Command{t.helpCommand()}, rows...)
	return t
}

// Rows are the table's rows, in order.
func (t *Table) Rows() []Command { return t.rows }

// Find is the command args begin with, or nil, and how many words its name took: a
// two-word row (keys move) before the one-word row of its first word. "?" is help, as in
// the game.
func (t *Table) Find(args []string) (*Command, int) {
	if len(args) == 0 {
		return nil, 0
	}
	name := args[0]
	if name == "?" {
		name = "help"
	}
	if len(args) > 1 {
		for i := range t.rows {
			if t.rows[i].Name == name+" "+args[1] {
				return &t.rows[i], 2
			}
		}
	}
	for i := range t.rows {
		if t.rows[i].Name == name {
			return &t.rows[i], 1
		}
	}
	return nil, 0
}

// Session is where a command line comes from and goes to.
type Session struct {
	Key     ssh.PublicKey // the key the session authenticated with (never what auth was offered); nil for a guest
	Addr    string        // the client's address key; "" in the console
	Out     io.Writer
	ErrOut  io.Writer
	PTY     bool
	Console bool // typed in the game's admin console
	// Browser is set for a browser's key, proved on the play page (not an SSH login):
	// a key it links, or that claims a guest, is kept as knights.KindBrowser.
	Browser bool
}

// Run is the gate: it runs the command args[0] for the session's key and returns its
// exit status. An admin command asked by a key that is not an admin's gets exactly
// "permission denied" and status 1, whatever it asked (--help too): this is the one
// check of the table's Admin flag. Every admin command is logged once, with the outcome.
func (t *Table) Run(ctx context.Context, from Session, args []string) int {
	cmd, words := t.Find(args)
	if cmd == nil {
		try := "`help`"
		if from.Console {
			try = "help"
		}
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		fmt.Fprintf(from.ErrOut, "orthanc: unknown command %q; try %s\n", Printable(name), try)
		return 1
	}
	c := &Call{Ctx: ctx, Cmd: cmd, Key: from.Key, FP: keys.Fingerprint(from.Key), Admin: from.Key != nil && t.gate.IsAdmin(from.Key),
		Addr: from.Addr, Out: from.Out, ErrOut: from.ErrOut, PTY: from.PTY, Console: from.Console, Browser: from.Browser, table: t}
	var err error
	if c.Knight, err = t.gate.KnightOf(c.FP); err != nil {
		t.gate.Log.Error("find the key's knight", "fingerprint", c.FP, "err", err)
		fmt.Fprintln(from.ErrOut, "orthanc: your knight could not be read just now; try again later")
		return 1
	}
	if cmd.Admin && !c.Admin {
		t.gate.Log.Warn("admin: permission denied", "fingerprint", c.FP, "command", cmd.Name, "console", from.Console)
		fmt.Fprintln(from.ErrOut, PermissionDenied)
		return 1
	}
	if from.Key == nil && !cmd.Guests {
		fmt.Fprintln(from.ErrOut, t.WithSSH(GuestNeedsKey))
		return 1
	}
	code := c.run(args[words:])
	if cmd.Admin {
		t.gate.Log.Info("admin", "fingerprint", c.FP, "command", cmd.Name, "args", Printables(args[words:]), "console", from.Console,
			"exit", code, "result", c.Result)
	}
	return code
}

// run runs the call's command with the arguments after its name, once the gate has let
// it through: --help, then the console's refusal of a shell command, then the arguments.
func (c *Call) run(args []string) int {
	if slices.ContainsFunc(args, func(a string) bool { return a == "--help" || a == "-h" }) {
		c.table.WriteHelp(c.Out, c.Cmd)
		return 0
	}
	if c.Console && c.Cmd.Shell != "" {
		return c.Fail("%s", c.WithSSH(c.Cmd.Shell))
	}
	if !c.parse(args) {
		return 1
	}
	return c.Cmd.Run(c)
}

// ssh is the command that reaches this server.
func (t *Table) ssh(flags ...string) string { return t.gate.SSH(flags...) }

// WithSSH is text written with "ssh -p PORT host" or "ssh -t -p PORT host" for the
// command that reaches this server, with this server's real one in their place, so a
// newcomer can run the line as it reads.
func (t *Table) WithSSH(text string) string {
	return strings.NewReplacer(
		"ssh -t -p PORT host", t.ssh("-t"),
		"ssh -p PORT host", t.ssh(),
	).Replace(text)
}

// WriteHelp prints a command's usage, summary and help, as NAME --help and help NAME do.
func (t *Table) WriteHelp(w io.Writer, cmd *Command) {
	fmt.Fprintf(w, "usage: %s\n  %s\n", cmd.Usage, cmd.Summary)
	if cmd.Help != "" {
		fmt.Fprintf(w, "\n%s\n", t.WithSSH(cmd.Help))
	}
}
