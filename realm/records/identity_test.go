package records

import (
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A name is one knight's in every realm: a second knight's claim is refused, whatever
// the case, and its own knight may claim it again.
func TestANameIsClaimedOnce(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	for _, tc := range []struct {
		name, knight string
		ok           bool
	}{{"Kay", "K-1", true}, {"kay", "K-2", false}, {"KAY", "K-1", true}, {"Bors", "K-2", true}} {
		if ok, err := st.ClaimName(tc.name, tc.knight); ok != tc.ok || err != nil {
			t.Errorf("ClaimName(%q, %s) = %v, %v; want %v", tc.name, tc.knight, ok, err, tc.ok)
		}
	}
}

// One knight's mailbox is read alone, as a realm reads it when another wrote it.
func TestAMailboxIsReadAlone(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	if ls, err := st.MailOf("K-9"); err != nil || len(ls) != 0 {
		t.Fatalf("no mailbox: %v, %v", ls, err)
	}
	if err := st.PutMail("K-9", []world.Letter{{From: "Kay", Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if ls, err := st.MailOf("K-9"); err != nil || len(ls) != 1 || ls[0].From != "Kay" {
		t.Fatalf("the mailbox: %v, %v", ls, err)
	}
}

// FindName finds the first of several names a knight holds, across a case, in one read;
// none is no error.
func TestFindNameFindsTheFirstNameHeld(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	if ok, err := st.ClaimName("Kay", "K-KAY"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := st.ClaimName("Kay the Bold", "K-BOLD"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"kay the bold", "kay the", "kay"}, "K-BOLD"},
		{[]string{"Kay hello", "KAY"}, "K-KAY"},
		{[]string{"Lancelot"}, ""},
		{nil, ""},
	} {
		n, ok, err := st.FindName(tc.names...)
		if err != nil || ok != (tc.want != "") || n.Knight != tc.want {
			t.Errorf("FindName(%q) = %+v, %v, %v; want %q", tc.names, n, ok, err, tc.want)
		}
	}
}
