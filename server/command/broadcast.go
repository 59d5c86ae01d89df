package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Broadcast is broadcast's row: a line in every knight's messages, sent through w.
func Broadcast(w *world.Engine) Command {
	return Command{Name: "broadcast", Usage: "broadcast <text>", Summary: "a line in every knight's messages, marked [admin]",
		Help: fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
			"text is cut to %d characters.", world.MaxBroadcastRunes),
		Admin: true, Takes: TakesLine, Run: func(c *Call) int { return broadcast(c, w) }}
}

func broadcast(c *Call, w *world.Engine) int {
	text := strings.Join(c.Args, " ") // the whole line is the text (TakesLine): no flags
	if strings.TrimSpace(text) == "" {
		return c.UsageError("say something")
	}
	n, err := w.Broadcast(c.Ctx, text)
	if errors.Is(err, world.ErrEmptyText) {
		return c.Fail("nothing is left to send once control characters are removed")
	}
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	knights := "knights"
	if n == 1 {
		knights = "knight"
	}
	c.Result = fmt.Sprintf("sent to %d %s", n, knights)
	fmt.Fprintf(c.Out, "Sent to %d %s: [admin] %s\n", n, knights, world.CleanText(text, world.MaxBroadcastRunes))
	return 0
}
