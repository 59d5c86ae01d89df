package server

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
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The command line: what a key runs with `ssh -p PORT host NAME args...` (a session with
// no game), and what an admin types after `:` in the game. Every command is a row of one
// table, commands, and runs only through one gate, runCommandLine: it checks an admin
// command against the key the session really authenticated with (sess.PublicKey(), never
// what the auth callback was offered) before anything else, so no command can be added
// that escapes it. help and every command's --help are written from the table.
//
// To add a command: a row below, and its function (commands_player.go for everyone's;
// for the admin console's, commands_world.go, commands_moderation.go or
// commands_operations.go by subject). A row's name may be two words (keys move):
// it is found before the one-word row (keys) of its first word, so an admin's
// sub-command has a row, and the gate, of its own.

// command is one row of the table. Its help and shell write a command line to run as
// "ssh -p PORT host ..." (or "ssh -t -p PORT host ..."): they are printed through withSSH,
// which puts this server's real command in its place.
type command struct {
	name    string
	usage   string // its command line, for help and usage errors
	summary string // one line, for help
	help    string // more about it, for NAME --help; may be empty
	admin   bool   // only keys in the admin allow-list may run it
	guests  bool   // a guest (no key) may run it too
	takes   takes  // the flags and words it takes, read into the call before it runs
	// shell is why the command runs only from a shell (ssh host NAME), never in the game's
	// console; empty for a command that runs in both.
	shell string
	run   func(s *Server, c *call) int
}

// takes is what a command reads after its name. Anything else is a usage error.
type takes uint8

const (
	takesJSON    takes = 1 << iota // --json: the answer as one line of JSON
	takesSeed                      // --seed N, or --seed=N
	takesReason                    // --reason TEXT: the rest of the line, cleaned
	takesWords                     // words that are not flags: a level, a name, a topic
	takesLine                      // every word as it came, flags or not (broadcast's text)
	takesReplace                   // --replace: give up the knight the key has
	takesComment                   // --comment TEXT: the rest of the line, cleaned
	takesFor                       // --for DURATION, or --for=DURATION: how long (a timed ban)
)

// call is one run of a command.
type call struct {
	ctx    context.Context
	cmd    *command
	key    ssh.PublicKey // the key the session authenticated with; nil for a guest
	fp     string        // its fingerprint
	knight string        // the id of the knight it plays; empty when it has none
	admin  bool          // the key is in the admin allow-list
	args   []string      // the words after the name, without the flags read below
	addr   string        // the client's address (edge.AddrKey), for counting wrong codes; empty in the console
	out    io.Writer
	errOut io.Writer // in the console, the same as out
	json   bool      // --json
	pty    bool      // the ssh session has a terminal
	// console is set for a line typed in the game's console rather than run over ssh.
	console bool

	seed      uint64 // --seed, when hasSeed
	hasSeed   bool
	reason    string        // --reason
	hasReason bool          // --reason was given (kick refuses it empty)
	replace   bool          // --replace
	comment   string        // --comment
	span      time.Duration // --for, when hasFor
	hasFor    bool

	result string // what an admin command did, for the log
}

// permissionDenied is all a key that is not an admin's learns about an admin command.
const permissionDenied = "permission denied"

// commands is the table: everyone's commands, then the admin console's. help lists them
// in this order.
var commands []command

// The table is filled in init because help, one of its rows, reads it.
func init() {
	commands = []command{
		{name: "help", usage: "help [monsters | COMMAND] [--json]", summary: "this list; help monsters: the monster tables; help COMMAND: its help",
			guests: true, takes: takesWords | takesJSON, run: (*Server).cmdHelp},
		{name: "whoami", usage: "whoami [--json]", summary: "your knight: characteristics, hits, where it stands",
			takes: takesJSON, run: (*Server).cmdWhoami},
		{name: "who", usage: "who [--json]", summary: "the knights in the dungeon now",
			help: "Everyone sees how long each knight has been idle and who is away (/afk), with the reason.\n" +
				"Guests are marked. Admins also see each knight's key fingerprint, address, time connected and bytes sent.",
			guests: true, takes: takesJSON, run: (*Server).cmdWho},
		{name: "realms", usage: "realms [--json]", summary: "the realms that share the knights: address, players, round trip from here",
			help: "On a realm (a server that shares its knights with others), every realm it hears from, this one\n" +
				"first: the address players connect to, how many play there, and a ping's round trip from this\n" +
				"realm, so you can pick the nearest. Your knight plays in any of them, one at a time.\n" +
				"On a server alone it says so.",
			guests: true, takes: takesJSON, run: (*Server).cmdRealms},
		{name: "scores", usage: "scores [--json]", summary: "the hall of fame: the top three retired knights, and yours",
			guests: true, takes: takesJSON, run: (*Server).cmdScores},
		{name: "motd", usage: "motd [--json]", summary: "the server's message of the day",
			guests: true, takes: takesJSON, run: (*Server).cmdMOTD},
		{name: "keys", usage: "keys [add | remove FINGERPRINT] [--json]", summary: "your knight's keys; add: a code to link another key",
			help: "keys lists the keys that play your knight: fingerprint (as ssh-keygen -l prints it), type,\n" +
				"comment, when added and when last used.\n" +
				"keys add prints a one-time code, good once for " + codeLifeWords + ": from your other key run\n" +
				"  ssh -p PORT host link CODE\n" +
				"keys remove FINGERPRINT takes a key from your knight; its last key stays.",
			takes: takesWords | takesJSON, run: (*Server).cmdKeys},
		{name: "link", usage: "link CODE [--replace] [--comment TEXT]", summary: "from another key: play the knight whose `keys add` gave CODE",
			help: "A key that already plays a living knight is refused unless --replace: that knight is then\n" +
				"retired into a tombstone (unless it has other keys, which keep it). --comment names the key\n" +
				"in `keys` (the comment in your key file never reaches the server).",
			takes: takesWords | takesReplace | takesComment, run: (*Server).cmdLink},
		{name: "claim", usage: "claim CODE [--replace]", summary: "from a key: adopt the guest knight you played, with the code it was given",
			help:  "A guest is told a code when it leaves; for " + codeLifeWords + " a key may claim the knight with it, as it stood.",
			takes: takesWords | takesReplace, run: (*Server).cmdClaim},
		{name: "play", usage: "play [--plain]", summary: "with a terminal (ssh -t): the game; --plain for screen-reader mode",
			takes: takesLine, shell: "play opens a game of its own; run it from a shell: ssh -t -p PORT host play [--plain]",
			run: (*Server).cmdPlay},
		{name: "watch", usage: "watch NAME", summary: "with a terminal (ssh -t): watch a player's screen, read-only",
			takes: takesLine, shell: "watch opens a screen of its own; run it from a shell: ssh -t -p PORT host watch NAME, or press w in the game",
			run: (*Server).cmdWatch},
		{name: "replay", usage: replayUsage, summary: "your replays; with a terminal (ssh -t), play one, or another knight's death",
			help: replayHelp, takes: takesLine, shell: "replay opens a screen of its own; run it from a shell: ssh -t -p PORT host replay NAME --death",
			run: (*Server).cmdReplay},

		{name: "regen", usage: "regen <level|all> [--seed N] [--json]", summary: "rebuild one level, or all, now, from a new seed",
			help: "Level d becomes the one dungeon seed N builds for depth d (N is random unless given, and printed).\n" +
				"Knights on a rebuilt level move to its up stairs and are told; fights there end and the\n" +
				"old monsters vanish; no knight dies or loses anything. The level is saved at once and\n" +
				"stays rebuilt across restarts until `revert`.",
			admin: true, takes: takesWords | takesJSON | takesSeed, run: (*Server).adminRegen},
		{name: "revert", usage: "revert [level|all] [--json]", summary: "rebuild levels from the original seed (all by default)",
			help: "The original dungeon comes back byte for byte, freshly stocked: broken doors are whole and\n" +
				"the original guards are back. Knights on a reverted level move to its up stairs.",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminRevert},
		{name: "kick", usage: "kick <name|fingerprint> [--json] [--reason TEXT]", summary: "remove a knight from the dungeon (it is saved and may come back)",
			help: "The knight's game ends with \"" + world.KickedMessage + "\", and with --reason,\n" +
				"\"Reason: \" and the text, cleaned, on its screen before the connection closes. --reason\n" +
				"takes the rest of the line, so it comes last.",
			admin: true, takes: takesWords | takesJSON | takesReason, run: (*Server).adminKick},
		{name: "knight", usage: "knight <name|fingerprint|id> [--json]", summary: "a knight, online or not: keys, created, last seen and from where, bans and silences",
			help: "The knight is found as for ban: by a key's fingerprint, by its id (K-…, as reports show it),\n" +
				"or by name among the knights online first, then among every stored knight. Last seen is\n" +
				"now for a knight in the game, else when its keys last opened a session or left the game.",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminKnight},
		{name: "rename", usage: "rename <name|fingerprint|id> NEW [--json]", summary: "give a knight a new name (an offensive one, say); it is told",
			help: "The knight is the first word (a name of several words: give its id, as knight shows it);\n" +
				"NEW is the rest, checked as the name prompt checks a name, and unique. A knight online is\n" +
				"told at once, one offline when it next plays. Letters reach it by its new name only.\n" +
				"A guest is not renamed (its name goes with its session), nor a dead or retired knight.",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminRename},
		{name: "ban", usage: "ban <name|fingerprint|address> [--for DURATION] [--reason TEXT] [--json]", summary: "refuse a knight's keys (or an address) at login, and remove the knight now",
			help: "A name is looked up among the knights online first, then among every stored knight\n" +
				"(without regard to case); when several share it, ban by fingerprint (see `who`). A name\n" +
				"bans every key of its knight; a guest's bans its address (a guest has no key); an address\n" +
				"or a prefix (203.0.113.7, 203.0.113.0/24) bans every connection from it.\n" +
				"With --for (30m, 2h, 7d, 2w) every ban it writes lapses by itself after that long;\n" +
				"without, it lasts until unban. --reason takes the rest of the line, so it comes last.\n" +
				"An admin's key cannot be banned: take it out of the admin keys file first.",
			admin: true, takes: takesWords | takesJSON | takesReason | takesFor, run: (*Server).adminBan},
		{name: "unban", usage: "unban <name|fingerprint|address> [--json]", summary: "lift a ban",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminUnban},
		{name: "bans", usage: "bans [--json]", summary: "the banned keys and addresses, and until when",
			admin: true, takes: takesJSON, run: (*Server).adminBans},
		{name: "silence", usage: "silence <name|fingerprint> <DURATION> [--reason TEXT] [--json]", summary: "let a knight play but not talk, for a time",
			help: "The knight is told why and until when; what it says, shouts, whispers, writes on a\n" +
				"channel or in a letter, or gives as an away reason, reaches no one. DURATION is 30m,\n" +
				"2h, 7d or 2w; the silence ends by itself then, across restarts, or with unsilence.\n" +
				"It is kept by the knight's id, so it holds whichever of the knight's keys plays; a\n" +
				"guest's lasts while the guest plays, not kept in the database (ban a guest to keep it out).\n" +
				"The knight is named as for ban. --reason takes the rest of the line, so it comes last.",
			admin: true, takes: takesWords | takesJSON | takesReason, run: (*Server).adminSilence},
		{name: "unsilence", usage: "unsilence <name|fingerprint> [--json]", summary: "end a silence now",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminUnsilence},
		{name: "silences", usage: "silences [--json]", summary: "the knights silenced now, and until when",
			admin: true, takes: takesJSON, run: (*Server).adminSilences},
		{name: "reports", usage: "reports [--json]", summary: "the reports players filed, open ones first, with the lines the reported knight said",
			help: "Each report has a number and says who reported whom, when and why, and carries what the\n" +
				"reported knight said aloud in the 10 minutes before (says, emotes, shouts, channels) and its\n" +
				"whispers to the reporter. Knights are named with their ids; a guest (\"guest-…\") is marked so.\n" +
				"A reporter has one open report about a knight: reporting it again updates that one.\n" +
				"Open reports come first; `reports resolve N` or `reports dismiss N` closes one.\n" +
				"An admin in the game is told of a new report by a line in its messages.\n" +
				"What a keyed knight did in the 2 minutes before is kept with the report: with a terminal,\n" +
				"`replay --report N` plays it (what anyone may see: no whispers, party talk or channels).\n" +
				"Reports are kept 30 days, and all of them in 256 KiB: past it the oldest closed go first.",
			admin: true, takes: takesJSON, run: (*Server).adminReports},
		{name: "reports resolve", usage: "reports resolve <number> [--json]", summary: "close a report: dealt with",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminReportsResolve},
		{name: "reports dismiss", usage: "reports dismiss <number> [--json]", summary: "close a report: nothing to do",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminReportsDismiss},
		{name: "broadcast", usage: "broadcast <text>", summary: "a line in every knight's messages, marked [admin]",
			help: fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
				"text is cut to %d characters.", world.MaxBroadcastRunes),
			admin: true, takes: takesLine, run: (*Server).adminBroadcast},
		{name: "backup", usage: "backup", summary: "a consistent copy of the database on stdout",
			help: "Run it without a terminal and redirect it: ssh -p PORT host backup > orthanc.db\n" +
				"The copy is taken in one read transaction while the game runs, after the saver has\n" +
				"written what it holds; it opens with bbolt like the live file.",
			shell: "backup streams the database as binary; run it from a shell: ssh -p PORT host backup > orthanc.db",
			admin: true, run: (*Server).adminBackup},
		{name: "check", usage: "check [--json]", summary: "verify every record of the live database: pages, checksums, decoding",
			help: "Runs while the game goes on, in one read transaction, after the saver has written what it\n" +
				"holds. Exit status 1 when a problem is found, each named by its bucket and key. A stopped\n" +
				"server's database is checked with orthanc-ssh -check.",
			admin: true, takes: takesJSON, run: (*Server).adminCheck},
		{name: "stats", usage: "stats [--json]", summary: "sessions, players, levels and seeds, tick and save times, memory",
			admin: true, takes: takesJSON, run: (*Server).adminStats},
		{name: "motd set", usage: "motd set <text>", summary: "set the message of the day (title screen and web page)",
			help:  fmt.Sprintf("Control characters and escape sequences are removed, and the text is cut to %d characters.", world.MaxBroadcastRunes),
			admin: true, takes: takesLine, run: (*Server).adminMOTDSet},
		{name: "motd clear", usage: "motd clear", summary: "clear the message of the day",
			admin: true, run: (*Server).adminMOTDClear},
		{name: "reload", usage: "reload [--json]", summary: "read the admin keys and the message of the day's file again; no one is dropped",
			help: "SIGHUP does the same. Each admin key added or removed is named by its fingerprint, here\n" +
				"and in the log; a key taken out is refused at its next admin command. The message of the\n" +
				"day is the file's (-motd-file, <data>/motd by default) while the file exists, else the one\n" +
				"motd set stored. A file that cannot be read keeps what was there.",
			admin: true, takes: takesJSON, run: (*Server).adminReload},
		{name: "admins", usage: "admins [--json]", summary: "the admin keys loaded: fingerprint, type and comment",
			admin: true, takes: takesJSON, run: (*Server).adminAdmins},
		{name: "keys move", usage: "keys move OLD NEW", summary: "for a player who lost a key: key NEW (a fingerprint) takes OLD's place",
			help: "NEW must play no living knight (a dead one's record goes). NEW is a fingerprint as ssh-keygen -l\n" +
				"prints it: have the player send it, with `ssh-keygen -lf ~/.ssh/id_ed25519.pub`.\n" +
				"A game open with OLD ends, telling its player why; the knight is saved.",
			admin: true, takes: takesWords | takesJSON, run: (*Server).adminKeysMove},
	}
}

