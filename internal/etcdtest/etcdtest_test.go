package etcdtest

import (
	"context"
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
