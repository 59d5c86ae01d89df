package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/server"
)

// TLS settings of a realm (-etcd-ca, -etcd-cert, -etcd-key; -nats-ca, -nats-cert,
// -nats-key): PEM files (server.TLSFiles), read once at start to refuse a bad one naming
// its flag before anything listens. The connections read them again themselves.

// tlsFlags declares the three flags of one side, -NAME-ca, -NAME-cert and -NAME-key, and
// their variables ORTHANC_ENV_CA, _CERT and _KEY; ca and cert are the first two's help.
func tlsFlags(fs *flag.FlagSet, f *server.TLSFiles, getenv func(string) string, name, env, ca, cert string) {
	fs.StringVar(&f.CA, name+"-ca", getenv(env+"_CA"), fmt.Sprintf("%s (env %s_CA)", ca, env))
	fs.StringVar(&f.Cert, name+"-cert", getenv(env+"_CERT"), fmt.Sprintf("%s; with -%s-key (env %s_CERT)", cert, name, env))
	fs.StringVar(&f.Key, name+"-key", getenv(env+"_KEY"), fmt.Sprintf("PEM file of the private key of -%s-cert (env %s_KEY)", name, env))
}

// checkTLSFiles reads f's files: each must be there, readable and PEM, the certificate
// and key given together and matching. The error names the flag (-NAME-...) and variable.
func checkTLSFiles(f server.TLSFiles, name, env string) error {
	ca, cert, key := named(name+"-ca", env+"_CA"), named(name+"-cert", env+"_CERT"), named(name+"-key", env+"_KEY")
	switch {
	case f.Cert != "" && f.Key == "":
		return fmt.Errorf("%s needs %s: the certificate's private key", cert, key)
	case f.Key != "" && f.Cert == "":
		return fmt.Errorf("%s needs %s: the key's certificate", key, cert)
	}
	if f.CA != "" {
		data, err := readPEM(f.CA, ca, "CERTIFICATE")
		if err != nil {
			return err
		}
		if !x509.NewCertPool().AppendCertsFromPEM(data) {
			return fmt.Errorf("%s %q: its certificate cannot be read", ca, f.CA)
		}
	}
	if f.Cert == "" {
		return nil
	}
	return checkPair(f, cert, key)
}

// checkPair reads the certificate and key, named cert and key, and checks they match.
func checkPair(f server.TLSFiles, cert, key string) error {
	certPEM, err := readPEM(f.Cert, cert, "CERTIFICATE")
	if err != nil {
		return err
	}
	keyPEM, err := readPEM(f.Key, key, "PRIVATE KEY")
	if err != nil {
		return err
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return fmt.Errorf("%s %q and %s %q: %v (is it that certificate's key?)", key, f.Key, cert, f.Cert, strings.TrimPrefix(err.Error(), "tls: "))
	}
	return nil
}

// readPEM reads the file path of the setting named, which must hold a PEM block whose type
// ends with kind ("CERTIFICATE", "PRIVATE KEY").
func readPEM(path, setting, kind string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", setting, err)
	}
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return nil, fmt.Errorf("%s %q: no PEM %s in it", setting, path, strings.ToLower(kind))
		}
		if strings.HasSuffix(b.Type, kind) {
			return data, nil
		}
	}
}

// checkTLS checks the realm's TLS settings: their files, and that they go with the
// connections they are for.
func (c *options) checkTLS() error {
	if err := checkTLSFiles(c.EtcdTLS, "etcd", "ORTHANC_ETCD"); err != nil {
		return err
	}
	if err := checkTLSFiles(c.NATSTLS, "nats", "ORTHANC_NATS"); err != nil {
		return err
	}
	if err := c.checkEtcdTLS(); err != nil {
		return err
	}
	return c.checkNATSTLS()
}

// checkEtcdTLS checks that TLS to etcd has an etcd, whose endpoints are not plaintext.
func (c *options) checkEtcdTLS() error {
	if c.EtcdTLS == (server.TLSFiles{}) {
		return nil
	}
	given := firstGiven(c.EtcdTLS, "etcd", "ORTHANC_ETCD")
	if len(c.Etcd) == 0 {
		return fmt.Errorf("%s needs %s: the etcd to reach over TLS", given, named("etcd", "ORTHANC_ETCD"))
	}
	for _, e := range c.Etcd {
		if strings.HasPrefix(e, "http://") {
			return fmt.Errorf("%s %q is plaintext, but %s asks for TLS: write https://", named("etcd", "ORTHANC_ETCD"), e, given)
		}
	}
	return nil
}

// checkNATSTLS checks that TLS on NATS has a NATS, and that routes have all three files:
// each end of a route shows its certificate and verifies the other's.
func (c *options) checkNATSTLS() error {
	f := c.NATSTLS
	switch {
	case f == (server.TLSFiles{}):
		return nil
	case c.NATSURL == "" && c.NATSListen == "":
		return fmt.Errorf("%s needs %s or %s: the NATS to reach over TLS", firstGiven(f, "nats", "ORTHANC_NATS"),
			named("nats", "ORTHANC_NATS"), named("nats-listen", "ORTHANC_NATS_LISTEN"))
	case c.NATSListen != "" && (f.CA == "" || f.Cert == ""):
		return fmt.Errorf("%s with TLS needs %s, %s and %s: the routes' servers show their certificates and verify each other's",
			named("nats-listen", "ORTHANC_NATS_LISTEN"), named("nats-cert", "ORTHANC_NATS_CERT"), named("nats-key", "ORTHANC_NATS_KEY"), named("nats-ca", "ORTHANC_NATS_CA"))
	}
	return nil
}

// firstGiven names the first of a side's TLS settings that is given.
func firstGiven(f server.TLSFiles, name, env string) string {
	switch {
	case f.CA != "":
		return named(name+"-ca", env+"_CA")
	case f.Cert != "":
		return named(name+"-cert", env+"_CERT")
	}
	return named(name+"-key", env+"_KEY")
}
