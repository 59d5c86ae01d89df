package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// standaloneStore makes a server alone's data folder through the store's API: knights
// Kay (two keys, a letter) and Gawain (one key, silenced), Mordred dead and Lot retired,
// a key's ban and an address's.
func standaloneStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	kay := world.Adventurer{ID: "K-KAY", Name: "Kay", Depth: 2, X: 5, Y: 7, Experience: 120}
	gawain := world.Adventurer{ID: "K-GAWAIN", Name: "Gawain", Depth: 1, X: 3, Y: 3}
	mordred := world.Adventurer{ID: "K-MORDRED", Name: "Mordred", Death: &world.Death{}}
	lot := world.Adventurer{ID: "K-LOT", Name: "Lot", Experience: 9000}
	batch := store.Batch{
		Adventurers: []world.Adventurer{kay, gawain, mordred, lot},
		Keys: []knights.Key{
			{Fingerprint: "SHA256:kay1", Knight: kay.ID, Added: at},
			{Fingerprint: "SHA256:kay2", Knight: kay.ID, Added: at.Add(time.Hour), Comment: "laptop"},
			{Fingerprint: "SHA256:gawain", Knight: gawain.ID, Added: at},
			{Fingerprint: "SHA256:mordred", Knight: mordred.ID, Added: at},
			{Fingerprint: "SHA256:lot", Knight: lot.ID, Added: at},
		},
		Tombstones: []knights.Tombstone{{Died: at, Adventurer: mordred}},
		Fame:       []knights.FameEntry{{Retired: at, Adventurer: lot}},
		Mail:       map[string][]world.Letter{kay.ID: {{From: "Gawain", To: "Kay", Text: "Meet me at the stairs", Sent: at}}},
	}
	if err := st.Save(batch); err != nil {
		t.Fatal(err)
	}
	for _, b := range []knights.Ban{{Fingerprint: "SHA256:troll", At: at}, {Addr: "203.0.113.0/24", At: at}} {
		if err := st.Ban(b); err != nil {
			t.Fatal(err)
		}
	}
	until := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
	if err := st.Silence(knights.Silence{Knight: gawain.ID, Name: "Gawain", Reason: "shouting", By: "SHA256:admin", At: at, Until: until}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// importInto runs orthanc-ssh -import of dir into etcd as realm europe, and returns its
// exit code and log.
func importInto(t *testing.T, dir, etcd string) (int, string) {
	t.Helper()
	return runBinary(t, "-data", dir, "-realm", "europe", "-etcd", etcd, "-import")
}

// wantLines fails unless log has each of lines (substrings of its lines).
func wantLines(t *testing.T, log string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(log, l) {
			t.Errorf("the log has no %q:\n%s", l, log)
		}
	}
}

// An import copies every record; run again, it writes nothing and changes nothing.
func TestImportCopiesAStandaloneIntoEtcdOnce(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	dir := standaloneStore(t)
	code, log := importInto(t, dir, etcd)
	if code != 0 {
		t.Fatalf("import: exit %d:\n%s", code, log)
	}
	wantLines(t, log,
		"kind=knights written=4 unchanged=0 kept=0 refused=0",
		"kind=names written=4 unchanged=0",
		"kind=keys written=5 unchanged=0",
		"kind=fame written=1", "kind=tombstones written=1", "kind=letters written=1", "kind=bans written=2",
		"kind=silences written=1", "import: read back", "import: every record is in etcd")
	shared := sharedRecordsOf(t, etcd)
	kay, err := shared.LoadAdventurer("K-KAY")
	if err != nil || kay.Depth != 2 || kay.X != 5 || kay.Experience != 120 {
		t.Fatalf("Kay in etcd: %+v, %v", kay, err)
	}
	if k, err := shared.KeyOf("SHA256:kay2"); err != nil || k.Knight != "K-KAY" || k.Comment != "laptop" {
		t.Fatalf("Kay's second key in etcd: %+v, %v", k, err)
	}
	if banned, err := shared.IsBanned("SHA256:troll", time.Now()); err != nil || !banned {
		t.Fatalf("the troll's ban in etcd: %v, %v", banned, err)
	}
	if sl, err := shared.Silences(time.Now()); err != nil || len(sl) != 1 || sl[0].Knight != "K-GAWAIN" || sl[0].Reason != "shouting" {
		t.Fatalf("Gawain's silence in etcd: %+v, %v", sl, err)
	}
	rev := etcdRevision(t, etcd)
	code, log = importInto(t, dir, etcd)
	if code != 0 {
		t.Fatalf("second import: exit %d:\n%s", code, log)
	}
	wantLines(t, log, "kind=knights written=0 unchanged=4", "kind=keys written=0 unchanged=5",
		"kind=letters written=0 unchanged=1", "kind=bans written=0 unchanged=2",
		"kind=silences written=0 unchanged=1")
	if got := etcdRevision(t, etcd); got != rev {
		t.Errorf("the second import changed etcd: revision %d, then %d", rev, got)
	}
}

