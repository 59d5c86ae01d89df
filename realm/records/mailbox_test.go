package records

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Two realms write one mailbox at the same moment, one of them deleting a letter its
// knight never read: the deletion wins, whichever writes first, and a realm whose world
// still holds the letter from an older copy does not bring it back.
func TestALetterDeletedUnreadStaysDeletedWhenTwoRealmsWriteAtOnce(t *testing.T) {
	etcd := etcdtest.Start(t)
	shared := storeAt(t, etcd)
	a, b := mailRealm(t, "A", etcd), mailRealm(t, "B", etcd)
	sent := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	l1 := world.Letter{From: "Bors", To: "Kay", Text: "the first letter", Sent: sent}
	l2 := world.Letter{From: "Bors", To: "Kay", Text: "the second letter", Sent: sent.Add(time.Minute)}
	l3 := world.Letter{From: "Bors", To: "Kay", Text: "the third letter", Sent: sent.Add(2 * time.Minute)}

	a.putMail("K", []world.Letter{l1}) // Bors writes on A
	flushMail(t, a)
	box, rev, err := shared.MailAt("K") // Kay arrives on B: B hands its world the mailbox
	if err != nil || !b.sawMail("K", box, rev) {
		t.Fatalf("B reads the mailbox: %v", err)
	}
	b.handed("K", box.Letters)

	b.putMail("K", nil)                    // Kay deletes the letter unread on B...
	a.putMail("K", []world.Letter{l1, l2}) // ...as Bors writes again on A, which writes first
	flushMail(t, a)
	flushMail(t, b)
	if got := texts(mailOf(t, shared, "K")); !slices.Equal(got, []string{"the second letter"}) {
		t.Fatalf("the mailbox after both wrote: %q; want only the second letter", got)
	}

	// A realm whose world still holds the first letter (C read the mailbox at its start,
	// then sees the deletion before its world is handed it) writes from that copy: the
	// tombstone keeps it deleted.
	c := mailRealm(t, "C", etcd)
	c.seedMail(map[string][]world.Letter{"K": {l1}})
	box, rev, err = shared.MailAt("K")
	if err != nil || !c.sawMail("K", box, rev) {
		t.Fatalf("C reads the mailbox: %v", err)
	}
	c.putMail("K", []world.Letter{l1, l3})
	flushMail(t, c)
	if got := texts(mailOf(t, shared, "K")); !slices.Equal(got, []string{"the second letter", "the third letter"}) {
		t.Fatalf("the mailbox after C wrote from its old copy: %q", got)
	}
}

// A letter the world was handed and then lost to another mailbox handed over was not
// deleted here: only a letter gone between two of the world's own hand-overs is.
func TestALetterReplacedByAHandedMailboxIsNoDeletion(t *testing.T) {
	etcd := etcdtest.Start(t)
	shared := storeAt(t, etcd)
	a := mailRealm(t, "A", etcd)
	sent := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	l1 := world.Letter{From: "Bors", To: "Kay", Text: "one", Sent: sent}
	l2 := world.Letter{From: "Bors", To: "Kay", Text: "two", Sent: sent.Add(time.Minute)}
	a.putMail("K", []world.Letter{l1})
	flushMail(t, a)
	a.handed("K", nil) // another realm's copy, older, replaced the world's
	a.putMail("K", []world.Letter{l2})
	flushMail(t, a)
	if got := texts(mailOf(t, shared, "K")); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("the mailbox: %q; want both letters", got)
	}
}

// Tombstones last goneFor, the newest maxGone of them.
func TestTombstonesAreKeptForATime(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	dead := map[string]time.Time{"old": now.Add(-goneFor), "new": now.Add(-time.Minute)}
	if got := keptGone(dead, now); len(got) != 1 || got[0].ID != "new" {
		t.Fatalf("kept: %+v", got)
	}
	for i := range maxGone + 5 {
		dead[string(rune('a'+i%26))+time.Duration(i).String()] = now.Add(-time.Duration(i) * time.Second)
	}
	got := keptGone(dead, now)
	if len(got) != maxGone || !got[len(got)-1].At.Equal(now) {
		t.Fatalf("kept %d, the newest at %v", len(got), got[len(got)-1].At)
	}
}

// mailRealm is a realm's knights on etcd, without a server: its mailboxes only.
func mailRealm(t *testing.T, name, etcd string) *sheets {
	t.Helper()
	return newSheets(name, storeAt(t, etcd), slog.New(slog.DiscardHandler))
}

func flushMail(t *testing.T, k *sheets) {
	t.Helper()
	if err := k.flushMail(); err != nil {
		t.Fatal(err)
	}
}

func texts(ls []world.Letter) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

// storeAt is the records in the etcd at addr, under the realms' own prefix, as a realm
// keeps them.
func storeAt(t *testing.T, addr string) *Store {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return New(cli, Options{})
}

func mailOf(t *testing.T, st *Store, id string) []world.Letter {
	t.Helper()
	ls, err := st.MailOf(id)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clip(ls)
}
