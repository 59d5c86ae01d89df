package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin console (issue 7): commands for the keys in the admin allow-list, run as
// `ssh -p PORT host COMMAND` or typed after `:` in an admin's game. They all live in one
// table, adminCommands, and run only through runAdmin, the one gate: it checks the key
// the session really authenticated with (sess.PublicKey(), never what the auth callback
// was offered) before anything else, so no command can be added that escapes it.

// A command is what `ssh host NAME args...` runs when there is no game screen.
type command struct {
	name, usage, summary string
	run                  func(s *server, sess ssh.Session, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"help", "help [monsters] [--json]", "this list; help monsters prints the monster tables", (*server).cmdHelp},
		{"whoami", "whoami [--json]", "your knight: characteristics, hits, where it stands", (*server).cmdWhoami},
		{"who", "who [--json]", "the knights in the dungeon now", (*server).cmdWho},
		{"scores", "scores [--json]", "the hall of fame: the top three retired knights, and yours", (*server).cmdScores},
		{"play", "play [--plain]", "with a terminal (ssh -t): the game; --plain for screen-reader mode", (*server).cmdPlay},
		{"watch", "watch NAME", "with a terminal (ssh -t): watch a player's screen, read-only", (*server).cmdWatch},
	}
}

// runCommand runs a non-interactive command and ends the session with its exit status:
// 0 on success, 1 on any error (with one line on stderr).
func (s *server) runCommand(sess ssh.Session) {
	args := sess.Command()
	if len(args) == 0 {
		args = []string{"help"}
	}
	for _, c := range commands {
		if c.name == args[0] {
			_ = sess.Exit(c.run(s, sess, args[1:]))
			return
		}
	}
	if findAdmin(args[0]) != nil {
		// Every admin command goes through the one gate, with the key the session
		// authenticated with.
		_, _, pty := sess.Pty()
		_ = sess.Exit(s.runAdmin(sess.Context(), sess.PublicKey(), args, sess, sess.Stderr(), false, pty))
		return
	}
	fmt.Fprintf(sess.Stderr(), "orthanc: unknown command %q; try `help`\n", printable(args[0]))
	_ = sess.Exit(1)
}

// printable cuts a client-supplied word short and drops control characters, so an error
// message never echoes escape sequences back to a terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			b.WriteString("…")
			break
		}
		if r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonFlag accepts only --json; anything else is a usage error.
func jsonFlag(sess ssh.Session, usage string, args []string) (asJSON, ok bool) {
	for _, a := range args {
		if a != "--json" {
			fmt.Fprintf(sess.Stderr(), "orthanc: unexpected %q; usage: %s\n", printable(a), usage)
			return false, false
		}
		asJSON = true
	}
	return asJSON, true
}

func (s *server) cmdHelp(sess ssh.Session, args []string) int {
	if len(args) > 0 && args[0] == "monsters" {
		return cmdHelpMonsters(sess, args[1:])
	}
	if len(args) > 0 {
		fmt.Fprintf(sess.Stderr(), "orthanc: no help on %q; try `help` or `help monsters`\n", printable(args[0]))
		return 1
	}
	w := tabwriter.NewWriter(sess, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Orthanc over SSH. Connect with a terminal to play: ssh -p PORT host")
	fmt.Fprintln(w, "Commands (ssh -p PORT host COMMAND):")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\t%s\n", c.usage, c.summary)
	}
	_ = w.Flush()
	if s.isAdmin(sess.PublicKey()) { // admin commands are listed to admins only
		fmt.Fprintln(sess)
		writeAdminHelp(sess, false)
	}
	return 0
}

func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}

// permissionDenied is all a key that is not an admin's learns about an admin command.
const permissionDenied = "permission denied"

// adminCommand is one command of the admin console.
type adminCommand struct {
	name, usage, summary string
	help                 string // more about the command, for --help
	run                  func(s *server, c *adminCall) int
}

// adminCommands is the admin console: every entry runs only through runAdmin.
var adminCommands []adminCommand

