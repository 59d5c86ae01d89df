package store

import (
	"errors"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

func TestBanUnbanRoundTrip(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if banned, err := st.IsBanned("SHA256:a", at); err != nil || banned {
		t.Fatalf("a new store bans a key: %v, %v", banned, err)
	}
	for i, b := range []knights.Ban{
		{Fingerprint: "SHA256:b", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at.Add(time.Hour)},
		{Fingerprint: "SHA256:a", Reason: "", By: "SHA256:admin", At: at},
	} {
		if err := st.Ban(b); err != nil {
			t.Fatalf("ban %d: %v", i, err)
		}
	}
	if err := st.Ban(knights.Ban{}); err == nil {
		t.Fatal("a ban without a fingerprint was stored")
	}
	bans, err := st.Bans(at)
	if err != nil {
		t.Fatal(err)
	}
	if len(bans) != 2 || bans[0].Fingerprint != "SHA256:a" || bans[1].Name != "Mordred" || bans[1].Reason != "spam" || !bans[1].At.Equal(at.Add(time.Hour)) {
		t.Fatalf("bans: %+v", bans)
	}
	if banned, _ := st.IsBanned("SHA256:b", at); !banned {
		t.Fatal("the banned key is not banned")
	}
	if ok, err := st.Unban("SHA256:b"); !ok || err != nil {
		t.Fatalf("unban: %v, %v", ok, err)
	}
	if ok, err := st.Unban("SHA256:b"); ok || err != nil {
		t.Fatalf("unban twice: %v, %v", ok, err)
	}
	if banned, _ := st.IsBanned("SHA256:b", at); banned {
		t.Fatal("the unbanned key is still banned")
	}
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}

// A timed ban bans until its time, then lapses by itself: IsBanned says no, and Bans
// deletes it (issue 20). The clock is the caller's, so the test is exact.
func TestATimedBanLapses(t *testing.T) {
	st := openTemp(t)
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	until := at.Add(time.Hour)
	if err := st.Ban(knights.Ban{Fingerprint: "SHA256:t", By: "SHA256:admin", At: at, Until: until}); err != nil {
		t.Fatal(err)
	}
	if err := st.Ban(knights.Ban{Fingerprint: "SHA256:p", By: "SHA256:admin", At: at}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now    time.Time
		banned bool
	}{{at, true}, {until.Add(-time.Nanosecond), true}, {until, false}, {until.Add(time.Hour), false}} {
		if banned, err := st.IsBanned("SHA256:t", tc.now); err != nil || banned != tc.banned {
			t.Errorf("at %v: banned %v, %v; want %v", tc.now, banned, err, tc.banned)
		}
	}
	if bans, err := st.Bans(until.Add(-time.Second)); err != nil || len(bans) != 2 || !bans[1].Until.Equal(until) {
		t.Fatalf("bans before the end: %+v, %v", bans, err)
	}
	if bans, err := st.Bans(until); err != nil || len(bans) != 1 || bans[0].Fingerprint != "SHA256:p" {
		t.Fatalf("bans after the end: %+v, %v", bans, err)
	}
	if banned, _ := st.IsBanned("SHA256:t", at); banned {
		t.Fatal("a lapsed ban was kept")
	}
	if banned, _ := st.IsBanned("SHA256:p", at.AddDate(100, 0, 0)); !banned {
		t.Fatal("a ban without an end lapsed")
	}
}

// A file written before the bans bucket existed gets it on Open, with no version change.
func TestOpenAddsTheBansBucketToAnOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orthanc.db")
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketBans) }); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	st, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
	if banned, err := st.IsBanned("SHA256:x", time.Now()); banned || err != nil {
		t.Fatalf("IsBanned on the upgraded file: %v, %v", banned, err)
	}
}

// A ban that cannot be read (of a version this program does not know, which Open lets
// stand) is an error for the caller, which refuses the connection: never a silent yes or
// no, for a key's ban or an address's.
func TestABanThatCannotBeReadIsAnError(t *testing.T) {
	st := openTemp(t)
	err := st.db.Update(func(tx *bolt.Tx) error {
		b := open(tx, bucketBans)
		if err := b.put([]byte("SHA256:newer"), []byte(`{"v":99,"ban":{}}`)); err != nil {
			return err
		}
		return b.put([]byte(knights.AddrBanPrefix+"198.51.100.0/24"), []byte(`{"v":99,"ban":{}}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.IsBanned("SHA256:newer", time.Now()); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("IsBanned of an unreadable ban: %v", err)
	}
	if _, _, err := st.IsAddrBanned(netip.MustParseAddr("198.51.100.9"), time.Now()); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("IsAddrBanned of an unreadable ban: %v", err)
	}
	if banned, _, err := st.IsAddrBanned(netip.MustParseAddr("203.0.113.9"), time.Now()); banned || err != nil {
		t.Errorf("IsAddrBanned of another address: %v, %v", banned, err)
	}
}
