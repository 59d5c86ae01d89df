// Package rawssh is the raw reference server of the load tool's handshake mode
// (cmd/orthanc-load -mode handshake): an SSH server made of golang.org/x/crypto/ssh
// alone, with no wish, no charm ssh, no middleware and no game, so that the handshakes a
// second the game server sustains can be set against what the SSH library alone sustains
// on the same box. cmd/orthanc-load/rawssh runs it.
//
// What it sets, so that the two do the same cryptographic work:
//
//   - the algorithms the game server offers (server/edge/login.go, and a test there
//     holds the lists equal): key exchanges mlkem768x25519-sha256, curve25519-sha256 and
//     diffie-hellman-group16-sha512; ciphers chacha20-poly1305, AES-GCM and AES-CTR; MACs
//     hmac-sha2-256-etm and hmac-sha2-512-etm; players' keys ed25519, ECDSA and RSA with
//     SHA-2 signatures (and their security-key forms);
//   - an ed25519 host key, as the game's is, but generated in memory at start rather
//     than read from a data folder;
//   - public-key login only, taking any key (the game takes any key but a banned one);
//   - a handshake timeout, 10 s by default as the game's -handshake-timeout.
//
// By default it refuses every channel and every global request: a client can log in and
// nothing more. With Frames set it also plays the game's traffic without the game (the
// floor of a walking player's cost, the load tool's bare mode against it): it takes a
// session, says yes to its PTY and shell, and answers each read of keys with a frame of
// the game's size, and sends one more every period unasked, as others' doings are. What it
// leaves out of the game's login is the game's own cost: the connection
// limits, the banner, the login's log and counters, the guest's keyboard-interactive
// method, and charm ssh's context and connection bookkeeping.
package rawssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The algorithms, as the game server offers them (server/edge/login.go).
var (
	KeyExchanges = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519, gossh.KeyExchangeDH16SHA512}
	Ciphers      = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	MACs              = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
	UserKeyAlgorithms = []string{gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519, gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384,
		gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
)

// DefaultHandshakeTimeout is the game server's default -handshake-timeout.
const DefaultHandshakeTimeout = 10 * time.Second

// Frames is the traffic a session is given in the frames mode: Size bytes answer each
// read of keys, and Size bytes more go every Every unasked (none when Every is 0). A
// Size of 0 refuses sessions.
type Frames struct {
	Size  int
	Every time.Duration
}

// Server is the raw reference server.
type Server struct {
	conf    *gossh.ServerConfig
	timeout time.Duration
	frames  Frames
	frame   []byte // Size bytes of a frame: a cursor home, then rows of text

	logins atomic.Int64 // handshakes that ended logged in
	failed atomic.Int64 // handshakes that did not

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open connections, closed when Serve ends
	wg    sync.WaitGroup
}

// New makes a server with a fresh in-memory ed25519 host key; handshakeTimeout bounds
// each connection's handshake (DefaultHandshakeTimeout when not positive).
func New(handshakeTimeout time.Duration) (*Server, error) {
	if handshakeTimeout <= 0 {
		handshakeTimeout = DefaultHandshakeTimeout
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("host key signer: %w", err)
	}
	conf := &gossh.ServerConfig{
		Config:                  gossh.Config{KeyExchanges: KeyExchanges, Ciphers: Ciphers, MACs: MACs},
		PublicKeyAuthAlgorithms: UserKeyAlgorithms,
		PublicKeyCallback: func(gossh.ConnMetadata, gossh.PublicKey) (*gossh.Permissions, error) {
			return nil, nil // any key
		},
	}
	conf.AddHostKey(signer)
	return &Server{conf: conf, timeout: handshakeTimeout, conns: map[net.Conn]struct{}{}}, nil
}

// PlayFrames has the server take sessions and give them f's traffic; call it before
// Serve.
func (s *Server) PlayFrames(f Frames) {
	s.frames = f
	s.frame = frameOf(f.Size)
}

// frameOf makes a frame of n bytes as the game's look: the cursor sent home, then rows of
// text, each begun at its row.
func frameOf(n int) []byte {
	b := make([]byte, 0, n)
	for row := 1; len(b) < n; row++ {
		b = fmt.Appendf(b, "\x1b[%d;1H", (row-1)%24+1)
		for i := 0; i < 60 && len(b) < n; i++ {
			b = append(b, byte('a'+(row+i)%26))
		}
	}
	return b[:n]
}

// Logins is how many handshakes have ended logged in; Failed how many have not.
func (s *Server) Logins() int64 { return s.logins.Load() }

// Failed is how many handshakes have failed (a client that went away mid-way included).
func (s *Server) Failed() int64 { return s.failed.Load() }

// Serve accepts connections on ln until ctx ends, then closes ln and every open
// connection and waits for their goroutines. It returns nil when ctx ended it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	defer s.closeAll()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// Out of file descriptors: wait and go on, as net/http does, rather than
			// stop serving in the middle of a run.
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
				}
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		backoff = 0
		if !s.track(c) {
			_ = c.Close()
			return nil
		}
		go s.handle(c)
	}
}

// track adds c to the open connections; false once Serve is closing them.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) closeAll() {
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
	s.mu.Unlock()
	s.wg.Wait()
}

// handle runs one connection: the handshake within the timeout, then refusals of
// whatever the client asks for (sessions, in the frames mode, played) until it goes away.
func (s *Server) handle(c net.Conn) {
	defer func() {
		_ = c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	_ = c.SetDeadline(time.Now().Add(s.timeout))
	sc, chans, reqs, err := gossh.NewServerConn(c, s.conf)
	if err != nil {
		s.failed.Add(1)
		return
	}
	s.logins.Add(1)
	_ = c.SetDeadline(time.Time{})
	go gossh.DiscardRequests(reqs)
	var sessions sync.WaitGroup
	for ch := range chans {
		if s.frames.Size <= 0 || ch.ChannelType() != "session" {
			_ = ch.Reject(gossh.Prohibited, "this server takes logins only")
			continue
		}
		sess, sessReqs, err := ch.Accept()
		if err != nil {
			continue
		}
		sessions.Go(func() { s.play(sess, sessReqs) })
	}
	_ = sc.Close()
	sessions.Wait()
}

// play runs a session of the frames mode until the client closes it or goes away: every
// request (a PTY, a shell, a size) is granted, every read of keys is answered by a frame,
// and a frame goes every period unasked.
func (s *Server) play(c gossh.Channel, reqs <-chan *gossh.Request) {
	defer func() { _ = c.Close() }()
	go func() {
		for r := range reqs {
			_ = r.Reply(true, nil)
		}
	}()
	stop := make(chan struct{})
	defer close(stop)
	if s.frames.Every > 0 {
		go func() {
			t := time.NewTicker(s.frames.Every)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					if _, err := c.Write(s.frame); err != nil {
						return
					}
				}
			}
		}()
	}
	buf := make([]byte, 256)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
		if _, err := c.Write(s.frame); err != nil {
			return
		}
	}
}
