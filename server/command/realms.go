package command

import (
	"context"
	"fmt"
	"text/tabwriter"
)

// Realm is one row of realms: a realm this one knows, the address players reach it at,
// its players, and the round trip of a ping from here, so a player can pick the nearest.
type Realm struct {
	Name    string  `json:"name"`
	Addr    string  `json:"addr"`
	Players int     `json:"players"`
	Here    bool    `json:"here,omitempty"`
	RTTms   float64 `json:"rtt_ms,omitempty"`
	// Answered is false for a realm that did not answer the ping in time.
	Answered bool `json:"answered"`
}

// RealmsRow is realms' row: list gives the realms known, this one first, and a line to
// say under them (why there is no list, on a server alone).
func RealmsRow(list func(ctx context.Context) ([]Realm, string)) Command {
	return Command{Name: "realms", Usage: "realms [--json]", Summary: "the realms that share the knights: address, players, round trip from here",
		Help: "On a realm (a server that shares its knights with others), every realm it hears from, this one\n" +
			"first: the address players connect to, how many play there, and a ping's round trip from this\n" +
			"realm, so you can pick the nearest. Your knight plays in any of them, one at a time.\n" +
			"On a server alone it says so.",
		Guests: true, Takes: TakesJSON, Run: func(c *Call) int { return realms(c, list) }}
}

func realms(c *Call, list func(ctx context.Context) ([]Realm, string)) int {
	rows, note := list(c.Ctx)
	if c.JSON {
		return c.WriteJSON(append([]Realm{}, rows...))
	}
	if len(rows) > 0 {
		tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "REALM\tADDRESS\tPLAYERS\tROUND TRIP")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", r.Name, orDash(r.Addr), r.Players, r.rtt())
		}
		_ = tw.Flush()
	}
	if note != "" {
		fmt.Fprintln(c.Out, note)
	}
	return 0
}

// rtt is a row's round trip as the table shows it.
func (r Realm) rtt() string {
	switch {
	case r.Here:
		return "(here)"
	case !r.Answered:
		return "no answer"
	}
	return fmt.Sprintf("%.2f ms", r.RTTms)
}
