package command

import (
	"context"
	"testing"
)

// realms lists the realms as a table with each round trip in words, or as JSON, and says
// the line under them.
func TestRealms(t *testing.T) {
	rows := []Realm{
		{Name: "europe", Addr: "eu.example.org:2222", Players: 3, Here: true, Answered: true},
		{Name: "asia", Addr: "", Players: 1, RTTms: 181.25, Answered: true},
		{Name: "moon", Addr: "moon.example.org:22", Answered: false},
	}
	note := ""
	tb := testTable(nil, nil, RealmsRow(func(context.Context) ([]Realm, string) { return rows, note }))
	want := "REALM   ADDRESS              PLAYERS  ROUND TRIP\n" +
		"europe  eu.example.org:2222  3        (here)\n" +
		"asia    -                    1        181.25 ms\n" +
		"moon    moon.example.org:22  0        no answer\n"
	if a := runLine(t, tb, newKey(t), "realms"); a.code != 0 || a.out != want {
		t.Errorf("realms:\n%s\nwant:\n%s", a.out, want)
	}
	if a := runLine(t, tb, nil, "realms --json"); a.code != 0 || a.out != `[{"name":"europe","addr":"eu.example.org:2222","players":3,"here":true,"answered":true},{"name":"asia","addr":"","players":1,"rtt_ms":181.25,"answered":true},{"name":"moon","addr":"moon.example.org:22","players":0,"answered":false}]`+"\n" {
		t.Errorf("realms --json as a guest: %+v", a)
	}
	rows, note = nil, "This server is not a realm: it plays alone."
	if a := runLine(t, tb, nil, "realms"); a.code != 0 || a.out != note+"\n" {
		t.Errorf("realms alone: %+v", a)
	}
	if a := runLine(t, tb, nil, "realms --json"); a.code != 0 || a.out != "[]\n" {
		t.Errorf("realms --json alone: %+v", a)
	}
}