// findCommand is the command args begin with, or nil, and how many words its name
// took: a two-word row (keys move) before the one-word row of its first word. "?" is
// help, as in the game.
func findCommand(args []string) (*command, int) {
	name := args[0]
	if name == "?" {
		name = "help"
	}
	if len(args) > 1 {
		for i := range commands {
			if commands[i].name == name+" "+args[1] {
				return &commands[i], 2
			}
		}
	}
	for i := range commands {
		if commands[i].name == name {
			return &commands[i], 1
		}
	}
	return nil, 0
}

// isAdmin reports whether key, the key a session authenticated with, is in the admin
// allow-list. The gate asks it once a command; the console asks it before it opens.
func (s *Server) isAdmin(key ssh.PublicKey) bool {
	return key != nil && s.admins.Load().Contains(key)
}

// runCommand runs a session's command, for a session without a game, and ends the
// session with its exit status: 0 on success, 1 on any error (with one line on stderr).
func (s *Server) runCommand(sess ssh.Session) {
	args := sess.Command()
	if len(args) == 0 {
		args = []string{"help"}
	}
	_, _, pty := sess.Pty()
	_ = sess.Exit(s.runCommandLineFrom(sess.Context(), sess.PublicKey(), edge.AddrKey(sess.RemoteAddr()), args, sess, sess.Stderr(), pty, false))
}

