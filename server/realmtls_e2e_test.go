package server

import (
	"context"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/testcerts"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
)

// Realms over TLS end to end: an etcd that asks its clients for certificates, realms
// whose nats-servers route to each other over TLS, and what a realm says at start when
// its certificates are not the right ones.

// tlsEtcd starts an etcd serving TLS with a certificate of ca, asking every client for a
// certificate of ca; it returns its https:// URL.
func tlsEtcd(t *testing.T, ca *testcerts.CA) string {
	t.Helper()
	p := ca.Issue(t, "etcd")
	return etcdtest.StartTLS(t, etcdtest.TLS{CA: p.CA, Cert: p.Cert, Key: p.Key, ClientCertAuth: true})
}

// A realm's TLS settings reach its connections: TLS to etcd with any file, or with an
// https:// endpoint alone; NATS's files as the bus's. None asked for: plaintext.
func TestTLSSettingsReachTheConnections(t *testing.T) {
	cfg := Config{Realm: "A", Etcd: []string{"https://e1:2379", "e2:2379"}, NATSURL: "tls://n:4222",
		EtcdTLS: TLSFiles{CA: "etcd-ca.pem", Cert: "realm.pem", Key: "realm-key.pem"}, NATSTLS: TLSFiles{CA: "nats-ca.pem"}}
	if !etcdUsesTLS(cfg) || natsTLS(cfg) == nil || *natsTLS(cfg) != (talk.TLS{CA: "nats-ca.pem"}) {
		t.Errorf("TLS asked for: etcd %v, NATS %+v", etcdUsesTLS(cfg), natsTLS(cfg))
	}
	if https := (Config{Realm: "A", Etcd: []string{"https://e1:2379"}}); !etcdUsesTLS(https) {
		t.Error("an https:// endpoint without files is reached over plaintext")
	}
	if plain := (Config{Realm: "A", Etcd: []string{"e:2379"}}); etcdUsesTLS(plain) || natsTLS(plain) != nil {
		t.Errorf("no TLS asked for: etcd %v, NATS %+v", etcdUsesTLS(plain), natsTLS(plain))
	}
}

// filesOf are a pair's files as a realm's TLS settings.
func filesOf(p testcerts.Pair) TLSFiles { return TLSFiles{CA: p.CA, Cert: p.Cert, Key: p.Key} }

