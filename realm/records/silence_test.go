package records

import (
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
)

func TestSilencesRoundTripAndEnd(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		long := store.Silence{Knight: "K-long", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at, Until: at.Add(2 * time.Hour)}
		short := store.Silence{Knight: "K-short", Name: "Agravain", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)}
		for _, sl := range []store.Silence{long, short} {
			if err := st.Silence(sl); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Silence(store.Silence{Until: at}); err == nil {
			t.Error("a silence of no knight was stored")
		}
		list, err := st.Silences(at)
		if err != nil || len(list) != 2 || list[0].Knight != "K-short" || list[1] != long {
			t.Fatalf("silences, soonest first: %+v, %v", list, err)
		}
		if list, err = st.Silences(at.Add(time.Hour)); err != nil || len(list) != 1 || list[0].Knight != "K-long" {
			t.Fatalf("after the short one's end: %+v, %v", list, err)
		}
		if list, _ = st.Silences(at); len(list) != 1 {
			t.Fatalf("an ended silence was kept: %+v", list)
		}
		long.Reason = "again"
		if err := st.Silence(long); err != nil {
			t.Fatal(err)
		}
		if list, _ = st.Silences(at); len(list) != 1 || list[0].Reason != "again" {
			t.Fatalf("a silence made again: %+v", list)
		}
		for _, want := range []bool{true, false} {
			if found, err := st.Unsilence("K-long"); found != want || err != nil {
				t.Fatalf("unsilence: %v, %v; want %v", found, err, want)
			}
		}
		if list, _ = st.Silences(at); len(list) != 0 {
			t.Fatalf("after unsilence: %+v", list)
		}
	})
}