// consoleHook is the in-game console for a session that authenticated with key: nil
// unless the key is an admin's. Each line goes through the gate; its output and errors
// both go to the console's panel.
func (s *Server) consoleHook(ctx context.Context, key ssh.PublicKey) func(line string) (string, bool) {
	if !s.isAdmin(key) {
		return nil
	}
	return func(line string) (string, bool) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return "", true
		}
		var out bytes.Buffer
		code := s.runCommandLine(ctx, key, args, &out, &out, false, true)
		return out.String(), code == 0
	}
}

// runCommandLine is the gate: it runs the command args[0] for key, the key the session
// authenticated with, and returns its exit status. An admin command asked by a key that
// is not an admin's gets exactly "permission denied" and status 1, whatever it asked
// (--help too): this is the one check of the table's admin flag. Every admin command is
// logged once, with the outcome.
func (s *Server) runCommandLine(ctx context.Context, key ssh.PublicKey, args []string, out, errOut io.Writer, pty, console bool) int {
	return s.runCommandLineFrom(ctx, key, "", args, out, errOut, pty, console)
}

// runCommandLineFrom is runCommandLine for a client at addr.
func (s *Server) runCommandLineFrom(ctx context.Context, key ssh.PublicKey, addr string, args []string, out, errOut io.Writer, pty, console bool) int {
	cmd, words := findCommand(args)
	if cmd == nil {
		try := "`help`"
		if console {
			try = "help"
		}
		fmt.Fprintf(errOut, "orthanc: unknown command %q; try %s\n", printable(args[0]), try)
		return 1
	}
	c := &call{ctx: ctx, cmd: cmd, key: key, fp: keys.Fingerprint(key), admin: s.isAdmin(key), addr: addr,
		out: out, errOut: errOut, pty: pty, console: console}
	var err error
	if c.knight, err = s.knightOf(c.fp); err != nil {
		s.log.Error("find the key's knight", "fingerprint", c.fp, "err", err)
		fmt.Fprintln(errOut, "orthanc: your knight could not be read just now; try again later")
		return 1
	}
	if cmd.admin && !c.admin {
		s.log.Warn("admin: permission denied", "fingerprint", c.fp, "command", cmd.name, "console", console)
		fmt.Fprintln(errOut, permissionDenied)
		return 1
	}
	if key == nil && !cmd.guests {
		fmt.Fprintln(errOut, s.withSSH(guestNeedsKey))
		return 1
	}
	code := c.run(s, args[words:])
	if cmd.admin {
		s.log.Info("admin", "fingerprint", c.fp, "command", cmd.name, "args", printables(args[words:]), "console", console,
			"exit", code, "result", c.result)
	}
	return code
}

