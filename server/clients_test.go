package server

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// Regression (issue 17): the server offered the library's default algorithms, among them
// key exchanges on NIST curves and with SHA-1 and MACs with SHA-1 or encrypt-and-MAC,
// which ssh-audit fails or warns on. A client that offers only one of those is refused;
// OpenSSH, PuTTY and Dropbear still connect.

// A client offering only an algorithm the server dropped cannot connect. Each tries from
// an address of its own: a failed handshake charges its address (edge.Slot), and the
// fourth from one address would be refused before the algorithms are compared.
func TestDroppedAlgorithmsAreRefused(t *testing.T) {
	ts := startServer(t, t.TempDir())
	key := newKey(t)
	for i, tc := range []struct {
		name string
		cfg  gossh.Config
	}{
		{"kex ecdh-sha2-nistp256", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP256}}},
		{"kex ecdh-sha2-nistp384", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP384}}},
		{"kex ecdh-sha2-nistp521", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP521}}},
		{"kex diffie-hellman-group14-sha1", gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH14SHA1}}},
		{"kex diffie-hellman-group14-sha256", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeDH14SHA256}}},
		{"kex diffie-hellman-group1-sha1", gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH1SHA1}}},
		{"cipher aes128-cbc", gossh.Config{Ciphers: []string{gossh.InsecureCipherAES128CBC}}},
		{"cipher 3des-cbc", gossh.Config{Ciphers: []string{gossh.InsecureCipherTripleDESCBC}}},
		{"mac hmac-sha1", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA1}}},
		{"mac hmac-sha1-96", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.InsecureHMACSHA196}}},
		{"mac hmac-sha2-256", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA256}}},
		{"mac hmac-sha2-512", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA512}}},
	} {
		from := fmt.Sprintf("127.0.0.%d", 10+i)
		t.Run(tc.name, func(t *testing.T) {
			c, err := dialFrom(ts.addr, from, &gossh.ClientConfig{Config: tc.cfg, User: "player",
				Auth: []gossh.AuthMethod{gossh.PublicKeys(key)}, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			if !strings.Contains(err.Error(), "no common algorithm") {
				t.Fatalf("refused, but not for the algorithm: %v", err)
			}
		})
	}
	// What the server offers still serves a client that takes the library's defaults.
	if _, _, code := runCmd(t, ts.addr, key, "help"); code != 0 {
		t.Fatal("a default client was refused")
	}
}

// dialFrom makes an SSH client connection to addr from the loopback address from.
func dialFrom(addr, from string, cfg *gossh.ClientConfig) (*gossh.Client, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: cfg.Timeout}
	raw, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c, chans, reqs, err := gossh.NewClientConn(raw, addr, cfg)
	if err != nil {
		raw.Close()
		return nil, err
	}
	return gossh.NewClient(c, chans, reqs), nil
}

// OpenSSH's ssh, PuTTY's plink and Dropbear's dbclient connect with the algorithms the
// server offers, and run a command.
func TestClientsConnect(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	host, port, _ := net.SplitHostPort(ts.addr)
	_, keyPath := newKeyFile(t)
	hostKey, _, _, err := keys.LoadOrCreateHostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, out string, err error) {
		t.Helper()
		if err != nil || !strings.Contains(out, "whoami") {
			t.Fatalf("the command failed (%v):\n%s", err, out)
		}
	}
	t.Run("OpenSSH", func(t *testing.T) {
		ssh := clientBinary(t, "ssh", "openssh-client")
		out, err := client(t, ssh, append(opensshOptions(keyPath), "-p", port, "player@"+host, "help")...)
		check(t, out, err)
	})
	t.Run("PuTTY", func(t *testing.T) {
		plink := clientBinary(t, "plink", "putty-tools")
		puttygen := clientBinary(t, "puttygen", "putty-tools")
		ppk := keyPath + ".ppk"
		if out, err := client(t, puttygen, keyPath, "-O", "private", "-o", ppk); err != nil {
			t.Fatalf("puttygen: %v\n%s", err, out)
		}
		out, err := client(t, plink, "-batch", "-ssh", "-P", port, "-i", ppk,
			"-hostkey", keys.Fingerprint(hostKey.PublicKey()), "player@"+host, "help")
		check(t, out, err)
	})
	t.Run("Dropbear", func(t *testing.T) {
		dbclient := clientBinary(t, "dbclient", "dropbear-bin")
		convert := clientBinary(t, "dropbearconvert", "dropbear-bin")
		db := keyPath + ".dropbear"
		if out, err := client(t, convert, "openssh", "dropbear", keyPath, db); err != nil {
			t.Fatalf("dropbearconvert: %v\n%s", err, out)
		}
		// -y -y: no host key check (the test's server is new each run).
		out, err := client(t, dbclient, "-y", "-y", "-i", db, "-p", port, "player@"+host, "help")
		check(t, out, err)
	})
}

// ssh-audit (where installed) finds nothing to fail or warn on in the key exchanges, host
// key, ciphers and MACs, but the algorithms newer than it knows.
func TestSSHAudit(t *testing.T) {
	audit := clientBinary(t, "ssh-audit", "ssh-audit")
	ts := startServer(t, t.TempDir())
	host, port, _ := net.SplitHostPort(ts.addr)
	out, _ := client(t, audit, "-n", "-p", port, host) // -n: no colours; the exit status counts warnings
	sections := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "(kex)") || strings.HasPrefix(line, "(key)") || strings.HasPrefix(line, "(enc)") || strings.HasPrefix(line, "(mac)") {
			sections++
		}
		if (strings.Contains(line, "[fail]") || strings.Contains(line, "[warn]")) && !strings.Contains(line, "unknown algorithm") {
			t.Errorf("ssh-audit: %s", strings.TrimSpace(line))
		}
	}
	if sections == 0 {
		t.Fatalf("ssh-audit printed no algorithms:\n%s", out)
	}
}
