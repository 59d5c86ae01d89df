package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// A realm world backed up and restored (issue 41: "backup on a realm holds no
// knights"). Two realms as processes share one etcd, into which a server alone's hall
// of fame was imported; Kay plays on B and links a second key, Bors on A writes to Kay
// and is silenced, an address is banned. An admin's export on A, imported with -import
// into a fresh etcd, brings it all back: on a realm B of the new etcd Kay stands where
// it stood on B, reads its letter, plays from either key; the hall of fame, the ban and
// the silence are there, and stats counts them.
func TestARealmWorldExportedIsRestoredIntoAFreshEtcd(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	admin := newKey(t)
	dirB := t.TempDir()
	seedFame(t, dirB, "Lot")
	if code, log := runBinary(t, "-data", dirB, "-realm", "B", "-etcd", etcd, "-import"); code != 0 {
		t.Fatalf("the first import: exit %d:\n%s", code, log)
	}
	writeAdminKeys(t, dirB, admin)
	a := launched(t, realmSpec{name: "A", etcd: etcd, dir: t.TempDir(), seed: defaultSeed, ttl: 5 * time.Second})

	k1, k2, k3 := newKey(t), newKey(t), newKey(t)
	kay, stood := stepAndCheckpoint(t, a.addr, k1, "Kay", shared)
	if out, errOut, st := runCmd(t, a.addr, k2, "link "+linkCode(t, a.addr, k1)); st != 0 {
		t.Fatalf("link (exit %d): %s %s", st, out, errOut)
	}
	kay.quit()
	b := launched(t, realmSpec{name: "B", etcd: etcd, dir: dirB, seed: defaultSeed + 1, ttl: 5 * time.Second}) // knows Kay
	bors := openTerminal(t, b.addr, k3, 80, 24, nil)
	bors.enterDungeon("Bors")
	bors.chat("/mail Kay meet me at the stairs")
	bors.waitFor("Your letter to Kay is sent")
	for _, line := range []string{"ban 203.0.113.0/24 --reason flooding", "silence Bors 2h --reason shouting"} {
		if out, errOut, st := runCmd(t, b.addr, admin, line); st != 0 {
			t.Fatalf("%s (exit %d): %s %s", line, st, out, errOut)
		}
	}

	file, errOut, st := runCmd(t, b.addr, admin, "export")
	if st != 0 || !strings.Contains(errOut, "exported 2 knights, 3 keys, 1 letter in 1 mailbox, 1 in the hall of fame, 0 tombstones, 1 ban, 1 silence, at etcd's revision") {
		t.Fatalf("export (exit %d): %s", st, errOut)
	}
	path := filepath.Join(t.TempDir(), "world.export")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}

	// Imported as B's, the export keeps each sheet the realm's that wrote it: Kay A's.
	fresh := etcdtest.Start(t)
	code, log := runBinary(t, "-data", path, "-realm", "B", "-etcd", fresh, "-import")
	if code != 0 {
		t.Fatalf("the import of the export: exit %d:\n%s", code, log)
	}
	wantLines(t, log, "import: an export of a realm world", "kind=knights written=2", "kind=keys written=3",
		"kind=letters written=1", "kind=fame written=1", "kind=bans written=1", "kind=silences written=1",
		"import: every record is in etcd")
	if code, log := runBinary(t, "-data", path, "-realm", "B", "-etcd", fresh, "-import"); code != 0 || !strings.Contains(log, "kind=knights written=0 unchanged=2") {
		t.Fatalf("the export imported again: exit %d:\n%s", code, log)
	}

	dirA := t.TempDir()
	writeAdminKeys(t, dirA, admin)
	restored := launched(t, realmSpec{name: "A", etcd: fresh, dir: dirA, seed: defaultSeed, ttl: 5 * time.Second})
	tm := openTerminal(t, restored.addr, k1, 80, 24, nil)
	tm.continueKnight()
	tm.waitFor("You have 1 unread letter.")
	w := whoamiJSON(t, restored.addr, k1)
	if w.Knight != stood.Knight || w.Name != "Kay" || w.Depth != stood.Depth || w.X != stood.X || w.Y != stood.Y || w.MaxHits != stood.MaxHits {
		t.Fatalf("Kay restored on A: %+v; want where it stood, %+v", w, stood)
	}
	if w := whoamiJSON(t, restored.addr, k2); w.Knight != stood.Knight {
		t.Errorf("Kay's second key restored: %+v", w)
	}
	if w := whoamiJSON(t, restored.addr, k3); w.Name != "Bors" {
		t.Errorf("Bors restored: %+v", w)
	}
	for cmd, want := range map[string]string{"scores": "Lot", "bans": "203.0.113.0/24", "silences": "Bors"} {
		if out, errOut, st := runCmd(t, restored.addr, admin, cmd); st != 0 || !strings.Contains(out, want) {
			t.Errorf("%s on the restored world (exit %d): %s %s; want %q", cmd, st, out, errOut, want)
		}
	}
	if st := statsJSONOf(t, restored.addr, admin); st.Etcd == nil || st.Etcd.Knights != 2 || st.Etcd.Keys != 3 || st.Etcd.Fame != 1 || st.Adventurers != 2 {
		t.Errorf("stats on the restored world: %+v", st.Etcd)
	}
}

// launched runs a realm process as spec says, failing the test if it does not start.
func launched(t *testing.T, spec realmSpec) *realmProcess {
	t.Helper()
	p, err := launchRealm(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
