package knightstest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The Keeper suite pins what every knights.Keeper does alike, so that a server's
// commands behave the same on a server alone (store.Keeper), on a realm
// (records.Keeper) and in tests (memory.Keeper). It drives a keeper as a server
// does: each knight is claimed before its sheets are put and left after, and the
// knights a Give concerns are out of the world.
//
// Left out, because the keepers differ by design:
//   - A knight a Give leaves keyless: the store deletes its sheet (its name with it)
//     and its letters; etcd keeps its sheet, dead (entombed, if it was living), and
//     deletes the letters of an entombed one only. The suite reads only the knight's
//     keys, its tombstone, and the letters of one entombed.
//   - ClaimName: the store says yes to every name (the server's name book is the only
//     writer there); etcd and memory refuse another knight's name, and so Rename to it
//     is knights.ErrNameTaken. The suite claims only free names.
//   - Claim and Leave are no-ops on the store, while etcd drops the Put of a knight not
//     claimed (with a log line) and checks a knight in on its last Leave, at once; the
//     store's saver writes in its own time, so the suite waits for what Leave writes.
//   - A bound key released while its knight's first sheet waits to be written: the
//     store's saver keeps it for that write, etcd lets it go (a server leaves before it
//     releases). The suite releases a key with no sheet waiting, or once it is written.
//   - Give of a knight kept already in g.Knight (the store refuses it, etcd writes it
//     anew), of a key to a knight never kept without g.Knight (ErrNotFound in the
//     store, written in etcd), with a Remove of another knight's key (deleted by the
//     store, knights.ErrKeyMoved in etcd), or replacing a knight this server plays
//     (etcd refuses it; the store trusts the caller). Nor the Given of a refused Give.
//   - Rename of a knight a session plays: etcd leaves it to the world; the store
//     renames its kept sheet, which the world's next sheet replaces.
//   - KnightNames beyond a renamed knight's: the store lists the sheets' names (Ended
//     set), etcd the names claimed.
//   - A sheet's Prelude (never written): Knight hands it back while the store's saver
//     holds the sheet, or while a realm holds the knight; memory writes at once and
//     never keeps it.
//   - Err once a keeper stops (only a realm does); the suite asks a healthy one.

// RunKeeper runs the Keeper suite, each test in a subtest on a fresh keeper from open.
// The keeper's writes must go on by themselves, as a server's do (a saver's or a
// realm's Run goroutine started), for the suite waits for what Leave writes.
func RunKeeper(t *testing.T, open func(t *testing.T) knights.Keeper) {
	for _, tc := range keeperTests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

// keeperTests are the Keeper suite's tests, by name.
var keeperTests = []struct {
	name string
	run  func(t *testing.T, k knights.Keeper)
}{
	{"AHealthyKeeperHasNoErr", testAHealthyKeeperHasNoErr},
	{"ABoundKeyIsWrittenWithItsKnightsFirstSheet", testABoundKeyIsWrittenWithItsKnightsFirstSheet},
	{"ABoundKeyIsHeldUntilItsLastRelease", testABoundKeyIsHeldUntilItsLastRelease},
	{"TheNewestSheetIsTheKnights", testTheNewestSheetIsTheKnights},
	{"TheLastSessionToLeaveWritesTheKnight", testTheLastSessionToLeaveWritesTheKnight},
	{"ADeathIsBuried", testADeathIsBuried},
	{"ARetirementIsFamed", testARetirementIsFamed},
	{"MailIsWritten", testMailIsWritten},
	{"GiveANewKnightItsFirstKey", testGiveANewKnightItsFirstKey},
	{"GiveAKnightASecondKey", testGiveAKnightASecondKey},
	{"AKeyLeavesALivingKnightOnlyToReplaceIt", testAKeyLeavesALivingKnightOnlyToReplaceIt},
	{"AKeyLeavesAnEndedKnightFreely", testAKeyLeavesAnEndedKnightFreely},
	{"AKeyLeavesAKnightWithOtherKeys", testAKeyLeavesAKnightWithOtherKeys},
	{"KeysMoveTakesTheOldKeyAway", testKeysMoveTakesTheOldKeyAway},
	{"ARenameRenamesTheKeptSheet", testARenameRenamesTheKeptSheet},
	{"AKnightClaimsAFreeName", testAKnightClaimsAFreeName},
}

// suiteTime is when the suite's keys are added and knights entombed: in UTC, so a key
// read back from JSON equals the one given.
var suiteTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// soonFor is how long the suite waits for a write a keeper makes in its own time.
const soonFor = 10 * time.Second

// soon waits until ok holds, failing the test after soonFor: a keeper that writes
// behind (the store's saver) writes what Leave leaves in its own time.
func soon(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(soonFor); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", soonFor, what)
		}
	}
}

