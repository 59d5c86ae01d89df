package talk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// The embedded server: a realm that runs no NATS of its own elsewhere runs a nats-server in
// its process, joined to the other realms' by routes (a cluster: every message reaches
// every server that has interest in it). Core NATS only, no JetStream: nothing is kept.

// ServerConfig says how to run the embedded server.
type ServerConfig struct {
	// Name is the server's name in the cluster (the realm's, say).
	Name string
	// Listen is the address the realm (and any other client) connects to; "127.0.0.1:0"
	// when empty (a free port, for tests).
	Listen string
	// Cluster is the address the other servers' routes connect to; "" for a server alone.
	Cluster string
	// Routes are the other servers' cluster addresses (host:port, or nats-route:// URLs).
	Routes []string
	// ClusterName must be the same on every server of the cluster; "orthanc" when empty.
	ClusterName string
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

// Server is an embedded nats-server.
type Server struct{ s *server.Server }

// StartServer starts an embedded server and waits until it takes connections.
func StartServer(cfg ServerConfig) (*Server, error) {
	opts, err := cfg.options()
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
	return &Server{s}, nil
}

// options are the server's options from the configuration.
func (cfg ServerConfig) options() (*server.Options, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	host, port, err := splitHostPort(cfg.Listen)
	if err != nil {
		return nil, err
	}
	opts := &server.Options{ServerName: cfg.Name, Host: host, Port: port, NoLog: true, NoSigs: true}
	if cfg.Cluster == "" {
		return opts, nil
	}
	if opts.Cluster.Host, opts.Cluster.Port, err = splitHostPort(cfg.Cluster); err != nil {
		return nil, err
	}
	opts.Cluster.Name = cfg.ClusterName
	if opts.Cluster.Name == "" {
		opts.Cluster.Name = "orthanc"
	}
	// One route to each server, as a 2.9 server has it: the realms' talk is small.
	opts.Cluster.PoolSize = -1
	if opts.Routes, err = routeURLs(cfg.Routes); err != nil {
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

// routeURLs are the routes as URLs.
func routeURLs(routes []string) ([]*url.URL, error) {
	var out []*url.URL
	for _, r := range routes {
		u := server.RoutesFromStr(routeURL(r))
		if len(u) == 0 {
			return nil, fmt.Errorf("talk: route %q", r)
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

// ClientURL is the URL a realm connects to.
func (s *Server) ClientURL() string { return s.s.ClientURL() }

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