func init() {
	adminCommands = []adminCommand{
		{"regen", "regen <level|all> [--seed N] [--json]", "rebuild one level, or all, now, from a new seed",
			"Level d becomes the one dungeon seed N builds for depth d (N is random unless given, and printed).\n" +
				"Knights on a rebuilt level move to its up stairs and are told; fights there end and the\n" +
				"old monsters vanish; no knight dies or loses anything. The level is saved at once and\n" +
				"stays rebuilt across restarts until `revert`.", (*server).adminRegen},
		{"revert", "revert [level|all] [--json]", "rebuild levels from the original seed (all by default)",
			"The original dungeon comes back byte for byte, freshly stocked: broken doors are whole and\n" +
				"the original guards are back. Knights on a reverted level move to its up stairs.", (*server).adminRevert},
		{"kick", "kick <name|fingerprint> [--json]", "remove a knight from the dungeon (it is saved and may come back)",
			"The knight's game ends with \"" + world.KickedMessage + "\"", (*server).adminKick},
		{"ban", "ban <name|fingerprint> [--reason TEXT] [--json]", "refuse a key at login, and remove its knight now",
			"A name is looked up among the knights online first, then among every stored knight\n" +
				"(without regard to case); when several share it, ban by fingerprint (see `who`).\n" +
				"An admin's key cannot be banned: take it out of the admin keys file first.", (*server).adminBan},
		{"unban", "unban <name|fingerprint> [--json]", "lift a ban", "", (*server).adminUnban},
		{"bans", "bans [--json]", "the banned keys", "", (*server).adminBans},
		{"broadcast", "broadcast <text>", "a line in every knight's messages, marked [admin]",
			fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
				"text is cut to %d characters.", world.MaxBroadcastRunes), (*server).adminBroadcast},
		{"backup", "backup", "a consistent copy of the database on stdout",
			"Run it without a terminal and redirect it: ssh -p PORT host backup > orthanc.db\n" +
				"The copy is taken in one read transaction while the game runs, after the saver has\n" +
				"written what it holds; it opens with bbolt like the live file.", (*server).adminBackup},
		{"stats", "stats [--json]", "sessions, players, levels and seeds, tick and save times, memory", "", (*server).adminStats},
	}
}

// findAdmin is the admin command with the name, or nil.
func findAdmin(name string) *adminCommand {
	for i := range adminCommands {
		if adminCommands[i].name == name {
			return &adminCommands[i]
		}
	}
	return nil
}

// isAdmin reports whether key, the key a session authenticated with, is in the admin
// allow-list. It is the only test of admin rights in the server.
func (s *server) isAdmin(key ssh.PublicKey) bool {
	return key != nil && s.admins.Contains(key)
}

// adminCall is one run of an admin command.
type adminCall struct {
	ctx     context.Context
	cmd     *adminCommand
	fp      string   // the admin's key fingerprint
	args    []string // the arguments after the command's name
	out     io.Writer
	errOut  io.Writer
	console bool   // typed in the game's console rather than run over ssh
	pty     bool   // the ssh session has a terminal
	result  string // what the command did, for the log
}

// runAdmin is the admin gate: it runs the admin command args[0] (which must be in
// adminCommands) for key, the key the session authenticated with, and returns its exit
// status. A key that is not an admin's gets exactly "permission denied" and status 1,
// whatever it asked. Every action an admin takes is logged once, with the outcome.
func (s *server) runAdmin(ctx context.Context, key ssh.PublicKey, args []string, out, errOut io.Writer, console, pty bool) int {
	fp := keys.Fingerprint(key)
	cmd := findAdmin(args[0])
	if cmd == nil || !s.isAdmin(key) {
		s.log.Warn("admin: permission denied", "fingerprint", fp, "command", printable(args[0]), "console", console)
		fmt.Fprintln(errOut, permissionDenied)
		return 1
	}
	if slices.ContainsFunc(args[1:], func(a string) bool { return a == "--help" || a == "-h" }) {
		fmt.Fprintf(out, "usage: %s\n  %s\n", cmd.usage, cmd.summary)
		if cmd.help != "" {
			fmt.Fprintf(out, "\n%s\n", cmd.help)
		}
		return 0
	}
	c := &adminCall{ctx: ctx, cmd: cmd, fp: fp, args: args[1:], out: out, errOut: errOut, console: console, pty: pty}
	code := cmd.run(s, c)
	logArgs := make([]string, len(c.args))
	for i, a := range c.args {
		logArgs[i] = printable(a)
	}
	s.log.Info("admin", "fingerprint", fp, "command", cmd.name, "args", logArgs, "console", console, "exit", code, "result", c.result)
	return code
}

