package realm

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdAddr is the embedded etcd's client address, host:port on loopback.
var etcdAddr string

// TestMain starts one etcd for the package's tests, in a temporary folder, on free
// loopback ports, without fsync; each test keeps to a prefix of its own.
func TestMain(m *testing.M) {
	code, err := runWithEtcd(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedded etcd:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runWithEtcd(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "realm-etcd-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, peer, err := freeURL(), freeURL(), nil
	if client == nil || peer == nil {
		return 0, fmt.Errorf("no free port")
	}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		return 0, fmt.Errorf("not ready in a minute")
	}
	etcdAddr = client.Host
	return m.Run(), nil
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