// claim claims knight id for a session, as a server does before the knight joins the
// world. No keeper of a fresh suite has another server to call the knight from.
func claim(t *testing.T, k knights.Keeper, id string) {
	t.Helper()
	if err := k.Claim(context.Background(), id, func(where string) { t.Errorf("knight %s called from %s", id, where) }); err != nil {
		t.Fatalf("claim %s: %v", id, err)
	}
}

// leave ends a session's game of knight id.
func leave(t *testing.T, k knights.Keeper, id string) {
	t.Helper()
	if err := k.Leave(context.Background(), id); err != nil {
		t.Fatalf("leave %s: %v", id, err)
	}
}

// flush writes what waits.
func flush(t *testing.T, k knights.Keeper) {
	t.Helper()
	if err := k.Flush(); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

// give gives g, which must be done as want says.
func give(t *testing.T, k knights.Keeper, g knights.Give, want knights.Given) {
	t.Helper()
	got, err := k.Give(context.Background(), g)
	if err != nil || got != want {
		t.Fatalf("give key %s to %s: %+v, %v; want %+v", g.Key.Fingerprint, g.Key.Knight, got, err, want)
	}
}

// keyOf is a knight's key, added n minutes after suiteTime (keys list by when added).
func keyOf(fp, knight string, n int) knights.Key {
	return knights.Key{Fingerprint: fp, Knight: knight, Type: "ssh-ed25519", Added: suiteTime.Add(time.Duration(n) * time.Minute)}
}

// newKnight keeps a as a new knight with key, as a claimed guest is kept (Give).
func newKnight(t *testing.T, k knights.Keeper, a world.Adventurer, key knights.Key) {
	t.Helper()
	give(t, k, knights.Give{Key: key, Knight: &a}, knights.Given{})
}

// wantKeys fails the test unless knight's keys are fps, the first added first.
func wantKeys(t *testing.T, k knights.Keeper, knight string, fps ...string) {
	t.Helper()
	keys, err := k.KeysOf(knight)
	if err != nil {
		t.Fatalf("keys of %s: %v", knight, err)
	}
	var got []string
	for _, key := range keys {
		got = append(got, key.Fingerprint)
	}
	if !slices.Equal(got, fps) {
		t.Fatalf("keys of %s: %v, want %v", knight, got, fps)
	}
}

// wantKnightOf fails the test unless the key fp plays knight.
func wantKnightOf(t *testing.T, k knights.Keeper, fp, knight string) {
	t.Helper()
	if key, err := k.KeyOf(fp); err != nil || key.Knight != knight {
		t.Fatalf("key %s plays %q, %v; want %s", fp, key.Knight, err, knight)
	}
}

// wantNoKey fails the test unless the key fp plays no knight.
func wantNoKey(t *testing.T, k knights.Keeper, fp string) {
	t.Helper()
	if key, err := k.KeyOf(fp); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("key %s: %+v, %v; want ErrNotFound", fp, key, err)
	}
}

// keptLevel is a soon condition: knight id's kept sheet is at level.
func keptLevel(k knights.Keeper, id string, level int) func() bool {
	return func() bool {
		a, err := k.LoadAdventurer(id)
		return err == nil && a.Level == level
	}
}

// wantKnight fails the test unless Knight(id) is at level.
func wantKnight(t *testing.T, k knights.Keeper, id string, level int) {
	t.Helper()
	if a, err := k.Knight(id); err != nil || a.ID != id || a.Level != level {
		t.Fatalf("knight %s: level %d, %v; want %d", id, a.Level, err, level)
	}
}

