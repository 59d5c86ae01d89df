package command

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// MOTD is what the commands that change the message of the day use.
type MOTD struct {
	Log *slog.Logger
	// File is the file the message shown comes from, "" when it is the stored one: while
	// a file gives it, motd set and motd clear refuse (the file wins on reload).
	File func() string
	// Set keeps m and shows it from now on; an empty text clears the message.
	Set func(m store.MOTD) error
	Now func() time.Time
}

// SetRow is motd set's row.
func (m MOTD) SetRow() Command {
	return Command{Name: "motd set", Usage: "motd set <text>", Summary: "set the message of the day (title screen and web page)",
		Help:  fmt.Sprintf("Control characters and escape sequences are removed, and the text is cut to %d characters.", world.MaxBroadcastRunes),
		Admin: true, Takes: TakesLine, Run: m.set}
}

// ClearRow is motd clear's row.
func (m MOTD) ClearRow() Command {
	return Command{Name: "motd clear", Usage: "motd clear", Summary: "clear the message of the day",
		Admin: true, Run: m.clear}
}

func (m MOTD) set(c *Call) int {
	if f := m.File(); f != "" {
		return c.Fail("%s", motdFileRules(f))
	}
	text := world.CleanText(strings.Join(c.Args, " "), world.MaxBroadcastRunes)
	if strings.TrimSpace(text) == "" {
		return c.UsageError("give the message (motd clear clears it)")
	}
	if err := m.Set(store.MOTD{Text: text, By: c.FP, At: m.Now().UTC()}); err != nil {
		m.Log.Error("admin: motd set", "err", err)
		return c.Fail("the message could not be saved: %v", err)
	}
	c.Result = "set"
	fmt.Fprintf(c.Out, "The message of the day is now: %s\n", text)
	return 0
}

func (m MOTD) clear(c *Call) int {
	if f := m.File(); f != "" {
		return c.Fail("%s", motdFileRules(f))
	}
	if err := m.Set(store.MOTD{}); err != nil {
		m.Log.Error("admin: motd clear", "err", err)
		return c.Fail("the message could not be cleared: %v", err)
	}
	c.Result = "cleared"
	fmt.Fprintln(c.Out, "The message of the day is cleared.")
	return 0
}

// motdFileRules is the refusal of motd set and motd clear while the message comes from
// its file.
func motdFileRules(file string) string {
	return fmt.Sprintf("the message of the day comes from %s: edit it and run reload (remove it to use motd set)", file)
}
