// Package etcdtest starts an etcd inside a test binary, for the tests of the packages
// that keep things in etcd (realm, realm/records). Only tests import it, so etcd's
// server is never built into the game's binaries.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Run starts one etcd member in a temporary folder, on free loopback ports, without
// fsync (a test's data need not survive a power cut), runs m with its client address,
// and stops it. It returns m's exit code; an etcd that would not start is an error.
func Run(m func(addr string) int) (int, error) {
	addr, stop, err := start(nil, nil)
	if err != nil {
		return 0, err
	}
	defer stop()
	return m(addr), nil
}

// Main is a package's TestMain with one etcd for all its tests: it sets *addr to the
// etcd's client address, runs the tests and exits with their code (1, said, when etcd
// would not start).
func Main(m *testing.M, addr *string) {
	code, err := Run(func(a string) int {
		*addr = a
		return m.Run()
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

// Start starts one etcd as Run does, for one test, which stops it at its end; it
// returns its client address.
func Start(t testing.TB) string {
	t.Helper()
	return startFor(t, nil)
}

// TLS says how an etcd of StartTLS serves its clients: with the certificate and key of
// the files Cert and Key; when ClientCertAuth, asking each client for a certificate the
// CA file CA signed (etcd's --client-cert-auth).
type TLS struct {
	CA, Cert, Key  string
	ClientCertAuth bool
}

// StartTLS starts one etcd as Start does, serving its clients over TLS as tls says; it
// returns its client URL, https://127.0.0.1:PORT.
func StartTLS(t testing.TB, tls TLS) string {
	t.Helper()
	return "https://" + startFor(t, &tls)
}

func startFor(t testing.TB, tls *TLS) string {
	t.Helper()
	addr, stop, err := start(tls, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// start starts one etcd; more, when not nil, changes its configuration before it starts.
func start(tls *TLS, more func(*embed.Config)) (addr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "etcdtest-")
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	noGateway(cfg)
	client, peer := freeURL(), freeURL()
	if client == nil || peer == nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("etcdtest: no free port")
	}
	if tls != nil {
		client.Scheme = "https"
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: tls.Cert, KeyFile: tls.Key, TrustedCAFile: tls.CA, ClientCertAuth: tls.ClientCertAuth}
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	if more != nil {
		more(cfg)
	}
	e, err := startEmbed(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return client.Host, func() { e.Close(); os.RemoveAll(dir) }, nil
}

// noGateway turns off etcd's HTTP gateway to its API, which the tests' clients (gRPC)
// do not use: its websocket proxy makes a logrus logger as it starts serving, which
// reads os.Stderr while a test binary run by go test -json (-test.v=test2json) sets
// os.Stderr in testing.M.Run, after Main has started the etcd: a data race that failed
// the realm packages' runs under -race -json.
func noGateway(cfg *embed.Config) { cfg.EnableGRPCGateway = false }

// startEmbed starts an etcd of cfg and waits, a minute at most, for it to serve.
func startEmbed(cfg *embed.Config) (*embed.Etcd, error) {
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcdtest: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case <-time.After(time.Minute):
		e.Close()
		return nil, fmt.Errorf("etcdtest: not ready in a minute")
	}
}

// Member is an etcd a test stops and starts again on its data and ports, as an
// operator restarting etcd would.
type Member struct {
	t    testing.TB
	cfg  *embed.Config
	addr string

	mu sync.Mutex
	e  *embed.Etcd // nil while stopped
}

// StartMember starts one etcd as Start does, which the test may stop and start again;
// it is stopped with the test.
func StartMember(t testing.TB) *Member {
	t.Helper()
	dir := t.TempDir()
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	noGateway(cfg)
	client, peer := freeURL(), freeURL()
	if client == nil || peer == nil {
		t.Fatal("etcdtest: no free port")
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	m := &Member{t: t, cfg: cfg, addr: client.Host}
	m.Start()
	t.Cleanup(m.Stop)
	return m
}

// Addr is the member's client address, host:port.
func (m *Member) Addr() string { return m.addr }

// Stop stops the member, as a SIGTERM would: its clients' connections close, and new
// ones are refused until Start.
func (m *Member) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.e != nil {
		m.e.Close()
		m.e = nil
	}
}

// Start starts the stopped member again on its data and ports, and waits for it to
// serve; it fails the test if it cannot.
func (m *Member) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.e != nil {
		return
	}
	m.cfg.ClusterState = embed.ClusterStateFlagNew
	if _, err := os.Stat(m.cfg.Dir + "/member"); err == nil {
		m.cfg.ClusterState = embed.ClusterStateFlagExisting
	}
	e, err := startEmbed(m.cfg)
	if err != nil {
		m.t.Fatal(err)
	}
	m.e = e
}

// freeURL is an http URL on a loopback port free a moment ago.
func freeURL() *url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil
	}
	defer ln.Close()
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}
}