// A keeper that can take players in says so.
func testAHealthyKeeperHasNoErr(t *testing.T, k knights.Keeper) {
	if err := k.Err(); err != nil {
		t.Fatalf("Err of a healthy keeper: %v", err)
	}
}

// A new key bound by a session is its entry at once, so a second session of the key
// gets the same knight; it is written with its knight's first sheet, and stays once
// its session has let it go.
func testABoundKeyIsWrittenWithItsKnightsFirstSheet(t *testing.T, k knights.Keeper) {
	key := keyOf("SHA256:new", "K-KAY", 0)
	key.LastUsed, key.LastAddr = suiteTime, "203.0.113.9"
	wantNoKey(t, k, key.Fingerprint)
	release := k.Bind(key)
	if got, err := k.KeyOf(key.Fingerprint); err != nil || got != key {
		t.Fatalf("a bound key: %+v, %v; want %+v", got, err, key)
	}
	wantKeys(t, k, key.Knight) // not kept until its knight is
	claim(t, k, key.Knight)
	k.Put(world.Adventurer{ID: key.Knight, Name: "Kay", Level: 1})
	flush(t, k)
	release()
	if got, err := k.KeyOf(key.Fingerprint); err != nil || got != key {
		t.Fatalf("the key written with its knight: %+v, %v; want %+v", got, err, key)
	}
	wantKeys(t, k, key.Knight, key.Fingerprint)
	leave(t, k, key.Knight)
	wantKnightOf(t, k, key.Fingerprint, key.Knight)
}

// A key bound by two sessions is the first's, and held until both let it go; a release
// called twice counts once. A key let go before its knight had a sheet is forgotten.
func testABoundKeyIsHeldUntilItsLastRelease(t *testing.T, k knights.Keeper) {
	first, second := keyOf("SHA256:new", "K-1", 0), keyOf("SHA256:new", "K-2", 1)
	r1 := k.Bind(first)
	r2 := k.Bind(second)
	wantKnightOf(t, k, first.Fingerprint, first.Knight)
	r1()
	r1()
	wantKnightOf(t, k, first.Fingerprint, first.Knight)
	r2()
	wantNoKey(t, k, first.Fingerprint)
	for _, id := range []string{first.Knight, second.Knight} {
		if _, err := k.Knight(id); !errors.Is(err, knights.ErrNotFound) {
			t.Fatalf("knight %s of a key let go: %v; want ErrNotFound", id, err)
		}
	}
}

// Knight is the newest sheet put, written or not; the kept sheet is the last written,
// by Flush or when the knight leaves.
func testTheNewestSheetIsTheKnights(t *testing.T, k knights.Keeper) {
	const id = "K-KAY"
	if _, err := k.Knight(id); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("a knight never put: %v; want ErrNotFound", err)
	}
	claim(t, k, id)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 1})
	wantKnight(t, k, id, 1)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 2})
	wantKnight(t, k, id, 2)
	flush(t, k)
	if !keptLevel(k, id, 2)() {
		t.Fatal("the sheet flushed is not kept")
	}
	wantKnight(t, k, id, 2)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 3})
	wantKnight(t, k, id, 3)
	leave(t, k, id)
	soon(t, "the sheet put before leaving is not kept", keptLevel(k, id, 3))
	wantKnight(t, k, id, 3)
	if n, err := k.CountKnights(); err != nil || n != 1 {
		t.Fatalf("knights kept: %d, %v; want 1", n, err)
	}
}

// A knight two sessions play is written when the second leaves too: a sheet put
// between the two Leaves is kept.
func testTheLastSessionToLeaveWritesTheKnight(t *testing.T, k knights.Keeper) {
	const id = "K-KAY"
	claim(t, k, id)
	claim(t, k, id)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 1})
	leave(t, k, id)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 2})
	wantKnight(t, k, id, 2)
	leave(t, k, id)
	soon(t, "the sheet put by the last session is not kept", keptLevel(k, id, 2))
}

