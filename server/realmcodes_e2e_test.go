package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// Codes are shared by the realms: a link code given on A links on B; a guest's claim
// code given on A claims on B; one code given on two realms at once binds one key; an
// expired code is refused on another realm with the line a server alone says.
func TestCodesGivenOnOneRealmWorkOnAnother(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	shared := sharedRecordsOf(t, etcd)
	a, _ := startRealmServer(t, "A", etcd, defaultSeed)
	b, bs := startRealmServer(t, "B", etcd, defaultSeed+1)
	fp := func(k gossh.Signer) string { return keys.Fingerprint(k.PublicKey()) }
	kayKey := newKey(t)
	kay := openTerminal(t, a.addr, kayKey, 80, 24, nil)
	kay.enterDungeon("Kay")
	kayID := whoamiJSON(t, a.addr, kayKey).Knight
	kay.quit()

	laptop := newKey(t)
	code := linkCode(t, a.addr, kayKey)
	if out, errOut, st := runCmd(t, b.addr, laptop, "link "+code); st != 0 || !strings.Contains(out, "This key now plays Kay") {
		t.Fatalf("A's link code on B (exit %d): %s %s", st, out, errOut)
	}
	if k, err := shared.KeyOf(fp(laptop)); err != nil || k.Knight != kayID {
		t.Fatalf("the key linked on B, in etcd: %+v, %v", k, err)
	}
	if _, errOut, st := runCmd(t, a.addr, newKey(t), "link "+code); st != 1 || !strings.Contains(errOut, "no such code, or it has expired or been used") {
		t.Fatalf("the code used on B, again on A (exit %d): %s", st, errOut)
	}

	code = linkCode(t, a.addr, kayKey)
	one, other := newKey(t), newKey(t)
	clients := []*gossh.Client{dial(t, a.addr, one), dial(t, b.addr, other)} // connected first, to run at once
	var wg sync.WaitGroup
	var statuses [2]int
	var lines [2]string
	for i, c := range clients {
		wg.Go(func() {
			var err error
			if _, lines[i], statuses[i], err = runSession(c, "link "+code); err != nil {
				lines[i] = err.Error()
			}
		})
	}
	wg.Wait()
	bound := 0
	for _, k := range []gossh.Signer{one, other} {
		if kk, err := shared.KeyOf(fp(k)); err == nil && kk.Knight == kayID {
			bound++
		}
	}
	if bound != 1 || statuses[0]+statuses[1] != 1 || !strings.Contains(lines[0]+lines[1], "no such code, or it has expired or been used") {
		t.Fatalf("one code linked on A and B at once: exits %v (%q), %d keys bound; want one", statuses, lines, bound)
	}

	code = linkCode(t, a.addr, kayKey)
	bs.codes.SetClock(func() time.Time { return time.Now().Add(knights.CodeLife + time.Second) })
	if _, errOut, st := runCmd(t, b.addr, newKey(t), "link "+code); st != 1 || !strings.Contains(errOut, "no such code, or it has expired or been used") {
		t.Fatalf("an expired code on B (exit %d): %s", st, errOut)
	}
	bs.codes.SetClock(nil)

	guestCode := guestClaimCode(t, a.addr, "Tom")
	tomKey := newKey(t)
	if out, errOut, st := runCmd(t, b.addr, tomKey, "claim "+guestCode); st != 0 || !strings.Contains(out, "This key now plays Tom") {
		t.Fatalf("A's claim code on B (exit %d): %s %s", st, out, errOut)
	}
	tom := openTerminal(t, a.addr, tomKey, 80, 24, nil)
	tom.continueKnight()
	if w := whoamiJSON(t, a.addr, tomKey); w.Name != "Tom" || !w.Online {
		t.Fatalf("the knight claimed on B, on A: %+v", w)
	}
}

// startRealmServer is startRealm with the server, for a test that reaches into it.
func startRealmServer(t *testing.T, name, etcd string, seed uint64) (*testServer, *Server) {
	t.Helper()
	cfg := testConfig(t.TempDir(), seed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
	return startConfigured(t, cfg)
}

// guestClaimCode plays a guest named name on addr until it leaves, and returns its
// claim code.
func guestClaimCode(t *testing.T, addr, name string) string {
	t.Helper()
	c, err := dialGuest(addr)
	if err != nil {
		t.Fatal(err)
	}
	guest := terminalOn(t, c, 80, 24, nil, "")
	guest.enterDungeon(name)
	guest.press("q")
	guest.waitFor("A guest is not saved")
	guest.press("y")
	if !guest.ended(10 * time.Second) {
		t.Fatalf("the guest's game did not end:\n%s", guest.screen())
	}
	m := claimCodeRe.FindStringSubmatch(guest.rawOutput())
	if m == nil {
		t.Fatalf("no claim code:\n%s", guest.rawOutput())
	}
	return m[1]
}
