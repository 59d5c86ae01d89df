package command

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
}

// Reports is reports' row.
func (r Reports) Reports() Command {
	return Command{Name: "reports", Usage: "reports [--json]", Summary: "the reports players filed, open ones first, with the lines the reported knight said",
		Help: "Each report has a number and says who reported whom, when and why, and carries what the\n" +
			"reported knight said aloud in the 10 minutes before (says, emotes, shouts, channels) and its\n" +
			"whispers to the reporter. Knights are named with their ids; a guest (\"guest-…\") is marked so.\n" +
			"A reporter has one open report about a knight: reporting it again updates that one.\n" +
			"Open reports come first; `reports resolve N` or `reports dismiss N` closes one.\n" +
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

// list lists the reports filed, the open ones first, each with the lines it carries;
// reports older than Keep are forgotten first.
func (r Reports) list(c *Call) int {
	if err := r.Saver.Flush(); err != nil {
		r.Log.Error("admin: flush before reports", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: reports filed in the last moments may be missing: %v\n", err)
	}
	if _, err := r.Store.ForgetReportsBefore(r.Now().Add(-r.Keep)); err != nil {
		r.Log.Error("admin: forget old reports", "err", err)
	}
	list, err := r.Store.Reports()
	if err != nil {
		return c.Fail("could not read the reports: %v", err)
	}
	c.Result = fmt.Sprintf("%d reports", len(list))
	if c.JSON {
		return c.WriteJSON(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Out, "No reports.")
		return 0
	}
	replays := r.Replays(list)
	for i, rep := range list {
		if i > 0 {
			fmt.Fprintln(c.Out)
		}
		r.write(c, rep, replays[rep.ID])
	}
	return 0
}

// write prints one report, and how to replay it when it keeps a replay.
func (r Reports) write(c *Call, rep store.Report, replayed bool) {
	fmt.Fprintf(c.Out, "#%d %s  %s  %s reported %s: %s\n", rep.ID, reportState(rep), rep.Filed.UTC().Format(time.DateTime),
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

// close closes the report numbered in c's one word with outcome.
func (r Reports) close(c *Call, outcome string) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the number of one report, as reports lists it")
	}
	id, err := strconv.ParseUint(strings.TrimPrefix(c.Args[0], "#"), 10, 64)
	if err != nil {
		return c.UsageError("%q is not a report's number", c.Args[0])
	}
	if err := r.Saver.Flush(); err != nil {
		r.Log.Error("admin: flush before closing a report", "err", err)
	}
	rep, err := r.Store.CloseReport(id, outcome, c.FP, r.Now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.Fail("no report #%d", id)
	case errors.Is(err, store.ErrClosed):
		return c.Fail("report #%d is closed already", id)
	case err != nil:
		return c.Fail("could not close report #%d: %v", id, err)
	}
	c.Result = fmt.Sprintf("report #%d %s", id, outcome)
	r.Forget(rep)
	if c.JSON {
		return c.WriteJSON(rep)
	}
	fmt.Fprintf(c.Out, "Report #%d (%s about %s) is %s.\n", id, rep.From, rep.About, outcome)
	return 0
}
