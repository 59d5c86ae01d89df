package talk

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"golang.org/x/crypto/bcrypt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The embedded server: a realm that runs no NATS of its own elsewhere runs a nats-server in
// its process, joined to the other realms' by routes (a cluster: every message reaches
// every server that has interest in it). Core NATS only, no JetStream: nothing is kept.
//
// Who may speak on it: its one user is its realm, connected in-process with a password
// made at start that never leaves the process, and allowed only the subjects that name
// its realm (Permissions). It opens no monitoring port. Its client port is a free
// loopback one, opened only because nats-server starts its routes once that port
// listens (with DontListen they never start); a client there without the password is
// refused. Its routes' port lets a route in only with the cluster's credential (the
// Secret every realm is given) or, with RouteTLS, a certificate of the realms' CA. So a
// message on the bus was published by a realm, on a subject its own server let it use.

// ServerConfig says how to run the embedded server.
type ServerConfig struct {
	// Name is the realm's name: the server's name in the cluster, and the one user its
	// in-process client connects as.
	Name string
	// Prefix is the subjects' first words, as the bus's Config.Prefix; "orthanc" when
	// empty.
	Prefix string
	// Cluster is the address the other servers' routes connect to; "" for a server alone.
	Cluster string
	// Routes are the other servers' cluster addresses (host:port, or nats-route:// URLs).
	Routes []string
	// ClusterName must be the same on every server of the cluster; "orthanc" when empty.
	ClusterName string
	// Secret is the cluster's credential: a route in must show it, and the server shows it
	// on its routes out. Every server of the cluster has the same. Required with Cluster
	// unless RouteTLS authenticates the routes.
	Secret string
	// RouteTLS, when set, puts the routes under TLS: each server shows its certificate and
	// asks the other's, both signed by the CA (nats-server's cluster tls block). A
	// server whose routes use TLS cannot route with one whose do not.
	RouteTLS *TLS
	// Log is told of what goes wrong on the server (a route refused, say); nothing when nil.
	Log *slog.Logger
}

// TLS names the PEM files of a realm's TLS on NATS: its certificate and key, and the CA
// that signed its peers'.
type TLS struct{ Cert, Key, CA string }

// routeTLSTimeout is how long a route's TLS handshake may take: a few round trips between
// continents, and more.
const routeTLSTimeout = 5 * time.Second

// routeUser is the user name a route shows with the cluster's Secret.
const routeUser = "orthanc"

// ErrNoRouteAuth is StartServer's refusal of routes with neither a Secret nor RouteTLS:
// anyone who reaches the port could join the cluster and read and say everything.
var ErrNoRouteAuth = errors.New("talk: routes with no credential: every route must show the cluster's secret or a certificate of its CA")

// Server is an embedded nats-server, and the password of its realm's in-process client.
type Server struct {
	s        *server.Server
	realm    string
	password string
}

// StartServer starts an embedded server and waits until it takes connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	if !validWord(cfg.Name) {
		return nil, fmt.Errorf("%w: realm name %q (1 to %d letters, digits, - or _)", ErrBadConfig, cfg.Name, world.MaxRealmName)
	}
	password, err := newPassword()
	if err != nil {
		return nil, err
	}
	// The server keeps only the password's hash (and does not warn of a plaintext one).
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		return nil, fmt.Errorf("talk: a password for the in-process client: %w", err)
	}
	opts, err := cfg.options(string(hash))
	if err != nil {
		return nil, err
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("talk: nats server: %w", err)
	}
	if cfg.Log != nil {
		s.SetLogger(serverLog{cfg.Log}, false, false)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("talk: nats server did not start")
	}
	return &Server{s: s, realm: cfg.Name, password: password}, nil
}

