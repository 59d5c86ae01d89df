package store

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// saveKnight stores a knight with its first key, as the saver does for a new key.
func saveKnight(t *testing.T, st *Store, id, fp string, added time.Time) world.Adventurer {
	t.Helper()
	a := fullAdventurer(id, 1)
	a.ID = id
	if err := st.Save(Batch{Adventurers: []world.Adventurer{a}, Keys: []knights.Key{{Fingerprint: fp, Knight: id, Type: "ssh-ed25519", Added: added}}}); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestKeysOfAKnight(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	saveKnight(t, st, "K-AAAA", "SHA256:laptop", at)
	saveKnight(t, st, "K-BBBB", "SHA256:desktop", at)

	// A second key for K-AAAA, from a key that has a knight of its own: refused while
	// that knight lives, unless asked to replace it; then that knight is a tombstone.
	link := knights.Give{Key: knights.Key{Fingerprint: "SHA256:desktop", Knight: "K-AAAA", Comment: "desktop", Added: at.Add(time.Hour)}, At: at, Death: world.Death{Killer: "its player's other knight"}}
	if _, err := st.Attach(link); !errors.Is(err, knights.ErrHasKnight) {
		t.Fatalf("Attach over a living knight = %v, want ErrHasKnight", err)
	}
	if k, _ := st.KeyOf("SHA256:desktop"); k.Knight != "K-BBBB" {
		t.Errorf("a refused Attach changed the key: %+v", k)
	}
	link.Replace = true
	done, err := st.Attach(link)
	if err != nil || done.Left != "K-BBBB" || !done.Entombed || !done.Gone {
		t.Fatalf("Attach with Replace = %+v, %v", done, err)
	}
	if _, err := st.LoadAdventurer("K-BBBB"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the replaced knight is still stored: %v", err)
	}
	tombs, _ := st.Tombstones()
	if len(tombs) != 1 || tombs[0].Adventurer.ID != "K-BBBB" || tombs[0].Adventurer.Death == nil {
		t.Errorf("tombstones = %+v, want the replaced knight's", tombs)
	}
	keys, err := st.KeysOf("K-AAAA")
	if err != nil || len(keys) != 2 || keys[0].Fingerprint != "SHA256:laptop" || keys[1].Comment != "desktop" {
		t.Fatalf("KeysOf = %+v, %v", keys, err)
	}
	if _, err := st.Attach(link); !errors.Is(err, knights.ErrSameKnight) {
		t.Errorf("Attach of a key to its own knight = %v, want ErrSameKnight", err)
	}
	if _, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:x", Knight: "K-NONE"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Attach to a knight not stored = %v, want ErrNotFound", err)
	}

	// Any key but the last may go.
	if err := st.RemoveKey("SHA256:laptop"); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveKey("SHA256:desktop"); !errors.Is(err, knights.ErrLastKey) {
		t.Errorf("RemoveKey of the last key = %v, want ErrLastKey", err)
	}
	if err := st.RemoveKey("SHA256:laptop"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveKey of a removed key = %v, want ErrNotFound", err)
	}

	// An admin's keys move: the new key takes the lost one's place.
	saveKnight(t, st, "K-CCCC", "SHA256:lost", at)
	if _, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:found", Knight: "K-CCCC"}, Remove: "SHA256:lost"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.KeyOf("SHA256:lost"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the lost key still leads somewhere: %v", err)
	}
	if k, err := st.KeyOf("SHA256:found"); err != nil || k.Knight != "K-CCCC" {
		t.Errorf("KeyOf(found) = %+v, %v", k, err)
	}

	// A claimed guest: the knight is stored with its key in one go.
	guest := fullAdventurer("K-DDDD", 1)
	if _, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:new", Knight: "K-DDDD"}, Knight: &guest}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:new2", Knight: "K-DDDD"}, Knight: &guest}); err == nil {
		t.Error("a new knight was stored over a stored one")
	}
	if err := st.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}

	if err := st.TouchKey("SHA256:found", at.Add(2*time.Hour), "203.0.113.7"); err != nil {
		t.Fatal(err)
	}
	if k, _ := st.KeyOf("SHA256:found"); !k.LastUsed.Equal(at.Add(2*time.Hour)) || k.LastAddr != "203.0.113.7" {
		t.Errorf("LastUsed = %v, LastAddr = %q", k.LastUsed, k.LastAddr)
	}
	// A touch with no address keeps the last one known.
	if err := st.TouchKey("SHA256:found", at.Add(3*time.Hour), ""); err != nil {
		t.Fatal(err)
	}
	if k, _ := st.KeyOf("SHA256:found"); !k.LastUsed.Equal(at.Add(3*time.Hour)) || k.LastAddr != "203.0.113.7" {
		t.Errorf("after a touch without an address: LastUsed = %v, LastAddr = %q", k.LastUsed, k.LastAddr)
	}
}

// A dead knight left with no key goes without Replace: its tombstone is written already.
func TestAttachFromADeadKnight(t *testing.T) {
	st := openTemp(t)
	saveKnight(t, st, "K-LIVE", "SHA256:a", time.Now())
	dead := saveKnight(t, st, "K-DEAD", "SHA256:b", time.Now())
	dead.Death = &world.Death{Killer: "an Orc"}
	if err := st.SaveAdventurers([]world.Adventurer{dead}); err != nil {
		t.Fatal(err)
	}
	done, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:b", Knight: "K-LIVE"}})
	if err != nil || done.Left != "K-DEAD" || done.Entombed || !done.Gone {
		t.Fatalf("Attach = %+v, %v", done, err)
	}
	if _, err := st.LoadAdventurer("K-DEAD"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the dead knight's record is still stored: %v", err)
	}
}