// A sheet put with its Death is written with its tombstone.
func testADeathIsBuried(t *testing.T, k knights.Keeper) {
	const id = "K-KAY"
	claim(t, k, id)
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 2})
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 2, Death: &world.Death{Killer: "a Wraith", Level: 2}})
	leave(t, k, id)
	var tombs []knights.Tombstone
	soon(t, "no tombstone of the knight put dead", func() bool {
		tombs, _ = k.Tombstones()
		return len(tombs) > 0
	})
	if len(tombs) != 1 || tombs[0].Adventurer.ID != id || tombs[0].Adventurer.Death == nil ||
		tombs[0].Adventurer.Death.Killer != "a Wraith" || tombs[0].Died.IsZero() {
		t.Fatalf("tombstones: %+v", tombs)
	}
	if a, err := k.LoadAdventurer(id); err != nil || a.Death == nil {
		t.Fatalf("the dead knight's sheet: %+v, %v", a, err)
	}
	if fame, err := k.Fame(); err != nil || len(fame) != 0 {
		t.Fatalf("a death in the hall of fame: %+v, %v", fame, err)
	}
}

// A sheet put with its Retirement is written with its entry in the hall of fame, its deeds
// with it (the hall shows them).
func testARetirementIsFamed(t *testing.T, k knights.Keeper) {
	const id = "K-KAY"
	claim(t, k, id)
	deeds := []world.Deed{{ID: world.DeedDragon, Turn: 7}, {ID: world.DeedRetired(5), Turn: 9}}
	k.Put(world.Adventurer{ID: id, Name: "Kay", Level: 5, Experience: 900, Deeds: deeds,
		Retirement: &world.Retirement{Level: 5, Experience: 900}})
	leave(t, k, id)
	var fame []knights.FameEntry
	soon(t, "no fame entry of the knight put retired", func() bool {
		fame, _ = k.Fame()
		return len(fame) > 0
	})
	if len(fame) != 1 || fame[0].Adventurer.ID != id || fame[0].Adventurer.Retirement == nil ||
		fame[0].Adventurer.Experience != 900 || fame[0].Retired.IsZero() || !slices.Equal(fame[0].Adventurer.Deeds, deeds) {
		t.Fatalf("fame: %+v", fame)
	}
	if tombs, err := k.Tombstones(); err != nil || len(tombs) != 0 {
		t.Fatalf("a retirement among the tombstones: %+v, %v", tombs, err)
	}
}

// A mailbox put is written by Flush; an empty one is none.
func testMailIsWritten(t *testing.T, k knights.Keeper) {
	ls := []world.Letter{{From: "Bors", To: "Kay", Text: "Meet me at the market.", Sent: suiteTime}}
	k.PutMail("K-KAY", ls)
	flush(t, k)
	mail, err := k.Mail()
	if err != nil || len(mail) != 1 || len(mail["K-KAY"]) != 1 || mail["K-KAY"][0].Text != ls[0].Text ||
		!mail["K-KAY"][0].Sent.Equal(suiteTime) {
		t.Fatalf("mail: %+v, %v", mail, err)
	}
	k.PutMail("K-KAY", nil)
	flush(t, k)
	if mail, err := k.Mail(); err != nil || len(mail) != 0 {
		t.Fatalf("mail after its letters went: %+v, %v", mail, err)
	}
}

// A key given with a new knight (a claimed guest) is that knight's first key, and the
// knight's sheet is kept.
func testGiveANewKnightItsFirstKey(t *testing.T, k knights.Keeper) {
	key := keyOf("SHA256:a", "K-KAY", 0)
	key.Comment = "claimed a guest"
	newKnight(t, k, world.Adventurer{ID: key.Knight, Name: "Kay", Level: 3}, key)
	if got, err := k.KeyOf(key.Fingerprint); err != nil || got != key {
		t.Fatalf("the key given: %+v, %v; want %+v", got, err, key)
	}
	wantKeys(t, k, key.Knight, key.Fingerprint)
	if a, err := k.LoadAdventurer(key.Knight); err != nil || a.Name != "Kay" || a.Level != 3 {
		t.Fatalf("the new knight's sheet: %+v, %v", a, err)
	}
	wantKnight(t, k, key.Knight, 3)
}

