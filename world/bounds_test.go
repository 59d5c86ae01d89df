package world

import (
	"fmt"
	"strings"
	"testing"
)

// The talk and report allowances are docs/DESIGN.md's rulings, written out here rather
// than read from the constants, which a test would follow wherever they went: a knight
// with a key says 5 lines in the window, a guest 2; the window is 400 turns (10 s) unless
// the server sets it; a key files 3 reports in an hour, the guests 5 among them.
func TestTheTalkAllowanceIsTheRuling(t *testing.T) {
	e, _ := chatters(t, map[string]where{"arthur": {1, Pos{0, 0}}, "bors": {1, Pos{1, 0}}})
	e.cfg.ChatWindowTurns = 0 // the world's own window
	start := e.turn
	for i := range 6 {
		sayAs(e, "arthur", Chat{Text: fmt.Sprint("line ", i+1)})
	}
	heard := said(e, "bors")
	if !strings.Contains(heard, "line 5") || strings.Contains(heard, "line 6") {
		t.Fatalf("a key's six lines at once, heard:\n%s", heard)
	}
	for e.turn < start+399 {
		e.Step()
	}
	sayAs(e, "arthur", Chat{Text: "at 399 turns"})
	if strings.Contains(said(e, "bors"), "at 399 turns") {
		t.Error("a line 399 turns after five was heard: the window is 400")
	}
	e.Step()
	sayAs(e, "arthur", Chat{Text: "at 400 turns"})
	if !strings.Contains(said(e, "bors"), "at 400 turns") {
		t.Error("a line 400 turns after five was not heard")
	}

	e.players["bors"].rec.Guest = true
	for i := range 3 {
		sayAs(e, "bors", Chat{Text: fmt.Sprint("guest line ", i+1)})
	}
	heard = said(e, "arthur")
	if !strings.Contains(heard, "guest line 2") || strings.Contains(heard, "guest line 3") {
		t.Errorf("a guest's three lines at once, heard:\n%s", heard)
	}
	if DefaultHourTurns != 144000 {
		t.Errorf("an hour is %d turns, want 144000 (25 ms a turn)", DefaultHourTurns)
	}
}

// A knight with a key files 3 reports an hour, the guests 5 among them.
func TestTheReportAllowanceIsTheRuling(t *testing.T) {
	e, a := mailEngine(t, nil, nil)
	e.join(knight("k", 10), &recorder{})
	e.join(knight("m", 10), &recorder{})
	report := func(fp string) {
		e.turn += 500
		reportReq{from{fp, e.players[fp].session}, "Kay m", "rude"}.handle(e)
	}
	for range 4 {
		report("k")
	}
	if len(a.reports) != 3 {
		t.Errorf("%d of 4 reports in an hour from a key, want 3", len(a.reports))
	}
	filed := len(a.reports)
	for i := range 6 {
		id := fmt.Sprintf("guest-%d", i)
		e.join(guest(id, fmt.Sprintf("Tom%d", i)), &recorder{})
		report(id)
	}
	if n := len(a.reports) - filed; n != 5 {
		t.Errorf("%d of 6 guests' reports in an hour, want 5", n)
	}
}

// Report counts are kept for 1000 reporters; past them, those with none in the last hour
// are forgotten all at once.
func TestReportCountsAreKeptForAThousand(t *testing.T) {
	e, _ := mailEngine(t, nil, nil)
	e.cfg.Community.HourTurns = 100
	for i := range 1001 {
		if _, ok := e.reportAllowed(&player{rec: Adventurer{ID: fmt.Sprint("K-", i)}}); !ok {
			t.Fatal("a first report was refused")
		}
	}
	e.turn += 100
	e.reportAllowed(&player{rec: Adventurer{ID: "K-new"}})
	if n := len(e.soc.reported); n != 1 {
		t.Errorf("past 1000 reporters an hour on, %d are counted, want the new one", n)
	}
}
