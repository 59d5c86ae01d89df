package command

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// reportsDesk is the reports' commands on a store of their own, with an admin's key.
type reportsDesk struct {
	t     *testing.T
	saver *store.Saver
	table *Table
	admin ssh.PublicKey
	now   time.Time
	// forgot are the reports whose replay Forget was asked to drop, in order.
	forgot []uint64
}

// reportsOpen is a reportsDesk whose store is closed when the test ends; replayed are the
// reports that keep a replay.
func reportsOpen(t *testing.T, replayed ...uint64) *reportsDesk {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	log := quietLog()
	d := &reportsDesk{t: t, saver: store.NewSaver(st, log), admin: modKey(t, 1), now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	r := Reports{Log: log, Store: st, Saver: d.saver, Now: func() time.Time { return d.now }, Keep: 30 * 24 * time.Hour, Window: 10 * time.Minute,
		Forget: func(rep store.Report) { d.forgot = append(d.forgot, rep.ID) },
		Replays: func(list []store.Report) map[uint64]bool {
			out := map[uint64]bool{}
			for _, id := range replayed {
				out[id] = true
			}
			return out
		}}
	gate := Gate{Log: log, IsAdmin: func(k ssh.PublicKey) bool { return keys.Fingerprint(k) == keys.Fingerprint(d.admin) },
		KnightOf: func(string) (string, error) { return "", nil },
		SSH:      modSSH}
	d.table = NewTable(gate, r.Reports(), r.Resolve(), r.Dismiss())
	return d
}

// want runs an admin's line and checks its output, its errors and its status.
func (d *reportsDesk) want(line, out, errOut string, code int) {
	d.t.Helper()
	var o, e bytes.Buffer
	got := d.table.Run(context.Background(), Session{Key: d.admin, Out: &o, ErrOut: &e}, strings.Fields(line))
	if o.String() != out || e.String() != errOut || got != code {
		d.t.Errorf("%s:\n got %q, %q, %d\nwant %q, %q, %d", line, o.String(), e.String(), got, out, errOut, code)
	}
}

func TestReportsListsAndClosesTheReportsFiled(t *testing.T) {
	d := reportsOpen(t, 1)
	d.want("reports", "No reports.\n", "", 0)
	filed := d.now.Add(-time.Hour)
	d.saver.PutReport(store.Report{Filed: filed, From: "Kay", FromKnight: "K-kay", About: "Bors", AboutKnight: "K-bors", Reason: "rude",
		Lines: []store.ReportLine{{At: filed.Add(-time.Minute), Where: "say", Line: "Bors says: go away"}}})
	d.saver.PutReport(store.Report{Filed: filed.Add(time.Minute), From: "Guest Tom", FromKnight: "guest-tom", FromGuest: true, About: "Lot", Reason: "spam"})
	d.want("reports", "#1 open  2025-03-01 11:00:00  Kay (K-kay) reported Bors (K-bors): rude\n"+
		"  (what Bors did in the 2 minutes before: ssh -t -p 2222 host replay --report 1)\n"+
		"  10:59:00  say  Bors says: go away\n"+
		"\n"+
		"#2 open  2025-03-01 11:01:00  Guest Tom (guest-tom, a guest) reported Lot: spam\n"+
		"  (Lot said nothing aloud in the 10 minutes before)\n", "", 0)
	fp := keys.Fingerprint(d.admin)
	d.want("reports resolve #1", "Report #1 (Kay about Bors) is resolved.\n", "", 0)
	d.want("reports resolve 1", "", "orthanc: report #1 is closed already\n", 1)
	if !slices.Equal(d.forgot, []uint64{1}) {
		t.Errorf("the replays dropped with closed reports: %v, want report 1's only", d.forgot)
	}
	d.want("reports dismiss 9", "", "orthanc: no report #9\n", 1)
	var o bytes.Buffer
	d.table.Run(context.Background(), Session{Key: d.admin, Out: &o, ErrOut: &o}, []string{"reports", "dismiss", "2", "--json"})
	var closed store.Report
	if err := json.Unmarshal(o.Bytes(), &closed); err != nil || closed.Outcome != store.Dismissed || closed.ClosedBy != fp {
		t.Errorf("reports dismiss --json: %s: %v", o.String(), err)
	}
	d.want("reports", "#1 resolved by "+fp+" at 2025-03-01 12:00:00  2025-03-01 11:00:00  Kay (K-kay) reported Bors (K-bors): rude\n"+
		"  (what Bors did in the 2 minutes before: ssh -t -p 2222 host replay --report 1)\n"+
		"  10:59:00  say  Bors says: go away\n"+
		"\n"+
		"#2 dismissed by "+fp+" at 2025-03-01 12:00:00  2025-03-01 11:01:00  Guest Tom (guest-tom, a guest) reported Lot: spam\n"+
		"  (Lot said nothing aloud in the 10 minutes before)\n", "", 0)

	d.now = d.now.Add(31 * 24 * time.Hour) // past the keep: forgotten
	d.want("reports", "No reports.\n", "", 0)
}

func TestReportsRefuseWhatTheyCannotDo(t *testing.T) {
	d := reportsOpen(t)
	d.want("reports resolve", "", "orthanc: give the number of one report, as reports lists it; usage: reports resolve <number> [--json]\n", 1)
	d.want("reports dismiss 1 2", "", "orthanc: give the number of one report, as reports lists it; usage: reports dismiss <number> [--json]\n", 1)
	d.want("reports resolve one", "", "orthanc: \"one\" is not a report's number; usage: reports resolve <number> [--json]\n", 1)
	d.want("reports all", "", "orthanc: unexpected \"all\"; usage: reports [--json]\n", 1)
	var o, e bytes.Buffer
	if code := d.table.Run(context.Background(), Session{Key: modKey(t, 2), Out: &o, ErrOut: &e}, []string{"reports"}); code != 1 || e.String() != PermissionDenied+"\n" {
		t.Errorf("reports by a player: %q %q %d", o.String(), e.String(), code)
	}
}