// A second key is linked to a knight beside its first; a key given the knight it plays
// already is knights.ErrSameKnight.
func testGiveAKnightASecondKey(t *testing.T, k knights.Keeper) {
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay"}, keyOf("SHA256:a", "K-KAY", 0))
	give(t, k, knights.Give{Key: keyOf("SHA256:b", "K-KAY", 1)}, knights.Given{})
	wantKeys(t, k, "K-KAY", "SHA256:a", "SHA256:b")
	for _, fp := range []string{"SHA256:a", "SHA256:b"} {
		if _, err := k.Give(context.Background(), knights.Give{Key: keyOf(fp, "K-KAY", 2)}); !errors.Is(err, knights.ErrSameKnight) {
			t.Fatalf("key %s given its own knight: %v; want ErrSameKnight", fp, err)
		}
	}
	wantKeys(t, k, "K-KAY", "SHA256:a", "SHA256:b")
}

// A key that is a living knight's only key leaves it only when told to replace it
// (knights.ErrHasKnight, nothing changed, otherwise); the knight is then entombed of
// g.Death at g.At, its letters gone, and the key plays the new knight.
func testAKeyLeavesALivingKnightOnlyToReplaceIt(t *testing.T, k knights.Keeper) {
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 4, Depth: 2, Experience: 300},
		keyOf("SHA256:a", "K-KAY", 0))
	k.PutMail("K-KAY", []world.Letter{{From: "Bors", To: "Kay", Text: "hi", Sent: suiteTime}})
	flush(t, k)
	bors := world.Adventurer{ID: "K-BORS", Name: "Bors", Level: 1}
	g := knights.Give{Key: keyOf("SHA256:a", bors.ID, 1), Knight: &bors}
	if _, err := k.Give(context.Background(), g); !errors.Is(err, knights.ErrHasKnight) {
		t.Fatalf("a living knight's only key given away: %v; want ErrHasKnight", err)
	}
	wantKnightOf(t, k, "SHA256:a", "K-KAY")
	if _, err := k.LoadAdventurer(bors.ID); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("the knight of a refused give was kept: %v", err)
	}
	g.Replace, g.Death, g.At = true, world.Death{Killer: "replaced by a claimed guest"}, suiteTime.Add(time.Hour)
	give(t, k, g, knights.Given{Left: "K-KAY", Gone: true, Entombed: true})
	wantKnightOf(t, k, "SHA256:a", bors.ID)
	wantKeys(t, k, "K-KAY")
	wantKnight(t, k, bors.ID, 1)
	wantEntombed(t, k, "K-KAY", g)
	if mail, err := k.Mail(); err != nil || len(mail["K-KAY"]) != 0 {
		t.Fatalf("the entombed knight's letters: %+v, %v", mail, err)
	}
}

// wantEntombed fails the test unless knight id's only tombstone is g's: died at g.At of
// g.Death, with the knight's own depth, level and experience.
func wantEntombed(t *testing.T, k knights.Keeper, id string, g knights.Give) {
	t.Helper()
	tombs, err := k.Tombstones()
	if err != nil || len(tombs) != 1 {
		t.Fatalf("tombstones: %+v, %v; want one", tombs, err)
	}
	tb := tombs[0]
	d := tb.Adventurer.Death
	if tb.Adventurer.ID != id || !tb.Died.Equal(g.At) || d == nil || d.Killer != g.Death.Killer ||
		d.Level != tb.Adventurer.Level || d.Depth != tb.Adventurer.Depth || d.Experience != tb.Adventurer.Experience {
		t.Fatalf("tombstone: %+v (death %+v)", tb, d)
	}
}

// A key that leaves a dead knight it was the only key of needs no replace: the knight
// has its tombstone already, and is not entombed again.
func testAKeyLeavesAnEndedKnightFreely(t *testing.T, k knights.Keeper) {
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 2}, keyOf("SHA256:a", "K-KAY", 0))
	claim(t, k, "K-KAY")
	k.Put(world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 2, Death: &world.Death{Killer: "a Wraith"}})
	leave(t, k, "K-KAY")
	bors := world.Adventurer{ID: "K-BORS", Name: "Bors"}
	give(t, k, knights.Give{Key: keyOf("SHA256:a", bors.ID, 1), Knight: &bors}, knights.Given{Left: "K-KAY", Gone: true})
	wantKnightOf(t, k, "SHA256:a", bors.ID)
	wantKeys(t, k, "K-KAY")
	if tombs, err := k.Tombstones(); err != nil || len(tombs) != 1 || tombs[0].Adventurer.Death.Killer != "a Wraith" {
		t.Fatalf("tombstones: %+v, %v; want the death's only", tombs, err)
	}
}

