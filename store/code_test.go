package store

import (
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// Codes are kept across a restart until they expire (issue 30: a restart lost them).
func TestCodesSurviveARestart(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	now := time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)
	guest := fullAdventurer("guest-X", 2)
	for _, c := range []knights.Code{
		{Code: "AAAA-BBBB", Kind: "link", Knight: "K-KAY", Addr: "192.0.2.1", Expires: now.Add(10 * time.Minute)},
		{Code: "CCCC-DDDD", Kind: "claim", Guest: &guest, Addr: "192.0.2.2", Expires: now.Add(5 * time.Minute)},
		{Code: "EEEE-FFFF", Kind: "link", Knight: "K-OLD", Expires: now.Add(-time.Second)},
	} {
		if err := st.PutCode(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DeleteCode("AAAA-BBBB"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutCode(knights.Code{Code: "GGGG-HHHH", Kind: "link", Knight: "K-KAY", Expires: now.Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	codes, err := st.Codes(now)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != 2 || codes[0].Code != "CCCC-DDDD" || codes[1].Code != "GGGG-HHHH" {
		t.Fatalf("codes after a restart: %+v", codes)
	}
	sameAdventurer(t, *codes[0].Guest, guest)
	if codes[0].Addr != "192.0.2.2" || !codes[0].Expires.Equal(now.Add(5*time.Minute)) {
		t.Errorf("claim code = %+v", codes[0])
	}
	if again, _ := st.Codes(now); len(again) != 2 {
		t.Errorf("codes read twice: %+v", again)
	}
	if later, _ := st.Codes(now.Add(6 * time.Minute)); len(later) != 1 || later[0].Code != "GGGG-HHHH" {
		t.Errorf("codes 6 minutes on: %+v", later)
	}
	if err := st.Check(); err != nil {
		t.Error(err)
	}
}
