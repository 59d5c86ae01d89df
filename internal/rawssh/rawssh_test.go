package rawssh

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// start serves a new Server on a loopback port until the test ends.
func start(t *testing.T) (*Server, string) {
	t.Helper()
	srv, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}

func clientConfig(t *testing.T, conf gossh.Config) *gossh.ClientConfig {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return &gossh.ClientConfig{
		Config: conf, User: "anyone", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	}
}

// Any key logs in; a session is refused; the logins are counted.
func TestAnyKeyLogsInAndNothingMore(t *testing.T) {
	srv, addr := start(t)
	for range 3 {
		c, err := gossh.Dial("tcp", addr, clientConfig(t, gossh.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.NewSession()
		if oc, ok := errors.AsType[*gossh.OpenChannelError](err); !ok || oc.Reason != gossh.Prohibited {
			t.Errorf("new session: %v, want a prohibited channel", err)
		}
		_ = c.Close()
	}
	if n := srv.Logins(); n != 3 {
		t.Errorf("%d logins, want 3", n)
	}
}

// A client that offers only what the game server does not (a NIST key exchange, a SHA-1
// MAC) cannot connect: the lists are the server's, not the library's defaults.
func TestOnlyTheGamesAlgorithms(t *testing.T) {
	srv, addr := start(t)
	for _, conf := range []gossh.Config{
		{KeyExchanges: []string{gossh.KeyExchangeECDHP256}},
		{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA1}},
	} {
		if c, err := gossh.Dial("tcp", addr, clientConfig(t, conf)); err == nil {
			_ = c.Close()
			t.Errorf("%+v connected", conf)
		}
	}
	if srv.Logins() != 0 {
		t.Errorf("%d logins", srv.Logins())
	}
}
