package server

import (
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
)

// On a realm, keys move through etcd as they do alone: keys add and link give a new key
// to a knight that plays here; a key that is a living knight's only one is refused with
// what to do, and with --replace that knight is entombed; an admin's keys move gives a
// knight's place to a new key; a guest is claimed by a new key, or by one that plays a
// living knight with --replace, and the knight plays on another realm.
func TestKeysOnARealm(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	admin := newKey(t)
	a := startRealm(t, "A", etcd, defaultSeed, admin)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	k1, k2, k3, k4 := newKey(t), newKey(t), newKey(t), newKey(t)
	fp := func(k interface{ PublicKey() gossh.PublicKey }) string { return keys.Fingerprint(k.PublicKey()) }
	kay := openTerminal(t, a.addr, k1, 80, 24, nil)
	kay.enterDungeon("Kay")
	gawain := openTerminal(t, b.addr, k3, 80, 24, nil)
	gawain.enterDungeon("Gawain")
	var kayID, gawainID string
	waitUntil(t, "both knights' keys in etcd", func() bool {
		a, errA := shared.KeyOf(fp(k1))
		g, errG := shared.KeyOf(fp(k3))
		kayID, gawainID = a.Knight, g.Knight
		return errA == nil && errG == nil
	})
	gawain.quit()

	code := linkCode(t, a.addr, k1)
	if out, errOut, st := runCmd(t, a.addr, k2, "link "+code); st != 0 || !strings.Contains(out, "This key now plays Kay") {
		t.Fatalf("link of a new key on A (exit %d): %s %s", st, out, errOut)
	}
	if k, err := shared.KeyOf(fp(k2)); err != nil || k.Knight != kayID {
		t.Fatalf("the linked key in etcd: %+v, %v", k, err)
	}
	code = linkCode(t, a.addr, k1)
	if _, errOut, st := runCmd(t, a.addr, k3, "link "+code); st != 1 || !strings.Contains(errOut, "this key plays a living knight, Gawain; run it again with --replace to retire Gawain into a tombstone") {
		t.Fatalf("link of Gawain's only key (exit %d): %s", st, errOut)
	}
	if k, err := shared.KeyOf(fp(k3)); err != nil || k.Knight != gawainID {
		t.Fatalf("Gawain's key after the refusal: %+v, %v", k, err)
	}
	if out, errOut, st := runCmd(t, a.addr, k3, "link "+code+" --replace"); st != 0 || !strings.Contains(out, "This key now plays Kay") || !strings.Contains(out, "retired into a tombstone") {
		t.Fatalf("link --replace of Gawain's only key (exit %d): %s %s", st, out, errOut)
	}
	if k, err := shared.KeyOf(fp(k3)); err != nil || k.Knight != kayID {
		t.Fatalf("Gawain's key after link --replace: %+v, %v", k, err)
	}
	entombed(t, shared, gawainID, knights.ReplacedKiller)

	if out, errOut, st := runCmd(t, a.addr, admin, "keys move "+fp(k2)+" "+fp(k4)); st != 0 || !strings.Contains(out, "Kay is now played by") {
		t.Fatalf("keys move on A (exit %d): %s %s", st, out, errOut)
	}
	if k, err := shared.KeyOf(fp(k4)); err != nil || k.Knight != kayID {
		t.Fatalf("the moved key in etcd: %+v, %v", k, err)
	}
	if _, err := shared.KeyOf(fp(k2)); err == nil {
		t.Fatal("the old key still plays Kay")
	}

	c, err := dialGuest(a.addr)
	if err != nil {
		t.Fatal(err)
	}
	guest := terminalOn(t, c, 80, 24, nil, "")
	guest.enterDungeon("Tom")
	guest.press("q")
	guest.waitFor("A guest is not saved")
	guest.press("y")
	if !guest.ended(10 * time.Second) {
		t.Fatalf("the guest's game did not end:\n%s", guest.screen())
	}
	m := claimCodeRe.FindStringSubmatch(guest.rawOutput())
	if m == nil {
		t.Fatalf("no claim code:\n%s", guest.rawOutput())
	}
	tomKey := newKey(t)
	percival := openTerminal(t, b.addr, tomKey, 80, 24, nil)
	percival.enterDungeon("Percival")
	percivalID := whoamiJSON(t, b.addr, tomKey).Knight
	percival.quit()
	if _, errOut, st := runCmd(t, a.addr, tomKey, "claim "+m[1]); st != 1 || !strings.Contains(errOut, "this key plays a living knight, Percival; run it again with --replace") {
		t.Fatalf("claim with Percival's only key (exit %d): %s", st, errOut)
	}
	if out, errOut, st := runCmd(t, a.addr, tomKey, "claim "+m[1]+" --replace"); st != 0 || !strings.Contains(out, "This key now plays Tom") || !strings.Contains(out, "retired into a tombstone") {
		t.Fatalf("claim --replace on A (exit %d): %s %s", st, out, errOut)
	}
	entombed(t, shared, percivalID, knights.ReplacedKiller)
	tom := openTerminal(t, b.addr, tomKey, 80, 24, nil)
	tom.continueKnight()
	if w := whoamiJSON(t, b.addr, tomKey); w.Name != "Tom" || !w.Online {
		t.Fatalf("the claimed knight on B: %+v", w)
	}
}

// linkCode runs keys add with key on addr and returns the code.
func linkCode(t *testing.T, addr string, key gossh.Signer) string {
	t.Helper()
	out, errOut, st := runCmd(t, addr, key, "keys add")
	m := linkCodeRe.FindStringSubmatch(out)
	if st != 0 || m == nil {
		t.Fatalf("keys add (exit %d): %s %s", st, out, errOut)
	}
	return m[1]
}

// entombed fails the test unless knight id is dead in etcd, killed by killer, with its
// tombstone.
func entombed(t *testing.T, shared *records.Store, id, killer string) {
	t.Helper()
	rec, err := shared.LoadAdventurer(id)
	if err != nil || rec.Death == nil || rec.Death.Killer != killer {
		t.Fatalf("the knight left keyless: %+v, %v", rec.Death, err)
	}
	tombs, err := shared.Tombstones()
	if err != nil || !slices.ContainsFunc(tombs, func(tb knights.Tombstone) bool { return tb.Adventurer.ID == id }) {
		t.Fatalf("no tombstone of %s: %v", id, err)
	}
}
