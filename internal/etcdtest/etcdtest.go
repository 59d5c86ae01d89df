// Package etcdtest starts an etcd inside a test binary, for the tests of the packages
// that keep things in etcd (realm, realm/records). Only tests import it, so etcd's
// server is never built into the game's binaries.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
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
	addr, stop, err := start(nil)
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
	addr, stop, err := start(tls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

func start(tls *TLS) (addr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "etcdtest-")
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
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
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("etcdtest: %w", err)
	}
	stop = func() { e.Close(); os.RemoveAll(dir) }
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		stop()
		return "", nil, fmt.Errorf("etcdtest: not ready in a minute")
	}
	return client.Host, stop, nil
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
