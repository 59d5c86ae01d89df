package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Reports handed to the saver are written with the next batch and listed oldest first;
// old ones can be forgotten.
func TestReportsAreKeptAndForgotten(t *testing.T) {
	st := openTemp(t)
	sv := NewSaver(st, nil)
	at := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	sv.PutReport(Report{Filed: at.Add(time.Minute), From: "Bors", FromKnight: "K-B", About: "Mordred", Reason: "rude",
		Lines: []ReportLine{{At: at, Where: "shout", Line: "Mordred shouts: fools"}}})
	sv.PutReport(Report{Filed: at, From: "Kay", FromKnight: "K-K", About: "Mordred", Reason: "spam"})
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Reports()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].From != "Kay" || rs[1].Lines[0].Line != "Mordred shouts: fools" || !rs[1].Lines[0].At.Equal(at) {
		t.Fatalf("reports: %+v", rs)
	}
	if n, err := st.ForgetReportsBefore(at.Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("forget: %d, %v", n, err)
	}
	if rs, _ := st.Reports(); len(rs) != 1 || rs[0].From != "Bors" {
		t.Fatalf("after forgetting: %+v", rs)
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// reportAbout is a report of from about about, filed at, quoting n lines said from at on.
func reportAbout(from, about string, at time.Time, n int) Report {
	r := Report{Filed: at, From: from, FromKnight: "K-" + from, About: about, AboutKnight: "K-" + about, Reason: "rude"}
	for i := range n {
		r.Lines = append(r.Lines, ReportLine{At: at.Add(time.Duration(i) * time.Second), Where: "say",
			Line: fmt.Sprintf("%s says: <line %d> of a long and tedious insult & more", about, i)})
	}
	return r
}

// Regression (issue 30): every report was a new one with its own copy of the lines. A
// reporter's new report about the same knight updates its open one; the lines two
// reports quote are stored once; a player's "<" is stored as one byte.
func TestAReportIsUpdatedNotRepeated(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	first := reportAbout("Kay", "Mordred", at, 3)
	again := reportAbout("Kay", "Mordred", at.Add(time.Minute), 0)
	again.Reason = "still rude"
	said := ReportLine{At: at.Add(3 * time.Second), Where: "shout", Line: "Mordred shouts: <b>"}
	again.Lines = []ReportLine{first.Lines[1], first.Lines[2], said} // two lines the first has, one new
	other := reportAbout("Bors", "Mordred", at, 3)
	for _, r := range []Report{first, again, other} {
		if err := st.Save(Batch{Reports: []Report{r}}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := st.Reports()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d reports, want Kay's one, updated, and Bors's: %+v", len(rs), rs)
	}
	kay := rs[0]
	if kay.From != "Kay" || kay.Times != 2 || kay.Reason != "still rude" || !kay.Updated.Equal(again.Filed) || !kay.Filed.Equal(at) {
		t.Errorf("Kay's report = %+v", kay)
	}
	if len(kay.Lines) != 4 || kay.Lines[0] != first.Lines[0] || kay.Lines[3] != said {
		t.Errorf("Kay's lines = %+v, want the four lines said, each once, in order", kay.Lines)
	}
	_ = st.db.View(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketReportLines).Stats().KeyN; n != 4 {
			t.Errorf("%d lines stored, want 4: each once, whichever reports quote it", n)
		}
		raw := tx.Bucket(bucketReportLines).Get([]byte(lineKey("K-Mordred/Mordred", first.Lines[0])))
		if !bytes.Contains(raw, []byte("<line 0> of a long and tedious insult & more")) {
			t.Errorf("a line is stored as %q, not as said", raw)
		}
		return nil
	})
	if err := st.Check(); err != nil {
		t.Error(err)
	}
}

// An admin resolves or dismisses a report; the list has the open ones first. A closed
// report cannot be closed again, and a number no report has is ErrNotFound. A new report
// of a reporter whose report about the knight is closed is a new one.
func TestReportsAreClosedAndListedOpenFirst(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	for i, from := range []string{"Kay", "Bors", "Gawain"} {
		if err := st.Save(Batch{Reports: []Report{reportAbout(from, "Mordred", at.Add(time.Duration(i)*time.Minute), 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := st.CloseReport(1, Resolved, "SHA256:admin", at.Add(time.Hour)); err != nil || r.Outcome != Resolved || r.From != "Kay" {
		t.Fatalf("resolve 1 = %+v, %v", r, err)
	}
	if _, err := st.CloseReport(2, Dismissed, "SHA256:admin", at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CloseReport(1, Dismissed, "SHA256:admin", at.Add(2*time.Hour)); !errors.Is(err, ErrClosed) {
		t.Errorf("closing a closed report: %v", err)
	}
	if _, err := st.CloseReport(99, Resolved, "SHA256:admin", at); !errors.Is(err, ErrNotFound) {
		t.Errorf("closing report 99: %v", err)
	}
	if err := st.Save(Batch{Reports: []Report{reportAbout("Kay", "Mordred", at.Add(3*time.Hour), 1)}}); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Reports()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%d %s %s", r.ID, r.From, r.Outcome))
	}
	want := []string{"3 Gawain ", "4 Kay ", "2 Bors dismissed", "1 Kay resolved"}
	if !slices.Equal(got, want) {
		t.Errorf("reports listed %q, want %q", got, want)
	}
}

// Regression (issue 30): reports had no cap. However many are filed, the reports and
// their lines take at most MaxReportBytes; the closed ones go first, then the open ones
// updated longest ago, and the newest are kept.
func TestReportsStayUnderTheirCap(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	if err := st.Save(Batch{Reports: []Report{reportAbout("Kay", "Mordred", at, 100), reportAbout("Bors", "Mordred", at, 100)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CloseReport(2, Resolved, "SHA256:admin", at); err != nil {
		t.Fatal(err)
	}
	for i := range 60 { // each takes about 11 KB: the cap is reached after some 20
		r := reportAbout(fmt.Sprintf("Flooder%d", i), fmt.Sprintf("Victim%d", i), at.Add(time.Duration(i+1)*time.Minute), 100)
		if err := st.Save(Batch{Reports: []Report{r}}); err != nil {
			t.Fatal(err)
		}
		size := 0
		_ = st.db.View(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{bucketReports, bucketReportLines} {
				_ = tx.Bucket(name).ForEach(func(k, v []byte) error { size += len(k) + len(v); return nil })
			}
			return nil
		})
		if size > MaxReportBytes {
			t.Fatalf("after %d reports the reports take %d bytes, more than %d", i+3, size, MaxReportBytes)
		}
		rs, err := st.Reports()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(rs, func(x Report) bool { return x.From == r.From }) {
			t.Fatalf("after %d reports the newest was dropped", i+3)
		}
		hasResolved := slices.ContainsFunc(rs, func(x Report) bool { return !x.Open() })
		hasKay := slices.ContainsFunc(rs, func(x Report) bool { return x.From == "Kay" })
		if !hasKay && hasResolved {
			t.Fatalf("after %d reports an open report was dropped before the resolved one", i+3)
		}
	}
	rs, _ := st.Reports()
	if len(rs) < 10 || slices.ContainsFunc(rs, func(x Report) bool { return x.From == "Kay" || x.From == "Bors" }) {
		t.Errorf("%d reports kept, Kay's or Bors's among them: want the newest, the oldest gone", len(rs))
	}
	if err := st.Check(); err != nil {
		t.Error(err)
	}
}
