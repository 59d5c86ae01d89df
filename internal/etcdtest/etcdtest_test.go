package etcdtest

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testcerts"
)

// An etcd of StartTLS that asks for client certificates serves a client that shows one
// its CA signed, and no client that shows none.
func TestStartTLSAsksForClientCertificates(t *testing.T) {
	ca := testcerts.New(t, "etcd")
	srv, client := ca.Issue(t, "etcd"), ca.Issue(t, "realm")
	url := StartTLS(t, TLS{CA: ca.CAFile, Cert: srv.Cert, Key: srv.Key, ClientCertAuth: true})
	get := func(info transport.TLSInfo, wait time.Duration) error {
		tc, err := info.ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{url}, TLS: tc, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		defer cli.Close()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_, err = cli.Get(ctx, "k")
		return err
	}
	if err := get(transport.TLSInfo{CertFile: client.Cert, KeyFile: client.Key, TrustedCAFile: ca.CAFile}, time.Minute); err != nil {
		t.Fatalf("a client with a certificate: %v", err)
	}
	if err := get(transport.TLSInfo{TrustedCAFile: ca.CAFile}, 500*time.Millisecond); err == nil {
		t.Fatal("a client without a certificate was served")
	}
}

// A Recorded etcd records the calls made through its watched address, and only those:
// each with its method and keys, a watch as it is created.
func TestRecordedRecordsTheWatchedClientsCalls(t *testing.T) {
	r := StartRecorded(t)
	client := func(addr string) *clientv3.Client {
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cli.Close() })
		return cli
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	other, watched := client(r.Addr), client(r.Watched)
	if _, err := other.Put(ctx, "a", "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := watched.Txn(ctx).If(clientv3.Compare(clientv3.Version("a"), ">", 0)).
		Then(clientv3.OpGet("b")).Else(clientv3.OpPut("c", "1")).Commit(); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	w := watched.Watch(wctx, "d", clientv3.WithCreatedNotify())
	if resp := <-w; !resp.Created {
		t.Fatalf("the watch: %+v", resp)
	}
	calls := r.Calls()
	if len(calls) != 2 || calls[0].String() != "Txn a b c" || calls[1].String() != "Watch d" {
		t.Fatalf("recorded %v, want the Txn and the watch", calls)
	}
	for _, c := range calls {
		if c.End.Before(c.Start) {
			t.Errorf("%v ended at %v, before it began at %v", c, c.End, c.Start)
		}
	}
	r.Reset()
	if _, err := watched.Get(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if calls := r.Calls(); len(calls) != 1 || calls[0].String() != "Range a" {
		t.Fatalf("after Reset: %v", calls)
	}
}

// Rounds puts calls begun within gap of the calls before them ending in one round trip,
// and a call begun later in the next.
func TestRoundsGroupCallsMadeAtOnce(t *testing.T) {
	at := func(ms int) time.Time {
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	calls := []Call{
		{Method: "Range", Start: at(0), End: at(1)},
		{Method: "Watch", Start: at(2), End: at(3)},
		{Method: "Txn", Start: at(5), End: at(40)}, // long: the next begins within gap of its end
		{Method: "Put", Start: at(55), End: at(56)},
		{Method: "Txn", Start: at(100), End: at(101)},
	}
	var got []int
	for _, r := range Rounds(calls, 20*time.Millisecond) {
		got = append(got, len(r))
	}
	if want := []int{4, 1}; !slices.Equal(got, want) {
		t.Fatalf("rounds of %v: %v, want %v", calls, got, want)
	}
}
