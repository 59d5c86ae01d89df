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
	rev, err := st.PutMailIf("k1", Mailbox{Letters: first}, 0)
	if err != nil || rev == 0 {
		t.Fatalf("a new mailbox: rev %d, %v", rev, err)
	}
	if _, err := st.PutMailIf("k1", Mailbox{Letters: first}, 0); !errors.Is(err, ErrMailChanged) {
		t.Fatalf("a second create: %v; want ErrMailChanged", err)
	}
	box, at, err := st.MailAt("k1")
	if err != nil || at != rev || len(box.Letters) != 1 {
		t.Fatalf("MailAt: %v at %d (want %d), %v", box, at, rev, err)
	}
	if _, err := st.PutMailIf("k1", Mailbox{}, rev-1); !errors.Is(err, ErrMailChanged) {
		t.Fatalf("an old revision: %v; want ErrMailChanged", err)
	}
	if at, err := st.PutMailIf("k1", Mailbox{}, rev); err != nil || at != 0 {
		t.Fatalf("emptied: %d, %v", at, err)
	}
	if box, at, err := st.MailAt("k1"); err != nil || at != 0 || len(box.Letters) != 0 {
		t.Fatalf("after emptying: %v at %d, %v", box, at, err)
	}
}

// A mailbox whose letters are all deleted keeps their tombstones, and is no mailbox to
// read.
func TestAMailboxOfTombstonesIsKeptAndReadAsNone(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	l := world.Letter{From: "Bors", To: "Kay", Text: "one", Sent: time.Unix(1, 0).UTC()}
	gone := []GoneLetter{{ID: LetterID(l), At: time.Unix(2, 0).UTC()}}
	rev, err := st.PutMailIf("k1", Mailbox{Gone: gone}, 0)
	if err != nil || rev == 0 {
		t.Fatalf("a mailbox of tombstones: rev %d, %v", rev, err)
	}
	box, at, err := st.MailAt("k1")
	if err != nil || at != rev || len(box.Letters) != 0 || len(box.Gone) != 1 || box.Gone[0] != gone[0] {
		t.Fatalf("MailAt: %+v at %d, %v", box, at, err)
	}
	if mail, err := st.Mail(); err != nil || len(mail) != 0 {
		t.Fatalf("Mail: %v, %v; want none", mail, err)
	}
	if LetterID(l) == LetterID(world.Letter{From: l.From, To: l.To, Text: "two", Sent: l.Sent}) {
		t.Fatal("two letters' ids are one")
	}
}
