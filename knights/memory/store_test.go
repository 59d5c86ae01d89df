package memory_test

import (
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// openStore is a bbolt store as a Backend, its hooks as store/contract_test.go's.
func openStore(t *testing.T) knightstest.Backend {
	st, err := store.Open(filepath.Join(t.TempDir(), "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return knightstest.Backend{Records: st,
		Retire: func(e knights.FameEntry) error {
			return st.Save(store.Batch{Adventurers: []world.Adventurer{e.Adventurer}, Fame: []knights.FameEntry{e}})
		},
		Bury: func(tb knights.Tombstone) error {
			return st.Save(store.Batch{Adventurers: []world.Adventurer{tb.Adventurer}, Tombstones: []knights.Tombstone{tb}})
		},
		AddKey: func(a world.Adventurer, k knights.Key) error {
			return st.Save(store.Batch{Adventurers: []world.Adventurer{a}, Keys: []knights.Key{k}})
		},
		Name: func(knight, name string) error {
			return st.SaveAdventurers([]world.Adventurer{{ID: knight, Name: name}})
		},
		PutMail: func(to string, ls []world.Letter) error {
			return st.Save(store.Batch{Mail: map[string][]world.Letter{to: ls}})
		}}
}

// outcome is what a step's error says, as a test of either keeper can tell.
func outcome(err error) string {
	for _, e := range []error{knights.ErrNotFound, knights.ErrLastKey, knights.ErrCodeKind} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "error"
	}
	return "ok"
}

// step is one call, and what it answered.
type step struct {
	name string
	do   func(b knightstest.Backend) []any
}

// answer is a call's results with its error as outcome.
func answer(err error, results ...any) []any { return append(results, outcome(err)) }

var at = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// banSteps are the edges of bans the suite leaves: ties, masking, the shared set of
// keys, prefixes within prefixes, IPv4-mapped prefixes, lapsed bans before Bans.
var banSteps = []step{
	{"ban b", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Fingerprint: "SHA256:b", At: at.Add(time.Hour)}))
	}},
	{"ban a at the same time", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Fingerprint: "SHA256:a", At: at.Add(time.Hour), Until: at.Add(3 * time.Hour)}))
	}},
	{"ban an IPv6 prefix with a fingerprint", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Addr: "2001:db8::1/64", Fingerprint: "SHA256:x", At: at}))
	}},
	{"ban a /24 for two hours", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Addr: "203.0.113.9/24", At: at, Until: at.Add(2 * time.Hour)}))
	}},
	{"ban the /16 around it", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Addr: "203.0.0.0/16", At: at.Add(time.Minute)}))
	}},
	{"ban an IPv4-mapped prefix", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Addr: "::ffff:198.51.100.0/120", At: at}))
	}},
	{"ban a bad address", func(b knightstest.Backend) []any { return answer(b.Ban(knights.Ban{Addr: "203.0.113.9"})) }},
	{"ban nothing", func(b knightstest.Backend) []any { return answer(b.Ban(knights.Ban{Reason: "why"})) }},
	{"IsAddrBanned in both prefixes", isAddrBanned("203.0.113.5", at)},
	{"IsAddrBanned IPv4-mapped", isAddrBanned("::ffff:203.0.113.5", at)},
	{"IsAddrBanned IPv6", isAddrBanned("2001:db8::ffff", at)},
	{"IsAddrBanned under the mapped prefix", isAddrBanned("198.51.100.1", at)},
	{"IsAddrBanned mapped under the mapped prefix", isAddrBanned("::ffff:198.51.100.1", at)},
	{"IsAddrBanned no address", func(b knightstest.Backend) []any {
		ok, p, err := b.IsAddrBanned(netip.Addr{}, at)
		return answer(err, ok, p)
	}},
	{"IsBanned an address's key", isBanned("addr:2001:db8::/64", at)},
	{"IsBanned a lapsed key", isBanned("SHA256:a", at.Add(3*time.Hour))},
	{"Unban an unmasked prefix", unban("addr:203.0.0.9/16")},
	{"Unban the /16", unban("addr:203.0.0.0/16")},
	{"IsAddrBanned after the /24 lapsed", isAddrBanned("203.0.113.5", at.Add(2*time.Hour))},
	{"Unban a lapsed ban not yet deleted", unban("SHA256:a")},
	{"ban a again", func(b knightstest.Backend) []any {
		return answer(b.Ban(knights.Ban{Fingerprint: "SHA256:a", At: at.Add(time.Hour), Until: at.Add(3 * time.Hour)}))
	}},
	{"Bans", bans(at)},
	{"Bans after two lapsed", bans(at.Add(3 * time.Hour))},
	{"Unban a deleted lapsed ban", unban("addr:203.0.113.0/24")},
	{"Unban nothing", unban("")},
	{"IsBanned nothing", isBanned("", at)},
}

