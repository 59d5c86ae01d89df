package server

import (
	"slices"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Letters between realms without talk: a letter written on A while its knight is away is
// read when the knight is claimed on B; a letter B's knight deleted is not brought back
// by A writing the mailbox from its older copy, nor is the read mark lost.
func TestLettersBetweenRealmsWithoutTalk(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	kayKey := newKey(t)
	kay := openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.enterDungeon("Kay")
	kayID := whoamiJSON(t, b.addr, kayKey).Knight
	kay.quit()

	a := startRealm(t, "A", etcd, defaultSeed) // knows Kay's name from etcd
	bors := openTerminal(t, a.addr, newKey(t), 80, 24, nil)
	bors.enterDungeon("Bors")
	bors.chat("/mail kay the first letter")
	bors.waitFor("Your letter to Kay is sent")
	waitUntil(t, "the first letter in etcd", func() bool { return len(mailOf(t, shared, kayID)) == 1 })

	kay = openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.continueKnight()
	kay.waitFor("You have 1 unread letter.")
	kay.press("e")
	kay.waitFor("LETTERS: 1 letter, 1 new", "the first letter")
	kay.press("A")
	kay.waitFor("LETTERS: 0 letters")
	kay.press("q")
	kay.waitFor("You delete the letter from Bors.")
	waitUntil(t, "the deletion in etcd", func() bool { return len(mailOf(t, shared, kayID)) == 0 })

	bors.chat("/mail kay the second letter") // A's copy of the mailbox still has the first
	bors.waitFor("Your letter to Kay is sent")
	waitUntil(t, "the second letter in etcd", func() bool {
		ls := mailOf(t, shared, kayID)
		return len(ls) > 0 && ls[len(ls)-1].Text == "the second letter"
	})
	if ls := mailOf(t, shared, kayID); len(ls) != 1 {
		t.Fatalf("Kay's mailbox in etcd: %+v; want only the second letter", ls)
	}
	// without talk B hears of it at the next claim
	kay.quit()
	kay = openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.continueKnight()
	kay.waitFor("You have 1 unread letter.")
}

func mailOf(t *testing.T, shared interface {
	MailOf(string) ([]world.Letter, error)
}, id string) []world.Letter {
	t.Helper()
	ls, err := shared.MailOf(id)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clip(ls)
}
