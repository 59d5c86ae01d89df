package command

import (
	"fmt"
	"slices"
	"text/tabwriter"
	"time"
)

// WhoRow is one row of `who --json`. Everyone sees how long each knight has been idle
// and whether it is away; only admins see the key fingerprint of a knight's game session,
// its address, time connected and bytes sent: for the others those fields are left out.
type WhoRow struct {
	Name             string  `json:"name"`
	Level            int     `json:"level"`
	Depth            int     `json:"depth"`
	Guest            bool    `json:"guest,omitempty"`
	IdleSeconds      float64 `json:"idle_seconds"`
	Away             bool    `json:"away"`
	AwayReason       string  `json:"away_reason,omitempty"`
	Knight           string  `json:"knight,omitempty"`
	Fingerprint      string  `json:"fingerprint,omitempty"`
	Addr             string  `json:"addr,omitempty"`
	ConnectedSeconds float64 `json:"connected_seconds,omitempty"`
	BytesSent        int64   `json:"bytes_sent,omitempty"`
	// Realm is the knight's realm, on a realm; a knight of another realm has no depth
	// here (0) and none of an admin's session fields.
	Realm string `json:"realm,omitempty"`
	far   bool
}

// Who is who's row.
func (p Player) Who() Command {
	return Command{Name: "who", Usage: "who [--json]", Summary: "the knights in the dungeon now",
		Help: "Everyone sees how long each knight has been idle and who is away (/afk), with the reason.\n" +
			"Guests are marked. Admins also see each knight's key fingerprint, address, time connected and bytes sent.",
		Guests: true, Takes: TakesJSON, Run: p.who}
}

// who lists the knights in the world, then those of the other realms; an admin's list
// also has each knight's key and the address, time connected and bytes sent of its game
// session here.
func (p Player) who(c *Call) int {
	who, err := p.World.Who(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering; try again later")
	}
	rows := make([]WhoRow, 0, len(who))
	for _, e := range who {
		r := WhoRow{Name: e.Name, Level: e.Level, Depth: e.Depth, Guest: e.Guest, Away: e.Away, AwayReason: e.AwayReason,
			IdleSeconds: (time.Duration(e.IdleTurns) * p.Tick).Round(time.Second).Seconds(), Realm: p.Realm}
		if c.Admin {
			r.Knight = e.ID
			if ls, ok := p.Sessions.Game(e.ID); ok {
				r.Fingerprint, r.Addr, r.BytesSent = ls.Fingerprint, ls.Addr, ls.Sent.Load()
				r.ConnectedSeconds = time.Since(ls.Start).Round(time.Second).Seconds()
			}
		}
		rows = append(rows, r)
	}
	rows = append(rows, p.farRows(c)...)
	if c.JSON {
		return c.WriteJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.Out, "No one is in the dungeon.")
		return 0
	}
	whoTable(c, rows)
	return 0
}

// farRows are who's rows of the knights of the other realms the world heard of; none
// when it does not answer, so the knights here are listed all the same.
func (p Player) farRows(c *Call) []WhoRow {
	far, err := p.World.FarWho(c.Ctx)
	if err != nil {
		return nil
	}
	var rows []WhoRow
	for _, k := range far {
		r := WhoRow{Name: k.Name, Level: k.Level, Guest: k.Guest, Away: k.Away, AwayReason: k.AwayReason,
			IdleSeconds: float64(k.IdleSeconds), Realm: k.Realm, far: true}
		if c.Admin {
			r.Knight = k.ID
		}
		rows = append(rows, r)
	}
	return rows
}

// whoTable writes who's rows as a table; a realm's has a column of each knight's realm.
func whoTable(c *Call, rows []WhoRow) {
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	realm := slices.ContainsFunc(rows, func(r WhoRow) bool { return r.Realm != "" })
	heading := "NAME\tLEVEL\tWHERE\tIDLE"
	if realm {
		heading = "NAME\tREALM\tLEVEL\tWHERE\tIDLE"
	}
	if c.Admin {
		heading += "\tADDRESS\tCONNECTED\tSENT\tFINGERPRINT\tKNIGHT"
	}
	heading += "\tAWAY" // last: a reason is as long as its knight made it
	fmt.Fprintln(tw, heading)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t", r.Name) // a guest's name says so
		if realm {
			fmt.Fprintf(tw, "%s\t", r.Realm)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s", r.Level, r.where(), idleText(r.IdleSeconds))
		if c.Admin {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s", orDash(r.Addr), r.session(), orDash(r.Fingerprint), r.Knight)
		}
		fmt.Fprintf(tw, "\t%s\n", awayText(r.Away, r.AwayReason))
	}
	_ = tw.Flush()
}

// session is an admin's row's CONNECTED and SENT: "-" for a knight with no game session
// here (another realm's, or one whose session just ended), whose figures are not known,
// rather than a connection of no time that sent nothing.
func (r WhoRow) session() string {
	if r.far || r.Fingerprint == "" {
		return "-\t-"
	}
	return fmt.Sprintf("%s\t%d KiB", time.Duration(r.ConnectedSeconds)*time.Second, r.BytesSent/1024)
}

// where is a row's WHERE: its depth, outside, or for another realm's knight "-" (its
// realm says where).
func (r WhoRow) where() string {
	switch {
	case r.far:
		return "-"
	case r.Depth == 0:
		return "outside"
	}
	return fmt.Sprintf("depth %d", r.Depth)
}

// idleText is how long a knight has been idle, as who shows it: nothing under a minute,
// then minutes, then hours and minutes.
func idleText(seconds float64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d < time.Minute:
		return "-"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// awayText is a knight's away column in who.
func awayText(away bool, reason string) string {
	switch {
	case !away:
		return "-"
	case reason == "":
		return "away"
	}
	return "away: " + reason
}
