package server

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Letters to a knight imported while a realm runs (issue 41: "No knight named Lancelot
// has been here" until the realm restarted). Realm B runs as a process; a server alone's
// Lancelot is imported into etcd meanwhile, and its server started as realm A. On B, a
// letter to Lancelot (its name starting the text, as /mail reads it) is sent, found in
// etcd off B's world, and read by Lancelot on A.
func TestALetterReachesAKnightImportedWhileTheRealmRan(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	b := launched(t, realmSpec{name: "B", etcd: etcd, dir: t.TempDir(), seed: defaultSeed + 1, ttl: 5 * time.Second})
	bors := openTerminal(t, b.addr, newKey(t), 80, 24, nil)
	bors.enterDungeon("Bors")

	dirA := t.TempDir()
	lancelot := newKey(t)
	seedKnight(t, dirA, lancelot, func(a *world.Adventurer) { a.Name = "Lancelot" })
	if code, log := runBinary(t, "-data", dirA, "-realm", "A", "-etcd", etcd, "-import"); code != 0 {
		t.Fatalf("the import while B runs: exit %d:\n%s", code, log)
	}

	bors.chat("/mail Lancelot come to realm B")
	bors.waitFor("Your letter to Lancelot is sent")
	id := keys.Fingerprint(lancelot.PublicKey())
	waitUntil(t, "the letter in etcd", func() bool { return len(mailOf(t, shared, id)) == 1 })
	bors.chat("/mail Galahad where are you")
	bors.waitFor("No knight named Galahad has been here.")

	a := launched(t, realmSpec{name: "A", etcd: etcd, dir: dirA, seed: defaultSeed, ttl: 5 * time.Second})
	tm := openTerminal(t, a.addr, lancelot, 80, 24, nil)
	tm.continueKnight()
	tm.waitFor("You have 1 unread letter.")
	tm.press("e")
	if s := tm.waitFor("LETTERS: 1 letter, 1 new"); !strings.Contains(screenWords(s), "come to realm B") {
		t.Fatalf("Lancelot's letters:\n%s", s)
	}
}
