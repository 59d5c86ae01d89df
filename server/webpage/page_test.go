package webpage

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// fakeWorld has a knight and a guest here, each with a deed, and one knight on another
// realm; far fails when set.
type fakeWorld struct{ far error }

func (fakeWorld) Who(context.Context) ([]world.WhoEntry, error) {
	return []world.WhoEntry{{Name: "Here", Level: 3, Depth: 2, Deeds: []world.Deed{{ID: world.DeedDepth(1)}, {ID: "a-deed-of-a-newer-server"}}},
		{Name: "Guest Tom", Level: 1, Depth: 1, Guest: true, Deeds: []world.Deed{{ID: world.DeedDepth(1)}}}}, nil
}

func (w fakeWorld) FarWho(context.Context) ([]world.FarKnight, error) {
	return []world.FarKnight{{Realm: "east", Name: "Far", Level: 5}}, w.far
}

// fakeKnights are records in memory; flushed counts the flushes.
type fakeKnights struct {
	fame    []knights.FameEntry
	tombs   []knights.Tombstone
	flushed int
}

func (k *fakeKnights) Fame() ([]knights.FameEntry, error)       { return k.fame, nil }
func (k *fakeKnights) Tombstones() ([]knights.Tombstone, error) { return k.tombs, nil }
func (k *fakeKnights) Flush() error                             { k.flushed++; return nil }

// fakeReplays keeps records without chunks: each one asked for is gone.
type fakeReplays []store.Replay

