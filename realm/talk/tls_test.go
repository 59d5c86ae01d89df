package talk

import (
	"bytes"
	"context"
	"crypto/tls"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testcerts"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// TLS on NATS: routes between embedded servers, each verifying the other's certificate,
// and a realm's connection to an external server that asks for TLS.

// tlsServer starts an embedded server whose routes use TLS with the pair, joined to
// routes, its log in log when not nil.
func tlsServer(t *testing.T, name string, p testcerts.Pair, log *slog.Logger, routes ...string) *Server {
	t.Helper()
	s, err := StartServer(ServerConfig{Name: name, Cluster: "127.0.0.1:0", Routes: routes,
		RouteTLS: &TLS{Cert: p.Cert, Key: p.Key, CA: p.CA}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Two servers whose routes use TLS, certificates of one CA, route to each other, and a
// whisper crosses.
func TestRoutesWithTLS(t *testing.T) {
	ca := testcerts.New(t, "realms")
	a := tlsServer(t, "Camelot", ca.Issue(t, "a"), nil)
	b := tlsServer(t, "Avalon", ca.Issue(t, "b"), nil, a.ClusterAddr())
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, s := range []*Server{a, b} {
		if err := s.WaitRoutes(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	camelot, avalon := newRealm(t, "Camelot", a), newRealm(t, "Avalon", b)
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "over TLS"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: over TLS")
}

// A server whose certificate another CA signed gets no route, and the log says why.
func TestARouteFromAnotherCAIsRefusedAndLogged(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	a := tlsServer(t, "a", testcerts.New(t, "realms").Issue(t, "a"), log)
	b := tlsServer(t, "b", testcerts.New(t, "strangers").Issue(t, "b"), log, a.ClusterAddr())
	waitFor(t, "a route's TLS error in the log:\n"+buf.String(), func() bool {
		return strings.Contains(buf.String(), "level=WARN") && strings.Contains(buf.String(), "TLS route handshake error")
	})
	if a.s.NumRoutes() != 0 || b.s.NumRoutes() != 0 {
		t.Fatalf("routes: a %d, b %d; want none", a.s.NumRoutes(), b.s.NumRoutes())
	}
}

// A realm reaches a server that asks for TLS at tls:// trusting its CA and showing its
// certificate; without the CA it is refused at once, saying why.
func TestABusConnectsOverTLS(t *testing.T) {
	ca := testcerts.New(t, "nats")
	url := clientTLSServer(t, ca.Issue(t, "server"))
	client := ca.Issue(t, "realm")
	tlsTo := func(c *Config) { c.TLS = &TLS{Cert: client.Cert, Key: client.Key, CA: client.CA} }
	camelot := newRealm(t, "Camelot", nil, external(url, "pw-Camelot"), tlsTo)
	avalon := newRealm(t, "Avalon", nil, external(url, "pw-Avalon"), tlsTo)
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")

	stranger := testcerts.New(t, "strangers").Issue(t, "realm")
	_, err := Open(Config{Realm: "Lyonesse", URL: url, Password: "pw-Lyonesse", TLS: &TLS{Cert: stranger.Cert, Key: stranger.Key, CA: stranger.CA}})
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("a bus trusting another CA: %v", err)
	}
}

// clientTLSServer starts a nats-server that takes clients only over TLS, with a certificate
// the pair's CA signed, and returns its tls:// URL. Its users are the realms Camelot,
// Avalon and Lyonesse, each with the password "pw-" and its name.
func clientTLSServer(t *testing.T, p testcerts.Pair) string {
	t.Helper()
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: p.Cert, KeyFile: p.Key, CaFile: p.CA, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	tc.ClientAuth = tls.RequireAndVerifyClientCert
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		TLS: true, TLSVerify: true, TLSConfig: tc, TLSTimeout: 5, Users: usersOf("Camelot", "Avalon", "Lyonesse")})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	return strings.Replace(s.ClientURL(), "nats://", "tls://", 1)
}

// usersOf are the realms named as users of an external server, each with the password
// "pw-" and its name.
func usersOf(realms ...string) []*server.User {
	var us []*server.User
	for _, r := range realms {
		us = append(us, realmUser("orthanc", r, "pw-"+r))
	}
	return us
}

// syncBuffer is a buffer several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
