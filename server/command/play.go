package command

// play and watch open a terminal of their own: the server's program handler runs them
// when the session has one. Their rows here are for help, and for the answer a session
// without a terminal gets. They take nothing.

// Play is play's row.
func Play() Command {
	return Command{Name: "play", Usage: "play [--plain]", Summary: "with a terminal (ssh -t): the game; --plain for screen-reader mode",
		Takes: TakesLine, Shell: "play opens a game of its own; run it from a shell: ssh -t -p PORT host play [--plain]",
		Run: func(c *Call) int { return c.Fail("play needs a terminal: %s play [--plain]", c.SSH("-t")) }}
}

// Watch is watch's row.
func Watch() Command {
	return Command{Name: "watch", Usage: "watch NAME", Summary: "with a terminal (ssh -t): watch a player's screen, read-only",
		Takes: TakesLine, Shell: "watch opens a screen of its own; run it from a shell: ssh -t -p PORT host watch NAME, or press w in the game",
		Run: func(c *Call) int { return c.Fail("watch needs a terminal: %s watch NAME", c.SSH("-t")) }}
}