// newPassword is a password for the in-process client: 128 random bits, never written
// anywhere, so no one outside the process can connect as the realm even if a client port
// were opened.
func newPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("talk: a password for the in-process client: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// options are the server's options from the configuration: a loopback client port and
// no monitoring port; one user, the realm, of the password's hash, held to its subjects;
// routes that show the cluster's secret.
func (cfg ServerConfig) options(hash string) (*server.Options, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = "orthanc"
	}
	opts := &server.Options{ServerName: cfg.Name, Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Users: []*server.User{realmUser(cfg.Prefix, cfg.Name, hash)}}
	if cfg.Cluster == "" {
		return opts, nil
	}
	if cfg.Secret == "" && cfg.RouteTLS == nil {
		return nil, ErrNoRouteAuth
	}
	var err error
	if opts.Cluster.Host, opts.Cluster.Port, err = splitHostPort(cfg.Cluster); err != nil {
		return nil, err
	}
	if cfg.Secret != "" {
		// Routes the cluster tells of (implicit ones) show these too.
		opts.Cluster.Username, opts.Cluster.Password = routeUser, cfg.Secret
	}
	opts.Cluster.Name = cfg.ClusterName
	if opts.Cluster.Name == "" {
		opts.Cluster.Name = "orthanc"
	}
	// One route to each server, as a 2.9 server has it: the realms' talk is small.
	opts.Cluster.PoolSize = -1
	if opts.Routes, err = routeURLs(cfg.Routes, cfg.Secret); err != nil {
		return nil, err
	}
	if cfg.RouteTLS != nil {
		err = routeTLS(opts, *cfg.RouteTLS)
	}
	return opts, err
}

// routeTLS sets the routes' TLS as a nats-server's cluster tls block does: strict, each
// end verifying the other's certificate against the CA.
func routeTLS(opts *server.Options, f TLS) error {
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: f.Cert, KeyFile: f.Key, CaFile: f.CA, Verify: true})
	if err != nil {
		return fmt.Errorf("talk: routes' TLS: %w", err)
	}
	tc.ClientAuth = tls.RequireAndVerifyClientCert
	tc.RootCAs = tc.ClientCAs
	opts.Cluster.TLSConfig = tc
	opts.Cluster.TLSTimeout = routeTLSTimeout.Seconds()
	return nil
}

// routeURLs are the routes as URLs, each showing the secret (a route out shows the
// credential its URL holds).
func routeURLs(routes []string, secret string) ([]*url.URL, error) {
	var out []*url.URL
	for _, r := range routes {
		u := server.RoutesFromStr(routeURL(r))
		if len(u) == 0 {
			return nil, fmt.Errorf("talk: route %q", r)
		}
		for _, ru := range u {
			if secret != "" {
				ru.User = url.UserPassword(routeUser, secret)
			}
		}
		out = append(out, u...)
	}
	return out, nil
}

// splitHostPort reads host:port, port 0 (or none) asking for a free one.
func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("talk: address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("talk: address %q: bad port", addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	return host, port, nil
}

// routeURL is a route as a URL.
func routeURL(r string) string {
	if _, _, err := net.SplitHostPort(r); err == nil {
		return "nats-route://" + r
	}
	return r
}

// ClientAddr is the address of the server's client port, which no one but its realm
// can use; for the tests and the log.
func (s *Server) ClientAddr() string {
	if a, ok := s.s.Addr().(*net.TCPAddr); ok {
		return a.String()
	}
	return ""
}

// clientOptions connect the realm to the server in-process, as its user.
func (s *Server) clientOptions() []nats.Option {
	return []nats.Option{nats.InProcessServer(s.s), nats.UserInfo(s.realm, s.password)}
}

// ClusterAddr is the address the other servers' routes connect to, or "" for a server
// alone.
func (s *Server) ClusterAddr() string {
	if a := s.s.ClusterAddr(); a != nil {
		return a.String()
	}
	return ""
}

// WaitRoutes waits until the server has routes to n other servers, or ctx ends.
func (s *Server) WaitRoutes(ctx context.Context, n int) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for s.s.NumRoutes() < n {
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("talk: %d of %d routes: %w", s.s.NumRoutes(), n, ctx.Err())
		}
	}
	return nil
}

// Close stops the server.
func (s *Server) Close() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
}

// serverLog hands the embedded server's warnings and errors to the realm's log, as
// warnings: what it calls an error is mostly a route to a realm not up yet, which it
// retries; a route's TLS refused says so there too. Its notices, debugging and tracing
// are left out.
type serverLog struct{ l *slog.Logger }

func (s serverLog) Noticef(string, ...any) {}
func (s serverLog) Debugf(string, ...any)  {}
func (s serverLog) Tracef(string, ...any)  {}
func (s serverLog) Warnf(format string, v ...any) {
	s.l.Warn("nats-server: " + fmt.Sprintf(format, v...))
}
func (s serverLog) Errorf(format string, v ...any) {
	s.l.Warn("nats-server: " + fmt.Sprintf(format, v...))
}
func (s serverLog) Fatalf(format string, v ...any) {
	s.l.Error("nats-server: " + fmt.Sprintf(format, v...))
}