// A knight taken out of knights takes its letters with it, so a knight that takes its
// name later reads none of them; the knight that keeps its keys keeps its own.
func TestAGoneKnightsLettersGoWithIt(t *testing.T) {
	st := openTemp(t)
	at := time.Now().UTC()
	saveKnight(t, st, "K-KEEP", "SHA256:a", at)
	saveKnight(t, st, "K-GONE", "SHA256:b", at)
	mail := map[string][]world.Letter{"K-KEEP": {{From: "Kay", To: "Keep", Text: "stay"}}, "K-GONE": {{From: "Kay", To: "Gone", Text: "go"}}}
	if err := st.Save(Batch{Mail: mail}); err != nil {
		t.Fatal(err)
	}
	done, err := st.Attach(knights.Give{Key: knights.Key{Fingerprint: "SHA256:b", Knight: "K-KEEP"}, Replace: true, At: at})
	if err != nil || !done.Gone || done.Left != "K-GONE" {
		t.Fatalf("Attach = %+v, %v", done, err)
	}
	got, err := st.Mail()
	if err != nil || len(got) != 1 || len(got["K-KEEP"]) != 1 {
		t.Fatalf("mail after the knight went: %+v, %v", got, err)
	}
}

// A new key's binding waits in the saver for its knight's first record and is written
// with it; a binding whose session leaves before any record goes with nothing written.
func TestSaverWritesABoundKeyWithItsKnight(t *testing.T) {
	st := openTemp(t)
	sv := NewSaver(st, nil)
	release := sv.Bind(knights.Key{Fingerprint: "SHA256:new", Knight: "K-NEW", Added: time.Now()})
	again := sv.Bind(knights.Key{Fingerprint: "SHA256:new", Knight: "K-OTHER"})
	if k, err := sv.KeyOf("SHA256:new"); err != nil || k.Knight != "K-NEW" {
		t.Fatalf("KeyOf a bound key = %+v, %v", k, err)
	}
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.KeyOf("SHA256:new"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a key was written before its knight: %v", err)
	}
	sv.Put(fullAdventurer("K-NEW", 1))
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	if k, err := st.KeyOf("SHA256:new"); err != nil || k.Knight != "K-NEW" {
		t.Errorf("KeyOf after the knight's first write = %+v, %v", k, err)
	}
	release()
	again()

	// A session that ends before its knight's first write lands leaves the key waiting
	// for that write.
	release = sv.Bind(knights.Key{Fingerprint: "SHA256:slow", Knight: "K-SLOW"})
	sv.Put(fullAdventurer("K-SLOW", 1))
	release()
	if k, err := sv.KeyOf("SHA256:slow"); err != nil || k.Knight != "K-SLOW" {
		t.Fatalf("a bound key whose knight waits to be written was let go: %+v, %v", k, err)
	}
	if err := sv.Flush(); err != nil {
		t.Fatal(err)
	}
	if k, err := st.KeyOf("SHA256:slow"); err != nil || k.Knight != "K-SLOW" {
		t.Errorf("the waiting key was not written with its knight: %+v, %v", k, err)
	}

	release = sv.Bind(knights.Key{Fingerprint: "SHA256:gone", Knight: "K-GONE"})
	release()
	release() // twice is once
	if _, err := sv.KeyOf("SHA256:gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a released binding is still held: %v", err)
	}
	if len(sv.bindings) != 0 {
		t.Errorf("bindings held after release: %v", sv.bindings)
	}
}

func TestAddressBans(t *testing.T) {
	st := openTemp(t)
	if err := st.Ban(knights.Ban{Addr: "203.0.113.9/24", By: "SHA256:admin"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Ban(knights.Ban{Addr: "not an address"}); err == nil {
		t.Error("a ban of a bad address was stored")
	}
	for addr, want := range map[string]bool{"203.0.113.200": true, "::ffff:203.0.113.1": true, "203.0.114.1": false, "2001:db8::1": false} {
		banned, prefix, err := st.IsAddrBanned(netip.MustParseAddr(addr), time.Now())
		if err != nil || banned != want {
			t.Errorf("IsAddrBanned(%s) = %v %q %v, want %v", addr, banned, prefix, err, want)
		}
	}
	bans, _ := st.Bans(time.Now())
	if len(bans) != 1 || bans[0].Addr != "203.0.113.0/24" {
		t.Errorf("Bans = %+v", bans)
	}
	if found, err := st.Unban("addr:203.0.113.0/24"); !found || err != nil {
		t.Errorf("Unban = %v, %v", found, err)
	}

	// A timed ban of an address (a guest's, banned --for a while) lapses like a key's.
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := st.Ban(knights.Ban{Addr: "198.51.100.7/32", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr("198.51.100.7")
	if banned, _, err := st.IsAddrBanned(a, at.Add(time.Hour-time.Second)); !banned || err != nil {
		t.Errorf("a timed address ban before its end: %v, %v", banned, err)
	}
	if banned, _, err := st.IsAddrBanned(a, at.Add(time.Hour)); banned || err != nil {
		t.Errorf("a timed address ban after its end: %v, %v", banned, err)
	}
}

func TestMOTD(t *testing.T) {
	st := openTemp(t)
	if m, err := st.LoadMOTD(); err != nil || m.Text != "" {
		t.Errorf("LoadMOTD of a new store = %+v, %v", m, err)
	}
	if err := st.SetMOTD(MOTD{Text: "Welcome", By: "SHA256:admin", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if m, err := st.LoadMOTD(); err != nil || m.Text != "Welcome" {
		t.Errorf("LoadMOTD = %+v, %v", m, err)
	}
	if err := st.SetMOTD(MOTD{}); err != nil {
		t.Fatal(err)
	}
	if m, _ := st.LoadMOTD(); m.Text != "" {
		t.Errorf("cleared MOTD = %+v", m)
	}
}
