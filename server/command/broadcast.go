package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Broadcast is broadcast's row: a line in every knight's messages, sent through w, and
// through abroad to the other realms' knights (nil, or false from it: no other realm is
// told); posted, when set, is handed the text as the knights read it (the server's
// webhook), by this server alone.
func Broadcast(w *world.Engine, abroad func(text string) bool, posted func(text string)) Command {
	return Command{Name: "broadcast", Usage: "broadcast <text>", Summary: "a line in every knight's messages, marked [admin]",
		Help: fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
			"text is cut to %d characters. On a realm it reaches every realm's knights, the others'\n"+
			"reading \"[admin] realm NAME: TEXT\" (one broadcast of a realm each half second).", world.MaxBroadcastRunes),
		Admin: true, Takes: TakesLine, Run: func(c *Call) int { return broadcast(c, w, abroad, posted) }}
}

func broadcast(c *Call, w *world.Engine, abroad func(string) bool, posted func(string)) int {
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
	said := world.CleanText(text, world.MaxBroadcastRunes)
	fmt.Fprintf(c.Out, "Sent to %d %s: [admin] %s\n", n, knights, said)
	if posted != nil {
		posted(said)
	}
	if abroad != nil && abroad(text) {
		c.Result += " and the other realms"
		fmt.Fprintln(c.Out, "Sent to the other realms' knights too.")
	}
	return 0
}
