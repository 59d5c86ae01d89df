package knightstest

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// tests are the suite's tests, by name.
var tests = []struct {
	name string
	run  func(t *testing.T, st Backend)
}{
	{"KnightsAreCounted", testKnightsAreCounted},
	{"CountBans", testCountBans},
	{"BanUnbanRoundTrip", testBanUnbanRoundTrip},
	{"ATimedBanLapses", testATimedBanLapses},
	{"AddressBans", testAddressBans},
	{"CodesAreTakenOnce", testCodesAreTakenOnce},
	{"ACodeTakenAtOnceIsTakenOnce", testACodeTakenAtOnceIsTakenOnce},
	{"TheHallOfFameIsByExperienceThenTime", testTheHallOfFameIsByExperienceThenTime},
	{"TombstonesAreByKnightThenTime", testTombstonesAreByKnightThenTime},
	{"TheLivingAreTheKnightsNotEnded", testTheLivingAreTheKnightsNotEnded},
	{"KeysLeadToTheirKnight", testKeysLeadToTheirKnight},
	{"NamesAreKnightsNames", testNamesAreKnightsNames},
	{"LettersWaitInTheirMailbox", testLettersWaitInTheirMailbox},
	{"SilencesRoundTripAndEnd", testSilencesRoundTripAndEnd},
}