func isAddrBanned(addr string, now time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		ok, p, err := b.IsAddrBanned(netip.MustParseAddr(addr), now)
		return answer(err, ok, p)
	}
}

func isBanned(fp string, now time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		ok, err := b.IsBanned(fp, now)
		return answer(err, ok)
	}
}

func unban(fp string) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		ok, err := b.Unban(fp)
		return answer(err, ok)
	}
}

func bans(now time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		list, err := b.Bans(now)
		return answer(err, list)
	}
}

// silenceSteps: ties, a silence of no knight, an ended one unsilenced before Silences.
var silenceSteps = []step{
	{"silence c", silence(knights.Silence{Knight: "K-c", By: "SHA256:admin", At: at, Until: at.Add(time.Hour)})},
	{"silence a at the same end", silence(knights.Silence{Knight: "K-a", Reason: "spam", At: at, Until: at.Add(time.Hour)})},
	{"silence b sooner", silence(knights.Silence{Knight: "K-b", At: at, Until: at.Add(time.Minute)})},
	{"silence nobody", silence(knights.Silence{Until: at.Add(time.Hour)})},
	{"Silences", silences(at)},
	{"Unsilence an ended one", func(b knightstest.Backend) []any {
		ok, err := b.Unsilence("K-b")
		return answer(err, ok)
	}},
	{"Silences after the first ended", silences(at.Add(time.Minute))},
	{"Silences after all ended", silences(at.Add(time.Hour))},
	{"Unsilence a deleted one", func(b knightstest.Backend) []any {
		ok, err := b.Unsilence("K-a")
		return answer(err, ok)
	}},
}

func silence(sl knights.Silence) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any { return answer(b.Silence(sl)) }
}

func silences(now time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		list, err := b.Silences(now)
		return answer(err, list)
	}
}

// codeSteps: a code without a name, an expired one of the other kind (forgotten), a
// guest with a prelude (dropped).
var codeSteps = []step{
	{"put no code", putCode(knights.Code{Kind: "link", Expires: at.Add(time.Hour)})},
	{"put a claim", putCode(knights.Code{Code: "ABCD-EFGH", Kind: "claim", Guest: guestSheet(), Addr: "192.0.2.1", Expires: at.Add(time.Hour)})},
	{"put a link", putCode(knights.Code{Code: "7KQM-3XRT", Kind: "link", Knight: "K-kay", Expires: at.Add(time.Hour)})},
	{"take the link as a claim, expired", takeCode("7KQM-3XRT", "claim", at.Add(time.Hour))},
	{"take the link as it expired", takeCode("7KQM-3XRT", "link", at)},
	{"take the claim as a link", takeCode("ABCD-EFGH", "link", at)},
	{"take the claim", takeCode("ABCD-EFGH", "claim", at)},
	{"take nothing", takeCode("", "link", at)},
	{"delete nothing", func(b knightstest.Backend) []any { return answer(b.DeleteCode("")) }},
}

func guestSheet() *world.Adventurer {
	g := world.Adventurer{ID: "guest-1", Name: "guest Tom", Guest: true, Prelude: []string{"You died."}, Created: at}
	return &g
}

func putCode(c knights.Code) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any { return answer(b.PutCode(c)) }
}

func takeCode(code, kind string, now time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		c, err := b.TakeCode(code, kind, now)
		return answer(err, c)
	}
}

// keySteps: ties in Added, removing down to the last key, touching in another zone.
var keySteps = []step{
	{"add K-1 with a", addKey("K-1", "SHA256:a", at.Add(time.Hour))},
	{"add K-1's b at the same time", addKey("K-1", "SHA256:b", at.Add(time.Hour))},
	{"add K-1's c earlier", addKey("K-1", "SHA256:c", at)},
	{"add K-2 with d", addKey("K-2", "SHA256:d", at)},
	{"KeysOf K-1", keysOf("K-1")},
	{"KeysOf nobody", keysOf("")},
	{"touch a in another zone", func(b knightstest.Backend) []any {
		return answer(b.TouchKey("SHA256:a", at.In(time.FixedZone("X", 3600)), "198.51.100.1"))
	}},
	{"KeyOf a", keyOf("SHA256:a")},
	{"KeyOf nothing", keyOf("")},
	{"remove a", removeKey("SHA256:a")},
	{"remove c", removeKey("SHA256:c")},
	{"remove b, the last", removeKey("SHA256:b")},
	{"remove a again", removeKey("SHA256:a")},
	{"KeysOf K-1 at last", keysOf("K-1")},
}

