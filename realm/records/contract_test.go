package records

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// backend is one keeper of the records under the contracts, with the way its writer
// writes a knight's end.
type backend struct {
	keeper
	retire func(e store.FameEntry) error
	bury   func(t store.Tombstone) error
	// addKey writes a new knight's first sheet with its first key; name gives a knight
	// its name; putMail replaces a mailbox.
	addKey  func(a world.Adventurer, k store.Key) error
	name    func(knight, name string) error
	putMail func(to string, ls []world.Letter) error
}

// keeper is everything under contract.
type keeper interface {
	Bans
	Hall
	Keys
	Names
	Letters
	Silences
	Codes
}

// onBoth runs a contract test against the bbolt store and against etcd, each fresh.
func onBoth(t *testing.T, test func(t *testing.T, b backend)) {
	t.Run("bbolt", func(t *testing.T) {
		st, err := store.Open(filepath.Join(t.TempDir(), "orthanc.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		test(t, backend{keeper: st,
			retire: func(e store.FameEntry) error {
				return st.Save(store.Batch{Adventurers: []world.Adventurer{e.Adventurer}, Fame: []store.FameEntry{e}})
			},
			bury: func(tb store.Tombstone) error {
				return st.Save(store.Batch{Adventurers: []world.Adventurer{tb.Adventurer}, Tombstones: []store.Tombstone{tb}})
			},
			addKey: func(a world.Adventurer, k store.Key) error {
				return st.Save(store.Batch{Adventurers: []world.Adventurer{a}, Keys: []store.Key{k}})
			},
			name: func(knight, name string) error {
				return st.SaveAdventurers([]world.Adventurer{{ID: knight, Name: name}})
			},
			putMail: func(to string, ls []world.Letter) error {
				return st.Save(store.Batch{Mail: map[string][]world.Letter{to: ls}})
			}})
	})
	t.Run("etcd", func(t *testing.T) {
		cli := newClient(t)
		st := New(cli, Options{Prefix: prefixOf(t)})
		r := openRealm(t, cli)
		test(t, backend{keeper: st,
			retire: func(e store.FameEntry) error { return Retire(context.Background(), claim(t, r, e.Adventurer.ID), e) },
			bury:   func(tb store.Tombstone) error { return Bury(context.Background(), claim(t, r, tb.Adventurer.ID), tb) },
			addKey: func(a world.Adventurer, k store.Key) error {
				sheet, err := SheetWrite(&a, "A")
				if err != nil {
					return err
				}
				key, err := KeyWrite(k)
				if err != nil {
					return err
				}
				_, err = claim(t, r, a.ID).Commit(context.Background(), sheet, key)
				return err
			},
			name: func(knight, name string) error {
				if ok, err := st.ClaimName(name, knight); !ok || err != nil {
					return fmt.Errorf("claim %q: %v, %w", name, ok, err)
				}
				return nil
			},
			putMail: st.PutMail})
	})
}

func newClient(t *testing.T) *clientv3.Client {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdAddr},
		DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func prefixOf(t *testing.T) string { return "/test/" + strings.ReplaceAll(t.Name(), "/", "_") + "/" }

// openRealm is a realm of the test's prefix, closed with the test.
func openRealm(t *testing.T, cli *clientv3.Client) *realm.Realm {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := realm.Open(ctx, cli, realm.Config{Name: "A", Prefix: prefixOf(t), TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// claim claims knight id on r, as a login would.
func claim(t *testing.T, r *realm.Realm, id string) *realm.Fenced {
	f, err := r.Claim(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBanUnbanRoundTrip(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		if banned, err := st.IsBanned("SHA256:a", at); err != nil || banned {
			t.Fatalf("a new store bans a key: %v, %v", banned, err)
		}
		for i, b := range []store.Ban{
			{Fingerprint: "SHA256:b", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at.Add(time.Hour)},
			{Fingerprint: "SHA256:a", By: "SHA256:admin", At: at},
		} {
			if err := st.Ban(b); err != nil {
				t.Fatalf("ban %d: %v", i, err)
			}
		}
		if err := st.Ban(store.Ban{}); err == nil {
			t.Fatal("a ban without a fingerprint was stored")
		}
		bans, err := st.Bans(at)
		if err != nil {
			t.Fatal(err)
		}
		if len(bans) != 2 || bans[0].Fingerprint != "SHA256:a" || bans[1].Name != "Mordred" ||
			bans[1].Reason != "spam" || !bans[1].At.Equal(at.Add(time.Hour)) {
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
	})
}

func TestATimedBanLapses(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		until := at.Add(time.Hour)
		for _, b := range []store.Ban{
			{Fingerprint: "SHA256:t", By: "SHA256:admin", At: at, Until: until},
			{Fingerprint: "SHA256:p", By: "SHA256:admin", At: at},
		} {
			if err := st.Ban(b); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			now    time.Time
			banned bool
		}{{at, true}, {until.Add(-time.Nanosecond), true}, {until, false}} {
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
	})
}

func TestAddressBans(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		if err := st.Ban(store.Ban{Addr: "203.0.113.9/24", By: "SHA256:admin"}); err != nil {
			t.Fatal(err)
		}
		if err := st.Ban(store.Ban{Addr: "not an address"}); err == nil {
			t.Error("a ban of a bad address was stored")
		}
		for addr, want := range map[string]bool{"203.0.113.200": true, "::ffff:203.0.113.1": true, "203.0.114.1": false, "2001:db8::1": false} {
			banned, prefix, err := st.IsAddrBanned(netip.MustParseAddr(addr), time.Now())
			if err != nil || banned != want || (want && prefix != "203.0.113.0/24") {
				t.Errorf("IsAddrBanned(%s) = %v %q %v, want %v", addr, banned, prefix, err, want)
			}
		}
		if bans, _ := st.Bans(time.Now()); len(bans) != 1 || bans[0].Addr != "203.0.113.0/24" || bans[0].Fingerprint != "" {
			t.Errorf("Bans = %+v", bans)
		}
		if found, err := st.Unban("addr:203.0.113.0/24"); !found || err != nil {
			t.Errorf("Unban = %v, %v", found, err)
		}
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		if err := st.Ban(store.Ban{Addr: "198.51.100.7/32", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		a := netip.MustParseAddr("198.51.100.7")
		if banned, _, err := st.IsAddrBanned(a, at.Add(time.Hour-time.Second)); !banned || err != nil {
			t.Errorf("a timed address ban before its end: %v, %v", banned, err)
		}
		if banned, _, err := st.IsAddrBanned(a, at.Add(time.Hour)); banned || err != nil {
			t.Errorf("a timed address ban after its end: %v, %v", banned, err)
		}
	})
}