// fail reports an error to the admin and ends the command with status 1.
func (c *adminCall) fail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	c.result = "error: " + msg
	fmt.Fprintf(c.errOut, "orthanc: %s\n", msg)
	return 1
}

// usageError reports a misuse of the command with its usage line.
func (c *adminCall) usageError(format string, args ...any) int {
	return c.fail("%s; usage: %s", fmt.Sprintf(format, args...), c.cmd.usage)
}

// adminArgs are a command's parsed arguments.
type adminArgs struct {
	pos     []string
	json    bool
	seed    uint64
	hasSeed bool
	reason  string
}

// parse reads the call's arguments; flags lists the flags the command takes ("json",
// "seed", "reason"). --reason takes the rest of the line. It reports misuse itself.
func (c *adminCall) parse(flags ...string) (adminArgs, bool) {
	var a adminArgs
	takes := func(f string) bool { return slices.Contains(flags, f) }
	for i := 0; i < len(c.args); i++ {
		arg := c.args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--json" && takes("json"):
			a.json = true
		case name == "--seed" && takes("seed"):
			if !hasValue {
				if i+1 >= len(c.args) {
					c.usageError("--seed needs a number")
					return a, false
				}
				i++
				value = c.args[i]
			}
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				c.usageError("seed %q is not a whole number from 0 to 18446744073709551615", printable(value))
				return a, false
			}
			a.seed, a.hasSeed = n, true
		case name == "--reason" && takes("reason"):
			rest := c.args[i+1:]
			if hasValue {
				rest = append([]string{value}, rest...)
			}
			a.reason = world.CleanText(strings.Join(rest, " "), world.MaxBroadcastRunes)
			return a, true
		case strings.HasPrefix(arg, "-"):
			c.usageError("unknown flag %q", printable(arg))
			return a, false
		default:
			a.pos = append(a.pos, arg)
		}
	}
	return a, true
}

// writeJSON prints v as one line of JSON.
func (c *adminCall) writeJSON(v any) int {
	if err := json.NewEncoder(c.out).Encode(v); err != nil {
		return c.fail("write output: %v", err)
	}
	return 0
}

// writeAdminHelp lists the admin commands.
func writeAdminHelp(w io.Writer, console bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if console {
		fmt.Fprintln(tw, "Admin console (Enter runs a line, Esc closes, PgUp/PgDn scroll):")
		fmt.Fprintln(tw, "  who\tthe knights online, with keys and addresses")
	} else {
		fmt.Fprintln(tw, "Admin commands (also typed after : in the game; each takes --help):")
	}
	for _, c := range adminCommands {
		if console && c.name == "backup" {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\n", c.usage, c.summary)
	}
	_ = tw.Flush()
}

// consoleHook is the in-game console for a session that authenticated with key: nil
// unless the key is an admin's. Each line still goes through the gate.
func (s *server) consoleHook(ctx context.Context, key ssh.PublicKey) func(line string) (string, bool) {
	if !s.isAdmin(key) {
		return nil
	}
	return func(line string) (string, bool) {
		var out bytes.Buffer
		code := s.consoleLine(ctx, key, line, &out)
		return out.String(), code == 0
	}
}

// consoleLine runs one line typed in the game's console: an admin command, or who, or
// help. Output and errors both go to out, for the console panel.
func (s *server) consoleLine(ctx context.Context, key ssh.PublicKey, line string, out io.Writer) int {
	args := strings.Fields(line)
	if len(args) == 0 {
		return 0
	}
	switch {
	case findAdmin(args[0]) != nil:
		return s.runAdmin(ctx, key, args, out, out, true, false)
	case !s.isAdmin(key):
		fmt.Fprintln(out, permissionDenied)
		return 1
	case args[0] == "who":
		who, err := s.engine.Who(ctx)
		if err != nil {
			fmt.Fprintln(out, "orthanc: the world is not answering; try again later")
			return 1
		}
		return s.writeAdminWho(out, who, false)
	case args[0] == "help" || args[0] == "?":
		writeAdminHelp(out, true)
		return 0
	}
	fmt.Fprintf(out, "orthanc: unknown command %q; try help\n", printable(args[0]))
	return 1
}
