package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Reports is what reports, reports resolve and reports dismiss use: the reports the
// players filed, kept in the store, and which of them keep a replay.
type Reports struct {
	Log *slog.Logger
	// Store keeps the reports (a server's own, on every realm).
	Store *store.Store
	// Saver is flushed first, so a report filed a moment ago is listed or closed too.
	Saver *store.Saver
	// Replays tells which reports have a replay kept (the replay command's, which stays
	// with the server's recorder).
	Replays func([]store.Report) map[uint64]bool
	// Forget drops what is kept with a report once it is closed: its replay was kept for
	// the admins to judge the report, and goes with it.
	Forget func(rep store.Report)
	// Now is the wall clock.
	Now func() time.Time
	// Keep is how long a report is kept: older ones are forgotten when reports lists them.
	Keep time.Duration
	// Window is how long before a report the reported knight's lines it carries reach.
	Window time.Duration
	// Realm is this realm's name; empty for a server alone.
	Realm string
	// Others asks the other realms for their reports (their own, filed there); nil or
	// none: a server alone, or a realm that talks with no other.
	Others func(ctx context.Context) []talk.RealmReports
	// CloseThere closes a report of another realm there, which drops its replay.
	CloseThere func(ctx context.Context, realm string, id uint64, outcome, by string) (store.Report, error)
}

// realmReport is a report as reports lists it: with its realm's name when it is
// another realm's (its number is that realm's, "#B-12"), or this realm's on a realm.
type realmReport struct {
	Realm string `json:"realm,omitempty"`
	store.Report
}

// Reports is reports' row.
func (r Reports) Reports() Command {
	return Command{Name: "reports", Usage: "reports [--json]", Summary: "the reports players filed, open ones first, with the lines the reported knight said",
		Help: "Each report has a number and says who reported whom, when and why, and carries what the\n" +
			"reported knight said aloud in the 10 minutes before (says, emotes, shouts, channels) and its\n" +
			"whispers to the reporter. Knights are named with their ids; a guest (\"guest-…\") is marked so.\n" +
			"A reporter has one open report about a knight: reporting it again updates that one.\n" +
			"Open reports come first; `reports resolve N` or `reports dismiss N` closes one.\n" +
			"On a realm the other realms' reports are listed too, numbered with their realm (#B-12), and\n" +
			"`reports resolve B-12` closes one there; a realm that does not answer in 2 s is named.\n" +
			"An admin in the game is told of a new report by a line in its messages.\n" +
			"What a keyed knight did in the 2 minutes before is kept with the report: with a terminal,\n" +
			"`replay --report N` plays it (what anyone may see: no whispers, party talk or channels).\n" +
			"Reports are kept 30 days, and all of them in 256 KiB: past it the oldest closed go first.",
		Admin: true, Takes: TakesJSON, Run: r.list}
}

// Resolve is reports resolve's row.
func (r Reports) Resolve() Command {
	return Command{Name: "reports resolve", Usage: "reports resolve <number> [--json]", Summary: "close a report: dealt with",
		Admin: true, Takes: TakesWords | TakesJSON, Run: func(c *Call) int { return r.close(c, store.Resolved) }}
}

// Dismiss is reports dismiss' row.
func (r Reports) Dismiss() Command {
	return Command{Name: "reports dismiss", Usage: "reports dismiss <number> [--json]", Summary: "close a report: nothing to do",
		Admin: true, Takes: TakesWords | TakesJSON, Run: func(c *Call) int { return r.close(c, store.Dismissed) }}
}

// reportedKnight is a knight as reports names it: "Kay (K-…)", "Guest Tom (guest-…, a
// guest)", or the name alone when its id is not known.
func reportedKnight(name, id string, guest bool) string {
	switch {
	case id == "":
		return name
	case guest:
		return fmt.Sprintf("%s (%s, a guest)", name, id)
	}
	return keyAndName(id, name)
}

// list lists the reports filed, the open ones first, each with the lines it carries,
// then each other realm's; reports older than Keep are forgotten first.
func (r Reports) list(c *Call) int {
	here, err := r.Here()
	if err != nil {
		return c.Fail("could not read the reports: %v", err)
	}
	var all []realmReport
	for _, rep := range here {
		all = append(all, realmReport{Realm: r.Realm, Report: rep})
	}
	var others []talk.RealmReports
	if r.Others != nil {
		others = r.Others(c.Ctx)
	}
	var silent []string
	for _, o := range others {
		switch {
		case !o.Answered:
			silent = append(silent, fmt.Sprintf("Realm %s did not answer: its reports are not listed.", o.Realm))
		case o.Err != "":
			silent = append(silent, fmt.Sprintf("Realm %s could not read its reports: %s", o.Realm, o.Err))
		}
		for _, rep := range o.Reports {
			all = append(all, realmReport{Realm: o.Realm, Report: rep})
		}
	}
	c.Result = fmt.Sprintf("%d reports", len(all))
	for _, line := range silent {
		fmt.Fprintln(c.ErrOut, "orthanc: "+line)
	}
	if c.JSON {
		return c.WriteJSON(all)
	}
	if len(all) == 0 {
		fmt.Fprintln(c.Out, "No reports.")
		return 0
	}
	replays := r.Replays(here)
	for i, rep := range all {
		if i > 0 {
			fmt.Fprintln(c.Out)
		}
		r.write(c, rep, rep.Realm == r.Realm && replays[rep.ID])
	}
	return 0
}