func (r fakeReplays) Kept(keep func(store.Replay) bool) ([]store.Replay, error) {
	var out []store.Replay
	for _, x := range r {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out, nil
}

// Public is the record's own privacy, and its knight's now: a knight whose id starts
// "P-" keeps its replays private now.
func (fakeReplays) Public(_ context.Context, r store.Replay) bool {
	return !r.Private && !strings.HasPrefix(r.Knight, "P-")
}

func (fakeReplays) Chunks(store.Replay) ([]replay.Chunk, error) {
	return nil, fmt.Errorf("read: %w", store.ErrNotFound)
}

func testPage(t *testing.T, k Knights, r Replays) *Page {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return &Page{Name: "Orthanc", Realm: "west", Guests: true, Version: "v1", HostKey: hk,
		MOTD: func() string { return "hello" }, HostPort: func() (string, string) { return "example.org", "2222" },
		SSHCommand: func(flags ...string) string { return fmt.Sprint("ssh", flags, " -p 2222 example.org") },
		World:      fakeWorld{far: errors.New("etcd is away")}, Knights: k, Replays: r}
}

// tomb is a knight named an hour before it died.
func tomb(id, name, killer string, died time.Time) knights.Tombstone {
	return knights.Tombstone{Died: died, Adventurer: world.Adventurer{ID: id, Name: name, Created: died.Add(-time.Hour),
		Death: &world.Death{Killer: killer, Level: 1}}}
}

// The status lists who plays here and far (a far realm that cannot be asked still
// gives its last answer), the records after a flush, the dead newest first and at
// most deathsShown of them, never a knight its player retired for another, and links
// only the public replays of each record's own life: not one its knight kept private or
// keeps private now, nor one of the life before it of the same key (the same id), nor
// one of a knight named before lives were told apart.
func TestStatusGathersTheRecordsAndTheirPublicReplays(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	k := &fakeKnights{}
	for i := range deathsShown + 2 {
		k.tombs = append(k.tombs, tomb(fmt.Sprintf("K-%d", i), fmt.Sprintf("Dead%d", i), "a rat", at.Add(-time.Duration(i)*time.Hour)))
	}
	k.tombs[2].Adventurer.ID = "P-2"            // its knight keeps its replays private now
	k.tombs[3].Adventurer.Created = time.Time{} // named before lives were told apart
	k.tombs[4].Adventurer.Created = time.Time{}
	k.tombs = append(k.tombs, tomb("K-replaced", "Replaced", knights.ReplacedKiller, at.Add(time.Hour)))
	for i := range fameShown + 1 {
		k.fame = append(k.fame, knights.FameEntry{Retired: at, Adventurer: world.Adventurer{ID: fmt.Sprintf("F-%d", i), Name: "Elder", Created: at.Add(-time.Duration(i+1) * time.Hour)}})
	}
	k.fame[0].Adventurer.Deeds = []world.Deed{{ID: world.DeedDragon}}
	born := func(i int) time.Time { return k.tombs[i].Adventurer.Created }
	death := store.Replay{Knight: "K-0", Born: born(0), Kind: string(replay.KindDeath), At: at.Add(30 * time.Second)}
	r := fakeReplays{
		death,
		{Knight: "K-1", Born: born(1), Kind: string(replay.KindDeath), At: at.Add(-time.Hour), Private: true},
		{Knight: "P-2", Born: born(2), Kind: string(replay.KindDeath), At: at.Add(-2 * time.Hour)},
		{Knight: "K-3", Kind: string(replay.KindDeath), At: at.Add(-3*time.Hour + 30*time.Second)}, // its end's
		{Knight: "K-4", Kind: string(replay.KindDeath), At: at.Add(-4*time.Hour + 2*time.Minute)},  // too far from its end
		{Knight: "K-0", Born: born(0).Add(-time.Hour), Kind: string(replay.KindDeath), At: at},     // the key's knight before
		{Knight: "F-0", Born: k.fame[0].Adventurer.Created, Kind: string(replay.KindRetired), At: at},
		{Knight: "F-1", Born: k.fame[0].Adventurer.Created, Kind: string(replay.KindRetired), At: at}, // F-0's life, not F-1's
		{Knight: "F-2", Born: k.fame[2].Adventurer.Created, Kind: string(replay.KindDeath), At: at},   // its death is no retirement
	}
	st, err := testPage(t, k, r).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if k.flushed != 1 {
		t.Errorf("the knights were flushed %d times, want once", k.flushed)
	}
	if len(st.Online) != 3 || st.Online[0].Realm != "west" || !st.Online[2].Far || st.Online[2].Realm != "east" {
		t.Errorf("online: %+v", st.Online)
	}
	// A knight's deeds that this server knows; a guest's never.
	if d := st.Online[0].Deeds; len(d) != 1 || d[0] != (web.Deed{ID: world.DeedDepth(1), Title: "Into the labyrinth"}) || st.Online[1].Deeds != nil {
		t.Errorf("online deeds: %+v", st.Online)
	}
	if st.Port != 2222 || st.MOTD != "hello" || st.HostKeyType != ssh.KeyAlgoED25519 || st.KnownHosts == "" || st.Plain == "" {
		t.Errorf("status: %+v", st)
	}
	if len(st.Deaths) != deathsShown || st.Deaths[0].Name != "Dead0" || st.Deaths[1].Name != "Dead1" {
		t.Fatalf("deaths: %+v", st.Deaths)
	}
	if want, old := web.CastPath(CastID(death)), web.CastPath(CastID(r[3])); st.Deaths[0].Replay != want || st.Deaths[1].Replay != "" ||
		st.Deaths[2].Replay != "" || st.Deaths[3].Replay != old || st.Deaths[4].Replay != "" {
		t.Errorf("deaths' replays: %+v, want %q, none, none, %q, none", st.Deaths, want, old)
	}
	if len(st.Fame) != fameShown || st.Fame[0].Rank != 1 || st.Fame[0].Replay != web.CastPath(CastID(r[6])) || st.Fame[1].Replay != "" || st.Fame[2].Replay != "" ||
		len(st.Fame[0].Deeds) != 1 || st.Fame[0].Deeds[0].Title != "Dragonslayer" || st.Fame[1].Deeds != nil {
		t.Errorf("fame: %+v", st.Fame)
	}
	if _, err := testPage(t, k, r).Cast(context.Background(), CastID(death)); !errors.Is(err, web.ErrNoCast) {
		t.Errorf("the cast of a record gone: %v, want web.ErrNoCast", err)
	}
	for _, id := range []string{CastID(r[1]), CastID(r[2]), "nothing"} {
		if _, err := testPage(t, k, r).Cast(context.Background(), id); !errors.Is(err, web.ErrNoCast) {
			t.Errorf("the cast %s: %v, want web.ErrNoCast", id, err)
		}
	}
}

// With replays off the page links none and has no cast.
func TestNoReplaysNoLinks(t *testing.T) {
	at := time.Now()
	k := &fakeKnights{tombs: []knights.Tombstone{tomb("K-0", "Dead", "a rat", at)}}
	p := testPage(t, k, nil)
	st, err := p.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Deaths) != 1 || st.Deaths[0].Replay != "" {
		t.Errorf("deaths: %+v", st.Deaths)
	}
	r := store.Replay{Knight: "K-0", Kind: string(replay.KindDeath), At: at}
	if _, err := p.Cast(context.Background(), CastID(r)); !errors.Is(err, web.ErrNoCast) {
		t.Errorf("a cast with replays off: %v", err)
	}
}

