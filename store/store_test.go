package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// openTemp opens a fresh store in a temporary folder and closes it at the end
// of the test.
func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "orthanc.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// fullAdventurer returns a record with every field set, including two maps.
func fullAdventurer(fp string, turn uint64) world.Adventurer {
	return world.Adventurer{
		ID: fp, Name: "Sir " + fp[len(fp)-4:],
		Str: 17, Int: 9, Con: 14, Dex: 11,
		Experience: 12345, TreasureExperience: 678, Level: 3,
		Hits: 21, MaxHits: 30, SpellUnits: 4,
		Depth: 2, X: 17, Y: 5,
		Maps: []world.LevelMap{
			{Depth: 1, Seed: 0xdeadbeefcafef00d, W: 20, H: 20, Seen: bitset(400, 0, 1, 2, 63, 64, 399)},
			{Depth: 2, Seed: 42, W: 9, H: 3, Seen: bitset(27, 26)},
		},
		Turn: turn,
	}
}

// bitset returns n bits packed in bytes with the given bits set.
func bitset(n int, set ...int) []byte {
	b := make([]byte, (n+7)/8)
	for _, i := range set {
		b[i/8] |= 1 << (i % 8)
	}
	return b
}

// sameAdventurer compares records by their JSON form, in which a nil and an
// empty Maps slice are the same.
func sameAdventurer(t *testing.T, got, want world.Adventurer) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("adventurer differs:\n got %s\nwant %s", g, w)
	}
}

