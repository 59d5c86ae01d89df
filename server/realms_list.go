package server

import (
	"context"
	"net"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// What the realms command lists (command.RealmsRow): the realms this one talks with, or
// why there are none.

// The lines of realms where there is no list to give.
const (
	notARealmLine = "This server is not a realm: it plays alone."
	noTalkLine    = "This realm talks with no other (no -nats or -nats-listen), so it knows of none."
)

// realms implements talker: a server alone knows no realm; a realm without talk knows
// itself alone.
func (n noTalk) realms(ctx context.Context, s *Server) ([]command.Realm, string) {
	if n.realm == "" {
		return nil, notARealmLine
	}
	here := command.Realm{Name: n.realm, Addr: net.JoinHostPort(s.publicHostPort()), Here: true, Answered: true}
	if who, err := s.engine.Who(ctx); err == nil {
		here.Players = len(who)
	}
	return []command.Realm{here}, noTalkLine
}

// realms implements talker: the realms the bus knows, this one first.
func (rt *realmTalk) realms(ctx context.Context, _ *Server) ([]command.Realm, string) {
	var rows []command.Realm
	for i, r := range rt.bus.Realms(ctx) {
		rows = append(rows, realmRow(r, i == 0))
	}
	return rows, ""
}

// realmRow is a realm of the bus's listing as a row.
func realmRow(r talk.RealmInfo, here bool) command.Realm {
	row := command.Realm{Name: r.Name, Addr: r.Addr, Players: r.Players, Here: here, Answered: r.Answered}
	if r.Answered && !here {
		row.RTTms = float64(r.RTT.Round(10*time.Microsecond)) / float64(time.Millisecond)
	}
	return row
}