// run runs the call's command with the arguments after its name, once the gate has let
// it through: --help, then the console's refusal of a shell command, then the arguments.
func (c *call) run(s *Server, args []string) int {
	if slices.ContainsFunc(args, func(a string) bool { return a == "--help" || a == "-h" }) {
		s.writeCommandHelp(c.out, c.cmd)
		return 0
	}
	if c.console && c.cmd.shell != "" {
		return c.fail("%s", s.withSSH(c.cmd.shell))
	}
	if !c.parse(args) {
		return 1
	}
	return c.cmd.run(s, c)
}

// parse reads args into the call, as its command takes them: --reason takes the rest
// of the line. It reports misuse itself.
func (c *call) parse(args []string) bool {
	t := c.cmd.takes
	if t&takesLine != 0 {
		c.args = args
		return true
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--json" && t&takesJSON != 0:
			c.json = true
		case name == "--seed" && t&takesSeed != 0:
			if !hasValue {
				if i+1 >= len(args) {
					c.usageError("--seed needs a number")
					return false
				}
				i++
				value = args[i]
			}
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				c.usageError("seed %q is not a whole number from 0 to 18446744073709551615", printable(value))
				return false
			}
			c.seed, c.hasSeed = n, true
		case arg == "--replace" && t&takesReplace != 0:
			c.replace = true
		case name == "--comment" && t&takesComment != 0:
			rest := args[i+1:]
			if hasValue {
				rest = append([]string{value}, rest...)
			}
			c.comment = world.CleanText(strings.Join(rest, " "), maxCommentRunes)
			return true
		case name == "--for" && t&takesFor != 0:
			if !hasValue {
				if i+1 >= len(args) {
					c.usageError("--for needs a duration, such as 2h or 7d")
					return false
				}
				i++
				value = args[i]
			}
			d, err := parseSpan(value)
			if err != nil {
				c.usageError("%v", err)
				return false
			}
			c.span, c.hasFor = d, true
		case name == "--reason" && t&takesReason != 0:
			rest := args[i+1:]
			if hasValue {
				rest = append([]string{value}, rest...)
			}
			c.reason = world.CleanText(strings.Join(rest, " "), world.MaxBroadcastRunes)
			c.hasReason = true
			return true
		case strings.HasPrefix(arg, "-"):
			c.usageError("unknown flag %q", printable(arg))
			return false
		case t&takesWords == 0:
			c.usageError("unexpected %q", printable(arg))
			return false
		default:
			c.args = append(c.args, arg)
		}
	}
	return true
}

