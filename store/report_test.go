package store

import (
	"testing"
	"time"
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
