package rawssh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
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
	return srv, serve(t, srv)
}

// serve serves srv on a loopback port until the test ends, and returns its address.
func serve(t *testing.T, srv *Server) string {
	t.Helper()
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
	return ln.Addr().String()
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

// In the frames mode a session is taken: its PTY and shell are granted, each write of
// keys is answered by a frame of the size set, and frames come unasked every period.
func TestFramesModePlaysTheGamesTraffic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
	}{{"answers only", 0}, {"and unasked", 5 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(0)
			if err != nil {
				t.Fatal(err)
			}
			srv.PlayFrames(Frames{Size: 300, Every: tc.every})
			addr := serve(t, srv)
			c, err := gossh.Dial("tcp", addr, clientConfig(t, gossh.Config{}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			sess, err := c.NewSession()
			if err != nil {
				t.Fatalf("new session: %v", err)
			}
			if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
				t.Fatalf("pty: %v", err)
			}
			in, err := sess.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := sess.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := sess.Shell(); err != nil {
				t.Fatalf("shell: %v", err)
			}
			if tc.every == 0 {
				for range 3 {
					if _, err := in.Write([]byte("\x1b[A")); err != nil {
						t.Fatal(err)
					}
					frame := make([]byte, 300)
					if _, err := io.ReadFull(out, frame); err != nil {
						t.Fatalf("reading the frame: %v", err)
					}
					if !bytes.HasPrefix(frame, []byte("\x1b[1;1H")) {
						t.Errorf("frame begins %q, want a row's start", frame[:8])
					}
				}
			} else {
				// Nothing is written: the frames still come.
				if _, err := io.ReadFull(out, make([]byte, 3*300)); err != nil {
					t.Fatalf("reading unasked frames: %v", err)
				}
			}
		})
	}
}

// The frames mode refuses what is not a session.
func TestFramesModeRefusesOtherChannels(t *testing.T) {
	srv, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	srv.PlayFrames(Frames{Size: 10})
	c, err := gossh.Dial("tcp", serve(t, srv), clientConfig(t, gossh.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _, err = c.OpenChannel("direct-tcpip", nil)
	if oc, ok := errors.AsType[*gossh.OpenChannelError](err); !ok || oc.Reason != gossh.Prohibited {
		t.Errorf("direct-tcpip: %v, want a prohibited channel", err)
	}
}

// A frame is exactly the size asked, whatever the size.
func TestFrameOfIsItsSize(t *testing.T) {
	for _, n := range []int{1, 5, 8, 61, 260, 4096} {
		if got := len(frameOf(n)); got != n {
			t.Errorf("frameOf(%d) is %d bytes", n, got)
		}
	}
}
