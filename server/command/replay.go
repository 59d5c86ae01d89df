package command

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The replay command: `replay` lists the key's own records (its knight's last minutes,
// and the deaths and retirements of its knights); `replay N` plays one of them whole,
// `replay NAME --death` and `replay NAME --retired` play another knight's, as anyone
// may see it, and an admin's `replay --report N` plays the minutes kept with a report.
// Playing needs a terminal (ssh -t): the server's program handler runs it, reading the
// words with ReadReplayArgs; this row answers the rest.

// Replays is what the replay command uses.
type Replays struct {
	Log *slog.Logger
	// Recording reports whether the server records replays (it starts to when it serves).
	Recording func() bool
	// Own lists a knight's records, as the list says each.
	Own func(knight string) ([]string, error)
	// Remove removes a kept record: the one named id (as the web page's address of its
	// cast shows it), or else the newest of the knight named name's end of kind ("death"
	// or "retired"). It says whose it was ("Kay's death"), or ErrNoReplay.
	Remove func(id, name, kind string) (string, error)
}

// ErrNoReplay is a replay that is not kept.
var ErrNoReplay = errors.New("no such replay is kept")

// RemoveRow is replay remove's row: an admin takes a kept replay away, for everyone.
func (r Replays) RemoveRow() Command {
	return Command{Name: "replay remove", Usage: "replay remove <ID | NAME --death | NAME --retired>",
		Summary: "remove a kept replay, for everyone: its id (/replay/ID.cast on the web page) or a knight's end",
		Help: "ID is the replay's name on the web page (/replay/ID.cast). NAME --death or NAME --retired\n" +
			"removes the newest kept record of that knight's death or retirement. It is gone at once,\n" +
			"over SSH and on the web page, and the removal is logged.",
		Admin: true, Takes: TakesLine, Run: r.remove}
}

func (r Replays) remove(c *Call) int {
	id, name, kind, problem := removeArgs(c.Args)
	if problem != "" {
		return c.UsageError("%s", problem)
	}
	if !r.Recording() {
		return c.Fail("this server records no replays")
	}
	whose, err := r.Remove(id, name, kind)
	switch {
	case errors.Is(err, ErrNoReplay):
		return c.Fail("no such replay is kept: %s", Printable(strings.Join(c.Args, " ")))
	case err != nil:
		r.Log.Error("admin: replay remove", "err", err)
		return c.Fail("the replay could not be removed just now; try again later")
	}
	c.Result = "removed " + whose
	fmt.Fprintf(c.Out, "Removed the replay of %s.\n", whose)
	return 0
}

// removeArgs reads replay remove's words: one id, or a name with --death or --retired.
func removeArgs(words []string) (id, name, kind, problem string) {
	a, rest := readReplayFlags(words)
	switch {
	case a.Problem != "" || a.Plain || a.Report > 0:
		return "", "", "", "say which: an ID, or NAME --death or NAME --retired"
	case a.Kind != "" && len(rest) > 0:
		return "", strings.Join(rest, " "), a.Kind, ""
	case a.Kind == "" && len(rest) == 1 && isReplayID(rest[0]):
		return rest[0], "", "", ""
	}
	return "", "", "", "say which: an ID, or NAME --death or NAME --retired"
}

// isReplayID reports whether s is a replay's id: 16 hexadecimal digits.
func isReplayID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// Row is replay's row.
func (r Replays) Row() Command {
	return Command{Name: "replay", Usage: ReplayUsage, Summary: "your replays; with a terminal (ssh -t), play one, or another knight's death",
		Help: replayHelp, Takes: TakesLine, Shell: "replay opens a screen of its own; run it from a shell: ssh -t -p PORT host replay NAME --death",
		Run: r.list}
}

// cmdReplay lists the key's records; playing one needs a terminal.
func (r Replays) list(c *Call) int {
	a := ReadReplayArgs(c.Args)
	switch {
	case a.Problem != "":
		return c.UsageError("%s", a.Problem)
	case !r.Recording():
		return c.Fail("this server records no replays")
	case a.Plays():
		return c.Fail("replay needs a terminal to play one: %s replay %s", c.SSH("-t"), strings.Join(c.Args, " "))
	case c.Knight == "":
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	list, err := r.Own(c.Knight)
	if err != nil {
		r.Log.Error("replay list", "err", err)
		return c.Fail("the replays could not be read just now; try again later")
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Out, "You have no replays yet: a knight's last 10 minutes are kept as it plays.")
		return 0
	}
	fmt.Fprintf(c.Out, "Your replays (%s replay N plays one):\n", c.SSH("-t"))
	for i, line := range list {
		fmt.Fprintf(c.Out, "%3d  %s\n", i+1, line)
	}
	return 0
}

