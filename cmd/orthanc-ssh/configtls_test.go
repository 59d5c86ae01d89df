package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testcerts"
	"github.com/orthanc-ssh/orthanc-ssh/server"
)

// Every bad TLS setting is refused at start, exit 2, before anything listens, in one line
// naming its flag and variable: a file missing, unreadable, not PEM, a key not the
// certificate's, a certificate without its key, TLS with nothing to reach over it, an
// endpoint written plaintext, routes without all three files.
func TestTLSConfigErrorsNameTheirFlag(t *testing.T) {
	ca := testcerts.New(t, "realms")
	p, other := ca.Issue(t, "realm"), ca.Issue(t, "other")
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("just words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	realm := []string{"-realm", "A", "-etcd", "https://127.0.0.1:2379"}
	for _, c := range []struct {
		args []string
		env  func(string) string
		want []string
	}{
		{append(realm, "-etcd-ca", filepath.Join(dir, "missing.pem")), envOf(), []string{"-etcd-ca (env ORTHANC_ETCD_CA)", "missing.pem", "no such file"}},
		{append(realm, "-etcd-ca", dir), envOf(), []string{"-etcd-ca (env ORTHANC_ETCD_CA)", "is a directory"}},
		{append(realm, "-etcd-ca", notPEM), envOf(), []string{"-etcd-ca (env ORTHANC_ETCD_CA)", `not.pem": no PEM certificate in it`}},
		{append(realm, "-etcd-ca", p.Key), envOf(), []string{"-etcd-ca (env ORTHANC_ETCD_CA)", "no PEM certificate in it"}},
		{append(realm, "-etcd-cert", p.Cert), envOf(), []string{"-etcd-cert (env ORTHANC_ETCD_CERT) needs -etcd-key (env ORTHANC_ETCD_KEY)"}},
		{realm, envOf("ORTHANC_ETCD_KEY", p.Key), []string{"-etcd-key (env ORTHANC_ETCD_KEY) needs -etcd-cert (env ORTHANC_ETCD_CERT)"}},
		{append(realm, "-etcd-cert", notPEM, "-etcd-key", p.Key), envOf(), []string{"-etcd-cert (env ORTHANC_ETCD_CERT)", "no PEM certificate in it"}},
		{append(realm, "-etcd-cert", p.Cert, "-etcd-key", p.Cert), envOf(), []string{"-etcd-key (env ORTHANC_ETCD_KEY)", "no PEM private key in it"}},
		{append(realm, "-etcd-cert", p.Cert, "-etcd-key", other.Key), envOf(), []string{"-etcd-key (env ORTHANC_ETCD_KEY)", "-etcd-cert (env ORTHANC_ETCD_CERT)", "private key does not match public key"}},
		{[]string{"-etcd-ca", p.CA}, envOf(), []string{"-etcd-ca (env ORTHANC_ETCD_CA) needs -etcd (env ORTHANC_ETCD)"}},
		{[]string{"-realm", "A", "-etcd", "https://a:2379,http://b:2379", "-etcd-ca", p.CA}, envOf(), []string{"-etcd (env ORTHANC_ETCD)", `"http://b:2379" is plaintext`, "-etcd-ca", "https://"}},
		{append(realm, "-nats-cert", p.Cert, "-nats-key", p.Key), envOf(), []string{"-nats-cert (env ORTHANC_NATS_CERT) needs -nats (env ORTHANC_NATS) or -nats-listen"}},
		{append(realm, "-nats-listen", ":6222", "-nats-ca", p.CA), envOf(), []string{"-nats-listen (env ORTHANC_NATS_LISTEN) with TLS needs -nats-cert", "-nats-key", "-nats-ca"}},
		{append(realm, "-nats-listen", ":6222"), envOf("ORTHANC_NATS_CA", notPEM), []string{"-nats-ca (env ORTHANC_NATS_CA)", "no PEM certificate"}},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, c.env, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (bad configuration)", c.args, code)
		}
		if n := bytes.Count(stderr.Bytes(), []byte("\n")); n != 1 {
			t.Errorf("run(%q) said %d lines, want 1:\n%s", c.args, n, stderr.String())
		}
		for _, w := range c.want {
			if !bytes.Contains(stderr.Bytes(), []byte(w)) {
				t.Errorf("run(%q) said %q; want %q in it", c.args, stderr.String(), w)
			}
		}
	}
}

// Good TLS settings are taken from the variables, the flags winning; an external NATS
// over TLS needs no certificate of the realm's.
func TestTLSConfigTakesFlagsAndVariables(t *testing.T) {
	ca := testcerts.New(t, "realms")
	p, q := ca.Issue(t, "realm"), ca.Issue(t, "nats")
	cfg, err := parseConfig([]string{"-realm", "A", "-etcd", "https://e1:2379,e2:2379", "-etcd-cert", p.Cert, "-nats", "tls://n:4222"},
		envOf("ORTHANC_ETCD_CA", p.CA, "ORTHANC_ETCD_CERT", q.Cert, "ORTHANC_ETCD_KEY", p.Key, "ORTHANC_NATS_CA", q.CA), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (server.TLSFiles{CA: p.CA, Cert: p.Cert, Key: p.Key}); cfg.EtcdTLS != want {
		t.Errorf("etcd's TLS %+v, want %+v", cfg.EtcdTLS, want)
	}
	if want := (server.TLSFiles{CA: q.CA}); cfg.NATSTLS != want {
		t.Errorf("NATS's TLS %+v, want %+v", cfg.NATSTLS, want)
	}
	for _, v := range []string{"ORTHANC_ETCD_CA", "ORTHANC_ETCD_CERT", "ORTHANC_ETCD_KEY", "ORTHANC_NATS_CA", "ORTHANC_NATS_CERT", "ORTHANC_NATS_KEY"} {
		if !slices.Contains(cfg.envNames, v) {
			t.Errorf("%s is not among the known variables", v)
		}
	}
	if cfg, err := parseConfig([]string{"-realm", "A", "-etcd", "e:2379"}, envOf(), io.Discard); err != nil || cfg.EtcdTLS != (server.TLSFiles{}) || cfg.NATSTLS != (server.TLSFiles{}) {
		t.Errorf("no TLS asked for: %+v %+v, %v", cfg.EtcdTLS, cfg.NATSTLS, err)
	}
}
