package command

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// MaxCommentRunes is the longest comment of a key (--comment).
const MaxCommentRunes = 40

// parse reads args into the call, as its command takes them: --reason and --comment take
// the rest of the line. It reports misuse itself.
func (c *Call) parse(args []string) bool {
	t := c.Cmd.Takes
	if t&TakesLine != 0 {
		c.Args = args
		return true
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--json" && t&TakesJSON != 0:
			c.JSON = true
		case name == "--seed" && t&TakesSeed != 0:
			if !hasValue {
				if i+1 >= len(args) {
					c.UsageError("--seed needs a number")
					return false
				}
				i++
				value = args[i]
			}
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				c.UsageError("seed %q is not a whole number from 0 to 18446744073709551615", Printable(value))
				return false
			}
			c.Seed, c.HasSeed = n, true
		case arg == "--replace" && t&TakesReplace != 0:
			c.Replace = true
		case name == "--comment" && t&TakesComment != 0:
			c.Comment = world.CleanText(restOf(args[i+1:], value, hasValue), MaxCommentRunes)
			return true
		case name == "--for" && t&TakesFor != 0:
			if !hasValue {
				if i+1 >= len(args) {
					c.UsageError("--for needs a duration, such as 2h or 7d")
					return false
				}
				i++
				value = args[i]
			}
			d, err := ParseSpan(value)
			if err != nil {
				c.UsageError("%v", err)
				return false
			}
			c.Span, c.HasFor = d, true
		case name == "--board" && t&TakesBoard != 0:
			if !hasValue {
				if i+1 >= len(args) {
					c.UsageError("--board needs a board's name: %s", strings.Join(world.BoardNames(), ", "))
					return false
				}
				i++
				value = args[i]
			}
			c.Board, c.HasBoard = value, true
		case arg == "--week" && t&TakesBoard != 0:
			c.Week = true
		case name == "--reason" && t&TakesReason != 0:
			c.Reason = world.CleanText(restOf(args[i+1:], value, hasValue), world.MaxBroadcastRunes)
			c.HasReason = true
			return true
		case strings.HasPrefix(arg, "-"):
			c.UsageError("unknown flag %q", Printable(arg))
			return false
		case t&TakesWords == 0:
			c.UsageError("unexpected %q", Printable(arg))
			return false
		default:
			c.Args = append(c.Args, arg)
		}
	}
	return true
}

// restOf is the rest of the line after a flag that takes it: its value after = first.
func restOf(rest []string, value string, hasValue bool) string {
	if hasValue {
		rest = append([]string{value}, rest...)
	}
	return strings.Join(rest, " ")
}

// Bounds of a duration an admin gives (a timed ban, a silence).
const (
	minSpan = time.Minute
	maxSpan = 366 * 24 * time.Hour
)

// ParseSpan reads how long a ban or a silence lasts: a Go duration (90m, 2h30m), or a
// whole number of days or weeks (7d, 2w), from a minute to a year.
func ParseSpan(v string) (time.Duration, error) {
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
		return 0, fmt.Errorf("duration %q: want one such as 30m, 2h, 7d or 2w", Printable(v))
	case d < minSpan || d > maxSpan:
		return 0, fmt.Errorf("duration %q: want one from a minute to a year", Printable(v))
	}
	return d, nil
}

// Printable cuts a client-supplied word short and drops control characters, so an error
// message never echoes escape sequences back to a terminal. The cut is past a key's
// fingerprint (50 characters), so a refusal names the key it was given whole.
func Printable(s string) string {
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

// Printables is Printable of every word, for the log.
func Printables(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Printable(w)
	}
	return out
}
