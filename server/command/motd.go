package command

import "fmt"

// MOTD is motd's row: the message of the day, for anyone (setting it is an admin's).
func (p Player) MOTD() Command {
	return Command{Name: "motd", Usage: "motd [--json]", Summary: "the server's message of the day",
		Guests: true, Takes: TakesJSON, Run: p.motd}
}

// motd prints the message of the day.
func (p Player) motd(c *Call) int {
	m := p.MessageOfTheDay()
	if c.JSON {
		return c.WriteJSON(map[string]string{"motd": m})
	}
	if m == "" {
		fmt.Fprintln(c.Out, "No message of the day.")
		return 0
	}
	fmt.Fprintln(c.Out, m)
	return 0
}
