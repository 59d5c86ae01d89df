package talk

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// An admin's broadcast made on one realm is read by every knight of the others, cleaned,
// saying which realm's admin; one sooner than BroadcastEvery after the last is dropped.
func TestABroadcastReachesEveryRealm(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon", "Lyonesse")
	camelot, avalon, lyonesse := newRealm(t, "Camelot", srvs[0]), newRealm(t, "Avalon", srvs[1]), newRealm(t, "Lyonesse", srvs[2])
	avalon.join(t, "gawain", "Gawain")
	lyonesse.join(t, "bors", "Bors")
	for _, r := range []*testRealm{avalon, lyonesse} {
		waitFor(t, r.name+" to answer a ping", func() bool { _, ok := camelot.bus.Ping(context.Background(), r.name); return ok })
	}
	if !camelot.bus.Broadcast("the gates close at \x1b[31mnoon\x1b[0m") {
		t.Fatal("the bus did not send the broadcast")
	}
	want := "[admin] realm Camelot: the gates close at noon"
	avalon.waitLine(t, "gawain", want)
	lyonesse.waitLine(t, "bors", want)
	camelot.bus.Broadcast("a flood")
	waitFor(t, "Avalon to drop the second broadcast", func() bool { return avalon.bus.Stats().Bad == 1 })
	if slices.Contains(avalon.views["gawain"].lines(), "[admin] realm Camelot: a flood") {
		t.Fatalf("a broadcast sooner than %v after the last was shown:\n%s", BroadcastEvery, avalon.views["gawain"].text())
	}
}

// reportsDesk is a realm's reports as OnReports answers from them.
type reportsDesk struct {
	mu   sync.Mutex
	reps []store.Report
	asks []ReportsAsk
}

func (d *reportsDesk) answer(_ context.Context, ask ReportsAsk) ([]store.Report, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asks = append(d.asks, ask)
	if ask.Close == 0 {
		return slices.Clone(d.reps), nil
	}
	for i, r := range d.reps {
		if r.ID == ask.Close {
			if !r.Open() {
				return nil, store.ErrClosed
			}
			d.reps[i].Outcome, d.reps[i].ClosedBy = ask.Outcome, ask.By
			return []store.Report{d.reps[i]}, nil
		}
	}
	return nil, store.ErrNotFound
}

// A realm lists the other realms' reports, cleaned, naming one that does not answer, and
// closes a report where it was filed.
func TestReportsAreAskedOfEveryRealm(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon", "Lyonesse")
	desk := &reportsDesk{reps: []store.Report{{ID: 12, From: "Gawain", FromKnight: "gawain", About: "Mor\x1b[2Jdred", AboutKnight: "mordred",
		Reason: "spam\x07", Lines: []store.ReportLine{{Where: "shout", Line: "buy \x1b[2Kgold"}}}}}
	camelot := fakeBus(t, "Camelot", srvs[0], newFakeWorld(), func(c *Config) { c.Timeout = 500 * time.Millisecond })
	fakeBus(t, "Avalon", srvs[1], newFakeWorld(), func(c *Config) { c.OnReports = desk.answer })
	fakeBus(t, "Lyonesse", srvs[2], newFakeWorld()) // answers nothing: no OnReports
	waitFor(t, "Camelot to hear of both", func() bool { return len(camelot.Realms(context.Background())) == 3 })

	got := camelot.OthersReports(context.Background())
	if len(got) != 2 || got[0].Realm != "Avalon" || !got[0].Answered || got[1].Realm != "Lyonesse" || got[1].Answered {
		t.Fatalf("the realms' reports: %+v", got)
	}
	r := got[0].Reports
	if len(r) != 1 || r[0].ID != 12 || r[0].About != "Mordred" || r[0].Reason != "spam" || r[0].Lines[0].Line != "buy gold" {
		t.Fatalf("Avalon's reports, cleaned: %+v", r)
	}
	if _, err := camelot.CloseReport(context.Background(), "Avalon", 13, store.Resolved, "SHA256:admin"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("closing a report Avalon has not: %v", err)
	}
	rep, err := camelot.CloseReport(context.Background(), "Avalon", 12, store.Resolved, "SHA256:admin")
	if err != nil || rep.ID != 12 || rep.Outcome != store.Resolved {
		t.Fatalf("closing Avalon's #12: %+v, %v", rep, err)
	}
	if _, err := camelot.CloseReport(context.Background(), "Avalon", 12, store.Resolved, "SHA256:admin"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("closing it again: %v", err)
	}
	if _, err := camelot.CloseReport(context.Background(), "Lyonesse", 1, store.Resolved, "SHA256:admin"); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("closing a report of a realm that does not answer: %v", err)
	}
	desk.mu.Lock()
	defer desk.mu.Unlock()
	if desk.asks[len(desk.asks)-1] != (ReportsAsk{Realm: "Camelot", Close: 12, Outcome: store.Resolved, By: "SHA256:admin"}) {
		t.Fatalf("Avalon was asked %+v", desk.asks)
	}
}

// Only a realm asks for itself: an ask on Evil's own subject that says it comes from
// Camelot is dropped, and none can be sent on Camelot's.
func TestAnAskOfReportsNamesItsRealm(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon", "Evil")
	desk := &reportsDesk{reps: []store.Report{{ID: 1, From: "Gawain", About: "Kay", Reason: "x"}}}
	avalon := fakeBus(t, "Avalon", srvs[1], newFakeWorld(), func(c *Config) { c.OnReports = desk.answer })
	evil := realmConn(t, srvs[2])
	waitFor(t, "Avalon to answer Evil's ping", func() bool {
		_, err := evil.Request("orthanc.ping.Avalon.Evil", []byte(`{"v":1,"realm":"Evil"}`), time.Second)
		return err == nil
	})
	if _, err := evil.Request("orthanc.reports.Avalon.Evil", []byte(`{"v":1,"realm":"Camelot","close":1,"outcome":"resolved"}`), 300*time.Millisecond); err == nil {
		t.Fatal("Avalon answered an ask from Evil that said it was Camelot's")
	}
	if _, err := evil.Request("orthanc.reports.Avalon.Camelot", []byte(`{"v":1,"realm":"Camelot"}`), 300*time.Millisecond); err == nil {
		t.Fatal("Evil asked on Camelot's subject and was answered")
	}
	waitFor(t, "Avalon to count the forged ask", func() bool { return avalon.Stats().Bad >= 1 })
	desk.mu.Lock()
	defer desk.mu.Unlock()
	if len(desk.asks) != 0 || !desk.reps[0].Open() {
		t.Fatalf("Avalon acted on a forged ask: %+v", desk.asks)
	}
}
