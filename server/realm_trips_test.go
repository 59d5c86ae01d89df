package server

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// A knight moving to a realm far from etcd (docs/PERFORMANCE.md "A realm far from
// etcd"): from the dial to the first frame, realm B waits one round trip for each step,
// so its calls to etcd are counted in round trips, through a proxy that holds every byte
// 150 ms each way (the realm A that lets the knight go is near). Four: the key's and the
// address's bans at the handshake; the same with the key's knight as the session opens;
// the claim, or the request to A, beside the claim key's watch; the claim, reading the
// pending rename, the mailbox and the silence with it. It was sixteen. Not parallel: the
// round trips are told apart by time (calls made at once may reach etcd up to 150 ms
// apart, on a loaded box, and still count as one; one after another they are 300 ms or
// more apart), and A lets go within one.
func TestAKnightMovingToARealmFarFromEtcdWaitsFourRoundTrips(t *testing.T) {
	const far = 150 * time.Millisecond
	etcd := etcdtest.StartRecorded(t)
	p, err := tcpproxy.ListenDelay("127.0.0.1:0", etcd.Watched, far)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	a := startRealm(t, "A", etcd.Addr, defaultSeed)
	b := startRealm(t, "B", p.Addr(), defaultSeed+1)
	key := newKey(t)
	on := openTerminal(t, a.addr, key, 80, 24, nil)
	on.enterDungeon("Tristram")
	knight := whoamiJSON(t, a.addr, key).Knight
	move := func(to *testServer) *terminal {
		next := openTerminal(t, to.addr, key, 80, 24, nil)
		next.waitFor("Press Enter to continue")
		return next
	}
	enter := func(next *terminal) {
		next.press(keyEnter)
		next.waitFor("Depth ")
		if !on.ended(10 * time.Second) {
			t.Fatal("the session on the realm left did not end")
		}
		on.close()
		on = next
	}
	// There and back first: a realm reads the knights' names once, at its first login.
	enter(move(b))
	enter(move(a))
	etcd.Reset()
	next := move(b)
	calls := etcd.Calls()
	enter(next)

	name := strings.NewReplacer("/orthanc/", "", keys.Fingerprint(key.PublicKey()), "FP", knight, "K")
	var got [][]string
	for _, round := range etcdtest.Rounds(calls, far) {
		var cs []string
		for _, c := range round {
			cs = append(cs, c.Method+" "+name.Replace(c.Keys[0]))
		}
		slices.Sort(cs) // made at once: any may reach etcd first
		got = append(got, cs)
	}
	want := [][]string{
		{"Range ban/FP", "Range ban/addr:"},
		{"Range ban/FP", "Range ban/addr:", "Range key/FP"},
		{"Txn claim/K", "Watch claim/K"},
		{"Txn claim/K"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("B's round trips to etcd from the dial to the first frame:\n%q\nwant\n%q\n%v", got, want, calls)
	}
}
