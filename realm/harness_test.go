package realm

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// testTTL is the tests' lease: short, so that lapses come within seconds.
const testTTL = 2 * time.Second

// newClient is an etcd client of addr, closed with the test.
func newClient(t testing.TB, addr string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{addr},
		DialTimeout: 2 * time.Second,
		DialOptions: DialOptions(),
		Logger:      zapNop,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// prefixOf is a test's own key prefix.
func prefixOf(t testing.TB) string {
	return "/test/" + strings.ReplaceAll(t.Name(), "/", "_") + "/"
}

// openRealm opens a realm of the test's prefix on cli; it is closed with the test.
func openRealm(t testing.TB, cli *clientv3.Client, name string, onRelease func(Request)) *Realm {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := Open(ctx, cli, Config{Name: name, Prefix: prefixOf(t), TTL: testTTL, OnRelease: onRelease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// within is a context that ends after d, for a step the test waits on.
func within(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// waitDone waits for r to stop, for at most d.
func waitDone(t testing.TB, r *Realm, d time.Duration) {
	t.Helper()
	select {
	case <-r.Done():
	case <-time.After(d):
		t.Fatalf("realm %s still up after %v", r.Name(), d)
	}
}

// checkIn answers every request by checking the knight in with sheet, as a realm
// whose player saves and leaves would.
func checkIn(sheet string) func(Request) {
	return func(q Request) {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), testTTL)
			defer cancel()
			_ = q.Knight.CheckIn(ctx, []byte(sheet))
		}()
	}
}

// zapNop keeps etcd's client quiet in tests.
var zapNop = zap.NewNop()
