package store

import (
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// A silence is kept by knight id until its time; Silences lists the running ones, soonest to
// end first, and deletes the ended ones; Unsilence lifts one.
func TestSilences(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC)
	for _, s := range []knights.Silence{
		{Knight: "K-LONG", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at, Until: at.Add(24 * time.Hour)},
		{Knight: "K-SHORT", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)},
	} {
		if err := st.Silence(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Silence(knights.Silence{}); err == nil {
		t.Fatal("a silence without a knight was kept")
	}
	if ss, err := st.Silences(at); err != nil || len(ss) != 2 || ss[0].Knight != "K-SHORT" || ss[1].Reason != "spam" {
		t.Fatalf("silences: %+v, %v", ss, err)
	}
	if ss, err := st.Silences(at.Add(time.Hour)); err != nil || len(ss) != 1 || ss[0].Name != "Mordred" {
		t.Fatalf("silences after the first ended: %+v, %v", ss, err)
	}
	if ss, _ := st.Silences(at); len(ss) != 1 {
		t.Fatal("an ended silence was kept")
	}
	if ok, err := st.Unsilence("K-LONG"); !ok || err != nil {
		t.Fatalf("unsilence: %v, %v", ok, err)
	}
	if ok, _ := st.Unsilence("K-LONG"); ok {
		t.Fatal("unsilenced twice")
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}
