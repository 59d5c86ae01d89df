package records

import (
	"errors"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A mailbox written on a revision another realm has moved past is refused, so the writer
// reads it again rather than overwrite the other's letter.
func TestPutMailIfRefusesAMailboxChangedMeanwhile(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	first := []world.Letter{{From: "Bors", To: "Kay", Text: "one", Sent: time.Unix(1, 0).UTC()}}
	rev, err := st.PutMailIf("k1", first, 0)
	if err != nil || rev == 0 {
		t.Fatalf("a new mailbox: rev %d, %v", rev, err)
	}
	if _, err := st.PutMailIf("k1", first, 0); !errors.Is(err, ErrMailChanged) {
		t.Fatalf("a second create: %v; want ErrMailChanged", err)
	}
	ls, at, err := st.MailAt("k1")
	if err != nil || at != rev || len(ls) != 1 {
		t.Fatalf("MailAt: %v at %d (want %d), %v", ls, at, rev, err)
	}
	if _, err := st.PutMailIf("k1", nil, rev-1); !errors.Is(err, ErrMailChanged) {
		t.Fatalf("an old revision: %v; want ErrMailChanged", err)
	}
	if at, err := st.PutMailIf("k1", nil, rev); err != nil || at != 0 {
		t.Fatalf("emptied: %d, %v", at, err)
	}
	if ls, at, err := st.MailAt("k1"); err != nil || at != 0 || len(ls) != 0 {
		t.Fatalf("after emptying: %v at %d, %v", ls, at, err)
	}
}
