package server

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// A silence made on realm A, without talk between the realms, holds when the knight next
// plays on B, which was running already, and on C, started after it (as a realm restarted
// would be); lifted on A, it is lifted on B at the knight's next login.
func TestASilenceOnOneRealmHoldsOnEvery(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	admin := newKey(t)
	a := startRealm(t, "A", etcd, defaultSeed, admin)
	b := startRealm(t, "B", etcd, defaultSeed+1)
	kayKey := newKey(t)
	kay := openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.enterDungeon("Kay")
	kay.quit()

	if out, errOut, code := runCmd(t, a.addr, admin, "silence Kay 1h --reason shouting"); code != 0 {
		t.Fatalf("silence on A (exit %d): %s %s", code, out, errOut)
	}
	kay = openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.continueKnight()
	kay.chat("hello")
	kay.waitFor("You are silenced until")
	kay.quit()

	c := startRealm(t, "C", etcd, defaultSeed+2, admin)
	if out, _, code := runCmd(t, c.addr, admin, "silences"); code != 0 || !strings.Contains(out, "Kay") || !strings.Contains(out, "shouting") {
		t.Fatalf("silences on C (exit %d):\n%s", code, out)
	}

	if out, errOut, code := runCmd(t, a.addr, admin, "unsilence Kay"); code != 0 {
		t.Fatalf("unsilence on A (exit %d): %s %s", code, out, errOut)
	}
	kay = openTerminal(t, b.addr, kayKey, 80, 24, nil)
	kay.continueKnight()
	kay.chat("hello again")
	kay.waitFor("You say: hello again")
}