// Bounds of a duration an admin gives (a timed ban, a silence).
const (
	minSpan = time.Minute
	maxSpan = 366 * 24 * time.Hour
)

// parseSpan reads how long a ban or a silence lasts: a Go duration (90m, 2h30m), or a
// whole number of days or weeks (7d, 2w), from a minute to a year.
func parseSpan(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if n, ok := strings.CutSuffix(v, "d"); err != nil && ok {
		if days, aerr := strconv.Atoi(n); aerr == nil {
			d, err = time.Duration(days)*24*time.Hour, nil
		}
	} else if n, ok := strings.CutSuffix(v, "w"); err != nil && ok {
		if weeks, aerr := strconv.Atoi(n); aerr == nil {
			d, err = time.Duration(weeks)*7*24*time.Hour, nil
		}
	}
	switch {
	case err != nil:
		return 0, fmt.Errorf("duration %q: want one such as 30m, 2h, 7d or 2w", printable(v))
	case d < minSpan || d > maxSpan:
		return 0, fmt.Errorf("duration %q: want one from a minute to a year", printable(v))
	}
	return d, nil
}

// fail reports an error in one line and ends the command with status 1.
func (c *call) fail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	c.result = "error: " + msg
	fmt.Fprintf(c.errOut, "orthanc: %s\n", msg)
	return 1
}

