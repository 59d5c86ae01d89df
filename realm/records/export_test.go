package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// exportWorld fills st with a realm world: n knights (Kay first, on realm B), Kay's two
// keys and a letter, Mordred dead, Lot retired, a ban in force and one lapsed, a silence,
// and a rename of Gawain made while it played elsewhere.
func exportWorld(t *testing.T, st *Store, n int, now time.Time) {
	t.Helper()
	for i := range n {
		a := world.Adventurer{ID: fmt.Sprint("K-", i), Name: fmt.Sprint("Knight", i), Depth: 1 + i%3, X: i}
		realmName := "A"
		switch i {
		case 0:
			a.Name, realmName = "Kay", "B"
		case 1:
			a.Name = "Gawain"
		}
		if _, err := st.ImportSheet(&a, realmName); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ImportName(a.Name, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	mordred := world.Adventurer{ID: "K-MORDRED", Name: "Mordred", Death: &world.Death{}}
	lot := world.Adventurer{ID: "K-LOT", Name: "Lot", Experience: 9000}
	for _, put := range []func() (Imported, error){
		func() (Imported, error) {
			return st.ImportKey(knights.Key{Fingerprint: "SHA256:kay1", Knight: "K-0", Added: now})
		},
		func() (Imported, error) {
			return st.ImportKey(knights.Key{Fingerprint: "SHA256:kay2", Knight: "K-0", Added: now, Comment: "laptop"})
		},
		func() (Imported, error) {
			return st.ImportMail("K-0", []world.Letter{{From: "Gawain", To: "Kay", Text: "at <the> stairs & soon", Sent: now}})
		},
		func() (Imported, error) { return st.ImportTombstone(knights.Tombstone{Died: now, Adventurer: mordred}) },
		func() (Imported, error) { return st.ImportFame(knights.FameEntry{Retired: now, Adventurer: lot}) },
		func() (Imported, error) { return st.ImportBan(knights.Ban{Fingerprint: "SHA256:troll", At: now}) },
		func() (Imported, error) {
			return st.ImportBan(knights.Ban{Fingerprint: "SHA256:gone", At: now.Add(-time.Hour), Until: now.Add(-time.Minute)})
		},
		func() (Imported, error) {
			return st.ImportSilence(knights.Silence{Knight: "K-1", Name: "Gawain", Reason: "shouting", At: now, Until: now.Add(time.Hour)})
		},
	} {
		if _, err := put(); err != nil {
			t.Fatal(err)
		}
	}
	k := &Keeper{Store: st}
	if err := k.putRename("K-1", "Gawain", "Gawaine"); err != nil {
		t.Fatal(err)
	}
}

// An export writes every record at one revision (a knight written while it runs is
// not in it), more than a page of each kind, and reads back whole: each sheet with the
// realm that wrote it, a pending rename applied, a lapsed ban left out.
func TestAnExportReadsBackWhole(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	now := time.Now().UTC().Truncate(time.Second)
	const n = exportPage*2 + 50
	exportWorld(t, st, n, now)

	late := &lateWriter{st: st}
	tally, err := st.Export(t.Context(), late, now)
	if err != nil {
		t.Fatal(err)
	}
	if !late.wrote {
		t.Fatal("the export wrote nothing before its end")
	}
	want := knights.Tally{Revision: tally.Revision, Knights: n, Names: n, Keys: 2, Mailboxes: 1, Letters: 1, Fame: 1, Tombstones: 1, Bans: 1, Silences: 1, Renames: 1}
	if tally != want {
		t.Errorf("the export's tally %+v, want %+v", tally, want)
	}
	x, err := ReadExport(bytes.NewReader(late.buf.Bytes()), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Knights) != n || x.Revision != tally.Revision || !x.Taken.Equal(now) {
		t.Fatalf("read back %d knights at revision %d, taken %v; want %d at %d, %v", len(x.Knights), x.Revision, x.Taken, n, tally.Revision, now)
	}
	byID := map[string]ExportedKnight{}
	for _, k := range x.Knights {
		byID[k.Adventurer.ID] = k
	}
	if k := byID["K-0"]; k.Adventurer.Name != "Kay" || k.Realm != "B" || k.Adventurer.Depth != 1 {
		t.Errorf("Kay read back: %+v", k)
	}
	if k := byID["K-1"]; k.Adventurer.Name != "Gawaine" || k.Realm != "A" {
		t.Errorf("Gawain read back: %+v; want renamed Gawaine, of realm A", k)
	}
	if k := byID[fmt.Sprint("K-", n-1)]; k.Adventurer.X != n-1 {
		t.Errorf("the last knight read back: %+v", k)
	}
	if _, ok := byID["K-LATE"]; ok {
		t.Error("a knight written after the export began is in it")
	}
	if len(x.Keys) != 2 || x.Keys[1].Comment != "laptop" {
		t.Errorf("keys: %+v", x.Keys)
	}
	if ls := x.Mail["K-0"]; len(ls) != 1 || ls[0].Text != "at <the> stairs & soon" {
		t.Errorf("Kay's letters: %+v", ls)
	}
	if len(x.Fame) != 1 || x.Fame[0].Adventurer.Experience != 9000 || len(x.Tombstones) != 1 || x.Tombstones[0].Adventurer.Name != "Mordred" {
		t.Errorf("fame %+v, tombstones %+v", x.Fame, x.Tombstones)
	}
	if len(x.Bans) != 1 || x.Bans[0].Fingerprint != "SHA256:troll" || len(x.Silences) != 1 || x.Silences[0].Reason != "shouting" {
		t.Errorf("bans %+v, silences %+v", x.Bans, x.Silences)
	}

	counted, err := st.Tally(t.Context(), now)
	if err != nil {
		t.Fatal(err)
	}
	want.Knights, want.Revision = n+1, counted.Revision // the late knight, whose name was not claimed
	if counted != want {
		t.Errorf("Tally %+v, want %+v", counted, want)
	}
}

// lateWriter keeps what an export writes, and writes a knight into etcd at its first
// write, while the export reads.
type lateWriter struct {
	st    *Store
	buf   bytes.Buffer
	wrote bool
}

func (w *lateWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.wrote = true
		if _, err := w.st.ImportSheet(&world.Adventurer{ID: "K-LATE", Name: "Late"}, "A"); err != nil {
			return 0, err
		}
	}
	return w.buf.Write(p)
}

// A file cut short, not an export, of a later version, or with a record of a kind
// this program does not know is refused, naming why.
func TestAnExportCutShortIsRefused(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	now := time.Now().UTC()
	exportWorld(t, st, 3, now)
	var buf bytes.Buffer
	if _, err := st.Export(t.Context(), &buf, now); err != nil {
		t.Fatal(err)
	}
	whole := buf.String()
	lines := strings.SplitAfter(strings.TrimSuffix(whole, "\n"), "\n")
	for _, tc := range []struct {
		what, file string
		want       error
	}{
		{"without its end", strings.Join(lines[:len(lines)-1], ""), ErrNotExport},
		{"cut in a line", whole[:len(whole)/2], ErrNotExport},
		{"a record short", strings.Join(append(lines[:2:2], lines[3:]...), ""), ErrNotExport},
		{"a bbolt file", "\x00\x00\x00\x00\xed\xda\x0c\xed", ErrNotExport},
		{"a later version", strings.Replace(whole, `"v":1,"revision"`, `"v":2,"revision"`, 1), knights.ErrUnknownVersion},
	} {
		if _, err := ReadExport(strings.NewReader(tc.file), now); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, err, tc.want)
		}
	}
	odd, _ := json.Marshal(exportLine{Key: "dragon/K-0", Value: json.RawMessage(`{"v":1}`)})
	file := lines[0] + string(odd) + "\n" + `{"end":true,"records":1}` + "\n"
	if _, err := ReadExport(strings.NewReader(file), now); err == nil || !strings.Contains(err.Error(), `unknown kind, "dragon/K-0"`) {
		t.Errorf("a record of an unknown kind: %v", err)
	}
	if !IsExport([]byte(whole)) || IsExport([]byte("\x00\x00")) {
		t.Error("IsExport tells an export from a database wrongly")
	}
}