// replayHelp is the replay command's help.
const replayHelp = "replay alone lists your records: your knight's last 10 minutes, and the last 5 minutes\n" +
	"before each of your knights' deaths and retirements. replay N plays one of them, whole.\n" +
	"replay NAME --death (or --retired) plays the last 5 minutes of another knight, as anyone\n" +
	"may see them: what happened and what was said aloud; never whispers, party talk,\n" +
	"channels or letters. A knight may keep its deaths' replays private (options, g).\n" +
	"Playing: p pause, f faster, s slower, i skip ahead, b back 10 s, q leave; --plain tells\n" +
	"it in sentences; a stretch with nothing happening is cut to 2 s (--idle SECONDS to change\n" +
	"it, --idle 0 for none). An admin's replay --report N plays the 2 minutes kept with a report."

// ReplayUsage is the usage line of replay.
const ReplayUsage = "replay [N | NAME --death] [--plain]"

// ReplayArgs are the words of a replay command, read.
type ReplayArgs struct {
	Name   string // a knight's name, for --death and --retired
	N      int    // a number of the key's own list
	Kind   string // "death" or "retired", with a name
	Report int    // --report N
	Plain  bool   // --plain: screen-reader mode
	// Idle is the longest stretch with nothing happening it plays (--idle SECONDS;
	// replay.IdleCut unless given, 0 plays every stretch as it was).
	Idle    time.Duration
	Problem string // what is wrong with the words, if anything
}

// Plays reports whether the words ask to play a replay, not to list.
func (a ReplayArgs) Plays() bool { return a.Name != "" || a.N > 0 || a.Report > 0 }

// ReadReplayArgs reads the words after replay: its flags, then what the other words
// name.
func ReadReplayArgs(words []string) ReplayArgs {
	a, name := readReplayFlags(words)
	if a.Problem == "" {
		a.readName(strings.Join(name, " "))
	}
	return a
}

// readReplayFlags reads the flags among the words, and returns the other words.
func readReplayFlags(words []string) (a ReplayArgs, name []string) {
	a.Idle = replay.IdleCut
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case "--idle":
			secs := -1
			if i+1 < len(words) {
				i++
				if n, err := strconv.Atoi(words[i]); err == nil {
					secs = n
				}
			}
			if secs < 0 || secs > 3600 {
				a.Problem = "--idle needs a number of seconds, 0 to 3600"
			}
			a.Idle = time.Duration(max(secs, 0)) * time.Second
		case "--plain":
			a.Plain = true
		case "--death", "--retired":
			a.Kind = strings.TrimPrefix(w, "--")
		case "--report":
			if i+1 < len(words) {
				i++
				a.Report, _ = strconv.Atoi(words[i])
			}
			if a.Report < 1 {
				a.Problem = "--report needs a report's number"
			}
		default:
			if strings.HasPrefix(w, "-") {
				a.Problem = fmt.Sprintf("unknown flag %q", world.CleanText(w, 20))
			}
			name = append(name, w)
		}
	}
	return a, name
}

// readName reads the words that are not flags, joined: a number of the key's own list,
// or a knight's name with --death or --retired; nothing with --report.
func (a *ReplayArgs) readName(joined string) {
	switch n, err := strconv.Atoi(joined); {
	case a.Report > 0 && (joined != "" || a.Kind != ""):
		a.Problem = "--report N takes no name"
	case err == nil && a.Kind == "":
		a.N = n
		if n < 1 {
			a.Problem = "a replay's number is 1 or more"
		}
	case joined != "" && a.Kind == "":
		a.Problem = "say whose: NAME --death or NAME --retired"
	case joined == "" && a.Kind != "":
		a.Problem = "--" + a.Kind + " needs a knight's name"
	default:
		a.Name = joined
	}
}