func addKey(knight, fp string, added time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		a := world.Adventurer{ID: knight, Name: "Kay of " + knight, Options: world.Options{Muted: []string{}}, Channels: map[string]bool{}}
		return answer(b.AddKey(a, knights.Key{Fingerprint: fp, Knight: knight, Type: "ssh-ed25519", Comment: "laptop", Added: added}))
	}
}

func keysOf(knight string) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		keys, err := b.KeysOf(knight)
		return answer(err, keys)
	}
}

func keyOf(fp string) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		k, err := b.KeyOf(fp)
		return answer(err, k)
	}
}

func removeKey(fp string) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any { return answer(b.RemoveKey(fp)) }
}

// hallSteps: ties in fame, tombstones of one knight at times whose RFC 3339 text sorts
// otherwise, ids one the prefix of another, names with Ended, the sheets as read back.
var hallSteps = []step{
	{"retire K-2 at 100", retire("K-2", 100, at)},
	{"retire K-1 at 100 at the same time", retire("K-1", 100, at)},
	{"retire K-3 at 300", retire("K-3", 300, at.Add(time.Hour))},
	{"retire K-1 again at the same time", retire("K-1", 200, at)},
	{"bury K-4 at noon", bury("K-4", at)},
	{"bury K-4 half a second later", bury("K-4", at.Add(time.Second/2))},
	{"bury K-4-x", bury("K-4-x", at)},
	{"name K-0", func(b knightstest.Backend) []any { return answer(b.Name("K-0", "Bors")) }},
	{"retire no knight", retire("", 1, at)},
	{"Fame", func(b knightstest.Backend) []any { f, err := b.Fame(); return answer(err, f) }},
	{"Tombstones", func(b knightstest.Backend) []any { ts, err := b.Tombstones(); return answer(err, ts) }},
	{"KnightNames", func(b knightstest.Backend) []any { n, err := b.KnightNames(); return answer(err, n) }},
	{"LoadAdventurer K-4", loadAdventurer("K-4")},
	{"LoadAdventurer K-1", loadAdventurer("K-1")},
	{"LoadAdventurer nobody", loadAdventurer("")},
}

func retire(id string, xp int, when time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		a := fullSheet(id)
		a.Death, a.Experience = nil, xp
		a.Retirement = &world.Retirement{Level: 3, Experience: xp}
		return answer(b.Retire(knights.FameEntry{Retired: when, Adventurer: a}))
	}
}

func bury(id string, when time.Time) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		a := fullSheet(id)
		a.Prelude, a.Death.Hints, a.Channels = []string{"before"}, []string{}, map[string]bool{}
		return answer(b.Bury(knights.Tombstone{Died: when, Adventurer: a}))
	}
}

func loadAdventurer(id string) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any {
		a, err := b.LoadAdventurer(id)
		return answer(err, a)
	}
}

// mailSteps: engine ids, an emptied mailbox, a mailbox of no knight.
var mailSteps = []step{
	{"mail K-2", putMail("K-2", []world.Letter{{ID: 4, From: "Kay", To: "Bors", Text: "hi", Sent: at}, {From: "Gawain", Text: "ho", Sent: at, Read: true}})},
	{"mail K-3", putMail("K-3", []world.Letter{{From: "Kay", Text: "hi", Sent: at}})},
	{"empty K-3's mailbox", putMail("K-3", []world.Letter{})},
	{"empty no knight's mailbox", putMail("", nil)},
	{"mail no knight", putMail("", []world.Letter{{From: "Kay", Text: "hi", Sent: at}})},
	{"Mail", func(b knightstest.Backend) []any { m, err := b.Mail(); return answer(err, m) }},
}

func putMail(to string, ls []world.Letter) func(b knightstest.Backend) []any {
	return func(b knightstest.Backend) []any { return answer(b.PutMail(to, ls)) }
}

// The records in memory answer as the bbolt store does, step by step, in the cases the
// contract suite leaves out.
func TestAnswersAsTheStore(t *testing.T) {
	for name, steps := range map[string][]step{"bans": banSteps, "silences": silenceSteps, "codes": codeSteps,
		"keys": keySteps, "hall": hallSteps, "mail": mailSteps} {
		t.Run(name, func(t *testing.T) {
			st, mem := openStore(t), backend(memory.New())
			for _, s := range steps {
				want, got := s.do(st), s.do(mem)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\nmemory %s\n store %s", s.name, show(got), show(want))
				}
			}
		})
	}
}

// show prints answers with their pointers followed.
func show(vs []any) string {
	out := ""
	for _, v := range vs {
		if c, ok := v.(knights.Code); ok && c.Guest != nil {
			v = fmt.Sprintf("%+v guest %+v", c, *c.Guest)
		}
		out += fmt.Sprintf("%+v; ", v)
	}
	return out
}