func testBanUnbanRoundTrip(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if banned, err := st.IsBanned("SHA256:a", at); err != nil || banned {
		t.Fatalf("a new store bans a key: %v, %v", banned, err)
	}
	for i, b := range []knights.Ban{
		{Fingerprint: "SHA256:b", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at.Add(time.Hour)},
		{Fingerprint: "SHA256:a", By: "SHA256:admin", At: at},
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
}

func testATimedBanLapses(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	until := at.Add(time.Hour)
	for _, b := range []knights.Ban{
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
}

func testAddressBans(t *testing.T, st Backend) {
	if err := st.Ban(knights.Ban{Addr: "203.0.113.9/24", By: "SHA256:admin"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Ban(knights.Ban{Addr: "not an address"}); err == nil {
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

// A code is taken once, of its kind; one of the other kind stays; an expired one is
// none; a deleted one is gone.
func testCodesAreTakenOnce(t *testing.T, st Backend) {
	now := time.Now()
	link := knights.Code{Code: "7KQM-3XRT", Kind: "link", Knight: "K-kay", Addr: "192.0.2.1", Expires: now.Add(10 * time.Minute)}
	claim := knights.Code{Code: "ABCD-EFGH", Kind: "claim", Guest: &world.Adventurer{ID: "guest-1", Name: "guest Tom"}, Expires: now.Add(10 * time.Minute)}
	for _, c := range []knights.Code{link, claim} {
		if err := st.PutCode(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.TakeCode(link.Code, "claim", now); !errors.Is(err, knights.ErrCodeKind) {
		t.Fatalf("a link code taken as a claim: %v", err)
	}
	got, err := st.TakeCode(link.Code, "link", now)
	if err != nil || got.Knight != "K-kay" || got.Addr != link.Addr || !got.Expires.Equal(link.Expires) {
		t.Fatalf("take the link code: %+v, %v", got, err)
	}
	if _, err := st.TakeCode(link.Code, "link", now); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("the link code taken twice: %v", err)
	}
	if _, err := st.TakeCode(claim.Code, "claim", claim.Expires); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("an expired claim code: %v", err)
	}
	if _, err := st.TakeCode(claim.Code, "claim", now); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("an expired code was kept: %v", err)
	}
	if err := st.PutCode(claim); err != nil {
		t.Fatal(err)
	}
	if got, err := st.TakeCode(claim.Code, "claim", now); err != nil || got.Guest == nil || got.Guest.Name != "guest Tom" {
		t.Fatalf("take the claim code: %+v, %v", got, err)
	}
	if err := st.PutCode(link); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a code not kept is no error
		if err := st.DeleteCode(link.Code); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.TakeCode(link.Code, "link", now); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("a deleted code: %v", err)
	}
}

// Of takes of one code at once, one has it.
func testACodeTakenAtOnceIsTakenOnce(t *testing.T, st Backend) {
	now := time.Now()
	for round := range 5 {
		c := knights.Code{Code: "RACE-000" + string(rune('A'+round)), Kind: "link", Knight: "K-kay", Expires: now.Add(time.Minute)}
		if err := st.PutCode(c); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 4 {
			wg.Go(func() {
				_, err := st.TakeCode(c.Code, "link", now)
				if err != nil && !errors.Is(err, knights.ErrNotFound) {
					t.Error(err)
				}
				mu.Lock()
				won += map[bool]int{true: 1}[err == nil]
				mu.Unlock()
			})
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("round %d: %d takes had the code", round, won)
		}
	}
}

func testTheHallOfFameIsByExperienceThenTime(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, e := range []knights.FameEntry{
		{Retired: at.Add(time.Hour), Adventurer: world.Adventurer{ID: "k1", Name: "Kay", Experience: 100}},
		{Retired: at.Add(2 * time.Hour), Adventurer: world.Adventurer{ID: "k2", Name: "Bors", Experience: 300}},
		{Retired: at, Adventurer: world.Adventurer{ID: "k3", Name: "Gawain", Experience: 100}},
	} {
		if err := st.Retire(e); err != nil {
			t.Fatal(err)
		}
	}
	fame, err := st.Fame()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range fame {
		names = append(names, e.Adventurer.Name)
	}
	if want := []string{"Bors", "Gawain", "Kay"}; !slices.Equal(names, want) {
		t.Errorf("fame = %v, want %v", names, want)
	}
	if a, err := st.LoadAdventurer("k2"); err != nil || a.Name != "Bors" || a.Experience != 300 {
		t.Errorf("the retired knight's last sheet = %+v, %v", a, err)
	}
	if _, err := st.LoadAdventurer("nobody"); !errors.Is(err, knights.ErrNotFound) {
		t.Errorf("a knight never saved: %v, want ErrNotFound", err)
	}
}

// testTheLivingAreTheKnightsNotEnded: the boards' knights are the living, by id, their
// tallies kept as written.
func testTheLivingAreTheKnightsNotEnded(t *testing.T, st Backend) {
	if living, err := st.Living(); err != nil || len(living) != 0 {
		t.Fatalf("the living at first: %v, %v", living, err)
	}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	week := world.WeekTally{Name: "2024-W18", Deepest: 3, Slain: 2, GoldWon: 40, Deeds: 1}
	for i, id := range []string{"K-2", "K-1"} {
		a := world.Adventurer{ID: id, Name: "Knight " + id, Deepest: 3 + i, Slain: 10 + i, GoldWon: 100 + i, Week: week}
		if err := st.AddKey(a, knights.Key{Fingerprint: "SHA256:" + id, Knight: id, Added: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Retire(knights.FameEntry{Retired: at, Adventurer: world.Adventurer{ID: "K-3", Name: "Knight K-3",
		Retirement: &world.Retirement{Level: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Bury(knights.Tombstone{Died: at, Adventurer: world.Adventurer{ID: "K-4", Name: "Knight K-4",
		Death: &world.Death{Killer: "an Ogre"}}}); err != nil {
		t.Fatal(err)
	}
	living, err := st.Living()
	if err != nil {
		t.Fatal(err)
	}
	if len(living) != 2 || living[0].ID != "K-1" || living[1].ID != "K-2" {
		t.Fatalf("the living: %+v, want K-1 and K-2", living)
	}
	if a := living[0]; a.Deepest != 4 || a.Slain != 11 || a.GoldWon != 101 || a.Week != week || a.Name != "Knight K-1" {
		t.Errorf("K-1's tallies read back: deepest %d, slain %d, gold won %d, week %+v", a.Deepest, a.Slain, a.GoldWon, a.Week)
	}
}

func testTombstonesAreByKnightThenTime(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tb := range []knights.Tombstone{
		{Died: at.Add(time.Hour), Adventurer: world.Adventurer{ID: "k2", Name: "Bors"}},
		{Died: at, Adventurer: world.Adventurer{ID: "k1", Name: "Kay"}},
	} {
		if err := st.Bury(tb); err != nil {
			t.Fatal(err)
		}
	}
	tombs, err := st.Tombstones()
	if err != nil {
		t.Fatal(err)
	}
	if len(tombs) != 2 || tombs[0].Adventurer.Name != "Kay" || !tombs[1].Died.Equal(at.Add(time.Hour)) {
		t.Errorf("tombstones = %+v", tombs)
	}
}

func testKeysLeadToTheirKnight(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := st.KeyOf("SHA256:none"); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("a key never given: %v, want ErrNotFound", err)
	}
	kay := world.Adventurer{ID: "K-1", Name: "Kay"}
	first := knights.Key{Fingerprint: "SHA256:a", Knight: "K-1", Type: "ssh-ed25519", Comment: "laptop", Added: at}
	if err := st.AddKey(kay, first); err != nil {
		t.Fatal(err)
	}
	// A browser's key (the play page's) is kept with its kind, and keeps it when touched.
	browser := knights.Key{Fingerprint: "SHA256:c", Knight: "K-2", Type: "ssh-ed25519", Kind: knights.KindBrowser, Added: at}
	if err := st.AddKey(world.Adventurer{ID: "K-2", Name: "Bors"}, browser); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchKey("SHA256:c", at.Add(time.Hour), "203.0.113.9"); err != nil {
		t.Fatal(err)
	}
	if k, err := st.KeyOf("SHA256:c"); err != nil || k.Kind != knights.KindBrowser || k.Type != "ssh-ed25519" {
		t.Fatalf("a browser's key = %+v, %v; want its kind kept", k, err)
	}
	k, err := st.KeyOf("SHA256:a")
	if err != nil || k != first {
		t.Fatalf("KeyOf = %+v, %v; want %+v", k, err, first)
	}
	if err := st.TouchKey("SHA256:a", at.Add(time.Hour), "203.0.113.9"); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchKey("SHA256:a", at.Add(2*time.Hour), ""); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchKey("SHA256:none", at, "203.0.113.9"); err != nil {
		t.Fatalf("touching a key that plays no knight: %v", err)
	}
	k, _ = st.KeyOf("SHA256:a")
	if !k.LastUsed.Equal(at.Add(2*time.Hour)) || k.LastAddr != "203.0.113.9" || k.Comment != "laptop" {
		t.Fatalf("touched key = %+v", k)
	}
	if err := st.RemoveKey("SHA256:a"); !errors.Is(err, knights.ErrLastKey) {
		t.Fatalf("removing a knight's last key: %v, want ErrLastKey", err)
	}
	if err := st.RemoveKey("SHA256:none"); !errors.Is(err, knights.ErrNotFound) {
		t.Fatalf("removing a key that plays no knight: %v, want ErrNotFound", err)
	}
	keys, err := st.KeysOf("K-1")
	if err != nil || len(keys) != 1 || keys[0].Fingerprint != "SHA256:a" {
		t.Fatalf("KeysOf = %+v, %v", keys, err)
	}
}

func testNamesAreKnightsNames(t *testing.T, st Backend) {
	for id, name := range map[string]string{"K-1": "Kay", "K-2": "Bors"} {
		if err := st.Name(id, name); err != nil {
			t.Fatal(err)
		}
	}
	names, err := st.KnightNames()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range names {
		got = append(got, n.Knight+"="+n.Name)
	}
	slices.Sort(got)
	if want := []string{"K-1=Kay", "K-2=Bors"}; !slices.Equal(got, want) {
		t.Errorf("names = %v, want %v", got, want)
	}
}

func testLettersWaitInTheirMailbox(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	ls := []world.Letter{{From: "Kay", Text: "Meet me at the market.", Sent: at}}
	if err := st.PutMail("K-2", ls); err != nil {
		t.Fatal(err)
	}
	if err := st.PutMail("K-3", []world.Letter{{From: "Bors", Text: "hi", Sent: at}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutMail("K-3", nil); err != nil {
		t.Fatal(err)
	}
	mail, err := st.Mail()
	if err != nil {
		t.Fatal(err)
	}
	if len(mail) != 1 || len(mail["K-2"]) != 1 || mail["K-2"][0].Text != ls[0].Text || !mail["K-2"][0].Sent.Equal(at) {
		t.Errorf("mail = %+v", mail)
	}
}

func testSilencesRoundTripAndEnd(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	long := knights.Silence{Knight: "K-long", Name: "Mordred", Reason: "spam", By: "SHA256:admin", At: at, Until: at.Add(2 * time.Hour)}
	short := knights.Silence{Knight: "K-short", Name: "Agravain", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)}
	for _, sl := range []knights.Silence{long, short} {
		if err := st.Silence(sl); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Silence(knights.Silence{Until: at}); err == nil {
		t.Error("a silence of no knight was stored")
	}
	list, err := st.Silences(at)
	if err != nil || len(list) != 2 || list[0].Knight != "K-short" || list[1] != long {
		t.Fatalf("silences, soonest first: %+v, %v", list, err)
	}
	if list, err = st.Silences(at.Add(time.Hour)); err != nil || len(list) != 1 || list[0].Knight != "K-long" {
		t.Fatalf("after the short one's end: %+v, %v", list, err)
	}
	if list, _ = st.Silences(at); len(list) != 1 {
		t.Fatalf("an ended silence was kept: %+v", list)
	}
	long.Reason = "again"
	if err := st.Silence(long); err != nil {
		t.Fatal(err)
	}
	if list, _ = st.Silences(at); len(list) != 1 || list[0].Reason != "again" {
		t.Fatalf("a silence made again: %+v", list)
	}
	for _, want := range []bool{true, false} {
		if found, err := st.Unsilence("K-long"); found != want || err != nil {
			t.Fatalf("unsilence: %v, %v; want %v", found, err, want)
		}
	}
	if list, _ = st.Silences(at); len(list) != 0 {
		t.Fatalf("after unsilence: %+v", list)
	}
}

// testKnightsAreCounted: every knight kept is counted, living, retired or dead.
func testKnightsAreCounted(t *testing.T, st Backend) {
	if n, err := st.CountKnights(); err != nil || n != 0 {
		t.Fatalf("knights kept at first: %d, %v", n, err)
	}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := st.AddKey(world.Adventurer{ID: "K-1", Name: "Kay"}, knights.Key{Fingerprint: "SHA256:k", Knight: "K-1", Added: at}); err != nil {
		t.Fatal(err)
	}
	if err := st.Retire(knights.FameEntry{Retired: at, Adventurer: world.Adventurer{ID: "K-2", Name: "Bors"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Bury(knights.Tombstone{Died: at, Adventurer: world.Adventurer{ID: "K-3", Name: "Gawain"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := st.CountKnights(); err != nil || n != 3 {
		t.Fatalf("knights kept: %d, %v; want 3", n, err)
	}
}

// CountBans counts the bans in force by kind, leaving the lapsed ones (which it does not
// count) for Bans to delete.
func testCountBans(t *testing.T, st Backend) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, b := range []knights.Ban{
		{Fingerprint: "SHA256:a", At: at}, {Fingerprint: "SHA256:b", At: at, Until: at.Add(time.Hour)},
		{Addr: "203.0.113.7/32", At: at}, {Addr: "2001:db8::/64", At: at, Until: at.Add(time.Minute)},
	} {
		if err := st.Ban(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		now         time.Time
		keys, addrs int
	}{{at, 2, 2}, {at.Add(time.Minute), 2, 1}, {at.Add(time.Hour), 1, 1}} {
		if keys, addrs, err := st.CountBans(tc.now); err != nil || keys != tc.keys || addrs != tc.addrs {
			t.Errorf("at +%v: %d keys, %d addresses, %v; want %d, %d", tc.now.Sub(at), keys, addrs, err, tc.keys, tc.addrs)
		}
	}
	if bans, _ := st.Bans(at); len(bans) != 4 {
		t.Errorf("CountBans deleted lapsed bans: %d left", len(bans))
	}
}
