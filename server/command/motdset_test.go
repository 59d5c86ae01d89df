package command

import (
	"errors"
	"testing"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// motd set keeps the cleaned text with who set it and when; motd clear keeps none; both
// refuse while a file gives the message, and say so when it cannot be kept.
func TestMOTDSetAndClear(t *testing.T) {
	admin := newKey(t)
	at := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	var kept []store.MOTD
	file := ""
	var fail error
	m := MOTD{Log: quietLog(), File: func() string { return file }, Now: func() time.Time { return at },
		Set: func(x store.MOTD) error { kept = append(kept, x); return fail }}
	tb := testTable([]ssh.PublicKey{admin}, nil, m.SetRow(), m.ClearRow())

	if a := runLine(t, tb, admin, "motd set Welcome \x1b[31mall"); a.code != 0 || a.out != "The message of the day is now: Welcome all\n" {
		t.Fatalf("motd set: %+v", a)
	}
	if want := (store.MOTD{Text: "Welcome all", By: keys.Fingerprint(admin), At: at}); len(kept) != 1 || kept[0] != want {
		t.Fatalf("kept %+v, want %+v", kept, want)
	}
	if a := runLine(t, tb, admin, "motd clear"); a.code != 0 || a.out != "The message of the day is cleared.\n" || kept[1] != (store.MOTD{}) {
		t.Fatalf("motd clear: %+v, kept %+v", a, kept)
	}
	if a := runLine(t, tb, admin, "motd set"); a.code != 1 || a.errOut != "orthanc: give the message (motd clear clears it); usage: motd set <text>\n" {
		t.Errorf("motd set with nothing: %+v", a)
	}
	if a := runLine(t, tb, admin, "motd clear now"); a.code != 1 || a.errOut != "orthanc: unexpected \"now\"; usage: motd clear\n" {
		t.Errorf("motd clear now: %+v", a)
	}
	fail = errors.New("disk full")
	if a := runLine(t, tb, admin, "motd set hi"); a.code != 1 || a.errOut != "orthanc: the message could not be saved: disk full\n" {
		t.Errorf("motd set failing: %+v", a)
	}
	if a := runLine(t, tb, admin, "motd clear"); a.code != 1 || a.errOut != "orthanc: the message could not be cleared: disk full\n" {
		t.Errorf("motd clear failing: %+v", a)
	}
	file, n := "/srv/orthanc/motd", len(kept)
	want := "orthanc: the message of the day comes from /srv/orthanc/motd: edit it and run reload (remove it to use motd set)\n"
	for _, line := range []string{"motd set hello", "motd clear"} {
		if a := runLine(t, tb, admin, line); a.code != 1 || a.errOut != want {
			t.Errorf("%q with a file: %+v", line, a)
		}
	}
	if len(kept) != n {
		t.Errorf("a refused line kept a message: %+v", kept[n:])
	}
}
