package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/orthanc-ssh/orthanc-ssh/realm"
)

// The realm's client of etcd, over TLS when -etcd-ca, -etcd-cert or -etcd-key is given or
// an endpoint is https://. etcd's client waits out a TLS handshake that fails as it would
// an etcd that is down, and says only that the time ran out; so a realm first asks each
// endpoint for its version the same way (HTTP, over the same TLS), and stops at start,
// saying which, when a certificate is refused either way, or when etcd hangs up on it in
// plaintext (it serves TLS).

// ErrEtcdTrust is a start refused because the realm does not trust etcd's certificate;
// ErrEtcdRefused, because etcd refused the realm's (or its lack of one); ErrEtcdPlain,
// because etcd hung up on the realm's plaintext.
var (
	ErrEtcdTrust   = errors.New("etcd's certificate is not trusted")
	ErrEtcdRefused = errors.New("etcd refused this realm's TLS")
	ErrEtcdPlain   = errors.New("etcd hung up on this realm's plaintext")
)

// openEtcd connects to the etcd of cfg, having asked it for its version first.
func openEtcd(cfg Config) (*clientv3.Client, error) {
	tc, err := etcdTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := probeEtcd(cfg.Etcd, tc); err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: cfg.Etcd, TLS: tc, DialTimeout: realmCallTimeout,
		DialOptions: realm.DialOptions(), Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("etcd %v: %w", cfg.Etcd, err)
	}
	return cli, nil
}

// etcdTLSConfig is the TLS to etcd, built by etcd's own TLSInfo; nil: plaintext.
func etcdTLSConfig(cfg Config) (*tls.Config, error) {
	if !etcdUsesTLS(cfg) {
		return nil, nil
	}
	f := cfg.EtcdTLS
	tc, err := transport.TLSInfo{CertFile: f.Cert, KeyFile: f.Key, TrustedCAFile: f.CA}.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("TLS to etcd: %w", err)
	}
	return tc, nil
}

// etcdUsesTLS reports whether the realm reaches etcd over TLS: with a TLS file, or an
// https:// endpoint.
func etcdUsesTLS(cfg Config) bool {
	return !cfg.EtcdTLS.empty() || slices.ContainsFunc(cfg.Etcd, func(e string) bool { return strings.HasPrefix(e, "https://") })
}

// probeEtcd asks every endpoint for its version at once, over tc (nil: plaintext). It
// returns nil when one answers, or when none was reached (etcd down: the realm waits for
// it as ever); else the first failure of TLS, or of plaintext to TLS.
func probeEtcd(endpoints []string, tc *tls.Config) error {
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	tr := &http.Transport{TLSClientConfig: tc}
	defer tr.CloseIdleConnections()
	errs := make(chan error, len(endpoints))
	for _, e := range endpoints {
		go func() { errs <- probeEndpoint(ctx, &http.Client{Transport: tr}, e, tc != nil) }()
	}
	var first error
	for range endpoints {
		err := <-errs
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// probeEndpoint asks one endpoint for its version, over TLS when secure: nil when it
// answers, or when it could not be reached for another reason than TLS.
func probeEndpoint(ctx context.Context, c *http.Client, endpoint string, secure bool) error {
	url := "http://" + strings.TrimPrefix(endpoint, "http://") + "/version"
	if secure {
		url = "https://" + strings.TrimPrefix(endpoint, "https://") + "/version"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("etcd endpoint %q: %w", endpoint, err)
	}
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
		return nil
	}
	trust, refused := tlsTrouble(err)
	switch {
	case trust:
		return fmt.Errorf("%w: %s: %v", ErrEtcdTrust, endpoint, tlsCause(err))
	case refused:
		return fmt.Errorf("%w: %s: %v", ErrEtcdRefused, endpoint, tlsCause(err))
	case !hungUp(err):
		return nil
	case secure:
		// Its alert lost to the race of its close with the request's write.
		return fmt.Errorf("%w: %s: it closed the connection unanswered", ErrEtcdRefused, endpoint)
	}
	return fmt.Errorf("%w: %s: it closed the connection unanswered", ErrEtcdPlain, endpoint)
}

// hungUp reports whether err is the other end closing the connection.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// tlsTrouble tells a failure of TLS: trust when this end did not trust the other's
// certificate; refused when the other end sent an alert (it refused this end's
// certificate, or its lack of one) or spoke no TLS.
func tlsTrouble(err error) (trust, refused bool) {
	var verify *tls.CertificateVerificationError
	var host x509.HostnameError
	var header tls.RecordHeaderError
	var op *net.OpError
	trust = errors.As(err, &verify) || errors.As(err, &host)
	refused = errors.As(err, &op) && op.Op == "remote error" || errors.As(err, &header)
	return trust, refused
}

// tlsCause is err without the request's words around it ("Get "https://...": ").
func tlsCause(err error) error {
	if u := errors.Unwrap(err); u != nil && strings.HasPrefix(err.Error(), "Get ") {
		return u
	}
	return err
}