// Here is this realm's reports, the open first, once those older than Keep are
// forgotten: what reports lists of its own, and answers another realm's ask with.
func (r Reports) Here() ([]store.Report, error) {
	if err := r.Saver.Flush(); err != nil {
		r.Log.Error("admin: flush before reports", "err", err)
	}
	if _, err := r.Store.ForgetReportsBefore(r.Now().Add(-r.Keep)); err != nil {
		r.Log.Error("admin: forget old reports", "err", err)
	}
	list, err := r.Store.Reports()
	if err != nil {
		return nil, fmt.Errorf("reading the reports: %w", err)
	}
	return list, nil
}

// write prints one report, and how to replay it when it keeps a replay.
func (r Reports) write(c *Call, rr realmReport, replayed bool) {
	rep := rr.Report
	fmt.Fprintf(c.Out, "#%s %s  %s  %s reported %s: %s\n", r.number(rr.Realm, rep.ID), reportState(rep), rep.Filed.UTC().Format(time.DateTime),
		reportedKnight(rep.From, rep.FromKnight, rep.FromGuest), reportedKnight(rep.About, rep.AboutKnight, rep.AboutGuest), rep.Reason)
	if rep.Times > 1 {
		fmt.Fprintf(c.Out, "  (reported %d times, last at %s)\n", rep.Times, rep.Updated.UTC().Format(time.DateTime))
	}
	if replayed {
		fmt.Fprintf(c.Out, "  (what %s did in the %d minutes before: %s replay --report %d)\n",
			rep.About, int(replay.ReportWindow.Minutes()), c.SSH("-t"), rep.ID)
	}
	if len(rep.Lines) == 0 {
		fmt.Fprintf(c.Out, "  (%s said nothing aloud in the %d minutes before)\n", rep.About, int(r.Window.Minutes()))
		return
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	for _, l := range rep.Lines {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", l.At.UTC().Format(time.TimeOnly), l.Where, l.Line)
	}
	_ = tw.Flush()
}

// reportState is a report's state as reports lists it.
func reportState(r store.Report) string {
	if r.Open() {
		return "open"
	}
	return fmt.Sprintf("%s by %s at %s", r.Outcome, r.ClosedBy, r.Closed.UTC().Format(time.DateTime))
}

// number is a report's number as reports lists it: "12" for this realm's, "B-12" for
// realm B's.
func (r Reports) number(realm string, id uint64) string {
	if realm == "" || realm == r.Realm {
		return strconv.FormatUint(id, 10)
	}
	return fmt.Sprintf("%s-%d", realm, id)
}

// close closes the report numbered in c's one word with outcome: this realm's ("12", or
// "A-12" on realm A), or another realm's there ("B-12").
func (r Reports) close(c *Call, outcome string) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the number of one report, as reports lists it")
	}
	word := strings.TrimPrefix(c.Args[0], "#")
	realm := r.Realm
	if i := strings.LastIndexByte(word, '-'); i > 0 {
		realm, word = word[:i], word[i+1:]
	}
	id, err := strconv.ParseUint(word, 10, 64)
	if err != nil || id == 0 {
		return c.UsageError("%q is not a report's number", c.Args[0])
	}
	num := r.number(realm, id)
	var rep store.Report
	if realm == r.Realm {
		rep, err = r.CloseHere(id, outcome, c.FP)
	} else if r.CloseThere == nil {
		return c.Fail("no report #%s: this server talks with no other realm", num)
	} else {
		rep, err = r.CloseThere(c.Ctx, realm, id, outcome, c.FP)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.Fail("no report #%s", num)
	case errors.Is(err, store.ErrClosed):
		return c.Fail("report #%s is closed already", num)
	case errors.Is(err, talk.ErrNoAnswer):
		return c.Fail("realm %s did not answer: report #%s is not closed", realm, num)
	case err != nil:
		return c.Fail("could not close report #%s: %v", num, err)
	}
	c.Result = fmt.Sprintf("report #%s %s", num, outcome)
	if c.JSON {
		return c.WriteJSON(rep)
	}
	fmt.Fprintf(c.Out, "Report #%s (%s about %s) is %s.\n", num, rep.From, rep.About, outcome)
	return 0
}

// CloseHere closes this realm's report id with outcome, by the admin's key fingerprint,
// and drops what is kept with it (its replay).
func (r Reports) CloseHere(id uint64, outcome, by string) (store.Report, error) {
	if err := r.Saver.Flush(); err != nil {
		r.Log.Error("admin: flush before closing a report", "err", err)
	}
	rep, err := r.Store.CloseReport(id, outcome, by, r.Now())
	if err != nil {
		return rep, fmt.Errorf("closing report #%d: %w", id, err)
	}
	r.Forget(rep)
	return rep, nil
}
