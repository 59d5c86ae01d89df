package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// reportFlood is how long TestAReportFloodIsBounded floods: 15 s, or
// ORTHANC_REPORT_FLOOD (such as 5m, the measure, run by hand).
func reportFlood(t *testing.T) time.Duration {
	if v := os.Getenv("ORTHANC_REPORT_FLOOD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("ORTHANC_REPORT_FLOOD=%q: %v", v, err)
		}
		return d
	}
	return 15 * time.Second
}

// Regression (issue 30): 4 keyed and 10 guest reporters, reporting a knight who says
// long lines as fast as they could, grew the database from 64 KB to 16 MB in 72 s (236
// reports, none refused), and reports became 7787 lines. Now a keyed reporter files
// world.MaxReportsPerHour (an open report about the same knight updated, not repeated),
// the guests world.MaxGuestReportsPerHour together, the lines are stored once, and the
// file grows by less than 1 MB however long the flood lasts. The admin resolves and
// dismisses; open reports are listed first.
func TestAReportFloodIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.Limits.MaxGuestsPerIP = 10
	ts, _ := startConfigured(t, cfg)
	path := filepath.Join(dir, "orthanc.db")
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}

	target := openTerminalCmd(t, ts.addr, newKey(t), 100, 30, "play --plain")
	target.enterPlain("Mordred")
	var reporters []*terminal
	for i := range 4 {
		r := openTerminalCmd(t, ts.addr, newKey(t), 100, 30, "play --plain")
		r.enterPlain(fmt.Sprintf("Reporter%c", 'A'+i))
		reporters = append(reporters, r)
	}
	for range 10 {
		c, err := dialGuest(ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		r := terminalOn(t, c, 100, 30, nil, "play --plain")
		r.waitRaw("Press Enter to begin.")
		r.press(keyEnter)
		r.waitRaw("The dice have spoken")
		r.press(keyEnter)
		r.waitRaw("Name your knight")
		r.press(keyEnter)
		r.waitRaw("Welcome, Guest")
		reporters = append(reporters, r)
	}
	before := size()

	// The flood: the target says long lines at its allowance's pace, with the characters
	// JSON's HTML escapes made six bytes of; every reporter reports it ten times a second.
	flood := reportFlood(t)
	long := strings.Repeat("<fools> & ", 18)
	var wg sync.WaitGroup
	end := time.Now().Add(flood)
	for i, r := range append([]*terminal{target}, reporters...) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(end); n++ {
				var err error
				if i == 0 {
					_, err = fmt.Fprintf(r.stdin, "say %d %s\r", n, long)
					time.Sleep(2 * time.Second) // the pace of a flood that is heard: 5 lines in 10 s
				} else {
					_, err = fmt.Fprintf(r.stdin, "report Mordred spam number %d %s\r", n, long)
					time.Sleep(100 * time.Millisecond)
				}
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()

	var reports []store.Report
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "reports --json")), &reports); err != nil {
		t.Fatal(err)
	}
	if max := 4*world.MaxReportsPerHour + world.MaxGuestReportsPerHour; len(reports) > 4+world.MaxGuestReportsPerHour {
		t.Errorf("%d reports after the flood, want one open report a reporter at most (%d filings)", len(reports), max)
	}
	for _, r := range reports {
		if r.FromGuest && r.Times > 1 || !r.FromGuest && r.Times > world.MaxReportsPerHour {
			t.Errorf("report %d stands for %d filings from %s", r.ID, r.Times, r.From)
		}
	}
	out := mustRun(t, ts.addr, admin, "reports")
	if n := strings.Count(out, "\n"); n > 4000 {
		t.Errorf("reports is %d lines long", n)
	}
	if len(reports) < 2 {
		t.Fatalf("%d reports: the flood filed nothing to list", len(reports))
	}
	if _, errOut, code := runCmd(t, ts.addr, admin, fmt.Sprintf("reports resolve %d", reports[0].ID)); code != 0 {
		t.Fatalf("reports resolve: %s", errOut)
	}
	mustRun(t, ts.addr, admin, fmt.Sprintf("reports dismiss #%d", reports[1].ID))
	if _, errOut, code := runCmd(t, ts.addr, admin, fmt.Sprintf("reports dismiss %d", reports[1].ID)); code != 1 || !strings.Contains(errOut, "closed already") {
		t.Errorf("dismissing a closed report: %q %d", errOut, code)
	}
	var after []store.Report
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "reports --json")), &after); err != nil {
		t.Fatal(err)
	}
	last := after[len(after)-1]
	if after[0].Open() == false || last.ID != reports[0].ID || last.Outcome != store.Resolved || after[len(after)-2].Outcome != store.Dismissed {
		t.Errorf("after closing two, the list is not open first, then the latest closed: %+v", after)
	}
	_, _, _ = runCmd(t, ts.addr, admin, "check") // the saver's last writes, flushed
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	grown := size() - before
	t.Logf("%s of the flood: %d reports, the database %d → %d bytes (%+d)", flood, len(reports), before, size(), grown)
	if grown >= 1<<20 {
		t.Errorf("the database grew by %d bytes under the flood, want under 1 MB", grown)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `\u003c`) {
		t.Error(`a "<" is stored as \u003c`)
	}
}