// usageError reports a misuse of the command, with its usage line.
func (c *call) usageError(format string, args ...any) int {
	return c.fail("%s; usage: %s", fmt.Sprintf(format, args...), c.cmd.usage)
}

// writeJSON prints v as one line of JSON.
func (c *call) writeJSON(v any) int {
	if err := json.NewEncoder(c.out).Encode(v); err != nil {
		return c.fail("write output: %v", err)
	}
	return 0
}

// cmdHelp lists the commands the key may run, from the table: admin commands to admins
// only, and in the console only what runs there. help monsters prints the monster tables.
func (s *Server) cmdHelp(c *call) int {
	if len(c.args) > 0 {
		return s.helpTopic(c)
	}
	var everyone, admins []command
	for _, cmd := range commands {
		switch {
		case c.console && cmd.shell != "": // it does not run there
		case !cmd.admin:
			everyone = append(everyone, cmd)
		case c.admin: // admin commands are listed to admins only
			admins = append(admins, cmd)
		}
	}
	if c.json {
		return c.writeJSON(helpJSON(append(everyone, admins...)))
	}
	if c.console {
		writeCommands(c.out, "Admin console (Enter runs a line, Esc closes, PgUp/PgDn scroll):", append(everyone, admins...))
		return 0
	}
	fmt.Fprintln(c.out, "Orthanc over SSH. Connect with a terminal to play:", s.sshCommand())
	writeCommands(c.out, "Commands ("+s.sshCommand()+" COMMAND):", everyone)
	if len(admins) > 0 {
		fmt.Fprintln(c.out)
		writeCommands(c.out, "Admin commands (also typed after : in the game; each takes --help):", admins)
	}
	return 0
}