// countedReplays counts the listings of the kept records, and may gain records.
type countedReplays struct {
	fakeReplays
	mu       sync.Mutex
	more     fakeReplays
	listings int
}

func (r *countedReplays) Kept(keep func(store.Replay) bool) ([]store.Replay, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listings++
	return append(r.fakeReplays, r.more...).Kept(keep)
}

func (r *countedReplays) listed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listings
}

// Regression: each request for a cast listed every kept record (reading all of them,
// after filing what the recorder and the writer held), a cast made before included, so
// requests for casts of no replay, or of one made already, cost the server a listing
// each. Now they are answered from a listing at most keptFresh old: a cast of no replay
// is none, however many are asked for; a record kept since is found once the listing is
// that old, or at once after the page's status is gathered (which lists anew), or after
// a record is removed (KeptChanged).
func TestCastsAskTheStoreOncePerListing(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	open := store.Replay{Knight: "K-open", Kind: string(replay.KindDeath), At: at}
	r := &countedReplays{fakeReplays: fakeReplays{open}}
	p := testPage(t, &fakeKnights{}, r)
	now := at
	p.kept.now = func() time.Time { return now }
	ctx := context.Background()
	for i := range 100 {
		if _, err := p.Cast(ctx, fmt.Sprintf("%016x", i)); !errors.Is(err, web.ErrNoCast) {
			t.Fatalf("the cast of no replay: %v", err)
		}
		if !p.CastShown(ctx, CastID(open)) {
			t.Fatal("a public record kept is not shown")
		}
	}
	if n := r.listed(); n != 1 {
		t.Fatalf("100 casts of no replay and 100 of one kept listed the records %d times, want once", n)
	}
	later := store.Replay{Knight: "K-later", Kind: string(replay.KindDeath), At: at.Add(time.Minute)}
	r.mu.Lock()
	r.more = fakeReplays{later}
	r.mu.Unlock()
	if p.CastShown(ctx, CastID(later)) {
		t.Fatal("a record kept after the listing was found without listing anew")
	}
	now = now.Add(keptFresh)
	if !p.CastShown(ctx, CastID(later)) || r.listed() != 2 {
		t.Fatalf("a record kept since, the listing %v old: not found, or listed %d times (want 2)", keptFresh, r.listed())
	}
	if _, err := p.Status(ctx); err != nil || r.listed() != 3 {
		t.Fatalf("the status (%v) listed the records %d times in all, want 3", err, r.listed())
	}
	p.KeptChanged()
	p.CastShown(ctx, CastID(open))
	if r.listed() != 4 {
		t.Fatalf("a record removed: the records listed %d times in all, want 4", r.listed())
	}
}