// A knight a realm claims and has written since the import keeps etcd's sheet; a name
// or a key another knight has in etcd is refused with a line, and the exit is 1.
func TestImportKeepsWhatEtcdHasAndRefusesConflicts(t *testing.T) {
	etcd := etcdtest.Start(t)
	dir := standaloneStore(t)
	if code, log := importInto(t, dir, etcd); code != 0 {
		t.Fatalf("import: exit %d:\n%s", code, log)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	r, err := realm.Open(ctx, cli, realm.Config{Name: "sydney", TTL: 5 * time.Second, OnRelease: func(realm.Request) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.Claim(ctx, "K-KAY")
	if err != nil {
		t.Fatal(err)
	}
	played := world.Adventurer{ID: "K-KAY", Name: "Kay", Depth: 3, Experience: 400}
	sheet, err := records.SheetWrite(&played, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Checkpoint(ctx, sheet.Value); err != nil {
		t.Fatal(err)
	}
	shared := records.New(cli, records.Options{})
	if ok, err := shared.ClaimName("Percival", "K-OTHER"); !ok || err != nil {
		t.Fatalf("claim Percival for another knight: %v, %v", ok, err)
	}
	addToStandalone(t, dir, world.Adventurer{ID: "K-PERCIVAL", Name: "Percival"}, "SHA256:percival")
	addToStandalone(t, dir, world.Adventurer{ID: "K-BORS", Name: "Bors"}, "SHA256:gawain")

	code, log := importInto(t, dir, etcd)
	if code != 1 {
		t.Fatalf("import with conflicts: exit %d, want 1:\n%s", code, log)
	}
	wantLines(t, log,
		`msg="import: refused: the name is another knight's in etcd" knight=K-PERCIVAL name=Percival other=K-OTHER`,
		`msg="import: refused: the key plays another knight in etcd" key=SHA256:gawain knight=K-BORS other=K-GAWAIN`,
		`msg="import: etcd's sheet stands" knight=K-KAY name=Kay holder=sydney`,
		"kind=knights written=1 unchanged=3 kept=1 refused=1",
		"kind=keys written=0 unchanged=4 kept=0 refused=2",
		"import: not all is in etcd")
	kay, err := shared.LoadAdventurer("K-KAY")
	if err != nil || kay.Depth != 3 || kay.Experience != 400 {
		t.Fatalf("Kay in etcd after the import: %+v, %v; want sydney's sheet", kay, err)
	}
	if _, err := shared.LoadAdventurer("K-PERCIVAL"); err == nil {
		t.Error("the refused Percival was imported")
	}
}

// addToStandalone adds knight a with key fp to the store in dir.
func addToStandalone(t *testing.T, dir string, a world.Adventurer, fp string) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Save(store.Batch{Adventurers: []world.Adventurer{a}, Keys: []knights.Key{{Fingerprint: fp, Knight: a.ID}}})
	if err != nil {
		t.Fatal(err)
	}
}

// The import refuses a store a running server holds, saying to stop it.
func TestImportRefusesARunningServersStore(t *testing.T) {
	t.Parallel()
	dir := standaloneStore(t)
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	code, log := importInto(t, dir, "127.0.0.1:1")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, log)
	}
	wantLines(t, log, "stop the server first")
}

// etcdRevision is etcd's revision now.
func etcdRevision(t *testing.T, etcd string) int64 {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), "/orthanc/")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// -data may name a copy of a server alone's database, as backup writes it: the import
// reads the copy as it reads the folder's, so a server need not stop for its knights to
// be moved into etcd.
func TestImportReadsACopyOfTheDatabase(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	db, err := os.ReadFile(filepath.Join(standaloneStore(t), "orthanc.db"))
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "orthanc-2026-06-01.db")
	if err := os.WriteFile(copied, db, 0o600); err != nil {
		t.Fatal(err)
	}
	code, log := importInto(t, copied, etcd)
	if code != 0 {
		t.Fatalf("import of a copy: exit %d:\n%s", code, log)
	}
	wantLines(t, log, "kind=knights written=4", "kind=keys written=5", "kind=letters written=1", "import: every record is in etcd")
	if kay, err := sharedRecordsOf(t, etcd).LoadAdventurer("K-KAY"); err != nil || kay.Depth != 2 || kay.X != 5 {
		t.Fatalf("Kay in etcd: %+v, %v", kay, err)
	}
}

// An export cut short (a connection lost while it streamed) is refused whole, saying
// to take it again; nothing is written to etcd.
func TestImportRefusesAnExportCutShort(t *testing.T) {
	etcd := etcdtest.Start(t)
	path := filepath.Join(t.TempDir(), "world.export")
	cut := `{"orthanc":"export","v":1,"revision":7,"taken":"2026-06-01T00:00:00Z"}` + "\n" +
		`{"key":"name/kay","value":{"v":1,"knight":"K-KAY","name":"Kay"}}` + "\n"
	if err := os.WriteFile(path, []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	rev := etcdRevision(t, etcd)
	code, log := importInto(t, path, etcd)
	if code != 1 {
		t.Fatalf("import of a cut export: exit %d, want 1:\n%s", code, log)
	}
	wantLines(t, log, `msg="import: read the export"`, "not a whole export of a realm world", "take the export again")
	if got := etcdRevision(t, etcd); got != rev {
		t.Errorf("the refused import wrote to etcd: revision %d, then %d", rev, got)
	}
}