// writeCommandHelp prints a command's usage, summary and help, as NAME --help and
// help NAME do.
func (s *Server) writeCommandHelp(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: %s\n  %s\n", cmd.usage, cmd.summary)
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", s.withSSH(cmd.help))
	}
}

// withSSH is text written with "ssh -p PORT host" or "ssh -t -p PORT host" for the
// command that reaches this server, with this server's real one in their place
// (sshCommand), so a newcomer can run the line as it reads.
func (s *Server) withSSH(text string) string {
	return strings.NewReplacer(
		"ssh -t -p PORT host", s.sshCommand("-t"),
		"ssh -p PORT host", s.sshCommand(),
	).Replace(text)
}

// helpTopic is help with a topic: help monsters prints the monster tables; help NAME a
// command's help, as NAME --help does (an admin's commands for admins only).
func (s *Server) helpTopic(c *call) int {
	if cmd, n := findCommand(c.args); cmd != nil && n == len(c.args) && (!cmd.admin || c.admin) && cmd.name != "help" {
		s.writeCommandHelp(c.out, cmd)
		return 0
	}
	if c.args[0] != "monsters" {
		return c.fail("no help on %q; try `help`, `help monsters` or `help COMMAND`", printable(c.args[0]))
	}
	if len(c.args) > 1 {
		return c.fail("unexpected %q; usage: help monsters [--json]", printable(c.args[1]))
	}
	return cmdHelpMonsters(c)
}

// writeCommands prints a heading and the commands' usage lines and summaries as a table.
func writeCommands(w io.Writer, heading string, cmds []command) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, heading)
	for _, cmd := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", cmd.usage, cmd.summary)
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
func helpJSON(cmds []command) []commandJSON {
	out := make([]commandJSON, 0, len(cmds))
	for _, cmd := range cmds {
		out = append(out, commandJSON{cmd.name, cmd.usage, cmd.summary, cmd.admin})
	}
	return out
}

// printable cuts a client-supplied word short and drops control characters, so an error
// message never echoes escape sequences back to a terminal. The cut is past a key's
// fingerprint (50 characters), so a refusal names the key it was given whole.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 64 {
			b.WriteString("…")
			break
		}
		if r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printables is printable of every word, for the log.
func printables(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = printable(w)
	}
	return out
}
