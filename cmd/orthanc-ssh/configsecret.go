package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The realms' secret (-realm-secret FILE): what admits a realm to the talk between
// realms. With -nats-listen it is the routes' credential, the same file on every realm,
// without which the embedded nats-server would take a route from anyone who reaches its
// port; with -nats it is this realm's password on that server, whose user is the realm's
// name. -make-realm-secret FILE writes a new one.

// minSecret is the shortest secret taken: 128 bits written in hex.
const minSecret = 32

// secretFlags declares -realm-secret and -make-realm-secret.
func secretFlags(fs *flag.FlagSet, c *options, getenv func(string) string) {
	fs.StringVar(&c.secretFile, "realm-secret", getenv("ORTHANC_REALM_SECRET"), "file of the secret that admits this realm to the talk between realms: with -nats-listen the routes' credential, the same file on every realm (required, unless the routes use TLS); with -nats this realm's password on that server, whose user is the realm's name. Make one with -make-realm-secret (env ORTHANC_REALM_SECRET)")
	fs.StringVar(&c.makeSecret, "make-realm-secret", "", "write a new realms' secret (256 random bits in hex, mode 0600) to this file, which must not exist, and exit")
}

// readSecret reads -realm-secret's file into RealmSecret and checks it goes with the
// talk's settings.
func (c *options) readSecret() error {
	secret := named("realm-secret", "ORTHANC_REALM_SECRET")
	switch {
	case c.secretFile == "" && c.NATSListen != "" && c.NATSTLS.CA == "":
		return fmt.Errorf("%s needs %s: without it any program that reaches the routes' port could join the realms' talk. "+
			"Make one with orthanc-ssh -make-realm-secret FILE (or openssl rand -hex 32 > FILE) and give every realm that file, or put the routes under TLS (-nats-ca, -nats-cert, -nats-key)",
			named("nats-listen", "ORTHANC_NATS_LISTEN"), secret)
	case c.secretFile == "":
		return nil
	case c.NATSListen == "" && c.NATSURL == "":
		return fmt.Errorf("%s needs %s or %s: the talk it admits the realm to", secret, named("nats-listen", "ORTHANC_NATS_LISTEN"), named("nats", "ORTHANC_NATS"))
	}
	data, err := os.ReadFile(c.secretFile)
	if err != nil {
		return fmt.Errorf("%s: %v", secret, err)
	}
	s := strings.TrimSpace(string(data))
	if len(s) < minSecret || strings.ContainsAny(s, " \t\r\n\"\\") {
		return fmt.Errorf("%s %q: want one line of %d characters or more, without spaces or quotes (orthanc-ssh -make-realm-secret FILE writes one)", secret, c.secretFile, minSecret)
	}
	c.RealmSecret = s
	return nil
}

// makeRealmSecret writes a new secret to path, refusing to overwrite a file: a realm's
// secret replaced by mistake cuts it off from the others.
func makeRealmSecret(path string) error {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("make a realms' secret: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("-make-realm-secret %q: the file exists; to rotate the secret, write the new one elsewhere (OPERATIONS, Talk between realms)", path)
	}
	if err != nil {
		return fmt.Errorf("-make-realm-secret: %w", err)
	}
	if _, err := fmt.Fprintln(f, hex.EncodeToString(b)); err != nil {
		f.Close()
		return fmt.Errorf("-make-realm-secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("-make-realm-secret: %w", err)
	}
	return nil
}