// A key that leaves a knight with other keys leaves it as it is, needing no replace.
func testAKeyLeavesAKnightWithOtherKeys(t *testing.T, k knights.Keeper) {
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 2}, keyOf("SHA256:a", "K-KAY", 0))
	give(t, k, knights.Give{Key: keyOf("SHA256:b", "K-KAY", 1)}, knights.Given{})
	bors := world.Adventurer{ID: "K-BORS", Name: "Bors"}
	give(t, k, knights.Give{Key: keyOf("SHA256:b", bors.ID, 2), Knight: &bors}, knights.Given{Left: "K-KAY"})
	wantKeys(t, k, "K-KAY", "SHA256:a")
	wantKeys(t, k, bors.ID, "SHA256:b")
	if a, err := k.LoadAdventurer("K-KAY"); err != nil || a.Ended() || a.Level != 2 {
		t.Fatalf("the knight left with a key: %+v, %v", a, err)
	}
	if tombs, err := k.Tombstones(); err != nil || len(tombs) != 0 {
		t.Fatalf("tombstones: %+v, %v; want none", tombs, err)
	}
}

// keys move OLD NEW: the new key takes the knight's place of the old, which is gone.
func testKeysMoveTakesTheOldKeyAway(t *testing.T, k knights.Keeper) {
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay"}, keyOf("SHA256:old", "K-KAY", 0))
	give(t, k, knights.Give{Key: keyOf("SHA256:new", "K-KAY", 1), Remove: "SHA256:old"}, knights.Given{})
	wantKeys(t, k, "K-KAY", "SHA256:new")
	wantNoKey(t, k, "SHA256:old")
}

// A knight no session plays is renamed in its kept sheet, and known by its new name
// only; one never kept has nothing to rename.
func testARenameRenamesTheKeptSheet(t *testing.T, k knights.Keeper) {
	ctx := context.Background()
	newKnight(t, k, world.Adventurer{ID: "K-KAY", Name: "Kay", Level: 3}, keyOf("SHA256:a", "K-KAY", 0))
	if ok, err := k.ClaimName("Kay", "K-KAY"); !ok || err != nil {
		t.Fatalf("claim the knight's name: %v, %v", ok, err)
	}
	if err := k.Rename(ctx, "K-KAY", "Kay", "Kaye"); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if a, err := k.LoadAdventurer("K-KAY"); err != nil || a.Name != "Kaye" || a.Level != 3 {
		t.Fatalf("the renamed sheet: %+v, %v", a, err)
	}
	if a, err := k.Knight("K-KAY"); err != nil || a.Name != "Kaye" {
		t.Fatalf("the renamed knight: %+v, %v", a, err)
	}
	names, err := k.KnightNames()
	if err != nil || !slices.Equal(knights.Named(names, "Kaye"), []string{"K-KAY"}) || len(knights.Named(names, "Kay")) != 0 {
		t.Fatalf("names after the rename: %+v, %v", names, err)
	}
	if err := k.Rename(ctx, "K-NEVER", "Gawain", "Gareth"); err != nil {
		t.Fatalf("rename a knight never kept: %v", err)
	}
	if _, err := k.LoadAdventurer("K-NEVER"); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("a knight never kept, renamed: %v; want ErrNotFound", err)
	}
}

// A free name is the knight's that claims it, again in any spelling of it; a name let
// go, or never claimed, is let go without error.
func testAKnightClaimsAFreeName(t *testing.T, k knights.Keeper) {
	for _, name := range []string{"Gawain", "GAWAIN"} {
		if ok, err := k.ClaimName(name, "K-GAWAIN"); !ok || err != nil {
			t.Fatalf("claim %q: %v, %v", name, ok, err)
		}
	}
	for _, name := range []string{"Gawain", "Gawain", "Lancelot"} {
		if err := k.ReleaseName(name, "K-GAWAIN"); err != nil {
			t.Fatalf("release %q: %v", name, err)
		}
	}
	if ok, err := k.ClaimName("Gawain", "K-OTHER"); !ok || err != nil {
		t.Fatalf("claim a name let go: %v, %v", ok, err)
	}
}
