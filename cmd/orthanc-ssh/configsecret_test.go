package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The realms' secret: a realm that runs a nats-server taking routes is refused without
// one (or TLS on the routes), naming the flag and how to make it; a secret too short, or
// given with no talk, is refused; a good one is read, and both the flag and its variable
// serve.
func TestRealmSecretIsNeededAndRead(t *testing.T) {
	dir := t.TempDir()
	short, good := filepath.Join(dir, "short"), filepath.Join(dir, "good")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte(strings.Repeat("5e", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	realm := []string{"-realm", "A", "-etcd", "127.0.0.1:2379"}
	for _, c := range []struct {
		args []string
		env  func(string) string
		want []string
	}{
		{append(realm, "-nats-listen", ":6222"), envOf(), []string{"-nats-listen (env ORTHANC_NATS_LISTEN) needs -realm-secret (env ORTHANC_REALM_SECRET)", "orthanc-ssh -make-realm-secret FILE", "openssl rand -hex 32", "-nats-ca"}},
		{append(realm, "-nats-listen", ":6222", "-realm-secret", short), envOf(), []string{"-realm-secret (env ORTHANC_REALM_SECRET)", "32 characters or more"}},
		{append(realm, "-nats-listen", ":6222"), envOf("ORTHANC_REALM_SECRET", filepath.Join(dir, "none")), []string{"-realm-secret (env ORTHANC_REALM_SECRET)", "no such file"}},
		{realm, envOf("ORTHANC_REALM_SECRET", good), []string{"-realm-secret (env ORTHANC_REALM_SECRET) needs -nats-listen", "-nats (env ORTHANC_NATS)"}},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, c.env, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("run(%q) said %q; want %q in it", c.args, stderr.String(), w)
			}
		}
	}
	for _, c := range []struct {
		args []string
		env  func(string) string
	}{
		{append(realm, "-nats-listen", ":6222", "-realm-secret", good), envOf()},
		{append(realm, "-nats", "nats://n:4222"), envOf("ORTHANC_REALM_SECRET", good)},
	} {
		cfg, err := parseConfig(c.args, c.env, &bytes.Buffer{})
		if err != nil || cfg.RealmSecret != strings.Repeat("5e", 32) {
			t.Errorf("parseConfig(%q): secret %q, %v", c.args, cfg.RealmSecret, err)
		}
	}
}

// -make-realm-secret writes 256 random bits in hex, readable by its owner alone, and
// never overwrites a file (a secret replaced by mistake cuts a realm off).
func TestMakeRealmSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "realm.secret")
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-make-realm-secret", path}, envOf(), &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(path)
	if err != nil || !regexp.MustCompile(`^[0-9a-f]{64}\n$`).Match(data) {
		t.Fatalf("the secret: %q, %v", data, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("its mode: %v, %v", fi.Mode(), err)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"-make-realm-secret", path}, envOf(), &stderr); code != 1 || !strings.Contains(stderr.String(), "the file exists") {
		t.Fatalf("a second time: exit %d: %s", code, stderr.String())
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Fatal("the secret was overwritten")
	}
	cfg, err := parseConfig([]string{"-realm", "A", "-etcd", "e:2379", "-nats-listen", ":6222", "-realm-secret", path}, envOf(), &bytes.Buffer{})
	if err != nil || cfg.RealmSecret != strings.TrimSpace(string(data)) {
		t.Fatalf("the secret made, read back: %q, %v", cfg.RealmSecret, err)
	}
}
