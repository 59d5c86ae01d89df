package server

import (
	"context"
	"fmt"
	"net"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// realms: the realms this one talks with, each with the address players reach it at, its
// players, and the round trip of a ping from here, so a player can pick the nearest.

// The lines of realms where there is no list to give.
const (
	notARealmLine = "This server is not a realm: it plays alone."
	noTalkLine    = "This realm talks with no other (no -nats or -nats-listen), so it knows of none."
)

// realmJSON is one row of `realms --json`.
type realmJSON struct {
	Name    string  `json:"name"`
	Addr    string  `json:"addr"`
	Players int     `json:"players"`
	Here    bool    `json:"here,omitempty"`
	RTTms   float64 `json:"rtt_ms,omitempty"`
	// Answered is false for a realm that did not answer the ping in time.
	Answered bool `json:"answered"`
}

// cmdRealms is realms: the realms this one knows, this one first, from its talk.
func (s *Server) cmdRealms(c *command.Call) int {
	rows, note := s.talk.realms(c.Ctx, s)
	if c.JSON {
		return c.WriteJSON(append([]realmJSON{}, rows...))
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

// realms implements talker: a server alone knows no realm; a realm without talk knows
// itself alone.
func (n noTalk) realms(ctx context.Context, s *Server) ([]realmJSON, string) {
	if n.realm == "" {
		return nil, notARealmLine
	}
	here := realmJSON{Name: n.realm, Addr: net.JoinHostPort(s.publicHostPort()), Here: true, Answered: true}
	if who, err := s.engine.Who(ctx); err == nil {
		here.Players = len(who)
	}
	return []realmJSON{here}, noTalkLine
}

// realms implements talker: the realms the bus knows, this one first.
func (rt *realmTalk) realms(ctx context.Context, _ *Server) ([]realmJSON, string) {
	var rows []realmJSON
	for i, r := range rt.bus.Realms(ctx) {
		rows = append(rows, realmRow(r, i == 0))
	}
	return rows, ""
}

// realmRow is a realm of the bus's listing as a row.
func realmRow(r talk.RealmInfo, here bool) realmJSON {
	row := realmJSON{Name: r.Name, Addr: r.Addr, Players: r.Players, Here: here, Answered: r.Answered}
	if r.Answered && !here {
		row.RTTms = float64(r.RTT.Round(10*time.Microsecond)) / float64(time.Millisecond)
	}
	return row
}

// rtt is a row's round trip as the table shows it.
func (r realmJSON) rtt() string {
	switch {
	case r.Here:
		return "(here)"
	case !r.Answered:
		return "no answer"
	}
	return fmt.Sprintf("%.2f ms", r.RTTms)
}

// realmsCommand is the row of realms.
func (s *Server) realmsCommand() command.Command {
	return command.Command{Name: "realms", Usage: "realms [--json]", Summary: "the realms that share the knights: address, players, round trip from here",
		Help: "On a realm (a server that shares its knights with others), every realm it hears from, this one\n" +
			"first: the address players connect to, how many play there, and a ping's round trip from this\n" +
			"realm, so you can pick the nearest. Your knight plays in any of them, one at a time.\n" +
			"On a server alone it says so.",
		Guests: true, Takes: command.TakesJSON, Run: s.cmdRealms}
}