// startTLSRealm starts a realm on the TLS etcd at etcd, its nats-server routing over TLS
// to routes, with a certificate of ca for both.
func startTLSRealm(t *testing.T, ca *testcerts.CA, name, etcd string, seed uint64, routes []string) (*testServer, *Server) {
	t.Helper()
	cfg := testConfig(t.TempDir(), seed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
	cfg.EtcdTLS, cfg.NATSTLS = filesOf(ca.Issue(t, "realm-"+name)), filesOf(ca.Issue(t, "nats-"+name))
	cfg.NATSListen, cfg.NATSRoutes = "127.0.0.1:0", routes
	return startConfigured(t, cfg)
}

// sharedRecordsTLS reads the realms' records in the TLS etcd, as the test's own client
// with a certificate of ca.
func sharedRecordsTLS(t *testing.T, ca *testcerts.CA, etcd string) *records.Store {
	t.Helper()
	p := ca.Issue(t, "test")
	tc, err := transport.TLSInfo{CertFile: p.Cert, KeyFile: p.Key, TrustedCAFile: p.CA}.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, TLS: tc, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return records.New(cli, records.Options{})
}

// Two realms on an etcd that asks for client certificates, their nats-servers routed
// over TLS: a knight moves from A to B with its checkpoint, and whispers from B to a
// knight on A.
func TestRealmsOverTLS(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "realms")
	etcd := tlsEtcd(t, ca)
	a, sa := startTLSRealm(t, ca, "A", etcd, defaultSeed, nil)
	b, sb := startTLSRealm(t, ca, "B", etcd, defaultSeed+1, []string{sa.talk.(*realmTalk).srv.ClusterAddr()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range []*Server{sa, sb} {
		if err := s.talk.(*realmTalk).srv.WaitRoutes(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	key := newKey(t)
	ta, moved := stepAndCheckpoint(t, a.addr, key, "Kay", sharedRecordsTLS(t, ca, etcd))
	kay := openTerminal(t, b.addr, key, 100, 30, nil)
	if out := ta.finalOutput(); !strings.Contains(out, "Your knight was called to realm B; it is saved.") {
		t.Fatalf("A's player was not told where its knight went:\n%s", ta.screen())
	}
	kay.continueKnight()
	if w := whoamiJSON(t, b.addr, key); w.Knight != moved.Knight || w.Str != moved.Str || w.MaxHits != moved.MaxHits {
		t.Fatalf("on B: %+v; want A's %+v", w, moved)
	}

	bors := openTerminal(t, a.addr, newKey(t), 100, 30, nil)
	bors.enterDungeon("Bors")
	waitWho(t, b.addr, "Bors", "A")
	kay.chat("/w bors the certificates hold")
	bors.waitFor("Kay (in B) whispers: the certificates hold")
}

// startRefused runs the server with args (after a fresh -data and a free -addr) and
// returns its exit code and what it said, failing the test if it does not stop by itself
// within a few seconds.
func startRefused(t *testing.T, args ...string) (int, string) {
	t.Helper()
	began := time.Now()
	code, out := runBinary(t, append([]string{"-data", t.TempDir(), "-addr", "127.0.0.1:0"}, args...)...)
	if took := time.Since(began); took > realmCallTimeout+2*time.Second {
		t.Errorf("the server took %v to stop", took.Round(time.Millisecond))
	}
	return code, out
}

// A realm that cannot verify etcd's certificate (its -etcd-ca is another authority's)
// stops at start, saying so and what to do; one that shows etcd no certificate when etcd
// asks for one, too, and one that speaks plaintext to it.
func TestARealmWithTheWrongCertificatesStopsAtStart(t *testing.T) {
	ca := testcerts.New(t, "realms")
	etcd := tlsEtcd(t, ca)
	stranger := testcerts.New(t, "strangers")
	mine := ca.Issue(t, "realm")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"another CA", []string{"-etcd-ca", stranger.CAFile, "-etcd-cert", mine.Cert, "-etcd-key", mine.Key},
			[]string{"etcd's certificate is not trusted", "certificate signed by unknown authority", "give -etcd-ca the certificate of the authority"}},
		{"no client certificate", []string{"-etcd-ca", ca.CAFile},
			[]string{"etcd refused this realm's TLS", "give -etcd-cert and -etcd-key"}}, // its alert, or its close when that wins the race
		{"plaintext", []string{"-etcd", strings.TrimPrefix(etcd, "https://")},
			[]string{"etcd hung up on this realm's plaintext", "closed the connection unanswered", "write the endpoints https://"}},
	} {
		code, out := startRefused(t, append([]string{"-realm", "A", "-etcd", etcd}, c.args...)...)
		if code != 1 || strings.Count(out, "level=ERROR") != 1 {
			t.Errorf("%s: exit %d, want 1 and one error line:\n%s", c.name, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the server said\n%s\nwant %q in it", c.name, out, w)
			}
		}
	}
}

// -import reaches etcd with the realm's TLS settings, and is refused as a realm is
// without a client certificate.
func TestImportOverTLS(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "realms")
	etcd := tlsEtcd(t, ca)
	dir := standaloneStore(t)
	mine := ca.Issue(t, "import")
	args := []string{"-data", dir, "-realm", "europe", "-etcd", etcd, "-import", "-etcd-ca", ca.CAFile}
	if code, out := runBinary(t, args...); code != 1 || !strings.Contains(out, "etcd refused this realm's TLS") {
		t.Fatalf("an import without a client certificate: exit %d:\n%s", code, out)
	}
	code, out := runBinary(t, append(args, "-etcd-cert", mine.Cert, "-etcd-key", mine.Key)...)
	if code != 0 {
		t.Fatalf("import: exit %d:\n%s", code, out)
	}
	wantLines(t, out, "kind=knights written=4", "import: every record is in etcd")
	if kay, err := sharedRecordsTLS(t, ca, etcd).LoadAdventurer("K-KAY"); err != nil || kay.Name != "Kay" {
		t.Fatalf("Kay in etcd: %+v, %v", kay, err)
	}
}

// tlsNATS starts a nats-server that takes clients over TLS only, each showing a
// certificate of ca, and returns its tls:// URL. Its users are the realms named
// (realmsNATSOptions).
func tlsNATS(t *testing.T, ca *testcerts.CA, realms ...string) string {
	t.Helper()
	p := ca.Issue(t, "nats")
	tc, err := natsserver.GenTLSConfig(&natsserver.TLSConfigOpts{CertFile: p.Cert, KeyFile: p.Key, CaFile: p.CA, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := realmsNATSOptions(t, realms...)
	opts.TLS, opts.TLSVerify, opts.TLSConfig, opts.TLSTimeout = true, true, tc, 5
	s, err := natsserver.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	return strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
}

// Two realms talk through a nats-server that asks for TLS and client certificates; a
// realm that does not trust its certificate, or shows none, stops at start saying which.
func TestRealmsTalkThroughANATSServerOverTLS(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "realms")
	etcd, nats := etcdtest.Start(t), tlsNATS(t, ca, "A", "B", "C")
	var addrs []string
	for _, name := range []string{"A", "B"} {
		cfg := testConfig(t.TempDir(), defaultSeed)
		cfg.Realm, cfg.Etcd, cfg.RealmTTL = name, []string{etcd}, 3*time.Second
		cfg.NATSURL, cfg.NATSTLS, cfg.RealmSecret = nats, filesOf(ca.Issue(t, "realm-"+name)), natsPassword(name)
		ts, _ := startConfigured(t, cfg)
		bors := openTerminal(t, ts.addr, newKey(t), 100, 30, nil)
		bors.enterDungeon("Bors" + name)
		addrs = append(addrs, ts.addr)
	}
	waitWho(t, addrs[0], "BorsB", "B")

	mine := ca.Issue(t, "realm-C")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-nats-ca", testcerts.New(t, "strangers").CAFile, "-nats-cert", mine.Cert, "-nats-key", mine.Key},
			[]string{"the NATS server's certificate is not trusted", "unknown authority", "give -nats-ca"}},
		{[]string{"-nats-ca", ca.CAFile}, []string{"the NATS server refused this realm's TLS", "give -nats-cert and -nats-key"}},
	} {
		code, out := startRefused(t, append([]string{"-realm", "C", "-etcd", etcd, "-nats", nats, "-realm-secret", secretFile(t, natsPassword("C"))}, c.args...)...)
		if code != 1 || strings.Count(out, "level=ERROR") != 1 {
			t.Errorf("%q: exit %d, want 1 and one error line:\n%s", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: the server said\n%s\nwant %q in it", c.args, out, w)
			}
		}
	}
}
