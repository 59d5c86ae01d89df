package server

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// Realms measured through SSH (docs/PERFORMANCE.md "Realms on etcd"): real clients,
// servers in this process, an embedded etcd on loopback.

// untilScreen polls the screen every millisecond until it shows want, failing after 15 s.
func untilScreen(b *testing.B, tm *terminal, want string) {
	b.Helper()
	if !poll(15*time.Second, time.Millisecond, func() bool { return containsAll(tm.screen(), []string{want}) }) {
		b.Fatalf("the screen never showed %q:\n%s", want, tm.screen())
	}
}

// A returning knight's login, from the dial to the first frame ("Press Enter to continue
// your adventure"): on a server alone, and on a realm, where the claim comes before it.
// The session's end and the check-in are not timed.
func BenchmarkLoginToFirstFrame(b *testing.B) {
	b.Run("alone", func(b *testing.B) {
		benchLogin(b, startConfigured1(b, testConfig(b.TempDir(), defaultSeed)), nil)
	})
	b.Run("realm", func(b *testing.B) {
		etcd := etcdtest.Start(b)
		cfg := testConfig(b.TempDir(), defaultSeed)
		cfg.Realm, cfg.Etcd, cfg.RealmTTL = "A", []string{etcd}, 5*time.Second
		ts := startConfigured1(b, cfg)
		benchLogin(b, ts, func(knight string) bool { return !claimHeld(b, etcd, knight) })
	})
}

// startConfigured1 is startConfigured for a benchmark.
func startConfigured1(b *testing.B, cfg Config) *testServer {
	ts, _ := startConfigured(b, cfg)
	return ts
}

func benchLogin(b *testing.B, ts *testServer, gone func(knight string) bool) {
	key := newKey(b)
	tm := openTerminal(b, ts.addr, key, 80, 24, nil)
	tm.enterDungeon("Bedivere")
	knight := whoamiJSON(b, ts.addr, key).Knight
	tm.close()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		waitUntil(b, "the knight checked in", func() bool {
			out, _, code := runCmdQuiet(ts.addr, key, "whoami --json")
			var w command.Whoami
			return code == 0 && json.Unmarshal([]byte(out), &w) == nil && !w.Online && (gone == nil || gone(knight))
		})
		b.StartTimer()
		tm := openTerminal(b, ts.addr, key, 80, 24, nil)
		untilScreen(b, tm, "Press Enter to continue")
		b.StopTimer()
		tm.close()
		b.StartTimer()
	}
}

// A knight moving realms through SSH: while it plays on one realm, its key logs in on
// the other; from the dial to the first frame there (the knight called, checked in by
// the realm it leaves, and claimed). It goes back and forth between A and B. With
// ORTHANC_BENCH_ETCD_DELAY (a duration, say 75ms), B reaches etcd through a proxy that
// holds every byte that long each way, as a realm far from etcd does.
func BenchmarkMoveRealmsToFirstFrame(b *testing.B) {
	etcd := etcdtest.Start(b)
	realms := make([]*testServer, 2)
	for i, name := range []string{"A", "B"} {
		cfg := testConfig(b.TempDir(), defaultSeed)
		cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 5*time.Second
		if d := os.Getenv("ORTHANC_BENCH_ETCD_DELAY"); d != "" && name == "B" {
			cfg.Etcd = []string{delayedEtcd(b, etcd, d)}
		}
		realms[i] = startConfigured1(b, cfg)
	}
	key := newKey(b)
	on := openTerminal(b, realms[0].addr, key, 80, 24, nil)
	on.enterDungeon("Tristram")
	var took [2]time.Duration // to B, to A
	b.ResetTimer()
	for i := range b.N {
		to := realms[(i+1)%2]
		start := time.Now()
		next := openTerminalTimed(b, to.addr, key)
		took[i%2] += time.Since(start)
		b.StopTimer()
		next.press(keyEnter)
		untilScreen(b, next, "Depth ")
		if !on.ended(10 * time.Second) {
			b.Fatal("the session on the realm left did not end")
		}
		on.close()
		on = next
		b.StartTimer()
	}
	for i, unit := range []string{"ms/to-B", "ms/to-A"} {
		if n := (b.N + 1 - i) / 2; n > 0 {
			b.ReportMetric(float64(took[i].Milliseconds())/float64(n), unit)
		}
	}
}

// openTerminalTimed opens a terminal and waits for the first frame of a returning knight.
func openTerminalTimed(b *testing.B, addr string, key gossh.Signer) *terminal {
	tm := openTerminal(b, addr, key, 80, 24, nil)
	untilScreen(b, tm, "Press Enter to continue")
	return tm
}

// delayedEtcd is a proxy to etcd that holds every byte delay (a duration) each way.
func delayedEtcd(b *testing.B, etcd, delay string) string {
	d, err := time.ParseDuration(delay)
	if err != nil {
		b.Fatalf("ORTHANC_BENCH_ETCD_DELAY: %v", err)
	}
	p, err := tcpproxy.ListenDelay("127.0.0.1:0", etcd, d)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p.Addr()
}