// rawUpdate opens the file with bbolt directly (the store must be closed) and
// runs fn in a write transaction.
func rawUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCreatesLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "deep", "orthanc.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Path() != path {
		t.Errorf("Path = %s, want %s", st.Path(), path)
	}
	if err := st.Check(); err != nil {
		t.Errorf("Check on a new store: %v", err)
	}
	if n, err := st.CountKnights(); err != nil || n != 0 {
		t.Errorf("CountKnights = %d, %v", n, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		for _, name := range []string{"knights", "keys", "levels", "fame", "tombstones", "bans", "meta"} {
			if tx.Bucket([]byte(name)) == nil {
				t.Errorf("bucket %s missing", name)
			}
		}
		if v := string(tx.Bucket([]byte("meta")).Get([]byte("version"))); v != "3" {
			t.Errorf("meta/version = %q, want \"3\"", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAdventurerRoundTrip(t *testing.T) {
	st := openTemp(t)
	a := fullAdventurer("SHA256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 7)
	b := fullAdventurer("SHA256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 8)
	b.Maps = nil
	if err := st.SaveAdventurers([]world.Adventurer{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err := st.LoadAdventurer(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameAdventurer(t, got, a)
	if got.Maps[0].Seen[49] != a.Maps[0].Seen[49] || len(got.Maps[0].Seen) != 50 {
		t.Errorf("bitset did not survive: %x", got.Maps[0].Seen)
	}
	if n, err := st.CountKnights(); err != nil || n != 2 {
		t.Errorf("CountKnights = %d, %v; want 2", n, err)
	}

	a.Hits, a.Turn = 1, 9
	if err := st.SaveAdventurers([]world.Adventurer{a}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.LoadAdventurer(a.ID); got.Hits != 1 || got.Turn != 9 {
		t.Errorf("replace: got hits %d turn %d", got.Hits, got.Turn)
	}

	if err := st.DeleteAdventurer(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LoadAdventurer(b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}
	if err := st.DeleteAdventurer(b.ID); err != nil {
		t.Errorf("deleting again: %v", err)
	}
	if n, _ := st.CountKnights(); n != 1 {
		t.Errorf("CountKnights = %d, want 1", n)
	}

	// Survives closing and reopening.
	path := st.Path()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	got, err = st2.LoadAdventurer(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameAdventurer(t, got, a)
}

func TestLoadNotFound(t *testing.T) {
	st := openTemp(t)
	for _, fp := range []string{"SHA256:nobody", ""} {
		_, err := st.LoadAdventurer(fp)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("LoadAdventurer(%q) = %v, want ErrNotFound", fp, err)
		}
	}
}

func TestSaveRejectsMissingFingerprint(t *testing.T) {
	st := openTemp(t)
	good := fullAdventurer("SHA256:goodgoodgoodgoodgoodgoodgoodgoodgoodgoodgoo", 1)
	bad := good
	bad.ID = ""
	if err := st.SaveAdventurers([]world.Adventurer{good, bad}); err == nil {
		t.Fatal("record without fingerprint was saved")
	}
	if n, _ := st.CountKnights(); n != 0 {
		t.Errorf("%d records written from a refused batch", n)
	}
}

func TestOpenLockedFailsFast(t *testing.T) {
	st := openTemp(t)
	start := time.Now()
	st2, err := Open(st.Path(), Options{})
	elapsed := time.Since(start)
	if err == nil {
		st2.Close()
		t.Fatal("second Open of a held file succeeded")
	}
	if !errors.Is(err, ErrLocked) {
		t.Errorf("error %v does not wrap ErrLocked", err)
	}
	if want := "database " + st.Path() + " is in use by another process"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if elapsed >= 2*time.Second {
		t.Errorf("second Open took %s", elapsed)
	}
	t.Logf("locked Open failed after %s: %v", elapsed, err)

	// A short timeout is honoured too.
	start = time.Now()
	if _, err := Open(st.Path(), Options{Timeout: 100 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Errorf("short timeout: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 900*time.Millisecond {
		t.Errorf("Open with 100ms timeout took %s", elapsed)
	}
}

// A file of a schema newer than this program knows is refused, left as it was, with no
// migration's copy beside it.
func TestUnknownSchemaVersionRefused(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	st.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("version"), []byte("4"))
	})
	before := readFile(t, path)

	_, err := Open(path, Options{})
	if !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("Open of schema 4: %v, want ErrUnknownVersion", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("refused file was modified")
	}
	if copies, _ := filepath.Glob(path + ".schema*"); len(copies) > 0 {
		t.Errorf("a copy was written of a refused file: %v", copies)
	}
	// The refused Open released the file.
	rawUpdate(t, path, func(tx *bolt.Tx) error { return nil })
}

func TestMissingSchemaVersionWithDataRefused(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	if err := st.SaveAdventurers([]world.Adventurer{fullAdventurer("SHA256:xxxxyyyy", 1)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Delete([]byte("version")) })
	if _, err := Open(path, Options{}); !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("Open: %v, want ErrUnknownVersion", err)
	}
}

func TestUnknownValueVersionRefused(t *testing.T) {
	st := openTemp(t)
	path := st.Path()
	st.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		b := open(tx, bucketKnights)
		if err := b.put([]byte("SHA256:future"), []byte(`{"v":2,"adventurer":{"fingerprint":"SHA256:future","name":"Z"}}`)); err != nil {
			return err
		}
		if err := b.put([]byte("SHA256:noversion"), []byte(`{"adventurer":{"name":"N"}}`)); err != nil {
			return err
		}
		// Same version with fields this program does not know: still reads.
		return b.put([]byte("SHA256:extra"), []byte(`{"v":1,"written_by":"v1.1","adventurer":{"fingerprint":"SHA256:extra","name":"E","str":5,"horse":"yes"}}`))
	})
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	for _, fp := range []string{"SHA256:future", "SHA256:noversion"} {
		if _, err := st.LoadAdventurer(fp); !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("LoadAdventurer(%s) = %v, want ErrUnknownVersion", fp, err)
		}
	}
	a, err := st.LoadAdventurer("SHA256:extra")
	if err != nil {
		t.Fatalf("value with added fields: %v", err)
	}
	if a.Name != "E" || a.Str != 5 {
		t.Errorf("value with added fields read as %+v", a)
	}
	err = st.Check()
	if !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Check = %v, want it to report the unknown value version", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGarbageFileRefused(t *testing.T) {
	pattern := []byte("this is not a bbolt database, it is a scroll of gibberish. ")
	for name, content := range map[string][]byte{
		"text":     []byte("hello\n"),
		"one page": bytes.Repeat(pattern, 4096/len(pattern)+1)[:4096],
		"odd size": bytes.Repeat(pattern, 100)[:5000],
		"64KiB":    bytes.Repeat(pattern, 65536/len(pattern)+1)[:65536],
		"zeros":    make([]byte, 32768),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "orthanc.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := Open(path, Options{})
			if err == nil {
				st.Close()
				t.Fatal("garbage file opened")
			}
			if !errors.Is(err, ErrNotDatabase) {
				t.Errorf("error %v does not wrap ErrNotDatabase", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if !bytes.Equal(readFile(t, path), content) {
				t.Error("garbage file was modified")
			}
		})
	}
}

func TestBackup(t *testing.T) {
	st := openTemp(t)
	recs := []world.Adventurer{
		fullAdventurer("SHA256:backup1backup1backup1backup1backup1backup1", 1),
		fullAdventurer("SHA256:backup2backup2backup2backup2backup2backup2", 2),
	}
	if err := st.SaveAdventurers(recs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := st.Backup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n == 0 {
		t.Errorf("Backup reported %d bytes, wrote %d", n, buf.Len())
	}
	bpath := filepath.Join(t.TempDir(), "backup.db")
	if err := os.WriteFile(bpath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// Plain bbolt opens it and its check passes.
	db, err := bolt.Open(bpath, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check of backup: %v", err)
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	// And it is a store with the records.
	bst, err := Open(bpath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bst.Close()
	if err := bst.Check(); err != nil {
		t.Errorf("Check of backup: %v", err)
	}
	for _, r := range recs {
		got, err := bst.LoadAdventurer(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameAdventurer(t, got, r)
	}
}

func TestClosedStoreErrors(t *testing.T) {
	st := openTemp(t)
	st.Close()
	if _, err := st.LoadAdventurer("SHA256:x"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Load on closed store: %v", err)
	}
	if err := st.SaveAdventurers([]world.Adventurer{fullAdventurer("SHA256:xxxx", 1)}); err == nil {
		t.Error("Save on closed store succeeded")
	}
	if _, err := st.CountKnights(); err == nil {
		t.Error("Count on closed store succeeded")
	}
	if err := st.Check(); err == nil {
		t.Error("Check on closed store succeeded")
	}
}

// The boards' reading of a sheet (Living, without its maps) refuses what a whole sheet's
// reading does, should a value go bad while the store is open (Open checks them all): a value with no adventurer, another version, another knight's id.
func TestLivingRefusesWhatLoadRefuses(t *testing.T) {
	for _, c := range []struct{ fp, value string }{
		{"K-null", `{"v":1,"adventurer":null}`},
		{"K-future", `{"v":2,"adventurer":{"fingerprint":"K-future","name":"Z"}}`},
		{"K-other", `{"v":1,"adventurer":{"fingerprint":"K-else","name":"O"}}`},
	} {
		st := openTemp(t) // Open refuses such a file; here it is written while open
		if err := st.db.Update(func(tx *bolt.Tx) error { return open(tx, bucketKnights).put([]byte(c.fp), []byte(c.value)) }); err != nil {
			t.Fatal(err)
		}
		if _, err := st.LoadAdventurer(c.fp); err == nil {
			t.Errorf("%s: LoadAdventurer read %s", c.fp, c.value)
		}
		if got, err := st.Living(); err == nil {
			t.Errorf("%s: Living read %s as %+v", c.fp, c.value, got)
		}
	}
}

// A checkpoint stores each knight as it always has: the sealed bytes of json.Marshal's
// value, HTML escaped and without a newline, whatever the batch's order and sizes (the
// encoder's buffer is used again from record to record, a long record before a short).
func TestASavedKnightIsStoredAsItAlwaysWas(t *testing.T) {
	st := openTemp(t)
	long := fullAdventurer("SHA256:llllllllllllllllllllllllllllllllllllllllllll", 3)
	long.Name = `<Sir "Long" & Co>` // escaped as Marshal escapes it
	short := fullAdventurer("SHA256:ssssssssssssssssssssssssssssssssssssssssssss", 4)
	short.Maps = nil
	batch := []world.Adventurer{long, short}
	if err := st.SaveAdventurers(batch); err != nil {
		t.Fatal(err)
	}
	err := st.db.View(func(tx *bolt.Tx) error {
		for i := range batch {
			want, err := json.Marshal(adventurerValue{V: ValueVersion, Adventurer: &batch[i]})
			if err != nil {
				return err
			}
			if !bytes.Contains(want, []byte(`\u003c`)) && i == 0 {
				t.Errorf("the long knight's name is not escaped: %s", want)
			}
			k := []byte(batch[i].ID)
			if got := tx.Bucket(bucketKnights).Get(k); !bytes.Equal(got, seal(bucketKnights, k, want)) {
				t.Errorf("%s is stored as\n%q\nwant\n%q", batch[i].Name, got, seal(bucketKnights, k, want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Encoding a checkpoint's knights makes each one's JSON once, in the encoder's own
// buffer: once the buffer has grown, a knight's JSON allocates no copy of itself (the
// copy json.Marshal hands out was a quarter of a checkpoint's bytes allocated).
func TestEncodingACheckpointsKnightsMakesNoCopy(t *testing.T) {
	recs := benchAdventurers(4)
	enc := newValueEncoder()
	var size int
	for i := range recs {
		v, err := enc.adventurer(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		size = max(size, len(v))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range recs {
		if _, err := enc.adventurer(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got >= uint64(size) && !raceDetector { // its sync.Pool drops json's buffers at random
		t.Errorf("encoding %d knights of up to %d bytes allocated %d bytes: a copy of a value", len(recs), size, got)
	}
}

// A batch that holds only a tombstone, only a retired knight or only a key is written: it
// is not taken for an empty batch and skipped, which would lose a death, a retirement or
// a player's key.
func TestABatchOfOnePartAloneIsWritten(t *testing.T) {
	st := openTemp(t)
	dead := fullAdventurer("SHA256:dddddddddddddddddddddddddddddddddddddddddddd", 5)
	retired := fullAdventurer("SHA256:rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr", 6)
	at := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
	key := knights.Key{Fingerprint: "SHA256:kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", Knight: retired.ID, Added: at}
	for _, b := range []Batch{
		{Tombstones: []knights.Tombstone{{Died: at, Adventurer: dead}}},
		{Fame: []knights.FameEntry{{Retired: at, Adventurer: retired}}},
		{Keys: []knights.Key{key}},
	} {
		if err := st.Save(b); err != nil {
			t.Fatal(err)
		}
	}
	if tombs, err := st.Tombstones(); err != nil || len(tombs) != 1 || tombs[0].Adventurer.ID != dead.ID {
		t.Errorf("tombstones %v, %v; want the dead knight's", tombs, err)
	}
	if fame, err := st.Fame(); err != nil || len(fame) != 1 || fame[0].Adventurer.ID != retired.ID {
		t.Errorf("fame %v, %v; want the retired knight's", fame, err)
	}
	if k, err := st.KeyOf(key.Fingerprint); err != nil || k.Knight != retired.ID {
		t.Errorf("key %+v, %v; want the key written", k, err)
	}
}
