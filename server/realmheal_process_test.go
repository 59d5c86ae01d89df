package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// Issue 41: a realm cut off from etcd never came back (50 s after etcd was back it still
// refused every login, and its process stayed up, so no supervisor restarted it); each
// refusal was logged as "auth failure ... reason=method" with the banner told twice.
// The realm binary runs on an embedded etcd that is stopped until the realm stops, then
// started again on its data: the player is told, a login meanwhile is refused once, in one
// banner line and one log line saying why; once etcd serves again the realm takes
// players by itself, and the knight plays on from its last checkpoint.
func TestARealmCutOffFromEtcdTakesPlayersAgainOnceEtcdIsBack(t *testing.T) {
	t.Parallel()
	m := etcdtest.StartMember(t)
	a := startRealmProcess(t, "A", m.Addr(), defaultSeed)
	key := newKey(t)
	tm := openTerminal(t, a.addr, key, 80, 24, nil)
	tm.enterDungeon("Kay")
	before := whoamiJSON(t, a.addr, key)

	m.Stop()
	if out := tm.finalOutput(); !strings.Contains(screenWords(out), "takes players again by itself") {
		t.Fatalf("the player was not told:\n%s", tm.screen())
	}
	banner, err := dialBannerAnyway(a.addr, newKey(t))
	if err == nil || strings.Count(banner, realmDownLine) != 1 {
		t.Fatalf("a login while the realm is down: %v, banner %q; want the line once", err, banner)
	}
	waitUntil(t, "the refusal's log line", func() bool {
		return a.logged("auth failure", "reason=closed")
	})
	if n := a.count("auth failure"); n != 1 {
		t.Errorf("%d auth failure lines for one refused login, want 1:\n%s", n, a.logText())
	}

	m.Start()
	back := time.Now()
	var took time.Duration
	waitUntil(t, "a login on the realm after etcd is back", func() bool {
		_, err := dialBanner(t, a.addr, key)
		took = time.Since(back)
		return err == nil
	})
	t.Logf("the first login accepted %v after etcd served again", took.Round(10*time.Millisecond))
	if !a.logged("realm up again: taking players in") {
		t.Errorf("the realm did not say it is up again:\n%s", a.logText())
	}
	tb := openTerminal(t, a.addr, key, 80, 24, nil)
	tb.continueKnight()
	w := whoamiJSON(t, a.addr, key)
	if w.Knight != before.Knight || w.Name != "Kay" || !w.Online {
		t.Fatalf("after the realm healed: %+v, want %+v online", w, before)
	}
}

// dialBannerAnyway dials with key and then as a client with no key would
// (keyboard-interactive), as OpenSSH falls back when its key is refused, and returns the
// banner lines told and the login's error.
func dialBannerAnyway(addr string, key gossh.Signer) (string, error) {
	var mu sync.Mutex
	var banner string
	cfg := clientConfig(gossh.PublicKeys(key))
	cfg.Auth = append(cfg.Auth, gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		return nil, nil
	}))
	cfg.BannerCallback = func(msg string) error { mu.Lock(); banner += msg; mu.Unlock(); return nil }
	c, err := gossh.Dial("tcp", addr, cfg)
	if err == nil {
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	return banner, err
}

// count is how many lines of the realm's log have every one of want.
func (p *realmProcess) count(want ...string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, line := range strings.Split(p.log.String(), "\n") {
		if containsAll(line, want) {
			n++
		}
	}
	return n
}

// logText is the realm's log so far.
func (p *realmProcess) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}
